"""Case 18: StaticPlanBlockMemory reuses the storage of a call_inplace_packed argument.

`b = call_inplace_packed(inc, a, inplace_indices=[0])` writes `a` and returns it, so `b` is
`a`. RemovePurityChecking drops the in-place indices before the planner runs, and the planner
assumes a packed call never returns an argument: it sees `a` dead after the call and puts
`c = x * x` in `a`'s storage while `b` is still to be read, so `d = b + c` computes `2c`
instead of `2x + 1 + x^2`. In `Clean`, `c` is computed while `a` is live, in storage of its own.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R

CALLS = {"count": 0}


@tvm_ffi.register_global_func("aliaslog.case18.inc", override=True)
def _inc(t: object) -> object:
    """Add one to the tensor in place and return it (what inplace_indices=[0] declares)."""
    CALLS["count"] += 1
    t.copyfrom(t.numpy() + 1)
    return t


PACKED_FUNCS = {"aliaslog.case18.inc": _inc}


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.call_inplace_packed("aliaslog.case18.inc", a, inplace_indices=[0], ty_args=R.Tensor((4,), "float32"))
            c = R.multiply(x, x)
            d = R.add(b, c)
            R.output(d)
        return d


@I.ir_module
class Clean:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            c = R.multiply(x, x)
            b = R.call_inplace_packed("aliaslog.case18.inc", a, inplace_indices=[0], ty_args=R.Tensor((4,), "float32"))
            d = R.add(b, c)
            R.output(d)
        return d
