"""Case 13: bindings DeadCodeElimination keeps although they are dead.

`main` holds three dead probes next to its real result: an alloc_storage -> alloc_tensor ->
kill_tensor chain that nothing else uses (the impure kill keeps the allocations alive),
`assert_op(True)` (impure, yet it can never fail), and an unused `match_cast` whose type
already holds (DCE never removes a MatchCast).  A precise analysis can remove all five
bindings without changing the result.  `Clean` has the same result without the probes.
"""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        storage = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        tensor = R.memory.alloc_tensor(storage, 0, R.shape([4]), "float32")
        _killed = R.memory.kill_tensor(tensor)
        _checked = R.assert_op(R.const(True, "bool"), format="never fails")
        _cast = R.match_cast(y, R.Tensor((4,), "float32"))
        return y


@I.ir_module
class Clean:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.add(x, x)
        return y
