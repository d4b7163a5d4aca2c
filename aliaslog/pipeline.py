"""The one pipeline of both IRs: facts -> engine -> output relations -> verdicts.

Relay (`aliaslog.relay.analysis`) and Relax (`aliaslog.relax.analysis`) each extract their facts
with their own extractor and build their result on `Verdicts`: what every analysis reads back, per
binding kept or removable with its reasons, and the metrics. An engine's output is validated
before it is believed: every binding the extractor wrote has exactly one verdict, every id a
verdict names is one the extractor wrote, and the relations the read-back needs are there;
anything else is an engine error, and `auto` falls back from Soufflé to the embedded engine.
"""

from __future__ import annotations

import logging
import os
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

from extractor.facts import FactSet
from extractor.runtime import gc_paused
from extractor.tsv import unescape_symbol

from .engines import EngineError, solve
from .options import EngineOptions

log = logging.getLogger("aliaslog.pipeline")

REASONS = {
    "demanded": "its value is demanded",
    "effect": "evaluating it has a demanded or unknown effect",
    "referenced": "kept code mentions its variable",
}
VERDICT_RELATIONS = frozenset({"keep_reason", "kept", "removable", "metric", "results_of"})


class Reason(NamedTuple):
    """Why a binding is kept: a reason from keep.dl and the node that witnesses it. A
    keep_reason row as read back: the relation's rows are these tuples, held once."""

    binding: str
    reason: str
    witness: str  # node id

    def describe(self) -> str:
        return REASONS.get(self.reason, self.reason)


@dataclass
class Verdicts:
    """What an analysis reads back from the engine: relations, verdicts, reasons, metrics."""

    relations: dict[str, list[tuple]]
    engine: str
    seconds: float
    kept_ids: set[str] = field(default_factory=set)
    removable_ids: set[str] = field(default_factory=set)
    reasons: dict[str, list[Reason]] = field(default_factory=dict)
    metrics: dict[str, int] = field(default_factory=dict)


def run(program: Path, facts: FactSet, *, engine: EngineOptions,
        defines: dict[str, str] | None = None, read_back: set[str] | None = None,
        keep_files: str | os.PathLike[str] | None = None,
        timings: dict[str, float] | None = None) -> Verdicts:
    """Solve `program` on `facts` and read the verdicts back, validated.

    `read_back` names the output relations wanted (all of them with `keep_files`, which also
    keeps the facts/ and out/ directories); `timings` gets `solve` and `read-back` seconds.
    """
    timings = timings if timings is not None else {}
    wanted = None if keep_files is not None else set(read_back or ()) | VERDICT_RELATIONS
    facts.seal()
    token = secrets.token_hex(8)
    rows = {**facts.rows, "run_nonce": [(token,)]}

    def own() -> dict[str, str]:
        """The facts' binding and node ids: verdicts read back share these strings (a second
        copy of the ids the verdicts name was 20 MB of the peak at 100,000 ref writes)."""
        ids = chain(facts.rows["let_bind"].column(0), facts.rows["node"].column(0))
        return {s: s for s in ids}

    with tempfile.TemporaryDirectory(prefix="aliaslog-") as tmp:
        base = Path(keep_files) if keep_files is not None else Path(tmp)
        if keep_files is not None:
            facts.write(base / "facts")
        t0 = time.perf_counter()
        solved = solve(program, facts=rows,
                       out_dir=base / "out" if keep_files is not None else None,
                       engine=engine.engine, timeout=engine.time_limit, compiled=engine.compiled,
                       defines=defines, output_relations=wanted, symbols=own)
        try:
            got = read(solved.relations, solved.engine, solved.seconds, facts, wanted, token)
        except EngineError as exc:
            if engine.engine != "auto" or not solved.engine.startswith("souffle"):
                raise
            log.warning("Soufflé's output is not a valid result (%s); solving again with the "
                        "embedded engine", exc.message)
            solved = solve(program, facts=rows, engine="embedded", defines=defines,
                           output_relations=wanted, symbols=own)
            got = read(solved.relations, solved.engine, solved.seconds, facts, wanted, token)
        timings["solve"] = time.perf_counter() - t0 - got.seconds_reading
    timings["read-back"] = got.seconds_reading
    return got.verdicts


@dataclass
class _Read:
    verdicts: Verdicts
    seconds_reading: float


