"""Relay -> facts -> rules -> AnalysisResult: keep/remove verdicts with reasons, keyed by node.

The facts describe the program as TVM's debug executor runs it (`prepare`: A-normal form, so a
shared graph node is one binding evaluated once); `source_view()` reports the verdicts against
the program as written.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from datalog_rules import MAIN
from extractor.effect_table import effect_sources
from extractor.relay import ast as A
from extractor.relay.transforms.prepare import Prepared, prepare_for_analysis
from extractor.relay_facts import Extraction, extract_relay, load_op_effects

from .. import pipeline
from ..demand import DemandGraph, Item, best_reason, start_of
from ..options import DEFAULT_ANALYSIS, DEFAULT_ENGINE, AnalysisOptions, EngineOptions
from ..pipeline import Reason, Verdicts
from .source_view import SourceView

READ_BACK = {"pts", "may_alias", "call_target", "local_effect", "unknown_effect",  # points_to=True
             "clone_site"}
EXPLAIN = {"dem_edge", "dem_root"}


@dataclass(kw_only=True)
class AnalysisResult(Verdicts):
    """A Relay analysis: the verdicts, mapped to the extractor's AST nodes."""

    extraction: Extraction
    timings: dict[str, float] = field(default_factory=dict)
    demand: DemandGraph = field(default_factory=DemandGraph, repr=False)  # with explain=True
    options: AnalysisOptions = DEFAULT_ANALYSIS  # the variant that computed it
    source: A.Module | None = None  # the program as written
    prepared: Prepared | None = None  # what was analysed: its normal form and provenance
    _view: SourceView | None = field(default=None, repr=False)
    _temps: dict[int, str] | None = field(default=None, repr=False)
    _by_source: dict[int, str] | None = field(default=None, repr=False)

    def source_view(self) -> SourceView:
        """The verdicts on the input program's lets and graph bindings."""
        if self._view is None:
            self._view = SourceView(self)
        return self._view

    def best_reason(self, bid: str) -> Reason:
        """The reason `explain` starts from for a kept binding."""
        return best_reason(self.reasons[bid])

    # ------------------------------------------------------------------- bindings
    # Two levels: the program as written (kept, removable, reasons_for: what a user asks
    # about), and the analysed normal form (bindings, analysed_*: what the oracle runs).
    def bindings(self) -> Iterator[tuple[str, A.Let]]:
        """Every let binding of the analysed program with its id, in id order."""
        ids = self.extraction.ids
        binding_id = ids.binding_id
        for let in ids.binding_of.values():  # (in id order; each id string held once)
            yield binding_id[id(let)], let

    def binding_id(self, let: A.Let) -> str:
        return self.extraction.ids.binding_id[id(let)]

    def analysed_kept(self) -> list[A.Let]:
        return [let for bid, let in self.bindings() if bid in self.kept_ids]

    def analysed_removable(self) -> list[A.Let]:
        return [let for bid, let in self.bindings() if bid in self.removable_ids]

    def kept(self) -> list[A.Let]:
        """The input program's lets that DCE keeps (all or part of)."""
        if self.source is None:
            return self.analysed_kept()
        return self.source_view().kept()

    def removable(self) -> list[A.Let]:
        """The input program's lets that DCE removes whole."""
        if self.source is None:
            return self.analysed_removable()
        return self.source_view().removable()

    def reasons_for(self, let: A.Let) -> list[Reason]:
        """Why a let of the input (or of the analysed program) is kept; [] when removable."""
        verdict = self.source_view().verdict(let) if self.source is not None else None
        bid = verdict.binding if verdict is not None else self.binding_id(let)
        if verdict is not None and not verdict.kept:
            return []
        return self.reasons.get(bid, []) if bid is not None else []

    # ------------------------------------------------------------- points-to, alias
    def _read(self, relation: str) -> list[tuple]:
        """An output relation that only the points-to and effect queries read."""
        if relation not in self.relations:
            raise ValueError("this result was computed with points_to=False")
        return self.relations[relation]

    def node(self, nid: str) -> object:
        return self.extraction.ids.nodes.get(nid)

    def node_id_of(self, e: A.Expr) -> str | None:
        """The analysed node that stands for e, a node of the input or of the analysed program
        (the normal form rebuilds every compound node: its binding's value stands for it)."""
        ids = self.extraction.ids
        nid = ids.node_id.get(id(e))
        if nid is not None or self.prepared is None:
            return nid
        if self._by_source is None:
            origin = self.prepared.anf.provenance.origin
            self._by_source = {}
            for _, let in self.bindings():
                o = origin.get(id(let))
                if o is not None:
                    self._by_source.setdefault(id(o.source), ids.id(let.value))
        return self._by_source.get(id(e))

    def points_to(self, e: A.Expr) -> set[str]:
        """Object ids (allocation-site node ids, or "$opaque") that e may evaluate to."""
        nid = self.node_id_of(e)
        return {o for n, o in self._read("pts") if n == nid}

    def may_alias_pairs(self) -> list[tuple[A.Var, A.Var]]:
        """Variable pairs that may point to the same allocated object (each pair once)."""
        out = []
        for a, b in self._read("may_alias"):
            if a < b:
                out.append((self.node(a), self.node(b)))
        return out  # type: ignore[return-value]

    # ----------------------------------------------------------------------- explain
    def explain(self, node: A.Expr, name: str | None = None) -> list[str]:
        """The chain of reasons from a kept binding to a root (result, escape, unknown effect).

        node is a let of the input program, a shared node of it (a graph binding, shown as
        `name`, e.g. the `%25` it is printed as), or a let of the analysed program.
        """
        if "dem_edge" not in self.relations:
            raise ValueError("this result was computed with explain=False")
        verdict = self.source_view().verdict(node) if self.source is not None else None
        if verdict is None and isinstance(node, A.Let):
            return self._explain(self.binding_id(node), node)
        if verdict is None:
            raise ValueError("not a binding of the analysed program")
        if isinstance(node, A.Let):
            title = f"{name or _var_name(node.var)}{self.where(node)}"
        else:
            title = f"{name or 'the shared node'} ({self.describe(self.node_id_of(node))})"
        if not verdict.kept or verdict.binding is None:
            return [f"{title} is removable: nothing demands its value or effects"]
        decider = self.extraction.ids.binding_of[verdict.binding]
        lines = self._explain(verdict.binding, decider)
        origin = self.prepared.anf.provenance.origin.get(id(decider)) if self.prepared else None
        own = (decider.var is node.var) if isinstance(node, A.Let) else (
            origin is not None and origin.source is node)
        if own:
            lines[0] = f"{title} is kept: " + lines[0].split(" is kept: ", 1)[1]
        else:
            what = self.describe(self.extraction.ids.id(decider.value))
            lines[0] = f"{title} is kept: evaluating it evaluates {what}, which is kept"
        return lines

    def _explain(self, bid: str, let: A.Let) -> list[str]:
        name = _var_name(let.var)
        if bid not in self.kept_ids:
            return [f"{name}{self.where(let)} is removable: nothing demands its value or effects"]
        lines = []
        seen_bindings: set[str] = set()
        while True:
            seen_bindings.add(bid)
            reasons = self.reasons[bid]
            r = best_reason(reasons)
            lines.append(f"{_var_name(let.var)}{self.where(let)} is kept: {r.describe()}")
            if r.reason == "referenced":
                owner = self._owning_binding(r.witness)
                lines.append(f"  mentioned by {self.describe(r.witness)}")
                if owner is None or owner in seen_bindings:
                    lines.append("  which is part of a function body that is always kept")
                    return lines
                bid, let = owner, self.extraction.ids.binding_of[owner]
                continue
            start = start_of(r)
            chain = self.demand.chain(start)[1:] or ([start] if start in self.demand.roots
                                                     else [])
            for k, item in enumerate(chain):
                if isinstance(self.node(item[1]), A.Let) and k < len(chain) - 1:
                    continue  # a let passes its body's value on: nothing to say
                line = f"  because {self.describe_item(item)}"
                if line != lines[-1]:  # the normal form's aliases repeat what they name
                    lines.append(line)
            return lines

    def _owning_binding(self, nid: str) -> str | None:
        owners = [str(o) for n, o in self.extraction.facts.rows["segment"] if n == nid]
        for o in owners:
            if o in self.extraction.ids.binding_of:
                return o
        return None

    def _temp_values(self) -> dict[int, str]:
        """id(variable the normal form made up) -> node id of the value it names."""
        if self._temps is None:
            prov = self.prepared.anf.provenance if self.prepared is not None else None
            self._temps = {} if prov is None else {
                id(let.var): self.extraction.ids.id(let.value)
                for let in self.extraction.ids.binding_of.values() if prov.is_temp(let.var)}
        return self._temps

    def where(self, node: object) -> str:
        span = getattr(node, "span", None)
        if isinstance(node, A.Let) and span is None:
            span = node.var.span
        return f" (line {span.line})" if span is not None else ""

    def describe(self, nid: str) -> str:
        """A short human description of a node id."""
        if nid == "$opaque":
            return "a value from outside the program"
        node = self.node(nid)
        if node is None and "@" in nid:  # a heap context's clone: `site@c1@c2`
            site, *ctx = nid.split("@")
            calls = [self.describe(c) for part in ctx for c in part.split("/")
                     if self.node(c) is not None]
            return (f"{self.describe(site)}, the one made under "
                    f"{', '.join(calls) if calls else 'the entry'}")
        if isinstance(node, A.Var):
            value = self._temp_values().get(id(node))
            return _var_name(node) if value is None else self.describe(value)
        if isinstance(node, A.Function) and nid in self.extraction.ids.func_name:
            name = self.extraction.ids.func_name[nid]
            return f"function {name}{self.where(node)}" if name != "fn" else f"fn{self.where(node)}"
        kind = {
            A.RefCreate: "ref(...)", A.RefRead: "ref_read(...)", A.RefWrite: "ref_write(...)",
            A.Tuple: "a tuple", A.TupleGetItem: "a projection", A.If: "an if", A.Match: "a match",
            A.Let: "a let", A.Constant: "a constant",
        }.get(type(node))
        if isinstance(node, A.Call):
            callee = node.op
            if isinstance(callee, A.Op):
                kind = f"{callee.name}(...)"
            elif isinstance(callee, A.GlobalVar):
                kind = f"@{callee.name_hint}(...)"
            elif isinstance(callee, A.Var):
                kind = f"{_var_name(callee)}(...)"
            elif isinstance(callee, A.Constructor):
                kind = f"{callee.name_hint}(...)"
            else:
                kind = "a call"
        return f"{kind or type(node).__name__}{self.where(node)}"

    def describe_item(self, item: Item) -> str:
        return self.demand.text(item, self.describe)


