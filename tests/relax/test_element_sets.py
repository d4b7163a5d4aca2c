"""The values a tensor's elements may hold (extractor/element_sets.py): sets a kernel run
computes hold every value the kernel makes of arrays drawn from its arguments' sets, and a
write in place that keeps each element's value (`x - x`, 0 or NaN, added to itself) is no
clobber at any point, while one that changes them is (both on the VM)."""

from __future__ import annotations

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402
from tvm.script import ir as I  # noqa: E402
from tvm.script import relax as R  # noqa: E402
from tvm.script import tirx as T  # noqa: E402

from aliaslog.relax.checks import check_module  # noqa: E402
from extractor.element_sets import (  # noqa: E402
    Param,
    kernel_sets,
    of_array,
    of_values,
    zero_or_nan,
)
from extractor.kernel_access import store_forms  # noqa: E402

POINTS = ("input", "legalized", "lowered")
MIXED = np.array([[1.0, np.inf, -3.0], [-np.inf, 0.0, np.nan]], "float32")


KERNELS = {
    "addto": """
    @T.prim_func(private=True, s_tir=True)
    def addto(a: T.Buffer((2, 3), "float32"), b: T.Buffer((2, 3), "float32")):
        for i, j in T.grid(2, 3):
            with T.sblock("addto"):
                vi, vj = T.axis.remap("SS", [i, j])
                a[vi, vj] = a[vi, vj] + b[vi, vj]
""",
    "inc": """
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((2, 3), "float32")):
        for i, j in T.grid(2, 3):
            with T.sblock("inc"):
                vi, vj = T.axis.remap("SS", [i, j])
                a[vi, vj] = a[vi, vj] + T.float32(1)
"""}