@gc_paused()  # large outputs: a collection would rescan them and free nothing
def read(relations: dict[str, list[tuple]], engine: str, seconds: float, facts: FactSet,
         wanted: set[str] | None, token: str) -> _Read:
    """Unescape the output relations, check them against the facts, build the verdicts."""
    t0 = time.perf_counter()
    missing = sorted((wanted or VERDICT_RELATIONS) - set(relations))
    if missing:
        raise EngineError(f"the {engine} engine returned no `{missing[0]}` relation")
    if relations["results_of"] != [(token,)]:
        raise EngineError(f"the {engine} engine's results are not of this run's facts (they do "
                          "not echo its token: output of another program, or of another run)")
    rels = unescape_relations(relations)
    first = itemgetter(0)
    bindings = set(facts.rows["let_bind"].column(0))
    kept = set(map(first, rels["kept"]))
    removable = set(map(first, rels["removable"]))
    _check_verdicts(engine, bindings, kept, removable)
    out = Verdicts(rels, engine, seconds, kept, removable)
    reasons = out.reasons
    # (the engine's rows are replaced one by one, in its dict too, so that each is freed as
    # its Reason is made: these tuples compare equal to them)
    relations["keep_reason"] = rows = rels["keep_reason"]
    for i, row in enumerate(rows):
        rows[i] = Reason._make(row)
    for row in rows:
        got = reasons.get(row[0])
        if got is None:
            reasons[row[0]] = [row]
        else:
            got.append(row)
    nodes = set(facts.rows["node"].column(0))  # (made after the Reasons: the run's peak)
    nodes.add("$opaque")
    # (a binding in a dead function may have a reason and still be removable: it is never
    # retained; the checks are set differences so that they stay cheap on large outputs)
    if not reasons.keys() <= bindings or not {w for _, _, w in rels["keep_reason"]} <= nodes:
        b, reason, witness = next(r for r in rels["keep_reason"]
                                  if r[0] not in bindings or r[2] not in nodes)
        raise EngineError(f"the {engine} engine's keep_reason ({b}, {reason}, {witness}) "
                          "names a binding or a node the program has not")
    if not kept <= reasons.keys():
        raise EngineError(f"the {engine} engine keeps a binding without saying why")
    if rels.get("clone_site"):
        _to_sites(rels, dict(rels["clone_site"]))
    pts = rels.get("pts", ())
    if pts and not set(chain.from_iterable(pts)) <= nodes:
        n, o = next(r for r in pts if r[0] not in nodes or r[1] not in nodes)
        raise EngineError(f"the {engine} engine's points-to ({n}, {o}) names a node the "
                          "program has not")
    out.metrics = {name: value for _, name, value in sorted(rels["metric"])}
    return _Read(out, time.perf_counter() - t0)


def _to_sites(rels: dict[str, list[tuple]], site: dict[str, str]) -> None:
    """Points-to and effects name objects by their allocation site: a heap context's clones of
    a site (clone_site) are that site to the read-back (the demand graph keeps them apart)."""
    for name, col in (("pts", 1), ("local_effect", 2), ("write_obj", 1), ("violation", 3)):
        if name in rels:
            rels[name] = list(dict.fromkeys(
                r[:col] + (site.get(r[col], r[col]),) + r[col + 1:] for r in rels[name]))


def _check_verdicts(engine: str, bindings: set[str], kept: set[str], removable: set[str]) -> None:
    """Every binding of the program has exactly one verdict, and nothing else has one."""
    both = kept & removable
    if both:
        raise EngineError(f"the {engine} engine calls binding {min(both)} both kept and "
                          "removable")
    stray = (kept | removable) - bindings
    if stray:
        raise EngineError(f"the {engine} engine has a verdict on {min(stray)}, which is not a "
                          f"binding of this program ({len(stray)} such ids): the output is not "
                          "this program's")
    lost = bindings - kept - removable
    if lost:
        raise EngineError(f"the {engine} engine has no verdict on {len(lost)} of the program's "
                          f"{len(bindings)} bindings (e.g. {min(lost)})")


def unescape_relations(relations: dict[str, list[tuple]]) -> dict[str, list[tuple]]:
    """Output rows with their symbols unescaped (engines return them as stored); a relation
    with nothing to unescape is kept as it is, not copied."""
    def unescaped(row: tuple) -> tuple:
        if not any(type(v) is str and "\\" in v for v in row):
            return row
        return tuple(unescape_symbol(v) if isinstance(v, str) else v for v in row)

    def escapes(rows: list[tuple]) -> bool:
        try:  # all-symbol relations (most of them): one scan in C
            return "\\" in "\n".join(chain.from_iterable(rows))
        except TypeError:  # a number column
            return any(type(v) is str and "\\" in v for row in rows for v in row)

    return {name: [unescaped(row) for row in rows] if escapes(rows) else rows
            for name, rows in relations.items()}
