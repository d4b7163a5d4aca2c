"""Transposes and other layout ops are copies as written; lowering decides which become views.

A general `permute_dims` is legalized to a copying kernel; one that only moves or adds a unit
dimension is an identity copy that RewriteDataflowReshape turns into a reshape, a view, for a
DataflowVar result, so an in-place write of it then changes its source (TVM bug: the module
is safe as written; the pass makes it unsafe: case 17 is the transpose, `ExpandDims` here the
same with expand_dims).
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class General:
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((3, 2), "float32")):
        for i, j in T.grid(3, 2):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = General
        with R.dataflow():
            a = R.add(x, x)
            b = R.permute_dims(a, [1, 0])
            c = R.call_tir_inplace(cls.inc, (b,), [0], R.Tensor((3, 2), "float32"))
            d = R.multiply(a, a)
            R.output(c, d)
        return (c, d)


@I.ir_module
class ExpandDims:
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((1, 4), "float32")):
        for i, j in T.grid(1, 4):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                A[vi, vj] = A[vi, vj] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = ExpandDims
        with R.dataflow():
            a = R.add(x, x)
            b = R.expand_dims(a, [0])
            c = R.call_tir_inplace(cls.inc, (b,), [0], R.Tensor((1, 4), "float32"))
            d = R.multiply(a, a)
            R.output(c, d)
        return (c, d)


EXPECT = {
    "General": dict(reference=lambda x: [(2 * x).T + 1, 4 * x * x], hazard=False, check=set(),
                    audit=set(), warnings=set()),
    "ExpandDims": dict(reference=lambda x: [(2 * x)[None, :] + 1, 4 * x * x], hazard=True,
                       check={"inplace-live"},
                       audit={("inplace-live", "RewriteDataflowReshape")}),
}
