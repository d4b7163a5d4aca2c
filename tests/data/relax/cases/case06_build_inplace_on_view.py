"""Case 06: the default relax.build turns a contract-respecting in-place write into a miscompile.

Every module computes `a = x + x; b = op(a); c = call_tir_inplace(inc, (b,)); d = a * c`.
In Relax semantics `b` is a fresh tensor that is dead after the write, so the call obeys the
call_tir_inplace contract; but LegalizeOps + RewriteDataflowReshape turn every identity-copy
`op` into `R.reshape(a, ...)`, a view of `a`, so the write changes `a` before `d` reads it.
`Clean` uses flip, which really copies.
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class BeforeAstype:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeAstype
        with R.dataflow():
            a = R.add(x, x)
            b = R.astype(a, "float32")
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeBroadcastTo:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeBroadcastTo
        with R.dataflow():
            a = R.add(x, x)
            b = R.broadcast_to(a, R.shape([4]))
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeStridedSlice:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeStridedSlice
        with R.dataflow():
            a = R.add(x, x)
            b = R.strided_slice(a, axes=[0], begin=[0], end=[4])
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeConcat:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeConcat
        with R.dataflow():
            a = R.add(x, x)
            b = R.concat((a,), axis=0)
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeTile:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeTile
        with R.dataflow():
            a = R.add(x, x)
            b = R.tile(a, repeats=[1])
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeRepeat:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeRepeat
        with R.dataflow():
            a = R.add(x, x)
            b = R.repeat(a, repeats=1, axis=0)
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeLayoutTransform:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeLayoutTransform
        with R.dataflow():
            a = R.add(x, x)
            b = R.layout_transform(a, index_map=lambda i: (i,))
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeCollapseSumTo:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeCollapseSumTo
        with R.dataflow():
            a = R.add(x, x)
            b = R.collapse_sum_to(a, R.shape([4]))
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeReshape:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeReshape
        with R.dataflow():
            a = R.add(x, x)
            b = R.reshape(a, R.shape([4]))
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeMultiplyOne:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeMultiplyOne
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, R.const(1.0, "float32"))
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class BeforeAddZero:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = BeforeAddZero
        with R.dataflow():
            a = R.add(x, x)
            b = R.add(a, R.const(0.0, "float32"))
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d


@I.ir_module
class Clean:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Clean
        with R.dataflow():
            a = R.add(x, x)
            b = R.flip(a, axis=0)
            c = R.call_tir_inplace(cls.inc_inplace, (b,), [0], R.Tensor((4,), "float32"))
            d = R.multiply(a, c)
            R.output(d)
        return d