def _var_name(v: A.Var) -> str:
    return f"%{v.name_hint}" if v.name_hint else "%_"


def analysis_program(mod: A.Module) -> A.Module:
    """The program the analysis of mod reasons about: mod as the debug executor runs it."""
    return prepare_for_analysis(mod).module


def analyze(
    mod: A.Module,
    options: AnalysisOptions = DEFAULT_ANALYSIS,
    *,
    engine: EngineOptions = DEFAULT_ENGINE,
    entry: str = "main",
    keep_files: str | os.PathLike[str] | None = None,
    op_effects: Any = (),
    explain: bool = True,
    points_to: bool = True,
) -> AnalysisResult:
    """Run the whole pipeline on a Relay module: extract facts, solve the rules, read back.

    `options` picks the analysis variant, `engine` the Datalog engine; `op_effects` are extra
    effect tables (files) over the op registry's effects.
    With `explain=False` the demand graph (the largest output) is not read back: verdicts,
    reasons, points-to and metrics are all there, but `AnalysisResult.explain` is not. With
    `points_to=False` only what DCE needs is read back (verdicts, reasons, metrics): not the
    points-to, alias, call-graph and effect relations (`relations`; `points_to` and
    `may_alias_pairs` answer from the first two; the metrics still count them all).
    """
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    prepared = prepare_for_analysis(mod)
    timings["prepare"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    extraction = extract_relay(prepared.module, entry,
                               load_op_effects(*effect_sources(op_effects)))
    timings["facts"] = time.perf_counter() - t0
    verdicts = pipeline.run(MAIN, extraction.facts, engine=engine, defines=options.defines(),
                            read_back=(READ_BACK if points_to else set())
                            | (EXPLAIN if explain else set()),
                            keep_files=keep_files, timings=timings)
    result = AnalysisResult(**{f.name: getattr(verdicts, f.name) for f in fields(Verdicts)},
                            extraction=extraction, timings=timings, options=options,
                            source=mod, prepared=prepared)
    result.demand = DemandGraph.of(result.relations.get("dem_edge", ()),
                                   result.relations.get("dem_root", ()))
    return result
