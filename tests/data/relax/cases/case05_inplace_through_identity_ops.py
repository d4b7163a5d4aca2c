"""Case 05: DataflowUseInplaceCalls writes through a value that lowering makes an alias.

Every module computes `a = x + x; b = op(a); c = b + 1; d = a * c` in pure code.  The pass
believes `b` is fresh memory and turns `c` into an in-place write of `b`; lowering then makes
`b` be `a` (grad.no_grad legalizes to the identity, and RewriteDataflowReshape turns the other
identity copies into views), so `d` reads the overwritten `a`.  `Clean` (flip) and
`CleanReshape` are controls that stay correct.
"""

from tvm.script import ir as I
from tvm.script import relax as R


# grad.no_grad is legalized to the identity
@I.ir_module
class BeforeNoGrad:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.grad.no_grad(a)
            c = R.add(b, R.const(1.0, "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


# a same-dtype astype is a reshape-pattern copy
@I.ir_module
class BeforeAstype:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.astype(a, "float32")
            c = R.add(b, R.const(1.0, "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


# multiply by 1.0 is a reshape-pattern copy
@I.ir_module
class BeforeMultiplyOne:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, R.const(1.0, "float32"))
            c = R.add(b, R.const(1.0, "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


# a same-shape broadcast_to is a reshape-pattern copy
@I.ir_module
class BeforeBroadcastTo:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.broadcast_to(a, R.shape([4]))
            c = R.add(b, R.const(1.0, "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


# flip really copies, so the in-place write is safe
@I.ir_module
class Clean:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.flip(a, axis=0)
            c = R.add(b, R.const(1.0, "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


# reshape is a known view, so the pass leaves c out of place
@I.ir_module
class CleanReshape:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            b = R.reshape(a, R.shape([4]))
            c = R.add(b, R.const(1.0, "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d
