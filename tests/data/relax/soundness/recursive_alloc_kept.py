"""A recursive private function: each run gives its parameter `i` (the tensor its caller made)
to an opaque packed function that keeps it, then makes a new `j` and fills it. Lowered, the
fill of this run's allocation is after the opaque call, which was given another run's: it
changes nothing the opaque function keeps (issue 27, a false alarm on TVM's LambdaLift test)."""

import numpy as np
import tvm
from tvm.script import ir as I
from tvm.script import relax as R

KEPT: list = []  # what aliaslog.test.positive was given, as it holds it now


@tvm.register_global_func("aliaslog.test.positive", override=True)
def _positive(i):
    KEPT.append(i)
    return tvm.runtime.tensor(np.array(i.numpy() > 0))


@I.ir_module
class Countdown:
    @R.function(private=True)
    def loop(i: R.Tensor((), "int32"), s: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        go = R.call_pure_packed("aliaslog.test.positive", i, ty_args=R.Tensor((), "bool"))
        if go:
            j = R.subtract(i, R.const(1, "int32"))
            t = R.add(s, s)
            r = Countdown.loop(j, t)
            out = r
        else:
            out = s
        return out

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        n = R.const(3, "int32")
        y = Countdown.loop(n, x)
        return y
