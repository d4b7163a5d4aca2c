"""An initializer whose kernel reads a constant table and zeroes it as it goes (`scrub`).

Called again, it would read the zeroed table: `inplace-const`. Declared to run once
(`check --once main`), only a read after the write sees the change: `ReadAfter` reads the
table again after scrubbing it, which is stale even in the one call.
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Once:
    @T.prim_func(private=True, s_tir=True)
    def scrub(a: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                out[v] = a[v] + T.float32(1)
                a[v] = T.float32(0)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Once
        with R.dataflow():
            c = R.const([1.0, 2.0, 3.0, 4.0], "float32")
            t = R.call_tir(cls.scrub, (c,), out_ty=R.Tensor((4,), "float32"))
            y = R.add(t, x)
            R.output(y)
        return y


@I.ir_module
class ReadAfter:
    @T.prim_func(private=True, s_tir=True)
    def scrub(a: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                out[v] = a[v] + T.float32(1)
                a[v] = T.float32(0)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = ReadAfter
        with R.dataflow():
            c = R.const([1.0, 2.0, 3.0, 4.0], "float32")
            t = R.call_tir(cls.scrub, (c,), out_ty=R.Tensor((4,), "float32"))
            y = R.add(t, c)
            R.output(y)
        return y
