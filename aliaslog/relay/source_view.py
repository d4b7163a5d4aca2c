"""Verdicts on the A-normal form the analysis runs on, reported against the program as written.

The analysis sees the program as TVM's debug executor runs it (`prepare`): every subexpression
let-bound once, a shared graph node bound once where its uses meet. A let of the input is kept
when anything evaluated for its value is kept: the binding of its variable, a subexpression of
its value, or a let nested in its value (removing the input let removes all of those). A node
the input shares between several parents (`%N = ...` read back twice) is evaluated once for
all of them and gets a verdict of its own: a graph binding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from extractor.relay import ast as A
from extractor.relay.transforms.prepare import Prepared
from extractor.relay_facts import Extraction

from ..pipeline import Reason


class Analysed(Protocol):
    """What the view reads of an analysis result (`aliaslog.relay.analysis.AnalysisResult`)."""

    extraction: Extraction
    kept_ids: set[str]
    source: A.Module | None
    prepared: Prepared | None

    def bindings(self) -> Iterator[tuple[str, A.Let]]: ...

    def best_reason(self, bid: str) -> Reason: ...


@dataclass(frozen=True, slots=True)  # (one per input let)
class Verdict:
    """What the analysis says of one input let or graph binding."""

    node: A.Expr  # the input Let, or the shared node of a graph binding
    kept: bool
    binding: str | None  # the analysed binding that decides: a kept one, else the let's own
    reason: Reason | None  # why it is kept (None when it is removable)


class SourceView:
    """The input program's lets and graph bindings, each with its verdict."""

    def __init__(self, result: Analysed) -> None:
        self.result = result
        assert result.prepared is not None and result.source is not None
        prov = result.prepared.anf.provenance
        ids = result.extraction.ids
        self.source = result.source
        extent: dict[int, list[str]] = {}  # id(input let var) -> analysed bindings of its value
        self.graph: list[tuple[A.Expr, str]] = []  # (shared input node, its analysed binding)
        for bid, let in result.bindings():
            origin = prov.origin.get(id(let))
            if origin is None:
                continue
            if origin.owner is not None:
                extent.setdefault(id(origin.owner.var), []).append(bid)
            if origin.shared and not isinstance(origin.source, A.Var | A.GlobalVar | A.Op
                                                | A.Constructor | A.Let):
                self.graph.append((origin.source, bid))  # bound alone, or as a let's value
        self.lets = [n for name in self.source.functions for n in
                     A.post_order(self.source.functions[name]) if isinstance(n, A.Let)]
        nested: dict[int, list[A.Let]] = {}
        for let in self.lets:
            outer = prov.enclosing.get(id(let.var))
            if outer is not None:
                nested.setdefault(id(outer.var), []).append(let)
        self.verdicts: dict[int, Verdict] = {}
        for let in self.lets:  # post-order: a let nested in a value comes before its owner
            own = prov.binding_of.get(id(let.var), let)  # a Primitive function's lets stay
            own_id = ids.binding_id.get(id(own))
            candidates = ([own_id] if own_id else []) + [
                b for b in extent.get(id(let.var), ()) if b != own_id]
            decider = next((b for b in candidates if b in result.kept_ids), None)
            if decider is None:
                inner = [self.verdicts[id(x)] for x in nested.get(id(let.var), ())]
                kept_inner = next((v for v in inner if v.kept), None)
                if kept_inner is not None:
                    self.verdicts[id(let)] = Verdict(let, True, kept_inner.binding,
                                                     kept_inner.reason)
                    continue
            if own_id is None and decider is None:  # not analysed (inside a Primitive fn)
                self.verdicts[id(let)] = Verdict(let, True, None, None)
                continue
            reason = result.best_reason(decider) if decider is not None else None
            self.verdicts[id(let)] = Verdict(let, decider is not None, decider or own_id, reason)
        self.graph_verdicts = {
            id(node): Verdict(node, bid in result.kept_ids, bid,
                              result.best_reason(bid) if bid in result.kept_ids else None)
            for node, bid in self.graph}

    def verdict(self, node: A.Expr) -> Verdict | None:
        """The verdict on an input let or a shared node (None for other nodes)."""
        return self.verdicts.get(id(node)) or self.graph_verdicts.get(id(node))

    def kept(self) -> list[A.Let]:
        return [let for let in self.lets if self.verdicts[id(let)].kept]

    def removable(self) -> list[A.Let]:
        return [let for let in self.lets if not self.verdicts[id(let)].kept]
