"""Case 16: DataflowUseInplaceCalls writes a tensor that a closure has captured.

`clo = make_closure(lifted, (a,))` keeps `a`; the pass sees `a` unused after `b = a * 3` (the
closure's later call is not a use of `a` to it) and makes `b` write `a` in place, so
`invoke_pure_closure(clo, (x,))` reads the clobbered `a`: `x + 3a` instead of `x + a`. In
`Clean` the closure is called before the write, so the rewrite is safe.
"""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function(private=True)
    def lifted(y: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.add(y, a)
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Before
        with R.dataflow():
            a = R.add(x, x)
            clo = R.make_closure(cls.lifted, (a,))
            b = R.multiply(a, R.const(3.0, "float32"))
            r = R.invoke_pure_closure(clo, (x,), ty_args=(R.Tensor((4,), "float32"),))
            out = (b, r)
            R.output(out)
        return out


@I.ir_module
class Clean:
    @R.function(private=True)
    def lifted(y: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.add(y, a)
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Clean
        with R.dataflow():
            a = R.add(x, x)
            clo = R.make_closure(cls.lifted, (a,))
            r = R.invoke_pure_closure(clo, (x,), ty_args=(R.Tensor((4,), "float32"),))
            b = R.multiply(a, R.const(3.0, "float32"))
            out = (b, r)
            R.output(out)
        return out
