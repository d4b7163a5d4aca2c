"""Case 17: RewriteDataflowReshape turns a unit-dimension transpose into a view.

`b = permute_dims(a)` with `a` of shape (1, 4) only moves a unit dimension: LegalizeOps makes
it an identity-copy kernel, and RewriteDataflowReshape turns that into `R.reshape(a, ...)`, a
view of `a`. The user's `call_tir_inplace` on the dead `b` obeys the contract as written (`b`
is a fresh tensor), but after the pass it writes `a`, which `d = a * a` reads next. In `Clean`,
`b` leaves the dataflow block, so the pass leaves its copying kernel alone.
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Before:
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((4, 1), "float32")):
        for i, j in T.grid(4, 1):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor((1, 4), "float32")):
        cls = Before
        with R.dataflow():
            a = R.add(x, x)
            b = R.permute_dims(a, [1, 0])
            c = R.call_tir_inplace(cls.inc, (b,), [0], R.Tensor((4, 1), "float32"))
            d = R.multiply(a, a)
            R.output(c, d)
        return (c, d)


@I.ir_module
class Clean:
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((4, 1), "float32")):
        for i, j in T.grid(4, 1):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor((1, 4), "float32")):
        cls = Clean
        with R.dataflow():
            a = R.add(x, x)
            b = R.permute_dims(a, [1, 0])
            R.output(a, b)
        c = R.call_tir_inplace(cls.inc, (b,), [0], R.Tensor((4, 1), "float32"))
        d = R.multiply(a, a)
        return (c, d)
