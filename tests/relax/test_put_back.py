"""A write in place that stores the values its target holds changes nothing (relax_values.py,
put_back in relax_checks.dl), and one whose target was changed before it does (on the VM)."""

from __future__ import annotations

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from aliaslog.relax.checks import check_module  # noqa: E402
from extractor.relax_facts import extract_relax  # noqa: E402

POINTS = ("input", "legalized", "lowered")


@I.ir_module
class ZerosDoubled:
    """x * 0 (zeros: TIR folds it), held by the returned tuple; z + z, dead, which
    DataflowUseInplaceCalls writes into z: zeros over zeros."""

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            z = R.multiply(x, R.const(0.0, "float32"))
            t = (x, z)
            w = R.add(z, z)  # noqa: F841
            R.output(t)
        return t


@I.ir_module
class ConstantsDoubled:
    """c - c of a constant: zeros known at compile time; doubled in place into itself."""

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        with R.dataflow():
            z = R.subtract(R.const(np.array([1.5, -2.0, 7.0], "float32")),
                           R.const(np.array([1.5, -2.0, 7.0], "float32")))
            t = (x, z)
            w = R.add(z, z)  # noqa: F841
            R.output(t)
        return t


@I.ir_module(s_tir=True)
class ChangedBefore:
    """The same zeros doubled, but a kernel adds 1 to z in place first: z + z then writes 2s
    over the 1s, and the tuple's z was zeros."""

    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((2, 3), "float32")):
        for i, j in T.grid(2, 3):
            with T.sblock("inc"):
                vi, vj = T.axis.remap("SS", [i, j])
                a[vi, vj] = a[vi, vj] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def double(a: T.Buffer((2, 3), "float32")):
        for i, j in T.grid(2, 3):
            with T.sblock("double"):
                vi, vj = T.axis.remap("SS", [i, j])
                a[vi, vj] = a[vi, vj] + a[vi, vj]

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = ChangedBefore
        with R.dataflow():
            z = R.multiply(x, R.const(0.0, "float32"))
            t = (x, z)
            u = R.call_tir_inplace(cls.inc, (z,), out_ty=R.Tensor((2, 3), "float32"),  # noqa: F841
                                   inplace_indices=[0])
            w = R.call_tir_inplace(cls.double, (z,), out_ty=R.Tensor((2, 3), "float32"),  # noqa: F841
                                   inplace_indices=[0])
            R.output(t)
        return t


@I.ir_module
class NotPutBack:
    """z + x written into z: the tuple's zeros become x."""

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            z = R.multiply(x, R.const(0.0, "float32"))
            t = (x, z)
            w = R.add(z, x)  # noqa: F841
            R.output(t)
        return t


def _inplace(mod: tvm.IRModule) -> tvm.IRModule:
    return relax.transform.DataflowUseInplaceCalls()(mod)


def _vm_tuple(mod: tvm.IRModule, x: np.ndarray) -> list[np.ndarray]:
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    return [v.numpy() for v in vm["main"](tvm.runtime.tensor(x))]


@pytest.mark.parametrize("mod", [ZerosDoubled, ConstantsDoubled], ids=["x*0", "c-c"])
def test_a_write_of_the_values_its_target_holds_is_no_clobber(mod: tvm.IRModule) -> None:
    """The VM's tuple keeps the zeros (also for infinite inputs); check finds nothing at any
    point, and the facts name the write as a candidate put-back."""
    written = _inplace(mod)
    assert extract_relax(written).facts.rows["puts_back"]
    assert check_module(written, POINTS).violations == []
    shape = (2, 3) if mod is ZerosDoubled else (3,)
    x = np.full(shape, np.inf, "float32")
    got = _vm_tuple(written, x)
    assert np.array_equal(got[1], np.zeros(shape, "float32"))


def test_a_put_back_after_another_write_to_its_target_is_a_clobber() -> None:
    """Doubling is a put-back of zeros only while z holds zeros; after the kernel that adds 1
    it writes 2s, which the tuple shows on the VM: both writes are reported."""
    got = _vm_tuple(ChangedBefore, np.ones((2, 3), "float32"))
    assert np.array_equal(got[1], np.full((2, 3), 2.0, "float32"))
    sites = {v.site.name for v in check_module(ChangedBefore, ("input",)).violations
             if v.kind == "inplace-live"}
    assert sites == {"u", "w"}


def test_a_write_of_other_values_is_a_clobber() -> None:
    written = _inplace(NotPutBack)
    assert not extract_relax(written).facts.rows.get("puts_back")
    got = _vm_tuple(written, np.ones((2, 3), "float32"))
    assert np.array_equal(got[1], np.ones((2, 3), "float32"))
    assert [v.kind for v in check_module(written, ("input",)).violations] == ["inplace-live"]


def _slice_over_its_input(start: int) -> tvm.IRModule:
    """A lowered module: a fills x + 1; b, at a's first byte in the same storage, gets a's
    elements start, start + 1 (a split part planned over its input); both returned."""

    @I.ir_module(s_tir=True)
    class Module:
        @T.prim_func(private=True, s_tir=True)
        def fill(x: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
            for i in range(6):
                with T.sblock("fill"):
                    vi = T.axis.remap("S", [i])
                    out[vi] = x[vi] + T.float32(1)

        @T.prim_func(private=True, s_tir=True)
        def part(a: T.Buffer((6,), "float32"), out: T.Buffer((2,), "float32")):
            for i in range(2):
                with T.sblock("part"):
                    vi = T.axis.remap("S", [i])
                    out[vi] = a[vi + start]

        @R.function(pure=False)
        def main(x: R.Tensor((6,), "float32")):
            cls = Module
            s = R.memory.alloc_storage(R.shape([24]), R.prim_value(0), R.str("global"),
                                       R.dtype("float32"))
            a = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([6]), R.dtype("float32"))
            _f = cls.fill(x, a)
            b = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([2]), R.dtype("float32"))
            _p = cls.part(a, b)
            return (a, b)

    return Module


@pytest.mark.parametrize("start", [0, 2])
def test_a_kernel_copying_its_input_onto_itself_changes_nothing(start: int) -> None:
    """b at a's first byte, filled with a's own first elements, leaves a as it was (no
    storage-reuse); filled with a's elements 2 and 3, it changes a, which is returned. (The
    second kernel also reads a at other elements than it writes, which write-overlap reports
    whatever the offsets: it does not prove the reads lie past what the kernel writes.)"""
    mod = _slice_over_its_input(start)
    x = np.arange(6, dtype="float32")
    a, b = _vm_tuple(mod, x)
    assert np.array_equal(b, (x + 1)[start:start + 2])
    assert np.array_equal(a, x + 1) == (start == 0)
    kinds = sorted(v.kind for v in check_module(mod, ("input",)).violations)
    assert kinds == ([] if start == 0 else ["storage-reuse", "write-overlap"])
