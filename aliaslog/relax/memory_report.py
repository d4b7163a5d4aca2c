"""`aliaslog memory`: planned and peak storage per function, with and without in-place calls.

Three variants of a module go through relax.build's default pipeline up to its memory planner:
the module as given, after TVM's DataflowUseInplaceCalls, and with aliaslog's VerifiedInplace
(after RewriteDataflowReshape). For each: the in-place calls, every function's planned and
peak bytes (memory_plan.py), and TVM's own `estimate_memory_usage` totals beside them.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import tvm
from tvm import relax

from extractor.relax_facts import check_param_modes
from extractor.relax_pipeline import make_pass

from .memory_plan import FunctionMemory, bytes_text, memory_of, plan
from .verified_inplace import InplaceReport, VerifiedInplace

VARIANTS = ("as given", "DataflowUseInplaceCalls", "VerifiedInplace")
FIRST = ("default", "zero")  # what runs before relax.build's default pipeline

_TVM_FUNC = re.compile(r"- Function (\S+):")
_TVM_TOTAL = re.compile(r"(Without|With) memory planning, there (?:is|are) (\d+) constant-size "
                        r"memory allocation\(s\) with total size ([0-9.e+-]+) GB")


def tvm_estimate(planned: tvm.IRModule) -> dict[str, dict[str, float]]:
    """TVM's estimate_memory_usage of a planned module: per function, the total bytes it
    counts without and with memory planning (it sums every allocation, and prints gigabytes
    to four significant digits, so these are rounded)."""
    text = relax.analysis.estimate_memory_usage(planned)
    out: dict[str, dict[str, float]] = {}
    fn = None
    for line in text.splitlines():
        m = _TVM_FUNC.search(line)
        if m:
            fn = m.group(1)
            continue
        m = _TVM_TOTAL.search(line)
        if m and fn is not None:
            key = "without_planning" if m.group(1) == "Without" else "with_planning"
            out.setdefault(fn, {})[key] = round(float(m.group(3)) * 1024 ** 3)
    return out


def count_inplace(mod: tvm.IRModule) -> int:
    """call_tir_inplace and call_inplace_packed calls of a module."""
    names = {"relax.call_tir_inplace", "relax.call_inplace_packed"}
    found = [0]

    def visit(e: Any) -> None:
        if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.Op) and str(e.op.name) in names:
            found[0] += 1

    for fn in mod.functions.values():
        if isinstance(fn, relax.Function):
            relax.analysis.post_order_visit(fn, visit)
    return found[0]


@dataclass
class Variant:
    """One variant of the module at the memory planner."""

    name: str
    inplace_calls: int
    functions: dict[str, FunctionMemory]
    tvm: dict[str, dict[str, float]]
    inplace: InplaceReport | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "inplace_calls": self.inplace_calls,
            "functions": {f: {**m.as_json(), "tvm_estimate_bytes": self.tvm.get(f, {})}
                          for f, m in self.functions.items()}}
        if self.inplace is not None:
            out["refused"] = [r.as_json() for r in self.inplace.refused]
        return out


@dataclass
class MemoryReport:
    """The three variants of one module."""

    variants: list[Variant] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {v.name: v.as_json() for v in self.variants}

    @property
    def inplace(self) -> InplaceReport:
        """What VerifiedInplace did (its variant's report)."""
        found = self.variants[VARIANTS.index("VerifiedInplace")].inplace
        assert found is not None
        return found

    def as_text(self) -> str:
        rows = [("variant", "function", "in-place", "planned B", "peak B", "TVM estimate B")]
        for v in self.variants:
            for f, m in v.functions.items():
                est = v.tvm.get(f, {}).get("with_planning")
                rows.append((v.name, f"@{f}", str(v.inplace_calls), bytes_text(m.planned),
                             bytes_text(m.peak), "-" if est is None else str(int(est))))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                           for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                 for r in rows]
        return "\n".join(lines)


def memory_report(mod: tvm.IRModule, *, first: str = "default",
                  donate: Sequence[tuple[str, str]] = (), target: str = "llvm",
                  **options: Any) -> MemoryReport:
    """The module as given, after DataflowUseInplaceCalls, and with VerifiedInplace, each at
    relax.build's memory planner. `first`: `default` (nothing runs before relax.build's
    default pipeline) or `zero` (relax's zero pipeline first: legalize, fold, fuse; then
    VerifiedInplace sees fused kernels). `options`: analyze_relax's."""
    if first not in FIRST:
        raise ValueError(f"unknown pipeline `{first}` (choose from {', '.join(FIRST)})")
    check_param_modes(mod, donate)
    report = MemoryReport()
    reports: list[InplaceReport] = []
    before = [] if first == "default" else [relax.get_pipeline(first)]
    ours = VerifiedInplace(donate=donate, target=target, on_report=reports.append, **options)
    chains = {
        "as given": before,
        "DataflowUseInplaceCalls": [relax.transform.DataflowUseInplaceCalls(), *before],
        "VerifiedInplace": [*before, make_pass("LegalizeOps"),
                            make_pass("RewriteDataflowReshape"), ours],
    }
    for name in VARIANTS:
        with tvm.target.Target(target), contextlib.redirect_stderr(io.StringIO()):
            variant = tvm.transform.Sequential(chains[name])(mod)
        planned = plan(variant, target)
        report.variants.append(Variant(
            name, count_inplace(legalized(variant, target)),
            memory_of(planned, **_analysis(options)), tvm_estimate(planned),
            reports[-1] if name == "VerifiedInplace" else None))
    return report


def legalized(mod: tvm.IRModule, target: str) -> tvm.IRModule:
    """LegalizeOps, under the target (DataflowUseInplaceCalls' rewrites show only after it)."""
    with tvm.target.Target(target), contextlib.redirect_stderr(io.StringIO()):
        return make_pass("LegalizeOps")(mod)


def _analysis(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in ("engine", "op_effects", "tir_effects")}
