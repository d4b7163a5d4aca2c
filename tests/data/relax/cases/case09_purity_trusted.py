"""Case 09: DeadCodeElimination trusts purity declarations around effectful code.

`w` wraps an effectful packed function in call_pure_packed, and `u` calls a force_pure
function whose body runs the same packed function through call_packed.  Both results are
unused, so DCE deletes both calls and the effect counter drops from 2 to 0.  In `Clean` the
results are returned, so both calls stay.  CALLS["count"] counts executions.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R

CALLS = {"count": 0}


@tvm_ffi.register_global_func("aliaslog.case09.effect", override=True)
def _effect(t: object) -> object:
    """Record one execution so the test can see whether the effectful call survived."""
    CALLS["count"] += 1
    return t


# Name -> registered function, so a loader can re-register them onto this file's CALLS.
PACKED_FUNCS = {"aliaslog.case09.effect": _effect}


@I.ir_module
class Before:
    @R.function(private=True)
    def helper(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.func_attr({"relax.force_pure": True})
        _y = R.call_packed("aliaslog.case09.effect", x, ty_args=R.Tensor((2,), "float32"))
        return x

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Before
        with R.dataflow():
            _u = cls.helper(x)
            w = R.call_pure_packed("aliaslog.case09.effect", x, ty_args=R.Tensor((2,), "float32"))
            R.output(w)
        return x


@I.ir_module
class Clean:
    @R.function(private=True)
    def helper(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.func_attr({"relax.force_pure": True})
        _y = R.call_packed("aliaslog.case09.effect", x, ty_args=R.Tensor((2,), "float32"))
        return x

    @R.function
    def main(
        x: R.Tensor((2,), "float32"),
    ) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        cls = Clean
        with R.dataflow():
            u = cls.helper(x)
            w = R.call_pure_packed("aliaslog.case09.effect", x, ty_args=R.Tensor((2,), "float32"))
            out = (u, w)
            R.output(out)
        return out
