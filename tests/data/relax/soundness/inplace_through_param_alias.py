"""An in-place write through `gv0 = x` into the entry parameter `x`, read again afterwards.

Lowering drops the alias, so `check` sees the same write of parameter `x` at input (through
`gv0`) and at lowered (through `x`): one finding, named by the parameter (issue 12 item 4).
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                a[v] = a[v] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        with R.dataflow():
            gv0 = x
            w = R.call_tir_inplace(cls.inc, (gv0,), inplace_indices=[0], out_ty=R.Tensor((4,), "float32"))
            r = R.add(w, gv0)
            R.output(r)
        return r
