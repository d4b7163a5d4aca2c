"""Helpers that write their argument in place and return it: the result names the new value.

`bump` writes its parameter in place (`call_inplace_packed` with inplace_indices=[0], or
`call_tir_inplace`) and returns it. A caller that uses only the returned value is correct; one
that reads the old name afterwards sees the write. The packed function is described in
helpers.effects.tsv (it returns its argument: `alias`); `Undescribed` uses one that is not.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@tvm_ffi.register_global_func("aliaslog.trust.inc", override=True)
def _inc(t: object) -> object:
    """Add one to the tensor in place and return it."""
    t.copyfrom(t.numpy() + 1)
    return t


@tvm_ffi.register_global_func("aliaslog.trust.inc_undescribed", override=True)
def _inc_undescribed(t: object) -> object:
    """The same, under a name no effect table describes."""
    t.copyfrom(t.numpy() + 1)
    return t


@I.ir_module
class PackedResultOnly:
    @R.function(private=True)
    def bump(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.call_inplace_packed("aliaslog.trust.inc", t, inplace_indices=[0], ty_args=R.Tensor((4,), "float32"))
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = PackedResultOnly
        a = R.add(x, x)
        b = cls.bump(a)
        c = R.multiply(b, b)
        return c


@I.ir_module
class PackedOldName:
    @R.function(private=True)
    def bump(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.call_inplace_packed("aliaslog.trust.inc", t, inplace_indices=[0], ty_args=R.Tensor((4,), "float32"))
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = PackedOldName
        a = R.add(x, x)
        b = cls.bump(a)
        c = R.multiply(b, a)
        return c


@I.ir_module
class Undescribed:
    @R.function(private=True)
    def bump(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.call_inplace_packed("aliaslog.trust.inc_undescribed", t, inplace_indices=[0], ty_args=R.Tensor((4,), "float32"))
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Undescribed
        a = R.add(x, x)
        b = cls.bump(a)
        c = R.multiply(b, b)
        return c


@I.ir_module
class KernelTwice:
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function(private=True)
    def bump(t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = KernelTwice
        r = R.call_tir_inplace(cls.inc, (t,), [0], R.Tensor((4,), "float32"))
        s = R.call_tir_inplace(cls.inc, (r,), [0], R.Tensor((4,), "float32"))
        return s

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = KernelTwice
        a = R.add(x, x)
        b = cls.bump(a)
        c = cls.bump(b)
        d = R.multiply(c, c)
        return d


@I.ir_module
class Chain:
    @T.prim_func(private=True, s_tir=True)
    def inc(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Chain
        a = R.add(x, x)
        b = R.call_tir_inplace(cls.inc, (a,), [0], R.Tensor((4,), "float32"))
        c = R.call_inplace_packed("aliaslog.trust.inc", b, inplace_indices=[0], ty_args=R.Tensor((4,), "float32"))
        d = R.call_tir_inplace(cls.inc, (c,), [0], R.Tensor((4,), "float32"))
        e = R.add(d, d)
        return (d, e)


EXPECT = {
    "PackedResultOnly": dict(reference=lambda x: [(2 * x + 1) ** 2], hazard=False, check=set(),
                             audit=set(), warnings=set()),
    "PackedOldName": dict(reference=lambda x: [(2 * x + 1) * 2 * x], hazard=True,
                          check={"inplace-live"}, audit={("inplace-live", "input")}),
    # opaque: may do anything (purity warnings), but its own write is no stale read
    "Undescribed": dict(reference=lambda x: [(2 * x + 1) ** 2], hazard=False, check=set(),
                        audit=set()),
    "KernelTwice": dict(reference=lambda x: [(2 * x + 4) ** 2], hazard=False, check=set(),
                        audit=set(), warnings=set()),
    "Chain": dict(reference=lambda x: [2 * x + 3, 4 * x + 6], hazard=False, check=set(),
                  audit=set(), warnings=set()),
}
