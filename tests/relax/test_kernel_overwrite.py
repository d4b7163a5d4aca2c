"""Whether a kernel may write its output over its input's memory moved forward (on the VM)."""

from __future__ import annotations

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from extractor.kernel_access import forward_refusal, inplace_refusal  # noqa: E402


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


def _kernel(name: str):
    return Kernels[name]


@pytest.mark.parametrize(("name", "same", "forward"), [
    ("ascending", True, True),
    ("descending", True, False),     # each element in place, but the last one first
    ("columns_first", True, False),  # not in memory order
    ("parallel", True, False),       # iterations may run in any order
])
def test_forward_needs_memory_order(name: str, same: bool, forward: bool) -> None:
    pf = _kernel(name)
    assert (inplace_refusal(pf, 1, 0) is None) == same
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
