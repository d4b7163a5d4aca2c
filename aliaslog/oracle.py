"""Dynamic oracle: what interpreter runs really do with reference cells, as ground truth for
the static analysis (observed accesses and aliases must be a subset of the static ones)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from extractor.relay import ast as A

from .analysis import AnalysisResult
from .interpreter import evaluate, random_inputs


@dataclass(frozen=True)
class Access:
    """One ref_read / ref_write: the node, the cell's allocation site, the write it saw."""

    node: A.Expr
    site: A.RefCreate
    last_write: A.RefWrite | None  # for reads: the write whose value was read, if any


@dataclass
class Observed:
    """Everything the runs saw, keyed by the analysis' node ids."""

    accesses: list[Access] = field(default_factory=list)

    def holders(self, result: AnalysisResult) -> dict[str, set[str]]:
        """Allocation site id -> ids of the variables through which the cell was accessed."""
        ids = result.extraction.ids
        out: dict[str, set[str]] = {}
        for a in self.accesses:
            ref = a.node.ref  # type: ignore[attr-defined]
            if isinstance(ref, A.Var):
                out.setdefault(ids.id(a.site), set()).add(ids.id(ref))
        return out

    def alias_pairs(self, result: AnalysisResult) -> set[tuple[str, str]]:
        """Ordered pairs of distinct variables seen holding the same cell."""
        return {(a, b) for vs in self.holders(result).values() for a in vs for b in vs if a != b}


def observe(mod: A.Module, seeds: Iterable[int], entry: str = "main") -> Observed:
    """Run `entry` on seeded random inputs and record every cell access."""
    obs = Observed()
    for seed in seeds:
        recorder = _Recorder(obs.accesses)
        evaluate(mod, random_inputs(mod.functions[entry], seed), entry=entry,
                 observer=recorder.event)
    return obs


class _Recorder:
    """The interpreter observer of one run: cells by identity, kept alive for the run."""

    def __init__(self, accesses: list[Access]) -> None:
        self.accesses = accesses
        self.site: dict[int, A.RefCreate] = {}
        self.last: dict[int, A.RefWrite] = {}
        self.cells: list[object] = []

    def event(self, event: str, node: A.Expr, cell: object) -> None:
        self.cells.append(cell)
        if event == "create":
            self.site[id(cell)] = node  # type: ignore[assignment]
        elif event == "read":
            self.accesses.append(Access(node, self.site[id(cell)], self.last.get(id(cell))))
        else:
            self.accesses.append(Access(node, self.site[id(cell)], None))
            self.last[id(cell)] = node  # type: ignore[assignment]


def access_variables(result: AnalysisResult) -> set[str]:
    """Variables the program reads or writes cells through (the oracle can only see those)."""
    ids = result.extraction.ids
    return {ids.id(n.ref) for n in ids.nodes.values()
            if isinstance(n, (A.RefRead, A.RefWrite)) and isinstance(n.ref, A.Var)}


def unsound_findings(result: AnalysisResult, obs: Observed) -> list[str]:
    """Observations the static analysis does not allow; empty when it is sound on these runs.

    Checked: every access is within the reference's points-to set, every observed alias pair
    is a may-alias pair, and every write a demanded read saw is a demanded write.
    """
    ids = result.extraction.ids
    pts: dict[str, set[str]] = {}
    for n, o in result.relations["pts"]:
        pts.setdefault(n, set()).add(o)
    aliases = set(result.relations["may_alias"])
    out = []
    for a in obs.accesses:
        ref_id, site_id = ids.id(a.node.ref), ids.id(a.site)  # type: ignore[attr-defined]
        if site_id not in pts.get(ref_id, set()):
            out.append(f"{result.describe(ids.id(a.node))} touched the cell made by "
                       f"{result.describe(site_id)}, outside its static points-to set")
    # write -> read flows: a demanded read saw a write the analysis calls dead (needs the
    # demand graph, i.e. analyze(..., explain=True))
    demanded = {x for k, x, _ in result._why if k == "used"} | {
        x for k, x, _ in result._roots if k == "used"}
    demanded_writes = {x for k, x, _ in result._why if k == "write"}
    for a in obs.accesses:
        if isinstance(a.node, A.RefRead) and a.last_write is not None \
                and ids.id(a.node) in demanded and ids.id(a.last_write) not in demanded_writes:
            out.append(f"demanded {result.describe(ids.id(a.node))} read the value of "
                       f"{result.describe(ids.id(a.last_write))}, which the analysis calls dead")
    for x, y in sorted(obs.alias_pairs(result) - aliases):
        out.append(f"{result.describe(x)} and {result.describe(y)} held the same cell, but "
                   "are not a static may-alias pair")
    return out
