"""Whether a kernel may write its output over its input's memory moved forward (on the VM)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from extractor.kernel_access import (  # noqa: E402
    forward_refusal,
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

    @R.function(pure=False)
    def run_ascending(x: R.Tensor((2, 4), "float32")):
        cls = Kernels
        s = R.memory.alloc_storage(R.shape([96]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        a = R.memory.alloc_tensor(s, R.prim_value(32), R.shape([2, 4]), R.dtype("float32"))
        out = R.memory.alloc_tensor(s, R.prim_value(24), R.shape([2, 4]), R.dtype("float32"))
        _ = cls.ascending(x, a)
        _1 = cls.ascending(a, out)
        return out

    @R.function(pure=False)
    def run_descending(x: R.Tensor((2, 4), "float32")):
        cls = Kernels
        s = R.memory.alloc_storage(R.shape([96]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        a = R.memory.alloc_tensor(s, R.prim_value(32), R.shape([2, 4]), R.dtype("float32"))
        out = R.memory.alloc_tensor(s, R.prim_value(24), R.shape([2, 4]), R.dtype("float32"))
        _ = cls.ascending(x, a)
        _1 = cls.descending(a, out)
        return out


    @R.function(pure=False)
    def over_flatten(x: R.Tensor((2, 4), "float32")):
        cls = Kernels
        s = R.memory.alloc_storage(R.shape([96]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        a = R.memory.alloc_tensor(s, R.prim_value(32), R.shape([2, 4]), R.dtype("float32"))
        out = R.memory.alloc_tensor(s, R.prim_value(32), R.shape([8]), R.dtype("float32"))
        _ = cls.ascending(x, a)
        _1 = cls.flatten(a, out)
        return out

    @R.function(pure=False)
    def over_transpose(x: R.Tensor((2, 4), "float32")):
        cls = Kernels
        s = R.memory.alloc_storage(R.shape([96]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        a = R.memory.alloc_tensor(s, R.prim_value(32), R.shape([2, 4]), R.dtype("float32"))
        out = R.memory.alloc_tensor(s, R.prim_value(32), R.shape([4, 2]), R.dtype("float32"))
        _ = cls.ascending(x, a)
        _1 = cls.transpose(a, out)
        return out


def _kernel(name: str):
    return Kernels[name]


@pytest.mark.parametrize(("name", "inplace", "same", "forward"), [
    ("ascending", True, True, True),
    ("descending", True, True, False),     # each element in place, but the last one first
    ("columns_first", True, True, False),  # not in memory order
    ("parallel", True, True, False),       # iterations may run in any order
    ("flatten", False, True, True),        # another shape, element k read where k is written
    ("transpose", False, False, False),    # element k written over one read later
])
def test_overwrite_compares_elements_by_offset(name: str, inplace: bool, same: bool,
                                               forward: bool) -> None:
    """VerifiedInplace's question needs one shape; writing over the same bytes needs each
    element read where it is written, by offset; moved forward, in memory order too."""
    pf = _kernel(name)
    assert (inplace_refusal(pf, 1, 0) is None) == inplace
    assert (overwrite_refusal(pf, 1, 0) is None) == same
    assert (forward_refusal(pf, 1, 0) is None) == forward


@pytest.mark.parametrize("name", ["ascending", "descending"])
def test_forward_safety_holds_on_the_vm(name: str) -> None:
    """x copied into a storage at byte 32 (plus one), then the kernel writes its output 8 bytes
    before it: an ascending kernel computes x + 2; a descending one reads input elements its
    own output already overwrote."""
    x = np.arange(8, dtype="float32").reshape(2, 4)
    vm = relax.VirtualMachine(relax.build(Kernels, "llvm"), tvm.cpu())
    got = vm[f"run_{name}"](tvm.runtime.tensor(x)).numpy()
    assert np.array_equal(got, x + 2) == (forward_refusal(_kernel(name), 1, 0) is None)


@pytest.mark.parametrize(("name", "want"), [
    ("flatten", lambda x: (x + 1).reshape(8)),
    ("transpose", lambda x: (x + 1).T),
])
def test_overwrite_safety_holds_on_the_vm(name: str,
                                          want: Callable[[np.ndarray], np.ndarray]) -> None:
    """Written over the very bytes of its input, a flatten computes its result; a transpose
    reads elements it already overwrote."""
    x = np.arange(8, dtype="float32").reshape(2, 4)
    vm = relax.VirtualMachine(relax.build(Kernels, "llvm"), tvm.cpu())
    got = vm[f"over_{name}"](tvm.runtime.tensor(x)).numpy()
    assert np.array_equal(got, want(x)) == (overwrite_refusal(_kernel(name), 1, 0) is None)
