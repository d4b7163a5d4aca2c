"""The embedded engine drops columns every row of which holds one constant, and derives a
relation that only copies another straight into it; the requested rows stay the same."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aliaslog.engines import solve
from aliaslog.engines.dialect import load_program
from aliaslog.engines.dialect.ast import Atom, Neg
from aliaslog.engines.embedded.relevance import relevant

# `creach` carries a context that is always nil (as the insensitive points-to does), `tagged`
# a kind that is always "t"; `mixed` holds two kinds, and `seen` is read under negation with
# a variable where its constant column is. `reach` is only a copy of `creach` once the
# context is cut: `creach`'s rules then derive `reach` itself.
PROGRAM = """
.type Ctx = [a: symbol, b: symbol]
.decl edge(x: symbol, y: symbol)
.input edge
.decl start(x: symbol)
.input start
.decl creach(c: Ctx, x: symbol)
creach(nil, x) :- start(x).
creach(c, y) :- creach(c, x), edge(x, y).
.decl reach(x: symbol)
.output reach
reach(x) :- creach(_, x).
.decl tagged(k: symbol, x: symbol)
tagged("t", x) :- creach(c, x), edge(x, _).
.decl far(y: symbol)
.output far
far(y) :- tagged(k, x), edge(x, y), k = "t".
.decl mixed(k: symbol, x: symbol)
mixed("a", x) :- start(x).
mixed("b", x) :- edge(x, _).
.decl kinds(k: symbol, x: symbol)
.output kinds
kinds(k, x) :- mixed(k, x), x != "z".
.decl seen(k: symbol, x: symbol)
seen("s", x) :- start(x).
.decl unseen(x: symbol)
.output unseen
unseen(x) :- edge(x, _), k = "s", !seen(k, x).
"""
ROWS = {"edge": [("a", "b"), ("b", "c"), ("x", "y")], "start": [("a",)]}
WANT = {
    "reach": [("a",), ("b",), ("c",)],
    "far": [("b",), ("c",)],
    "kinds": [("a", "a"), ("b", "a"), ("b", "b"), ("b", "x")],
    "unseen": [("b",), ("x",)],
}


def _arities(tmp_path: Path) -> dict[str, set[int]]:
    path = tmp_path / "p.dl"
    path.write_text(PROGRAM)
    program = load_program(path)
    clauses, _ = relevant(program, list(program.clauses), set(WANT))
    out: dict[str, set[int]] = {}
    for c in clauses:
        atoms = list(c.heads) + [lit.atom if isinstance(lit, Neg) else lit
                                 for conj in c.body or () for lit in conj
                                 if isinstance(lit, (Atom, Neg))]
        for a in atoms:
            out.setdefault(a.rel, set()).add(len(a.args))
    return out


def test_constant_columns_are_cut_and_a_copy_is_derived_in_place(tmp_path: Path) -> None:
    arities = _arities(tmp_path)
    assert "creach" not in arities and arities["reach"] == {1}  # cut, then unfolded
    assert arities["tagged"] == {1}
    assert arities["mixed"] == {2}  # two kinds: it varies
    assert arities["seen"] == {2}  # `!seen(k, x)` would need the binding inside the negation


@pytest.mark.parametrize("engine", ["embedded", "souffle"])
def test_the_rewritten_program_keeps_every_requested_row(tmp_path: Path, engine: str) -> None:
    if engine == "souffle" and shutil.which("souffle") is None:
        pytest.skip("souffle is not on PATH")
    path = tmp_path / "p.dl"
    path.write_text(PROGRAM)
    got = solve(path, facts=ROWS, engine=engine, output_relations=set(WANT))
    assert got.relations == WANT
