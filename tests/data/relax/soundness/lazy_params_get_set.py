"""The shape LazyTransformParams gives a module: parameters fetched and results stored by
packed calls, each kernel's input killed after its last use (TVM's own pass output of this
shape is in its tests; issue 12 item 4).

StaticPlanBlockMemory puts `t1` in the storage of `t0` once `t0` has been handed to `store`,
its last use. `store` keeps the tensor (as a user's set_item may), so the kept `t0` is
overwritten by `t1`: STORE[2] ends up holding x1 * 3. That is the one finding. What is not one:
`fetch(1)` returning `t1` or `t0` (in this invocation they do not exist yet when it runs), the
kills (they end a lifetime and read nothing), the MatchCasts (checks TVM never removes, not
purity assertions).
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R

STORE: dict[int, object] = {}


@tvm_ffi.register_global_func("aliaslog.test.fetch", override=True)
def _fetch(i: int) -> object:
    """The i-th input parameter."""
    return STORE[i]


@tvm_ffi.register_global_func("aliaslog.test.store", override=True)
def _store(i: int, value: object) -> None:
    """Keep a transformed parameter (the packed call holds on to it)."""
    STORE[i] = value


@I.ir_module
class Module:
    @R.function(pure=False)
    def main() -> R.Tuple:
        a0 = R.call_packed("aliaslog.test.fetch", R.prim_value(0), ty_args=R.Any)
        w0 = R.match_cast(a0, R.Tensor((8,), "int32"))
        a1 = R.call_packed("aliaslog.test.fetch", R.prim_value(1), ty_args=R.Any)
        w1 = R.match_cast(a1, R.Tensor((8,), "int32"))
        t0 = R.add(w0, R.const(1, "int32"))
        _k0 = R.vm.kill_object(w0)
        _s0 = R.call_packed("aliaslog.test.store", R.prim_value(2), t0, ty_args=R.Any)
        t1 = R.multiply(w1, R.const(3, "int32"))
        _k1 = R.vm.kill_object(w1)
        _s1 = R.call_packed("aliaslog.test.store", R.prim_value(3), t1, ty_args=R.Any)
        return R.tuple()
