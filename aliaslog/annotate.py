"""The annotation itself: every binding marked keep (with its reason) or dead, as text or JSON.

The JSON form is a stable, versioned format for passes that consume the verdicts:

    {"format": "aliaslog-annotations", "version": 1, "file": ..., "engine": ...,
     "bindings": [{"name": "%x_12", "function": "@main", "line": 40, "col": 5,
                   "verdict": "keep" | "dead", "reason": "demanded" | "effect" |
                   "referenced" | null, "witness": "<description>" | null}, ...],
     "metrics": {...}}

`line`/`col` are the binding's source position (null for bindings a transform created).
Version 1 fields are never removed or renamed; new fields may be added.
"""

from __future__ import annotations

from typing import Any

from extractor.relay import ast as A
from extractor.relay.printer import astext

from .analysis import AnalysisResult, _best

FORMAT = "aliaslog-annotations"
VERSION = 1


def binding_note(result: AnalysisResult, let: A.Let) -> str | None:
    """`keep: <reason>` or `dead` for a binding the analysis saw; None for others."""
    bid = result.extraction.ids.binding_id.get(id(let))
    if bid is None:
        return None
    if bid in result.kept_ids:
        return f"keep: {_best(result.reasons[bid]).describe()}"
    return "dead"


def annotated_text(result: AnalysisResult) -> str:
    """The program in Relay text with `/* keep: reason */` or `/* dead */` after each binding."""
    return astext(result.extraction.module, binding_notes=lambda let: binding_note(result, let))


def annotation_document(result: AnalysisResult, file: str) -> dict[str, Any]:
    """The machine-readable annotation file (see the module docstring for the format)."""
    ids = result.extraction.ids
    func_of = {str(n): str(f) for n, _, f in result.extraction.facts.rows["node"]}
    entries = []
    for bid, let in result.bindings():
        span = let.span or let.var.span
        let_id = ids.node_id[id(let)]
        kept = bid in result.kept_ids
        reason = _best(result.reasons[bid]) if kept else None
        fid = func_of.get(let_id, "")
        entries.append(
            {
                "id": bid,
                "name": f"%{let.var.name_hint}",
                "function": ids.func_name.get(fid, "fn"),
                "line": span.line if span else None,
                "col": span.col if span else None,
                "verdict": "keep" if kept else "dead",
                "reason": reason.reason if reason else None,
                "witness": result.describe(reason.witness) if reason else None,
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "file": file,
        "engine": result.engine,
        "bindings": entries,
        "metrics": result.metrics,
    }
