"""Case 07: DataflowUseInplaceCalls + the "zero" pipeline write into a module constant.

`a = c1 + c2` is a fresh value that is dead after `c = a + x`, so DataflowUseInplaceCalls makes
`c` write `a` in place; FoldConstant (in the zero pipeline) then folds `a` into a Constant, and
the kernel overwrites that constant on every call: with x = 1 three calls return 3, 4, 5, and
every returned tensor is the constant itself.  `Clean` computes `a` from the input, so it is
fresh on every call.
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(R.const(1.0, "float32"), R.const(np.ones(4, "float32")))
            c = R.add(a, x)
            R.output(c)
        return c


@I.ir_module
class Clean:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, R.const(np.ones(4, "float32")))
            c = R.add(a, x)
            R.output(c)
        return c
