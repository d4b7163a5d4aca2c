"""Whether a kernel may write its output over its input's memory (on the VM)."""

from __future__ import annotations

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from extractor.kernel_access import (  # noqa: E402
    inplace_refusal,
    overwrite_refusal,
)


@I.ir_module(s_tir=True)
class Kernels:
    @T.prim_func(private=True, s_tir=True)
    def ascending(a: T.Buffer((2, 4), "float32", offset_factor=1),
                  out: T.Buffer((2, 4), "float32", offset_factor=1)):
        for i, j in T.grid(2, 4):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = a[vi, vj] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def descending(a: T.Buffer((2, 4), "float32", offset_factor=1),
                   out: T.Buffer((2, 4), "float32", offset_factor=1)):
        for i, j in T.grid(2, 4):
            with T.sblock("b"):
                vi = T.axis.spatial(2, 1 - i)
                vj = T.axis.spatial(4, 3 - j)
                out[vi, vj] = a[vi, vj] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def columns_first(a: T.Buffer((2, 4), "float32", offset_factor=1),
                      out: T.Buffer((2, 4), "float32", offset_factor=1)):
        for j, i in T.grid(4, 2):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = a[vi, vj] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def parallel(a: T.Buffer((2, 4), "float32", offset_factor=1),
                 out: T.Buffer((2, 4), "float32", offset_factor=1)):
        for i in T.parallel(2):
            for j in range(4):
                with T.sblock("b"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    out[vi, vj] = a[vi, vj] + T.float32(1)


    @T.prim_func(private=True, s_tir=True)
    def flatten(a: T.Buffer((2, 4), "float32", offset_factor=1),
                out: T.Buffer((8,), "float32", offset_factor=1)):
        for k in range(8):
            with T.sblock("b"):
                vk = T.axis.remap("S", [k])
                out[vk] = a[vk // 4, vk % 4]

    @T.prim_func(private=True, s_tir=True)
    def transpose(a: T.Buffer((2, 4), "float32", offset_factor=1),
                  out: T.Buffer((4, 2), "float32", offset_factor=1)):
        for i, j in T.grid(4, 2):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = a[vj, vi]

    @T.prim_func(private=True, s_tir=True)
    def accumulate(a: T.Buffer((2, 4), "float32", offset_factor=1),
                   out: T.Buffer((2, 4), "float32", offset_factor=1)):
        for i, j in T.grid(2, 4):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = out[vi, vj] + a[vi, vj]

    @T.prim_func(private=True, s_tir=True)
    def accumulate_mirrored(a: T.Buffer((2, 4), "float32", offset_factor=1),
                            out: T.Buffer((2, 4), "float32", offset_factor=1)):
        for i, j in T.grid(2, 4):
            with T.sblock("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                out[vi, vj] = out[vi, 3 - vj] + a[vi, vj]

    @T.prim_func(private=True, s_tir=True)
    def second_row(a: T.Buffer((2, 4), "float32", offset_factor=1),
                   out: T.Buffer((4,), "float32", offset_factor=1)):
        for j in range(4):
            with T.sblock("b"):
                vj = T.axis.remap("S", [j])
                out[vj] = a[1, vj]

    @T.prim_func(private=True, s_tir=True)
    def rows_swapped(a: T.Buffer((2, 4), "float32", offset_factor=1),
                     out: T.Buffer((4,), "float32", offset_factor=1),
                     out2: T.Buffer((4,), "float32", offset_factor=1)):
        for j in range(4):
            with T.sblock("b"):
                vj = T.axis.remap("S", [j])
                out[vj] = a[1, vj]
        for j in range(4):
            with T.sblock("c"):
                vj = T.axis.remap("S", [j])
                out2[vj] = a[0, vj]


def _kernel(name: str):
    return Kernels[name]


@pytest.mark.parametrize(("name", "inplace", "same"), [
    ("ascending", True, True),
    ("descending", True, True),     # each element in place, the last one first
    ("columns_first", True, True),  # not in memory order
    ("parallel", True, True),       # iterations may run in any order
    ("flatten", False, True),       # another shape, element k read where k is written
    ("transpose", False, False),    # element k written over one read later
    ("accumulate", True, True),     # out read where it is written, before the store
    ("accumulate_mirrored", False, False),  # out read at another element
    ("second_row", False, False),   # smaller, reads another element than it writes
    ("rows_swapped", False, False),  # a later block reads what out covers
])
def test_overwrite_compares_elements_by_offset(name: str, inplace: bool, same: bool) -> None:
    """VerifiedInplace's question needs one shape; writing over the same bytes needs each
    element read where it is written, by offset."""
    pf = _kernel(name)
    assert (inplace_refusal(pf, 1, 0) is None) == inplace
    assert (overwrite_refusal(pf, 1, 0) is None) == same


def _over_its_input(name: str, out_at: int, out_shape: list[int]) -> np.ndarray:
    """x plus one, put at byte 32 of a storage, then kernel `name` writing its output at byte
    `out_at` of the same storage, run on the VM with x = 0..7."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType([2, 4], "float32"))
    with bb.function("main", [x], pure=False):
        fill = bb.add_func(Kernels["ascending"], "plus_one")
        kernel = bb.add_func(Kernels[name], name)
        s = bb.emit(relax.op.memory.alloc_storage(relax.ShapeExpr([96]), 0, "global",
                                                  "float32"))
        a = bb.emit(relax.op.memory.alloc_tensor(s, 32, relax.ShapeExpr([2, 4]), "float32"))
        out = bb.emit(relax.op.memory.alloc_tensor(s, out_at, relax.ShapeExpr(out_shape),
                                                   "float32"))
        bb.emit(relax.Call(fill, [x, a]))
        bb.emit(relax.Call(kernel, [a, out]))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())
    return vm["main"](tvm.runtime.tensor(X)).numpy()


X = np.arange(8, dtype="float32").reshape(2, 4)


@pytest.mark.parametrize(("name", "shape", "want"), [
    ("accumulate", [2, 4], 2 * (X + 1)),
    ("flatten", [8], (X + 1).reshape(8)),
    ("transpose", [4, 2], (X + 1).T),
])
def test_overwrite_safety_holds_on_the_vm(name: str, shape: list[int], want: np.ndarray) -> None:
    """Written over the very bytes of its input, a flatten computes its result, and so does an
    accumulation into its output (which then holds the input: x + 1 twice); a transpose reads
    elements it already overwrote."""
    got = _over_its_input(name, 32, shape)
    assert np.array_equal(got, want) == (overwrite_refusal(_kernel(name), 1, 0) is None)
