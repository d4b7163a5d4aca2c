"""What `aliaslog analyze` prints, for either IR: one summary type and its two renderings.

Relay and Relax results differ in what they are about (an analysis variant of a program in
A-normal form; a module at one extraction point, with alias-safety violations), not in how
they are shown, so each IR fills one `AnalyzeSummary` and this module prints it as text or
as the `--json` document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RemovableBinding:
    """A binding DCE may delete, where a user finds it."""

    name: str
    function: str
    line: int | None
    col: int | None = None
    in_script: bool = False  # the line is of the module's printed TVMScript, not the file

    def where(self) -> str:
        if not self.line:
            return "no source line"
        return f"line {self.line} of the printed module" if self.in_script else f"line {self.line}"


@dataclass
class AnalyzeSummary:
    """Counts, verdicts, metrics and findings of one analysis, ready to print."""

    file: str
    ir: str  # "relay" or "relax"
    engine: str
    timings: dict[str, float]
    bindings: int
    removable: list[RemovableBinding]
    metrics: dict[str, int]
    label: str  # what was analysed: the variant's name, or the extraction point
    context: dict[str, Any]  # IR-specific JSON fields: "options", or "point"
    metrics_heading: str = "metrics:"
    violations: list[str] = field(default_factory=list)  # described findings, Relax only

    @property
    def seconds(self) -> float:
        return sum(self.timings.values())

    def as_json(self) -> str:
        """The `--json` document: the same keys for both IRs, plus the IR's context."""
        doc: dict[str, Any] = {
            "file": self.file,
            "ir": self.ir,
            "engine": self.engine,
            **self.context,
            "seconds": round(self.seconds, 6),
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "bindings": self.bindings,
            "kept": self.bindings - len(self.removable),
            "removable": len(self.removable),
            "removable_bindings": [
                {"name": r.name, "function": r.function, "line": r.line, "col": r.col,
                 **({"line_of": "printed module"} if r.in_script else {})}
                for r in self.removable],
            "violations": self.violations,
            "metrics": self.metrics,
        }
        return json.dumps(doc, indent=2)

    def as_text(self) -> str:
        """The human rendering: a headline, the removable bindings, metrics, findings."""
        n_dead = len(self.removable)
        lines = [f"{self.file}: {self.bindings - n_dead} bindings kept, {n_dead} removable "
                 f"({self.engine}, {self.label}, {self.seconds:.3f} s)"]
        if self.removable:
            lines.append("removable:")
            lines += [f"  {r.name} in {r.function} ({r.where()})" for r in self.removable]
        lines.append(self.metrics_heading)
        width = max((len(n) for n in self.metrics), default=0)
        lines += [f"  {name:<{width}}  {value}" for name, value in self.metrics.items()]
        if self.violations:
            lines.append("violations:")
            lines += ["  " + v.replace("\n", "\n  ") for v in self.violations]
        return "\n".join(lines)
