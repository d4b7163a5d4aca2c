"""`aliaslog explain` for Relax: why a binding is kept, and the chain behind a finding.

A kept binding's explanation is the shortest chain of demands from it to a root (the entry's
result, an effect nobody can see through, memory the caller sees), as for Relay. A finding is
explained by its parts: the write (and how it writes: in place, into a destination, through a
call of a function or closure that writes), the memory at stake, and, when a variable still
names that memory, the binding after the write that reads it, with why that binding is kept.
"""

from __future__ import annotations

from typing import Any

from tvm import relax

from ..demand import DemandGraph, best_reason, start_of
from .analysis import RelaxResult, Violation

EXPLAIN = frozenset({"dem_edge", "dem_root"})


def demand_of(res: RelaxResult) -> DemandGraph:
    """The demand graph of a result analysed with the EXPLAIN relations read back."""
    if "dem_edge" not in res.relations:
        raise ValueError("analyse with read_back=READ_BACK | EXPLAIN to explain")
    return DemandGraph.of(res.relations["dem_edge"], res.relations["dem_root"])


def explain_binding(res: RelaxResult, bid: str, demand: DemandGraph | None = None) -> list[str]:
    """Why binding bid is kept (a chain to a root), or that it is removable."""
    demand = demand or demand_of(res)
    lets = {n for n, kind, _ in res.extraction.facts.rows["node"] if kind == "let"}
    if bid in res.removable_ids:
        return [f"{res.place(bid)} is removable: nothing demands its value or effects"]
    lines: list[str] = []
    seen: set[str] = set()
    while True:
        seen.add(bid)
        r = best_reason(res.reasons[bid])
        lines.append(f"{res.place(bid)} is kept: {r.describe()}")
        if r.reason == "referenced":
            owner = res.binding_of_node(r.witness) or _owner(res, r.witness)
            lines.append(f"  mentioned by {res.describe(r.witness)}")
            if owner is None or owner in seen:
                lines.append("  which is part of a function body that is always kept")
                return lines
            bid = owner
            continue
        start = start_of(r)
        chain = demand.chain(start)[1:] or ([start] if start in demand.roots else [])
        for k, item in enumerate(chain):
            if item[1] in lets and k < len(chain) - 1:
                continue  # a let passes its block's value on: nothing to say
            line = f"  because {demand.text(item, res.describe)}"
            if line != lines[-1]:
                lines.append(line)
        return lines


def _owner(res: RelaxResult, nid: str) -> str | None:
    """The binding whose code holds node nid (its segment)."""
    for n, owner in res.extraction.facts.rows["segment"]:
        if n == nid and owner in res.extraction.ids.binding_of:
            return str(owner)
    return None


def explain_finding(res: RelaxResult, v: Violation,
                    demand: DemandGraph | None = None) -> list[str]:
    """The chain behind a finding: what writes, which memory, and who reads it after."""
    demand = demand or demand_of(res)
    lines = [v.describe().splitlines()[0]]
    site = v.site_id
    if site is not None:
        lines.append(f"  the write: {res.place(site)} {_how(res, site)}")
    if v.obj:
        lines.append(f"  the memory: {v.obj}")
    if v.kind in ("inplace-param", "inplace-const"):
        lines.append("  which the caller (or every later call) sees")
    if v.var is not None:
        reader = _reader_after(res, site, v.var.name) if site is not None else None
        if reader is not None:
            lines.append(f"  still named by `{v.var.name}`, which {res.place(reader)} reads "
                         "after the write")
            lines += ["  " + x for x in explain_binding(res, reader, demand)]
        else:
            lines.append(f"  still named by `{v.var.name}`, which is used after the write")
    elif site is not None and v.kind != "purity-asserted":
        lines += ["  " + x for x in explain_binding(res, site, demand)]
    if v.kind == "purity-asserted" and site is not None:
        lines.append(f"  observable: {_observable_why(res, site)}")
    return lines


def _how(res: RelaxResult, bid: str) -> str:
    """How the binding's call writes memory, in words."""
    value = res.binding(bid).value
    nid = res.extraction.ids.node_id.get(value)
    writes = {how for w, _, how in res.relations.get("write_obj", ()) if w == nid}
    if "inplace" in writes:
        return "writes its argument in place"
    if "dps" in writes:
        return "fills a destination that shares memory"
    callee = res.extraction.ids.callee_name.get(nid, "")
    if callee:
        return f"calls {callee}, which writes it"
    return "writes it"


def _reader_after(res: RelaxResult, site: str, name: str) -> str | None:
    """The first kept binding after `site`, in its function, whose value mentions `name`."""
    ids = res.extraction.ids
    fn = ids.binding_func[site]
    after = False
    for bid in res.binding_ids():
        if ids.binding_func[bid] != fn:
            continue
        if bid == site:
            after = True
            continue
        if after and bid in res.kept_ids and name in _mentions(res.binding(bid).value):
            return bid
    return None


def _mentions(e: Any) -> set[str]:
    found: set[str] = set()

    def visit(x: Any) -> None:
        if isinstance(x, relax.Var):
            found.add(str(x.name))

    relax.analysis.post_order_visit(e, visit)
    return found


def _observable_why(res: RelaxResult, bid: str) -> str:
    nid = res.extraction.ids.node_id.get(res.binding(bid).value)
    roots = {n: why for n, why in res.relations.get("observable_root", ())}
    if nid in roots:
        return roots[nid]
    return "it calls code that has an effect the outside world sees"
