"""Case 02: an in-place write whose target is read afterwards, and one that writes a parameter.

`main` writes `a` in place through call_tir_inplace while `a` is read later; because
call_tir_inplace is registered pure, DeadCodeElimination deletes the unused write and the
result changes from 2*(2x+1) to 2*(2x).  `mutates_param` is a pure-annotated function whose
in-place write changes the caller's tensor.  `Clean` writes only values that are dead after
the write (a fresh temporary, or a fresh copy of the parameter).
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Before:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.multiply(x, R.const(2.0, "float32"))
            w = R.call_tir_inplace(  # noqa: F841 (the dead write DCE deletes)
                Before.inc_inplace, (a,), [0], R.Tensor((4,), "float32")
            )
            z = R.add(a, a)
            R.output(z)
        return z

    @R.function
    def mutates_param(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            w = R.call_tir_inplace(Before.inc_inplace, (x,), [0], R.Tensor((4,), "float32"))
            R.output(w)
        return w


@I.ir_module
class Clean:
    @T.prim_func(s_tir=True)
    def inc_inplace(A: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.multiply(x, R.const(2.0, "float32"))
            w = R.call_tir_inplace(Clean.inc_inplace, (a,), [0], R.Tensor((4,), "float32"))
            z = R.add(w, w)
            R.output(z)
        return z

    @R.function
    def mutates_param(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            y = R.multiply(x, R.const(3.0, "float32"))
            w = R.call_tir_inplace(Clean.inc_inplace, (y,), [0], R.Tensor((4,), "float32"))
            R.output(w)
        return w
