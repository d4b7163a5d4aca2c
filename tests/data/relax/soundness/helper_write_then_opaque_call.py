"""A helper that writes its argument in place, and an opaque call given that memory.

`Before`: the helper's one call runs before the opaque call: what the opaque call keeps is
the written value, and nothing writes it afterwards. `Again`: the helper runs once more after
the opaque call, which may keep the memory it was given and read it later (the write's order
is that of the calls that lead to it, in every run). `FreshTwice`: a helper that fills new
memory, called again after the opaque call kept its first result. `KeptTwice`: the opaque call
is in a helper called both before and after the write. `keep` stands for the outside world: it
keeps the tensor it is given (in KEPT) and returns a copy.
"""

import numpy as np
import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

KEPT: list[object] = []


@tvm_ffi.register_global_func("aliaslog.test.keep", override=True)
def _keep(t: object) -> object:
    """Keep the tensor itself, and return a new one with its values."""
    import tvm

    KEPT.append(t)
    return tvm.runtime.tensor(np.array(t.numpy()))  # type: ignore[attr-defined]


@I.ir_module
class Before:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                a[v] = a[v] + T.float32(1)

    @R.function(private=True)
    def helper(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Before
        w = R.call_tir_inplace(cls.inc, (t,), inplace_indices=[0], out_ty=R.Tensor((4,), "float32"))
        return w

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Before
        with R.dataflow():
            a = R.add(x, x)
            b = cls.helper(a)
            c = R.call_pure_packed("aliaslog.test.keep", b, ty_args=(R.Tensor((4,), "float32"),))
            R.output(c)
        return c


@I.ir_module
class Again:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                a[v] = a[v] + T.float32(1)

    @R.function(private=True)
    def helper(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Again
        w = R.call_tir_inplace(cls.inc, (t,), inplace_indices=[0], out_ty=R.Tensor((4,), "float32"))
        return w

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Again
        with R.dataflow():
            a = R.add(x, x)
            b = cls.helper(a)
            c = R.call_pure_packed("aliaslog.test.keep", b, ty_args=(R.Tensor((4,), "float32"),))
            d = cls.helper(b)
            R.output(c, d)
        return (c, d)


@I.ir_module
class FreshTwice:
    """The helper fills new memory (lowered: a storage it allocates) at each call: the second
    call's write is into other memory than the first result the opaque call keeps."""

    @R.function(private=True)
    def helper(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        s = R.add(t, t)
        return s

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = FreshTwice
        with R.dataflow():
            b = cls.helper(x)
            c = R.call_pure_packed("aliaslog.test.keep", b, ty_args=(R.Tensor((4,), "float32"),))
            d = cls.helper(c)
            R.output(c, d)
        return (c, d)


@I.ir_module
class KeptTwice:
    """The opaque call sits in a helper called before the write and again after it: the first
    call's `keep` holds `a`, which the write then changes."""

    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                a[v] = a[v] + T.float32(1)

    @R.function(private=True)
    def give(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        k = R.call_pure_packed("aliaslog.test.keep", t, ty_args=(R.Tensor((4,), "float32"),))
        return k

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = KeptTwice
        with R.dataflow():
            a = R.add(x, x)
            k1 = cls.give(a)
            w = R.call_tir_inplace(cls.inc, (a,), inplace_indices=[0], out_ty=R.Tensor((4,), "float32"))
            k2 = cls.give(w)
            R.output(k2)
        return k2
