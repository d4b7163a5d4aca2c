"""A chain of elementwise ops for VerifiedInplace: which calls go in place, and why not the rest.

`a = x + y` may not write `x` (an entry parameter: the caller's tensor) unless `x` is donated;
`d = c * c` may not write `c` (it is both arguments); `e = sum(d)` has no input of its output's
shape; the others may write their input, which nothing reads afterwards.
"""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3,), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.exp(a)
            c = R.nn.relu(b)
            d = R.multiply(c, c)
            e = R.sum(d, axis=[1])
            f = R.add(d, R.const(1.0, "float32"))
            R.output(e, f)
        return (e, f)
