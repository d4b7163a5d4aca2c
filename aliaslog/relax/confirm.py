"""Differential confirmation of an audit finding: the same build with and without the pass.

The module goes through the audited passes twice, once as audited and once with the guilty
pass left out (a PassInstrument that skips that one pass invocation), and both executables
run on the VM with the same random inputs of the declared shapes, several calls on one VM
(state that changes between calls shows). Different results make a hazard a reproduced
miscompilation.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax
from tvm.ir.instrument import pass_instrument

from .audit import AuditReport, lower, parse_target

CALLS = 3  # inputs A, B, then A again on the same VM


@dataclass(frozen=True)
class Confirmation:
    """What the VM says about one guilty pass."""

    pass_name: str
    status: str  # "reproduced", "not reproduced" or "inconclusive"
    detail: str

    def as_json(self) -> dict[str, str]:
        return {"pass": self.pass_name, "status": self.status, "detail": self.detail}

    def describe(self) -> str:
        return f"confirmation ({self.pass_name}): {self.status}: {self.detail}"


@relax.expr_functor.mutator
class _CopyConstants(relax.PyExprMutator):
    def visit_generic_const_(self, op: Any) -> Any:
        return relax.const(op.value.numpy().copy(), str(op.value.dtype))


def fresh_constants(mod: tvm.IRModule) -> tvm.IRModule:
    """`mod` with a new array behind every Relax constant: a kernel that writes into a
    constant (cases 07 and 15) changes the module it was built from, not this copy."""
    out = mod.clone()
    for gv, f in mod.functions.items():
        if isinstance(f, relax.Function):
            out[gv] = _CopyConstants().visit_expr(f)
    return out


@pass_instrument
class _SkipOne:
    """Skips the n-th pass invocation of a context (as AuditInstrument counts them)."""

    def __init__(self, ordinal: int) -> None:
        self.ordinal = ordinal
        self.seen = 0

    def should_run(self, mod: tvm.IRModule, info: Any) -> bool:
        self.seen += 1
        return self.seen != self.ordinal


def _build(mod: tvm.IRModule, passes: Sequence[str], pipeline: str, target: tvm.target.Target,
           skip: int | None) -> relax.VirtualMachine:
    instruments = [] if skip is None else [_SkipOne(skip)]
    lowered = lower(mod, passes, pipeline, target, instruments)
    with contextlib.redirect_stderr(io.StringIO()):
        ex = relax.build(lowered, target, relax_pipeline=None)
    return relax.VirtualMachine(ex, tvm.cpu())


def _shape(ty: Any, sym: dict[str, int]) -> tuple[int, ...] | None:
    if not isinstance(ty, relax.TensorType) or not isinstance(ty.shape, relax.ShapeExpr):
        return None
    dims = []
    for d in ty.shape.values:
        dims.append(int(d.value) if isinstance(d, tvm.tirx.IntImm) else sym.setdefault(str(d), 4))
    return tuple(dims)


def random_inputs(fn: relax.Function, rng: np.random.Generator) -> list[np.ndarray]:
    """One random array per parameter, of its declared shape and dtype (symbolic dims: 4)."""
    sym: dict[str, int] = {}
    out = []
    for p in fn.params:
        shape = _shape(p.ty, sym)
        if shape is None:
            raise ValueError(f"cannot make an input for parameter `{p.name}` of type {p.ty}")
        dtype = str(p.ty.dtype)
        if dtype == "bool":
            out.append(rng.integers(0, 2, shape).astype(bool))
        elif dtype.startswith(("int", "uint")):
            out.append(rng.integers(0, 4, shape).astype(dtype))
        else:
            out.append(rng.standard_normal(shape).astype(dtype))
    return out


def _flat(v: Any) -> list[np.ndarray]:
    if isinstance(v, tvm.runtime.Tensor):
        return [v.numpy()]
    if isinstance(v, (tvm_ffi.Array, list, tuple)):
        return [x for item in v for x in _flat(item)]
    return [np.asarray(v)]


# per call: outputs, the inputs after it, what it printed (relax.print runs Python's print)
Runs = list[tuple[list[np.ndarray], list[np.ndarray], str]]


def _run(vm: relax.VirtualMachine, fn: str, calls: list[list[np.ndarray]]) -> Runs:
    out = []
    for inputs in calls:
        args = [tvm.runtime.tensor(x.copy()) for x in inputs]
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            got = _flat(vm[fn](*args))
        out.append((got, [a.numpy() for a in args], printed.getvalue()))
    return out


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(np.array_equal(a, b))


def _show(a: np.ndarray) -> str:
    flat = a.ravel()
    text = np.array2string(flat[:6], precision=4, separator=", ")
    return text[:-1] + ", ...]" if flat.size > 6 else text


def _difference(fn: str, with_pass: Runs, without: Runs, pass_name: str) -> str | None:
    for k, ((out_a, in_a, pr_a), (out_b, in_b, pr_b)) in enumerate(
            zip(with_pass, without, strict=True), 1):
        if pr_a != pr_b:
            return (f"@{fn} call {k} prints {pr_a.strip()[:80]!r} with {pass_name}, "
                    f"{pr_b.strip()[:80]!r} without it")
        if len(out_a) != len(out_b):
            return f"@{fn} call {k}: {len(out_a)} outputs with {pass_name}, {len(out_b)} without"
        for i, (a, b) in enumerate(zip(out_a, out_b, strict=True)):
            if not _same(a, b):
                return (f"@{fn} call {k}: output {i} is {_show(a)} with {pass_name}, "
                        f"{_show(b)} without it")
        for i, (a, b) in enumerate(zip(in_a, in_b, strict=True)):
            if not _same(a, b):
                return (f"@{fn} call {k}: the call leaves argument {i} as {_show(a)} with "
                        f"{pass_name}, {_show(b)} without it")
    return None


def _entries(mod: tvm.IRModule) -> list[str]:
    return sorted(str(gv.name_hint) for gv, f in mod.functions.items()
                  if isinstance(f, relax.Function) and f.attrs is not None
                  and "global_symbol" in f.attrs)


class Confirmer:
    """Builds the audited sequence once, and once per pass to leave out, and compares."""

    def __init__(self, mod: tvm.IRModule, passes: Sequence[str], pipeline: str,
                 target: tvm.target.Target, seed: int = 0) -> None:
        self.mod = fresh_constants(mod)  # as given: a build may write into its constants
        self.passes, self.pipeline, self.target = list(passes), pipeline, target
        self.seed = seed
        self._with: dict[str, Runs] | str | None = None

    def _observe(self, skip: int | None) -> dict[str, Runs]:
        # a fresh copy: a miscompiled kernel may have written into the module's constants
        vm = _build(fresh_constants(self.mod), self.passes, self.pipeline, self.target, skip)
        out = {}
        for fn in _entries(self.mod):
            rng = np.random.default_rng(self.seed)
            a, b = random_inputs(self.mod[fn], rng), random_inputs(self.mod[fn], rng)
            out[fn] = _run(vm, fn, [a, b, a][:CALLS])
        return out

    def confirm(self, ordinal: int, pass_name: str) -> Confirmation:
        """Does leaving out invocation `ordinal` (the pass `pass_name`) change the VM's runs?"""
        if ordinal == 0:
            return Confirmation(pass_name, "inconclusive",
                                "the module is unsafe as written: no pass to leave out")
        if self._with is None:
            try:
                self._with = self._observe(None)
            except Exception as exc:  # noqa: BLE001 - TVM or the VM refusing is the verdict
                self._with = _why(exc)
        if isinstance(self._with, str):
            return Confirmation(pass_name, "inconclusive",
                                f"TVM cannot build or run the module: {self._with}")
        try:
            without = self._observe(ordinal)
        except Exception as exc:  # noqa: BLE001
            return Confirmation(pass_name, "inconclusive",
                                f"without {pass_name} TVM cannot build or run it: {_why(exc)}")
        for fn, runs in self._with.items():
            diff = _difference(fn, runs, without[fn], pass_name)
            if diff is not None:
                return Confirmation(pass_name, "reproduced", diff)
        n = len(self._with)
        return Confirmation(pass_name, "not reproduced",
                            f"{CALLS} calls of {n} function{'s' * (n != 1)} agree with and "
                            f"without {pass_name}")


def _why(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:300]


def confirm_report(report: AuditReport, mod: tvm.IRModule, seed: int = 0) -> None:
    """Confirm each pass that introduced an error finding (once per pass invocation); `mod`
    is the module as given (a copy taken with fresh_constants before the audit ran it)."""
    confirmer = Confirmer(mod, report.passes, report.pipeline, parse_target(report.target),
                          seed)
    for f in report.errors:
        if f.ordinal not in report.confirmations:
            report.confirmations[f.ordinal] = confirmer.confirm(f.ordinal, f.introduced_by)
