"""`R.memory.ensure_zero_offset` returns its input at byte offset 0, a view that moves the data
pointer at a multiple of kAllocAlignment (64), and a copy elsewhere (vm.builtin.ensure_zero_offset):
writing its result in place clobbers the input only in the first two cases (all on the VM)."""

from __future__ import annotations

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from aliaslog.relax.checks import check_module  # noqa: E402


def _view_module(offset: int) -> tvm.IRModule:
    """t = x + 1 (32 floats); z = ensure_zero_offset(view of t's 2 floats at `offset`), then
    zeroed in place; t is returned."""
    src = f"""@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(a: T.Buffer((32,), "float32"), out: T.Buffer((32,), "float32")):
        for i in range(32):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                out[vi] = a[vi] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def zero(a: T.Buffer((2,), "float32")):
        for i in range(2):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                a[vi] = T.float32(0)

    @R.function
    def main(x: R.Tensor((32,), "float32")):
        cls = Module
        with R.dataflow():
            t = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((32,), "float32"))
            v = R.memory.view(t, R.shape([2]), R.dtype("float32"),
                              relative_byte_offset=R.prim_value({offset}))
            z = R.memory.ensure_zero_offset(v)
            w = R.call_tir_inplace(cls.zero, (z,), inplace_indices=[0],
                                   out_ty=R.Tensor((2,), "float32"))
            R.output(t, w)
        return (t, w)
"""
    return tvm.script.from_source(src, extra_vars={"I": I, "R": R, "T": T})


def _storage_module(offset: int) -> tvm.IRModule:
    """The same at the lowered level: t is allocated `offset` bytes into a storage."""
    src = f"""@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (2,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (2,), "float32", offset_factor=1)
        for i in range(2):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                out[vi] = a[vi] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def zero(a_h: T.handle):
        a = T.match_buffer(a_h, (2,), "float32", offset_factor=1)
        for i in range(2):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                a[vi] = T.float32(0)

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        cls = Module
        s = R.memory.alloc_storage(R.shape([128]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        t = R.memory.alloc_tensor(s, R.prim_value({offset}), R.shape([2]), R.dtype("float32"))
        _t = cls.add_one(x, t)
        z = R.memory.ensure_zero_offset(t)
        _z = cls.zero(z)
        return t
"""
    return tvm.script.from_source(src, extra_vars={"I": I, "R": R, "T": T})


CASES = {  # name: (module, offset, a view: writing it clobbers t)
    "view-at-0": (_view_module, 0, True),
    "view-at-8": (_view_module, 8, False),
    "view-at-64": (_view_module, 64, True),
    "storage-at-8": (_storage_module, 8, False),
    "storage-at-64": (_storage_module, 64, True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ensure_zero_offset_is_a_view_only_at_an_aligned_offset(name: str):
    make, offset, view = CASES[name]
    mod = make(offset)
    n = 32 if make is _view_module else 2
    x = np.arange(n, dtype="float32")
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(x))
    t = (got[0] if make is _view_module else got).numpy()
    assert np.array_equal(t, x + 1) is not view
    kinds = {v.kind for v in check_module(mod).violations if v.severity == "error"}
    assert ("inplace-live" in kinds) is view, kinds
