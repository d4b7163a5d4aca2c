"""`aliaslog check`: alias-safety violations in one module, and effects a pass lost or reordered."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import tvm
from tvm import relax

from extractor.relax_load import PipelineError

from ..loading import write_text_atomically
from .analysis import Place, RelaxResult, Violation, analyze_relax

DEFAULT_POINTS = ("input", "legalized", "lowered")


@dataclass
class CheckReport:
    """What `check` found at the extraction points it reached, and where TVM stopped it."""

    violations: list[Violation]
    checked: list[str]  # points analysed, in pipeline order
    failed: PipelineError | None = None  # TVM's pipeline could not reach this point
    not_reached: list[str] = field(default_factory=list)  # points after the failed one

    def points(self) -> dict[str, str]:
        """Every requested point: `checked`, or why not."""
        out = {p: "checked" for p in self.checked}
        if self.failed is not None:
            out[self.failed.point] = ("not checked: TVM's pipeline failed before it: "
                                      + self.failed.reason)
        out.update({p: "not checked: TVM's pipeline does not reach it" for p in self.not_reached})
        return out


def check_module(mod: tvm.IRModule, points: tuple[str, ...] = DEFAULT_POINTS,
                 save_points: str | os.PathLike[str] | None = None, **options) -> CheckReport:
    """Violations of the module as given and at later extraction points.

    A later point repeats an earlier finding under new binding names (lowering renames), so a
    finding of the same kind about the same memory (a parameter, a constant, memory from
    outside; else the variable at risk) in the same function is reported once. When TVM's
    pipeline fails before a point, the points before it are the verdict and the report says
    which point failed and why (no executable reaches the later points). Findings at later
    points name the bindings of the module as given where they survive (`relocator`).
    """
    seen: set[tuple] = set()
    report = CheckReport([], [])
    ordered = [p for p in DEFAULT_POINTS if p in points]
    given: dict[tuple[str, str], Place] = {}  # the module as given: (function, name) -> place
    for i, point in enumerate(ordered):
        try:
            res = analyze_relax(mod, point=point, **options)
        except PipelineError as err:
            report.failed, report.not_reached = err, ordered[i + 1:]
            break
        if point == "input":
            given = {(p.function, p.name): p for p in map(res.place, res.binding_ids())}
        else:
            res.relocate_places(relocator(given, res, save_points))
        found = res.violations()
        report.violations += [v for v in found if v.key() not in seen]
        seen |= {v.key() for v in found}
        report.checked.append(point)
    return report


def relocator(given: dict[tuple[str, str], Place], res: RelaxResult,
              save_points: str | os.PathLike[str] | None) -> Callable[[Place], Place]:
    """How a later point's places are named: by the module as given's binding where it
    survives there (same function, same name); else, with `save_points`, in that point's IR
    written to DIR/<point>.py; else on `script`, the lines of that point's `mod.script()`."""
    def moved(p: Place) -> Place:
        if p.source != "script":
            return p
        if (p.function, p.name) in given:
            return given[(p.function, p.name)]
        if save_points is not None:
            path = Path(save_points) / f"{res.point}.py"
            if not path.exists():
                Path(save_points).mkdir(parents=True, exist_ok=True)
                write_text_atomically(path, res.script())
            return replace(p, source=str(path))
        return p

    return moved


@dataclass(frozen=True)
class EffectChange:
    """An observable call that a pass removed, or moved past another observable call."""

    kind: str  # "removed-impure" or "reordered-impure"
    severity = "error"
    function: str
    call: str  # what the binding calls
    before: Place
    after: Place | None

    def as_json(self) -> dict[str, object]:
        """The finding as `check --after --json` prints it."""
        bindings = [self.before.as_json("before")]
        if self.after is not None:
            bindings.append(self.after.as_json("after"))
        return {"check": self.kind, "severity": self.severity, "call": self.call,
                "bindings": bindings, "text": self.describe()}

    def describe(self) -> str:
        what = "removed" if self.kind == "removed-impure" else "reordered"
        lines = [f"error {self.kind}: the pass {what} a call with an observable effect "
                 f"({self.call})",
                 f"  before {self.before}" + (f"   {self.before.text}" if self.before.text else "")]
        if self.after is not None:
            lines.append(f"  after  {self.after}"
                         + (f"   {self.after.text}" if self.after.text else ""))
        return "\n".join(lines)


def _effect_sequences(res: RelaxResult) -> dict[str, list[tuple[str, str]]]:
    """Per Relax function: its observable bindings in program order, as (signature, id). A
    function literal's body runs where it is called, not where it is written (LambdaLift
    moves it out), so its bindings are not its enclosing function's."""
    seqs: dict[str, list[tuple[str, str]]] = {}
    ids = res.extraction.ids
    for bid in res.observable_ids():
        if bid in ids.in_literal:
            continue
        fn = ids.binding_func[bid]
        seqs.setdefault(fn, []).append((res.signature(bid), bid))
    return seqs


def _lcs(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of a and b."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = (table[i + 1][j + 1] + 1 if a[i] == b[j]
                           else max(table[i + 1][j], table[i][j + 1]))
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def compare_modules(before: tvm.IRModule, after: tvm.IRModule, **options) -> list[EffectChange]:
    """Observable calls of `before` that `after` lost, or runs in another order (per function).

    "Observable" is the analysis' judgment, not TVM's flags: io and unknown packed calls,
    writes to parameters, constants or outside memory, and calls of functions that make them,
    seen through call_pure_packed, force_pure and FPurity=true in-place ops alike.
    """
    return effect_changes(analyze_relax(before, **options), analyze_relax(after, **options))


def effect_changes(rb: RelaxResult, ra: RelaxResult) -> list[EffectChange]:
    """What compare_modules reports, from the two modules' analyses."""
    sb, sa = _effect_sequences(rb), _effect_sequences(ra)
    public_after = {str(gv.name_hint) for gv, f in ra.module.functions.items()
                    if isinstance(f, relax.Function)}
    out: list[EffectChange] = []
    for fn, seq_b in sorted(sb.items()):
        seq_a = sa.get(fn, [])
        if fn not in public_after and fn not in rb.extraction.entries:
            continue  # a private function the pass deleted: its callers are compared instead
        a_sigs = [s for s, _ in seq_a]
        b_sigs = [s for s, _ in seq_b]
        matched = {i for i, _ in _lcs(b_sigs, a_sigs)}
        left = Counter(a_sigs)
        for s, _ in seq_b:
            left[s] -= 1
        for i, (sig, bid) in enumerate(seq_b):
            if i in matched:
                continue
            if left[sig] < 0:
                left[sig] += 1
                out.append(EffectChange("removed-impure", fn, sig, rb.place(bid), None))
            else:
                moved = next((ra.place(b) for s, b in seq_a if s == sig), None)
                out.append(EffectChange("reordered-impure", fn, sig, rb.place(bid), moved))
    return out
