"""Kernels that call packed functions from TIR (`T.call_packed`).

`Sort` is what LegalizeOps makes of argsort / sort / topk / median on CPU: TIR kernels that
call tvm.contrib.sort.*, which read their input and write only their outputs, so the entry
parameter they read is not written (issue 12 item 4). `Custom` calls
`aliaslog.test.fill_second`, which no table describes: it may write every buffer it is given,
including the parameter.
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Sort:
    @R.function
    def main(x: R.Tensor((4, 5), "float32")):
        with R.dataflow():
            a = R.argsort(x, axis=-1)
            s = R.sort(x, axis=0)
            t = R.topk(x, k=2)
            m = R.median(x, axis=1)
            R.output(a, s, t, m)
        return (a, s, t, m)


@I.ir_module
class Custom:
    @T.prim_func(private=True, s_tir=True)
    def fill(a: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        with T.sblock("fill"):
            T.reads()
            T.writes()
            T.call_packed("aliaslog.test.fill_second",
                          T.tvm_stack_make_array(a.data, T.tvm_stack_make_shape(4), 0, 1,
                                                 T.float32(0), 0),
                          T.tvm_stack_make_array(out.data, T.tvm_stack_make_shape(4), 0, 1,
                                                 T.float32(0), 0))

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Custom
        with R.dataflow():
            y = R.call_tir(cls.fill, (x,), out_ty=R.Tensor((4,), "float32"))
            R.output(y)
        return y
