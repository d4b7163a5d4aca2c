"""Hand-lowered modules: tensors at offsets of one storage meet only where their bytes do.

`R.memory.alloc_tensor(storage, offset, shape, dtype)` places a tensor at `offset .. offset +
size` of the storage; aliaslog decides storage-reuse by range intersection.
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Disjoint:
    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def add(a: T.handle, b: T.handle, c: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        C = T.match_buffer(c, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Disjoint
        st = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        t1 = R.memory.alloc_tensor(st, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        _1 = cls.double(x, t1)
        t2 = R.memory.alloc_tensor(st, R.prim_value(16), R.shape([4]), R.dtype("float32"))
        _2 = cls.double(t1, t2)
        out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _3 = cls.add(t1, t2, out)
        return out


@I.ir_module
class Overlapping:
    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def add(a: T.handle, b: T.handle, c: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        C = T.match_buffer(c, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Overlapping
        st = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        t1 = R.memory.alloc_tensor(st, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        _1 = cls.double(x, t1)
        t2 = R.memory.alloc_tensor(st, R.prim_value(8), R.shape([4]), R.dtype("float32"))
        _2 = cls.double(t1, t2)
        out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _3 = cls.add(t1, t2, out)
        return out


@I.ir_module
class AllocatedFirst:
    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def add(a: T.handle, b: T.handle, c: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        C = T.match_buffer(c, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = AllocatedFirst
        st = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        t1 = R.memory.alloc_tensor(st, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        t2 = R.memory.alloc_tensor(st, R.prim_value(16), R.shape([4]), R.dtype("float32"))
        _1 = cls.double(x, t1)
        _2 = cls.double(t1, t2)
        out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _3 = cls.add(t1, t2, out)
        return out


@I.ir_module
class FilledByAHelper:
    @T.prim_func(private=True, s_tir=True)
    def double(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def add(a: T.handle, b: T.handle, c: T.handle):
        A = T.match_buffer(a, (4,), "float32", offset_factor=1)
        B = T.match_buffer(b, (4,), "float32", offset_factor=1)
        C = T.match_buffer(c, (4,), "float32", offset_factor=1)
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                C[vi] = A[vi] + B[vi]

    @R.function(private=True, pure=False)
    def fill(x: R.Tensor((4,), "float32"), t: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = FilledByAHelper
        _ = cls.double(x, t)
        return t

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = FilledByAHelper
        st = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        t1 = R.memory.alloc_tensor(st, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        _1 = cls.fill(x, t1)
        t2 = R.memory.alloc_tensor(st, R.prim_value(8), R.shape([4]), R.dtype("float32"))
        _2 = cls.double(x, t2)
        out = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _3 = cls.add(t1, t2, out)
        return out


EXPECT = {
    "Disjoint": dict(reference=lambda x: [6 * x], hazard=False, check=set(), audit=set(),
                     warnings=set()),
    # t2 overlaps t1 from its third element: writing t2 clobbers t1, which a later call reads
    # (storage-reuse), and which the writing call itself still reads (write-overlap)
    "Overlapping": dict(reference=lambda x: [6 * x], hazard=True,
                        check={"storage-reuse", "write-overlap"},
                        audit={("storage-reuse", "input"), ("write-overlap", "input")}),
    "AllocatedFirst": dict(reference=lambda x: [6 * x], hazard=False, check=set(), audit=set(),
                           warnings=set()),
    # a helper fills t1; t2, allocated later 8 bytes into t1, clobbers t1's last two elements
    # before `add` reads them: t1 is not empty when t2 is written, whoever filled it
    "FilledByAHelper": dict(reference=lambda x: [4 * x], hazard=True, check={"storage-reuse"},
                            audit={("storage-reuse", "input")}),
}
