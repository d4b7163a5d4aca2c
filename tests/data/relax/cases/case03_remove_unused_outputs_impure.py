"""Case 03: RemoveUnusedOutputs deletes a call to an impure private function.

`side` is `pure=False` (it calls an effectful packed function) and returns a tuple; `main`
uses no element of it, so RemoveUnusedOutputs never re-emits the call and the effect is lost.
DeadCodeElimination alone keeps the call.  In `Clean` one tuple element is used, so the
call survives.  CALLS["count"] counts executions of the packed function.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R

CALLS = {"count": 0}


@tvm_ffi.register_global_func("aliaslog.case03.effect", override=True)
def _effect(x: object) -> object:
    """Record one execution so the test can see whether the impure call survived."""
    CALLS["count"] += 1
    return x


# Name -> registered function, so a loader can re-register them onto this file's CALLS.
PACKED_FUNCS = {"aliaslog.case03.effect": _effect}


@I.ir_module
class Before:
    @R.function(private=True, pure=False)
    def side(
        x: R.Tensor((2,), "float32"),
    ) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        _e = R.call_packed("aliaslog.case03.effect", x, ty_args=R.Tensor((2,), "float32"))
        y = R.add(x, x)
        return (y, x)

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Before
        _t = cls.side(x)
        return x


@I.ir_module
class Clean:
    @R.function(private=True, pure=False)
    def side(
        x: R.Tensor((2,), "float32"),
    ) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        _e = R.call_packed("aliaslog.case03.effect", x, ty_args=R.Tensor((2,), "float32"))
        y = R.add(x, x)
        return (y, x)

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Clean
        t = cls.side(x)
        y = t[0]
        return y
