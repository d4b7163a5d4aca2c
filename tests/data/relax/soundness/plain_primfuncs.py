"""call_tir of PrimFuncs that are not s_tir blocks: TVM's has_reshape_pattern aborts on them.

`Dataflow` calls a plain loop nest from a dataflow block, where RewriteDataflowReshape asks
has_reshape_pattern and relax.build fails; `Bindings` does the same outside a dataflow block
(TVM builds and runs it), and calls a kernel whose body is `T.evaluate(0)` (issue 12 item 4).
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Dataflow:
    @T.prim_func(private=True)
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Dataflow
        with R.dataflow():
            y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), "float32"))
            z = R.add(y, y)
            R.output(z)
        return z


@I.ir_module
class Bindings:
    @T.prim_func(private=True)
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i]

    @T.prim_func(private=True)
    def nothing(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Bindings
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), "float32"))
        z = R.call_tir(cls.nothing, (y,), out_ty=R.Tensor((4,), "float32"))
        dead = R.add(z, z)
        return y
