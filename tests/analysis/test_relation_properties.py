"""Properties the rules promise of their output relations (cclyzer++'s property tests), checked
on every corpus program and on random ones, under every analysis variant.

- may_alias is symmetric and irreflexive, and relates only variables;
- every points-to target is an abstract object, and `$opaque` only where the rules allow;
- call_target goes from call nodes to functions (closure objects);
- cell_pts is about cells, field_pts about tuples and ADT values (or their clones, under a
  heap context: clone_site names each one's site);
- kept and removable partition the bindings; a kept binding has a reason, a removable one none;
- every demanded item is a root or has an edge to a demanded item (explain can always walk);
- local effects name cells; strong reads are reads.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from aliaslog.options import AnalysisOptions
from aliaslog.relay.analysis import AnalysisResult, analyze
from extractor.relay.parser import parse, parse_file
from extractor.relay.typeinfer import infer_types
from tests.support.options import EMBEDDED
from tests.support.paths import DATA
from tests.support.randprog import generate

CORPUS = sorted((DATA / "analysis").glob("*.relay")) + sorted((DATA / "precision").glob("*.relay"))
VARIANTS = AnalysisOptions.variants()


def _rows(res: AnalysisResult, name: str) -> list[tuple]:
    return res.relations[name]


def check_properties(res: AnalysisResult, where: str) -> None:
    facts = res.extraction.facts.rows
    kind = {str(n): str(k) for n, k, _ in facts["node"]}
    funcs = {str(f) for f, _ in facts["func"]}
    tuples = {str(t) for t, _, _ in facts["tuple_field"]}  # tuples and ADT values
    tuples |= {str(c) for c, _ in facts["ctor_call"]}

    alias = set(_rows(res, "may_alias"))
    for a, b in alias:
        assert (b, a) in alias, f"{where}: may_alias not symmetric on {a}, {b}"
        assert a != b, f"{where}: may_alias is reflexive on {a}"
        assert kind.get(a) == "var" and kind.get(b) == "var", f"{where}: {a}, {b} not variables"

    allocs = {str(n) for n, _ in facts["ref_create"]} | funcs | tuples | {"$opaque"}
    for n, o in _rows(res, "pts"):
        assert o in allocs, f"{where}: {n} points to {o}, which is no abstract object"

    calls = {str(c) for c, _ in facts["call"]}
    for c, f in _rows(res, "call_target"):
        assert c in calls, f"{where}: call_target from {c}, which is no call"
        assert f in funcs, f"{where}: call_target to {f}, which is no function"

    cells = {str(n) for n, _ in facts["ref_create"]} | {"$opaque"}
    site = dict(_rows(res, "clone_site"))  # a heap context's objects, each of one site
    assert set(site.values()) <= cells | tuples, f"{where}: a clone of no heap site"
    for c, _ in _rows(res, "cell_pts"):
        assert site.get(c, c) in cells, f"{where}: cell_pts of {c}, which is no cell"
    for t, _, _ in _rows(res, "field_pts"):
        assert site.get(t, t) in tuples or t == "$opaque", \
            f"{where}: field_pts of {t}, no tuple or ADT"

    bindings = {str(b) for b, *_ in facts["let_bind"]}
    kept = {b for (b,) in _rows(res, "kept")}
    removable = {b for (b,) in _rows(res, "removable")}
    assert kept | removable == bindings, f"{where}: bindings without a verdict"
    assert not kept & removable, f"{where}: bindings both kept and removable"
    reasons = defaultdict(set)
    for b, r, _ in _rows(res, "keep_reason"):
        reasons[b].add(r)
    assert all(reasons[b] for b in kept), f"{where}: a kept binding without a reason"

    demanded = set(_rows(res, "dem"))
    roots = {(k, x, i) for k, x, i, _ in _rows(res, "dem_root")}
    has_edge = {(k, x, i) for k, x, i, *_ in _rows(res, "dem_edge")}
    for *_, k2, x2, i2 in _rows(res, "dem_edge"):
        assert (k2, x2, i2) in demanded, f"{where}: an edge from an item nobody demands"
    assert demanded <= roots | has_edge, f"{where}: a demanded item explain cannot walk from"

    reads = {str(e) for e, _ in facts["ref_read"]}
    for e, _ in facts["last_write"]:
        assert str(e) in reads, f"{where}: a strong read that is no read"
    for _, effect, c in _rows(res, "local_effect"):
        if effect in ("reads", "writes"):
            assert c in cells, f"{where}: a {effect} effect on {c}, which is no cell"


def every_relation(mod, v: AnalysisOptions, tmp: Path) -> AnalysisResult:
    """The result with every output relation read back (keep_files asks for all of them)."""
    return analyze(mod, v, engine=EMBEDDED, keep_files=tmp / v.name)


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus_relations_have_their_promised_shape(path, tmp_path) -> None:
    mod = infer_types(parse_file(path)).module
    for v in VARIANTS:
        check_properties(every_relation(mod, v, tmp_path), f"{path.name} [{v.name}]")


@pytest.mark.parametrize("seed", range(6))
def test_random_program_relations_have_their_promised_shape(seed: int, tmp_path) -> None:
    mod = infer_types(parse(generate(seed))).module
    for v in VARIANTS:
        check_properties(every_relation(mod, v, tmp_path), f"seed {seed} [{v.name}]")


def test_the_properties_can_fail(tmp_path) -> None:
    """Not vacuous: a result whose may_alias lost one direction breaks symmetry."""
    mod = infer_types(parse_file(DATA / "analysis" / "alias_let_copy.relay")).module
    res = every_relation(mod, AnalysisOptions(), tmp_path)
    assert res.relations["may_alias"]
    res.relations["may_alias"] = res.relations["may_alias"][:1]
    with pytest.raises(AssertionError, match="symmetric"):
        check_properties(res, "broken")
