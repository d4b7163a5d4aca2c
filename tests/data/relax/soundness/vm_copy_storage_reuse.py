"""`v = vm.builtin.copy(a)` is `a` itself (a VM register copy), but the planner sees `a` dead.

StaticPlanBlockMemory places `c = x * x` in `a`'s storage while `v` is still read, so
`d = v + c` computes 2 * x^2 instead of 2x + x^2 (issue 12 item 3). In `Clean`, `a` itself
is read at the end, so its storage stays its own.
"""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            v = R.call_pure_packed("vm.builtin.copy", a, ty_args=R.Tensor((4,), "float32"))
            c = R.multiply(x, x)
            d = R.add(v, c)
            R.output(d)
        return d


@I.ir_module
class Clean:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            v = R.call_pure_packed("vm.builtin.copy", a, ty_args=R.Tensor((4,), "float32"))
            c = R.multiply(x, x)
            d = R.add(v, c)
            e = R.add(d, a)
            R.output(e)
        return e
