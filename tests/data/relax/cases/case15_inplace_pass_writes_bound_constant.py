"""Case 15: DataflowUseInplaceCalls writes into a constant that a dataflow block binds.

Reduced from the `BasicLiveness` module of TVM's tests/python/relax/test_dataflow_inplace.py,
where TVM's own test expects `q` to be eligible for an in-place write: `y` is bound to a module
constant, `z = x + y` and `q = z * y`. The pass makes `q = multiply(z, y)` write into `y` (its
last use), so the kernel overwrites the module's constant and each later call computes with
the changed value. No FoldConstant is involved. `Clean` reads the constant only in
`maximum`, which the pass does not make in-place: `q = z * z` is written into `z`, a fresh
tensor, which is safe. (The pass writes into the constant even when the other operand is
fresh: `z = x + x; q = z * y` becomes call_tir_inplace(multiply, (z, y), [1]).)
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((2, 3), "int32")) -> R.Tensor((2, 3), "int32"):
        with R.dataflow():
            y = R.const(np.array([[1, 2, 3], [4, 5, 6]], dtype="int32"))
            z = R.add(x, y)
            q = R.multiply(z, y)
            R.output(q)
        return q


@I.ir_module
class Clean:
    @R.function
    def main(x: R.Tensor((2, 3), "int32")) -> R.Tensor((2, 3), "int32"):
        with R.dataflow():
            y = R.const(np.array([[1, 2, 3], [4, 5, 6]], dtype="int32"))
            z = R.maximum(x, y)
            q = R.multiply(z, z)
            R.output(q)
        return q
