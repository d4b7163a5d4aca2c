"""Views at byte offsets: a write through one view meets only the bytes it covers.

`R.memory.view(a, shape, dtype, offset)` covers `offset .. offset + size` of `a`; with both
static, aliaslog decides overlap by range intersection. The kernels take buffers at any
offset (`offset_factor=1`); plain kernels need `ensure_zero_offset` first, which on the CPU is
a view of the same bytes.
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Disjoint:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Disjoint
        a = R.add(x, x)
        lo = R.memory.view(a, R.shape([4]), R.dtype("float32"), R.prim_value(0))
        hi = R.memory.view(a, R.shape([4]), R.dtype("float32"), R.prim_value(16))
        h2 = R.call_tir_inplace(cls.inc, (hi,), [0], R.Tensor((4,), "float32"))
        lz = R.memory.ensure_zero_offset(lo)
        hz = R.memory.ensure_zero_offset(h2)
        s = R.add(lz, hz)
        return s


@I.ir_module
class Overlapping:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Overlapping
        a = R.add(x, x)
        lo = R.memory.view(a, R.shape([4]), R.dtype("float32"), R.prim_value(4))
        hi = R.memory.view(a, R.shape([4]), R.dtype("float32"), R.prim_value(12))
        h2 = R.call_tir_inplace(cls.inc, (hi,), [0], R.Tensor((4,), "float32"))
        lz = R.memory.ensure_zero_offset(lo)
        hz = R.memory.ensure_zero_offset(h2)
        s = R.add(lz, hz)
        return s


@I.ir_module
class PartOfWhole:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = PartOfWhole
        a = R.add(x, x)
        hi = R.memory.view(a, R.shape([4]), R.dtype("float32"), R.prim_value(16))
        h2 = R.call_tir_inplace(cls.inc, (hi,), [0], R.Tensor((4,), "float32"))
        s = R.add(a, a)
        return s


@I.ir_module
class ViewOfView:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.handle):
        A = T.match_buffer(a, (2,), "float32", offset_factor=1)
        for i in range(2):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32")):
        cls = ViewOfView
        a = R.add(x, x)
        hi = R.memory.view(a, R.shape([4]), R.dtype("float32"), R.prim_value(16))
        top = R.memory.view(hi, R.shape([2]), R.dtype("float32"), R.prim_value(8))
        low = R.memory.view(a, R.shape([2]), R.dtype("float32"), R.prim_value(16))
        mid = R.memory.view(a, R.shape([2]), R.dtype("float32"), R.prim_value(12))
        t2 = R.call_tir_inplace(cls.inc, (top,), [0], R.Tensor((2,), "float32"))
        lz = R.memory.ensure_zero_offset(low)
        mz = R.memory.ensure_zero_offset(mid)
        s = R.add(lz, mz)
        tz = R.memory.ensure_zero_offset(t2)
        return (s, tz)


@I.ir_module
class ParamPart:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((4,), "float32"):
        cls = ParamPart
        hi = R.memory.view(x, R.shape([4]), R.dtype("float32"), R.prim_value(16))
        h2 = R.call_tir_inplace(cls.inc, (hi,), [0], R.Tensor((4,), "float32"))
        hz = R.memory.ensure_zero_offset(h2)
        return hz


EXPECT = {
    "Disjoint": dict(reference=lambda x: [2 * x[:4] + 2 * x[4:] + 1], hazard=False, check=set(),
                     audit=set(), warnings=set()),
    "Overlapping": dict(reference=lambda x: [2 * x[1:5] + 2 * x[3:7] + 1], hazard=True,
                        check={"inplace-live"}, audit={("inplace-live", "input")}),
    "PartOfWhole": dict(reference=lambda x: [4 * x], hazard=True, check={"inplace-live"},
                        audit={("inplace-live", "input")}),
    "ViewOfView": dict(reference=lambda x: [2 * x[4:6] + 2 * x[3:5], 2 * x[6:8] + 1],
                       hazard=False, check=set(), audit=set(), warnings=set()),
    "ParamPart": dict(reference=lambda x: [x[4:] + 1], hazard=True, check={"inplace-param"},
                      audit={("inplace-param", "input")}),
}
