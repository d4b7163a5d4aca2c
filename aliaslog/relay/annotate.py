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

from collections.abc import Iterator
from typing import Any

from extractor.relay import ast as A
from extractor.relay.printer import astext

from .analysis import AnalysisResult

FORMAT = "aliaslog-annotations"
VERSION = 1


def binding_note(result: AnalysisResult, node: A.Expr) -> str | None:
    """`keep: <reason>` or `dead` for a let or a graph binding of the input; None for others."""
    verdict = result.source_view().verdict(node)
    if verdict is None:
        return None
    if not verdict.kept:
        return "dead"
    return f"keep: {verdict.reason.describe()}" if verdict.reason else "keep"


def annotated_text(result: AnalysisResult) -> str:
    """The program in Relay text with `/* keep: reason */` or `/* dead */` after each binding."""
    assert result.source is not None
    return astext(result.source, binding_notes=lambda node: binding_note(result, node))


def binding_entries(result: AnalysisResult, reasons: bool = True) -> Iterator[dict[str, Any]]:
    """The annotation file's `bindings`, one at a time, in source order; with `reasons=False`
    without the reason and its witness (describing a witness is most of an entry's cost, and a
    summary that only counts and lists the dead ones need not hold them all)."""
    view = result.source_view()
    func_of = _functions_of(view.source)
    for k, let in enumerate(view.lets):
        verdict = view.verdicts[id(let)]
        span = let.span or let.var.span
        entry = {
            "id": f"s{k}",
            "name": f"%{let.var.name_hint}",
            "function": func_of.get(id(let), "fn"),
            "line": span.line if span else None,
            "col": span.col if span else None,
            "verdict": "keep" if verdict.kept else "dead",
        }
        if reasons:
            reason = verdict.reason
            entry["reason"] = reason.reason if reason else None
            entry["witness"] = result.describe(reason.witness) if reason else None
        yield entry


def annotation_document(result: AnalysisResult, file: str) -> dict[str, Any]:
    """The machine-readable annotation file (see the module docstring for the format)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "file": file,
        "engine": result.engine,
        "bindings": list(binding_entries(result)),
        "metrics": result.metrics,
    }


def _functions_of(mod: A.Module) -> dict[int, str]:
    """id(Let) -> `@name` of the global function it is written in (`fn` inside a literal)."""
    out: dict[int, str] = {}
    for name, fn in mod.functions.items():
        stack: list[tuple[A.Expr, str]] = [(fn.body, f"@{name}")]
        seen: set[int] = set()
        while stack:
            e, where = stack.pop()
            if id(e) in seen:
                continue
            seen.add(id(e))
            if isinstance(e, A.Let):
                out.setdefault(id(e), where)
            inner = "fn" if isinstance(e, A.Function) else where
            stack.extend((c, inner) for c in A.children(e))
    return out
