"""A lowered kernel that fills a tensor at the very bytes of another one with the value that
one holds (the same kernel on the same values, or another computing the same per element)
changes no byte: no `storage-reuse`. Where the values it loads changed in between, the bytes
are not the same, or the kernel computes another value, it does (both on the VM)."""

from __future__ import annotations

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from aliaslog.relax.checks import check_module  # noqa: E402

KERNELS = """
    @T.prim_func(private=True, s_tir=True)
    def scale2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i in range(6):
            with T.sblock("scale2"):
                vi = T.axis.remap("S", [i])
                out[vi] = a[vi] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def twice(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i in range(6):
            with T.sblock("twice"):
                vi = T.axis.remap("S", [i])
                out[vi] = a[vi] + a[vi]

    @T.prim_func(private=True, s_tir=True)
    def plus2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i in range(6):
            with T.sblock("plus2"):
                vi = T.axis.remap("S", [i])
                out[vi] = T.float32(2) + a[vi]

    @T.prim_func(private=True, s_tir=True)
    def inc(a_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        for i in range(6):
            with T.sblock("inc"):
                vi = T.axis.remap("S", [i])
                a[vi] = a[vi] + T.float32(1)
"""


def _module(between: str, offset: int, second: str) -> tvm.IRModule:
    """t = 2 * x fills a; `between` runs; the kernel `second` of t fills b, placed `offset`
    bytes after a in the same storage; a is returned."""
    src = f"""@I.ir_module(s_tir=True)
class Module:
{KERNELS}
    @R.function(pure=False)
    def main(x: R.Tensor((6,), "float32")):
        cls = Module
        s = R.memory.alloc_storage(R.shape([48]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        t = R.memory.alloc_tensor(s, R.prim_value(24), R.shape([6]), R.dtype("float32"))
        _t = cls.scale2(x, t)
        r = R.memory.alloc_storage(R.shape([48]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        a = R.memory.alloc_tensor(r, R.prim_value(0), R.shape([6]), R.dtype("float32"))
        b = R.memory.alloc_tensor(r, R.prim_value({offset}), R.shape([6]), R.dtype("float32"))
        _a = cls.scale2(t, a)
{between}
        _b = cls.{second}(t, b)
        return a
"""
    return tvm.script.from_source(src, extra_vars={"I": I, "R": R, "T": T})


CASES = {  # name: (between, offset, second kernel, the fill changes a's bytes)
    "same-bytes": ("", 0, "scale2", False),
    "input-written-between": ("        _i = cls.inc(t)", 0, "scale2", True),
    "other-bytes": ("", 8, "scale2", True),
    "same-value-by-other-arithmetic": ("", 0, "twice", False),
    "other-arithmetic-written-between": ("        _i = cls.inc(t)", 0, "twice", True),
    "other-value": ("", 0, "plus2", True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fill_over_a_tensor_with_its_own_value_changes_no_byte(name: str):
    between, offset, second, changes = CASES[name]
    mod = _module(between, offset, second)
    x = np.arange(6, dtype="float32")
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(x)).numpy()
    assert np.array_equal(got, 4 * x) is not changes
    kinds = {v.kind for v in check_module(mod, ("input",)).violations}
    assert ("storage-reuse" in kinds) is changes, kinds


def _kernel(body: str) -> tvm.tirx.PrimFunc:
    """A kernel of a (6,) input `a` and output `out`, with this block body."""
    return tvm.script.from_source(f"""
@T.prim_func(private=True, s_tir=True)
def k(a_h: T.handle, out_h: T.handle):
    a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
    out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
    for i in range(6):
        with T.sblock("k"):
            vi = T.axis.remap("S", [i])
            {body}
""", extra_vars={"T": T})


def test_elementwise_trees_are_equal_only_by_exact_rewrites():
    """`a * 2`, `a + a` and `2 * a` are one tree; `a + 2` is another; a product added to
    something has none (LLVM may fuse it into one rounding), nor a store some elements miss."""
    from extractor.kernel_access import store_forms
    from extractor.relax_values import _canonical

    mod = _module("", 0, "scale2")
    trees = {n: store_forms(mod[n]).exprs.get(1) for n in ("scale2", "twice", "plus2")}
    canon = {n: _canonical(t, lambda i: i) for n, t in trees.items()}
    assert canon["scale2"] == canon["twice"] != canon["plus2"]
    assert 1 not in store_forms(_kernel("out[vi] = a[vi] * a[vi] + T.float32(1)")).exprs
    partial = store_forms(_kernel("T.where(i < 3)\n            out[vi] = a[vi] + a[vi]"))
    assert 1 in partial.once and 1 not in partial.exprs
