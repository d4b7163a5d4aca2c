"""Case 11: DataflowUseInplaceCalls does not count a TupleGetItem as a use.

In `a = x + x; t = (a, x); b = a + 1; c = t[0]; d = c * b`, `a` is still read through `t[0]`
after `b`, but the pass's liveness ignores the TupleGetItem, so `b` overwrites `a` in place
and `d` becomes (2x+1)^2 instead of 2x(2x+1).  `Clean` also reads `a` directly at the end,
which the pass does see: `b` stays out of place, and only the last add writes `a` in place,
when `a`, `t` and `c` are all dead (a precise checker must accept that).
"""

from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            t = (a, x)
            b = R.add(a, R.const(1.0, "float32"))
            c = t[0]
            d = R.multiply(c, b)
            R.output(d)
        return d


@I.ir_module
class Clean:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            a = R.add(x, x)
            t = (a, x)
            b = R.add(a, R.const(1.0, "float32"))
            c = t[0]
            d = R.multiply(c, b)
            e = R.add(d, a)
            R.output(e)
        return e
