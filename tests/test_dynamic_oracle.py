"""Soundness against a dynamic oracle: every alias and write->read flow the interpreter observes
must be one the static analysis allows.

For each corpus program (and its gradient transforms) the interpreter reports every ref cell it
creates, reads and writes. Checked on every run:
- each read and write touches a cell whose allocation site is in the static points-to set of
  the reference expression (observed aliases are a subset of the static ones);
- two variables observed holding the same cell are a static may-alias pair;
- when a read's value is demanded, the write it actually observed is a demanded write, or
  the cell's initial value was read (observed write->read flows are a subset of the static ones).
"""

from __future__ import annotations

import pytest

from aliaslog.analysis import analyze
from extractor.relay import ast as A
from extractor.relay.interpreter import evaluate, random_inputs

from .conftest import EMBEDDED
from .test_analysis_soundness import IDS, PROGRAMS, SEEDS, build


def access_recorder():
    """An interpreter observer recording each access with its cell's site and last write."""
    site: dict[int, A.RefCreate] = {}
    last_write: dict[int, A.RefWrite] = {}
    accesses: list[tuple[A.Expr, A.RefCreate, A.RefWrite | None]] = []
    keep_alive: list[object] = []

    def observer(event: str, node: A.Expr, cell: object) -> None:
        keep_alive.append(cell)
        if event == "create":
            site[id(cell)] = node  # type: ignore[assignment]
        elif event == "read":
            accesses.append((node, site[id(cell)], last_write.get(id(cell))))
        else:
            accesses.append((node, site[id(cell)], None))
            last_write[id(cell)] = node  # type: ignore[assignment]

    return observer, accesses


def _observe(mod: A.Module, seed: int):
    """The accesses of one run of an analysed program (its nodes are the analysis' own)."""
    observer, accesses = access_recorder()
    evaluate(mod, random_inputs(mod.functions["main"], seed), observer=observer, prepared=True)
    return accesses


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_observed_accesses_are_statically_possible(path):
    _, mod = build(path)
    result = analyze(mod, engine=EMBEDDED)
    for seed in SEEDS:
        check_accesses(result, _observe(result.extraction.module, seed), path.name)


def check_accesses(result, accesses, name: str) -> None:
    """Every observed access, alias and write->read flow of one run is statically allowed."""
    ids = result.extraction.ids
    pts: dict[str, set[str]] = {}
    for n, o in result.relations["pts"]:
        pts.setdefault(n, set()).add(o)
    demanded = {x for k, x, _ in result._why if k == "used"} | {
        x for k, x, _ in result._roots if k == "used"}
    demanded_writes = {x for k, x, _ in result._why if k == "write"}
    aliases = set(result.relations["may_alias"])
    holders: dict[str, set[str]] = {}
    for node, cell_site, seen_write in accesses:
        ref = node.ref  # type: ignore[attr-defined]
        ref_id, site_id = ids.id(ref), ids.id(cell_site)
        assert site_id in pts.get(ref_id, set()), (
            f"{name}: {result.describe(ids.id(node))} touched the cell made by "
            f"{result.describe(site_id)}, which the analysis says {ref_id} cannot point to")
        if isinstance(ref, A.Var):
            holders.setdefault(site_id, set()).add(ref_id)
        if isinstance(node, A.RefRead) and seen_write is not None \
                and ids.id(node) in demanded:
            assert ids.id(seen_write) in demanded_writes, (
                f"{name}: demanded {result.describe(ids.id(node))} read the value of "
                f"{result.describe(ids.id(seen_write))}, which the analysis calls dead")
    for vars_ in holders.values():
        for a in vars_:
            for b in vars_:
                assert a == b or (a, b) in aliases, (name, a, b)
