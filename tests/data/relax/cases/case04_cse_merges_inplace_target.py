"""Case 04: EliminateCommonSubexpr merges a value that is later written in place.

`a = 2x` and `b = 2x` are distinct values; `c = a + 1` may be done in place because `a` is
dead afterwards.  Once CSE rewrites `b` to `a`, the in-place write also changes `b`, so
`main` returns (2x+1, 2x+1) instead of (2x+1, 2x).  `Before` gets its in-place call from
DataflowUseInplaceCalls; `BeforeHand` writes it by hand (contract-valid).  The `Clean*`
modules compute `b = 3x`, which CSE cannot merge.
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Before:
    @R.function
    def main(
        x: R.Tensor((4,), "float32"),
    ) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.multiply(x, R.const(2.0, "float32"))
            b = R.multiply(x, R.const(2.0, "float32"))
            c = R.add(a, R.const(1.0, "float32"))
            out = (c, b)
            R.output(out)
        return out


@I.ir_module
class BeforeHand:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(
        x: R.Tensor((4,), "float32"),
    ) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        cls = BeforeHand
        with R.dataflow():
            a = R.multiply(x, R.const(2.0, "float32"))
            b = R.multiply(x, R.const(2.0, "float32"))
            c = R.call_tir_inplace(cls.inc_inplace, (a,), [0], R.Tensor((4,), "float32"))
            out = (c, b)
            R.output(out)
        return out


@I.ir_module
class Clean:
    @R.function
    def main(
        x: R.Tensor((4,), "float32"),
    ) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.multiply(x, R.const(2.0, "float32"))
            b = R.multiply(x, R.const(3.0, "float32"))
            c = R.add(a, R.const(1.0, "float32"))
            out = (c, b)
            R.output(out)
        return out


@I.ir_module
class CleanHand:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(
        x: R.Tensor((4,), "float32"),
    ) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        cls = CleanHand
        with R.dataflow():
            a = R.multiply(x, R.const(2.0, "float32"))
            b = R.multiply(x, R.const(3.0, "float32"))
            c = R.call_tir_inplace(cls.inc_inplace, (a,), [0], R.Tensor((4,), "float32"))
            out = (c, b)
            R.output(out)
        return out
