"""A module TVM's pipeline cannot finish: LowerRuntimeBuiltin gives the closure call's result
the type R.Any, which the R.add after it refuses (an audit of it is partial)."""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function(private=True)
    def lifted(y: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.add(y, a)
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        a = R.add(x, x)
        clo = R.make_closure(cls.lifted, (a,))
        r = R.invoke_pure_closure(clo, (x,), ty_args=(R.Tensor((4,), "float32"),))
        s = R.add(r, a)
        return s