@T.prim_func(private=True, s_tir=True)
def mix(a: T.Buffer((2, 3), "float32"), b: T.Buffer((2, 3), "float32"),
        out: T.Buffer((2, 3), "float32")):
    for i, j in T.grid(2, 3):
        with T.sblock("mix"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = a[vi, vj] * T.float32(2) - b[vi, vj]


@T.prim_func(private=True, s_tir=True)
def transpose(a: T.Buffer((2, 3), "float32"), b: T.Buffer((2, 3), "float32"),
              out: T.Buffer((3, 2), "float32")):
    for i, j in T.grid(3, 2):
        with T.sblock("transpose"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = a[vj, vi]


def _written_in_place(kernel: str, through_view: bool) -> tvm.IRModule:
    """t = x - x, held by the returned tuple, then the kernel on t (twice for addto) in place,
    directly or on a view of all of t's bytes."""
    target = ('R.memory.view(t, R.shape([2, 3]), R.dtype("float32"), '
              'relative_byte_offset=R.prim_value(0))') if through_view else "t"
    args = "(s, s)" if kernel == "addto" else "(s,)"
    src = f"""@I.ir_module(s_tir=True)
class Module:
{KERNELS[kernel]}
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            t = R.subtract(x, x)
            held = (x, t)
            s = {target}
            u = R.call_tir_inplace(cls.{kernel}, {args}, out_ty=R.Tensor((2, 3), "float32"),
                                   inplace_indices=[0])
            R.output(held)
        return held
"""
    return _parse(src)


def _parse(src: str) -> tvm.IRModule:
    return tvm.script.from_source(src, extra_vars={"I": I, "R": R, "T": T})


def _vm(mod: tvm.IRModule, x: np.ndarray) -> list[np.ndarray]:
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    return [v.numpy() for v in vm["main"](tvm.runtime.tensor(x))]


@pytest.mark.parametrize("through_view", [False, True], ids=["tensor", "view"])
def test_zeros_or_nans_added_to_themselves_in_place_keep_their_values(through_view: bool):
    mod = _written_in_place("addto", through_view)
    with np.errstate(all="ignore"):
        want = MIXED - MIXED
    assert np.array_equal(_vm(mod, MIXED)[1], want, equal_nan=True)
    assert check_module(mod, POINTS).violations == []


@pytest.mark.parametrize("through_view", [False, True], ids=["tensor", "view"])
def test_zeros_or_nans_incremented_in_place_change(through_view: bool):
    mod = _written_in_place("inc", through_view)
    with np.errstate(all="ignore"):
        want = MIXED - MIXED
    assert not np.array_equal(_vm(mod, MIXED)[1], want, equal_nan=True)
    assert {v.kind for v in check_module(mod, ("input",)).violations} == {"inplace-live"}


@pytest.mark.parametrize("kernel", [mix, transpose], ids=["elementwise", "move"])
@pytest.mark.parametrize("seed", range(3))
def test_a_kernels_sets_hold_what_it_makes_of_arrays_drawn_from_them(kernel, seed: int):
    """Every value a kernel (elementwise, or moving elements) makes of random arrays whose
    elements come from its arguments' sets is in the set kernel_sets gives its output."""
    dev = tvm.cpu()
    built = tvm.compile(tvm.IRModule({"main": kernel.with_attr("global_symbol", "main")}),
                        target="llvm")

    def run(arrays: list[np.ndarray]) -> list[np.ndarray]:
        given = [tvm.runtime.tensor(a.copy(), dev) for a in arrays]
        built["main"](*given)
        return [g.numpy() for g in given]

    a_set = zero_or_nan("float32")
    b_set = of_values(np.array([1, -2, np.inf], "float32"), "float32")
    out_shape = tuple(int(d) for d in kernel.params[2].ty.shape)
    params = [Param("float32", (2, 3), 0, a_set), Param("float32", (2, 3), 1, b_set),
              Param("float32", out_shape)]
    sets, kept = kernel_sets(run, store_forms(kernel), params, [2])
    assert kept == set()
    rng = np.random.default_rng(seed)
    a = rng.choice(a_set.values(), size=(2, 3)).astype("float32")
    b = rng.choice(b_set.values(), size=(2, 3)).astype("float32")
    out = run([a, b, np.zeros(out_shape, "float32")])[2]
    assert of_values(out.ravel(), "float32").keys <= sets[2].keys


def test_a_set_holds_only_small_integers_and_special_values():
    assert of_values(np.array([0.5], "float32"), "float32") is None
    assert of_values(np.arange(9, dtype="float32"), "float32") is None  # too many
    assert len(of_values(np.array([-0.0, 0.0], "float32"), "float32").keys) == 2
    assert len(of_array(np.array([0.0, -0.0, np.nan, np.nan], "float32")).keys) == 3


def _after_inc(make_c: str, returned: str) -> tvm.IRModule:
    """t = x + x written in place by inc (u names the new value); c made of t after it."""
    return _parse(f"""@I.ir_module(s_tir=True)
class Module:
{KERNELS["inc"]}
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            t = R.add(x, x)
            u = R.call_tir_inplace(cls.inc, (t,), out_ty=R.Tensor((2, 3), "float32"),
                                   inplace_indices=[0])
            {make_c}
            g = R.grad.no_grad(c)
            R.output({returned.strip("()")})
        return {returned}
""")


def test_a_view_only_a_dead_view_names_reads_nothing():
    """An identity astype (a view on the VM) passed only to no_grad (a view): unused, the VM
    reads nothing of t after the write; returned, it is t's stale value."""
    astype = 'c = R.astype(t, "float32")'
    assert check_module(_after_inc(astype, "u"), POINTS).violations == []
    kinds = {v.kind for v in check_module(_after_inc(astype, "(u, g)"), ("input",)).violations}
    assert kinds == {"inplace-live"}


def test_only_a_literal_zero_factor_makes_a_product_that_loads_nothing():
    """t * 0 with the zero an immediate never loads t; with the zero a variable's value the
    kernel loads both, so t, written in place before, is read after the write."""
    literal = 'c = R.multiply(t, R.const(0.0, "float32"))'
    assert check_module(_after_inc(literal, "(u, c)"), ("input",)).violations == []
    by_var = 'z = R.const(0.0, "float32")\n            c = R.multiply(t, z)'
    kinds = {v.kind for v in check_module(_after_inc(by_var, "(u, c)"), ("input",)).violations}
    assert kinds == {"inplace-live"}


@I.ir_module(s_tir=True)
class FilledAgain:
    """Lowered: a filled with x - x (0 or NaN), named again by y, then filled with x + 1; the
    kernel doubling y in place doubles x + 1 (y's term still says x - x), and a is returned."""

    @T.prim_func(private=True, s_tir=True)
    def sub(x: T.Buffer((6,), "float32"), y: T.Buffer((6,), "float32"),
            out: T.Buffer((6,), "float32")):
        for i in range(6):
            with T.sblock("sub"):
                vi = T.axis.remap("S", [i])
                out[vi] = x[vi] - y[vi]

    @T.prim_func(private=True, s_tir=True)
    def add_one(x: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i in range(6):
            with T.sblock("add_one"):
                vi = T.axis.remap("S", [i])
                out[vi] = x[vi] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def double(a: T.Buffer((6,), "float32")):
        for i in range(6):
            with T.sblock("double"):
                vi = T.axis.remap("S", [i])
                a[vi] = a[vi] + a[vi]

    @R.function(pure=False)
    def main(x: R.Tensor((6,), "float32")):
        cls = FilledAgain
        s = R.memory.alloc_storage(R.shape([24]), R.prim_value(0), R.str("global"),
                                   R.dtype("float32"))
        a = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([6]), R.dtype("float32"))
        _s = cls.sub(x, x, a)
        y = a
        _f = cls.add_one(x, a)
        _d = cls.double(y)
        return (x, a)


def test_a_tensor_filled_again_holds_no_earlier_value():
    x = np.arange(6, dtype="float32")
    vm = relax.VirtualMachine(relax.build(FilledAgain, "llvm"), tvm.cpu())
    assert np.array_equal(vm["main"](tvm.runtime.tensor(x))[1].numpy(), 2 * (x + 1))
    kinds = {v.kind for v in check_module(FilledAgain, ("input",)).violations}
    assert "inplace-live" in kinds


@T.prim_func(private=True, s_tir=True)
def shifted(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32"),
            j: T.Buffer((4,), "float32"), out: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("shift"):
            vi = T.axis.remap("S", [i])
            j[vi] = a[(vi + 1) % 4]
    for i in range(4):
        with T.sblock("diff"):
            vi = T.axis.remap("S", [i])
            out[vi] = j[vi] - b[vi]


def test_an_output_made_of_another_moved_output_gets_no_set():
    """out[i] = a[i + 1] - b[i] through the output j: with a and b equal, a uniform run only
    ever pairs equal elements (0), so no set may come of it; j, a move, has a's values."""
    built = tvm.compile(tvm.IRModule({"main": shifted.with_attr("global_symbol", "main")}),
                        target="llvm")

    def run(arrays: list[np.ndarray]) -> list[np.ndarray]:
        given = [tvm.runtime.tensor(x.copy(), tvm.cpu()) for x in arrays]
        built["main"](*given)
        return [g.numpy() for g in given]

    zero_one = of_values(np.array([0, 1], "float32"), "float32")
    params = [Param("float32", (4,), 0, zero_one), Param("float32", (4,), 0, zero_one),
              Param("float32", (4,)), Param("float32", (4,))]
    sets, _ = kernel_sets(run, store_forms(shifted), params, [2, 3])
    assert 3 not in sets and sets[2] == zero_one
    got = run([np.array([0, 1, 0, 1], "float32")] * 2 + [np.zeros(4, "float32")] * 2)[3]
    assert set(got.tolist()) == {1.0, -1.0}
