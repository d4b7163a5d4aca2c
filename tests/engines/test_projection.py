"""Body atoms with `_` columns read from projections: the same rows, fewer ground rules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aliaslog.engines import solve
from aliaslog.engines.dialect import load_program
from aliaslog.engines.embedded.projection import project_wildcards
from aliaslog.engines.embedded.translate import translate_rules

PROGRAM = """
.decl bind(b: symbol, l: symbol, v: symbol)
.input bind
.decl reason(b: symbol, r: symbol, w: number)
.input reason
.type P = [a: symbol, b: symbol]
.decl pair(p: P, n: number)
.input pair
.decl kept(b: symbol)
.output kept
kept(b) :- bind(b, l, _), reason(b, _, _), l != "x".
.decl bare(l: symbol)
.output bare
bare(l) :- bind(_, l, _), !reason(l, _, _).
.decl fresh(b: symbol, r: symbol)
.output fresh
fresh(b, r) :- bind(b, _, _), reason(b, r, _).
.decl firsts(a: symbol)
.output firsts
firsts(a) :- bind(a, _, _), pair([a, _], _).
"""
ROWS = {"bind": [("b1", "l1", "v1"), ("b2", "l2", "v2"), ("b3", "x", "v3"), ("l1", "l4", "v")],
        "reason": [("b1", "used", 1), ("b1", "effect", 2), ("b3", "used", 3), ("l2", "x", 0)],
        "pair": [(("b1", "z"), 1), (("b9", "b2"), 2)]}
WANT = {"kept": [("b1",)], "bare": [("l1",), ("l4",), ("x",)],
        "fresh": [("b1", "effect"), ("b1", "used"), ("b3", "used")], "firsts": [("b1",)]}


def _path(tmp_path: Path) -> Path:
    path = tmp_path / "p.dl"
    path.write_text(PROGRAM)
    return path


def test_atoms_with_wildcards_read_projections_and_keep_every_row(tmp_path: Path) -> None:
    program = load_program(_path(tmp_path))
    text = translate_rules(program, project_wildcards(list(program.clauses)))
    # reason(b, _, _) after bind binds b, and !reason(l, _, _): both read reason's column 0
    assert "r_reason_s0(V0) :- r_reason(V0,_,_)." in text
    assert text.count("r_reason_s0(") == 3
    # an atom that binds variables reads its projection too: one ground rule per row of it
    assert "r_fresh(V0,V1) :- r_bind_s0(V0), r_reason_s0_d1(V0,V1)." in text
    assert "r_kept(V0) :- r_bind_s0_d1(V0,V1), r_reason_s0(V0), V1 != \"x\"." in text
    assert "r_pair((V0,_),_)" in text  # a record holding `_`: as written
    got = solve(_path(tmp_path), facts=ROWS, engine="embedded")
    assert got.relations == WANT


@pytest.mark.skipif(shutil.which("souffle") is None, reason="souffle is not on PATH")
def test_soufflé_agrees(tmp_path: Path) -> None:
    assert solve(_path(tmp_path), facts=ROWS, engine="souffle").relations == WANT
