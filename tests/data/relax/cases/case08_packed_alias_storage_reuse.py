"""Case 08: StaticPlanBlockMemory reuses the storage of a value a packed call returned.

`b = call_pure_packed(identity, a)` returns `a` itself.  The planner assumes a packed call
never returns an alias of its argument, sees `a` dead after the call, and places `c = x * x`
in `a`'s storage, so `d = b + c` computes 2x^2 instead of 2x + x^2.  In `Clean`, `a` is still
read at the end, so its storage is not reused while `b` is live.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R

CALLS = {"count": 0}


@tvm_ffi.register_global_func("aliaslog.case08.identity", override=True)
def _identity(t: object) -> object:
    """Return the argument itself: the alias the memory planner does not expect."""
    CALLS["count"] += 1
    return t


# Name -> registered function, so a loader can re-register them onto this file's CALLS.
PACKED_FUNCS = {"aliaslog.case08.identity": _identity}


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.call_pure_packed("aliaslog.case08.identity", a, ty_args=R.Tensor((4,), "float32"))
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
            b = R.call_pure_packed("aliaslog.case08.identity", a, ty_args=R.Tensor((4,), "float32"))
            c = R.multiply(x, x)
            d = R.add(b, c)
            e = R.add(d, a)
            R.output(e)
        return e
