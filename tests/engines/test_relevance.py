"""The embedded engine's exact rewrites before translation: each keeps every requested row."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aliaslog.engines import solve
from aliaslog.engines.dialect import load_program
from aliaslog.engines.dialect.ast import Constraint
from aliaslog.engines.embedded.relevance import relevant

# `kind` is only ever read at "x" and "y": it is derived only there, and `node` is read only
# at those kinds; `via` takes its kinds from a derived relation, so it is left as written.
PROGRAM = """
.decl node(n: symbol, k: symbol)
.input node
.decl kind(n: symbol, k: symbol)
kind(n, k) :- node(n, k).
.decl step(n: symbol, k: symbol)
step(n, k) :- node(n, k).
step(n, "y") :- node(n, "z").
.decl via(n: symbol, k: symbol)
via(n, k) :- step(n, k).
.decl xs(n: symbol)
.output xs
xs(n) :- kind(n, "x").
.decl ys(c: number)
.output ys
ys(c) :- c = count : { kind(_, "y") }.
.decl not_x(n: symbol)
.output not_x
not_x(n) :- node(n, _), !kind(n, "x").
.decl vy(n: symbol)
.output vy
vy(n) :- via(n, "y").
"""
ROWS = {"node": [("a", "x"), ("b", "y"), ("c", "y"), ("d", "w"), ("e", "z")]}
WANT = {"xs": [("a",)], "ys": [(2,)], "not_x": [("b",), ("c",), ("d",), ("e",)],
        "vy": [("b",), ("c",), ("e",)]}


def _program(tmp_path: Path, text: str = PROGRAM) -> Path:
    path = tmp_path / "p.dl"
    path.write_text(text)
    return path


def test_a_relation_read_only_at_constants_is_derived_only_there(tmp_path: Path) -> None:
    program = load_program(_program(tmp_path))
    clauses, inputs = relevant(program, list(program.clauses), set(WANT))
    kind_rules = [c for c in clauses if c.heads[0].rel == "kind"]
    assert len(kind_rules) == 2  # one per constant read
    assert dict(inputs["node"].filters) == {}  # `not_x` reads every node row
    via = [c for c in clauses if c.heads[0].rel == "via"]  # step's rules, unfolded into via
    assert via and not any(isinstance(lit, Constraint) for c in via for conj in c.body
                           for lit in conj)
    got = solve(_program(tmp_path), facts=ROWS, engine="embedded", output_relations=set(WANT))
    assert got.relations == WANT


def test_inputs_read_at_the_specialised_constants_lose_the_other_rows(tmp_path: Path) -> None:
    path = tmp_path / "q.dl"
    text = PROGRAM.replace("not_x(n) :- node(n, _), !kind(n, \"x\").",
                           "not_x(n) :- node(n, \"w\"), !kind(n, \"x\").")
    path.write_text(text.split(".decl step")[0] + text[text.index(".decl xs"):].split(
        ".decl vy")[0])
    want = {"xs": WANT["xs"], "ys": WANT["ys"], "not_x": [("d",)]}
    program = load_program(path)
    _, inputs = relevant(program, list(program.clauses), set(want))
    assert dict(inputs["node"].filters) == {1: frozenset({"x", "y", "w"})}
    got = solve(path, facts=ROWS, engine="embedded", output_relations=set(want))
    assert got.relations == want


@pytest.mark.skipif(shutil.which("souffle") is None, reason="souffle is not on PATH")
def test_soufflé_agrees_on_the_rewritten_program(tmp_path: Path) -> None:
    got = solve(_program(tmp_path), facts=ROWS, engine="souffle", output_relations=set(WANT))
    assert got.relations == WANT


# `held(n)` is only ever read next to `ref(n, _)` or `top(n)`: it is derived only at the nodes
# those hold, so `owner(n, s)` (read nowhere else) is loaded only at them. `inner` reaches
# `held` through its own rule, which the join still covers.
SEMIJOIN = """
.decl owner(n: symbol, s: symbol)
.input owner
.decl ref(n: symbol, v: symbol)
.input ref
.decl top(n: symbol)
.input top
.decl live(s: symbol)
.input live
.decl held(n: symbol)
held(n) :- live(s), owner(n, s).
held(n) :- inner(n), top(n).
.decl inner(n: symbol)
inner(n) :- held(m), ref(m, n).
.decl uses(v: symbol)
.output uses
uses(v) :- held(n), ref(n, v).
.decl tops(n: symbol)
.output tops
tops(n) :- held(n), top(n).
"""
SEMIJOIN_ROWS = {"owner": [("a", "s"), ("b", "s"), ("c", "s"), ("t", "t"), ("z", "s")],
                 "ref": [("a", "x"), ("b", "t"), ("x", "y")], "top": [("t",)],
                 "live": [("s",), ("t",)]}
SEMIJOIN_WANT = {"uses": [("t",), ("x",)], "tops": [("t",)]}


def test_an_input_feeding_only_joined_rows_is_loaded_only_at_the_join(tmp_path: Path) -> None:
    program = load_program(_program(tmp_path, SEMIJOIN))
    _, inputs = relevant(program, list(program.clauses), set(SEMIJOIN_WANT))
    shape = inputs["owner"]
    assert shape.joins == ((0, (("ref", 0), ("top", 0))),)
    assert shape.semijoin(SEMIJOIN_ROWS["owner"], SEMIJOIN_ROWS) == [
        ("a", "s"), ("b", "s"), ("t", "t")]  # c and z hold no ref and are not top
    got = solve(_program(tmp_path, SEMIJOIN), facts=SEMIJOIN_ROWS, engine="embedded",
                output_relations=set(SEMIJOIN_WANT))
    assert got.relations == SEMIJOIN_WANT


@pytest.mark.parametrize("change", [
    ("tops(n) :- held(n), top(n).", "tops(n) :- live(n), !held(n)."),  # read under negation
    ("tops(n) :- held(n), top(n).", "tops(n) :- n = \"t\", c = count : { held(_) }, c > 0."),
    ("tops(n) :- held(n), top(n).", "tops(n) :- held(n)."),  # read without a join
    (".decl uses(v: symbol)", ".decl seen(n: symbol)\nseen(n) :- owner(n, _).\n"
                              ".decl uses(v: symbol)"),  # owner read twice
    (".decl uses(v: symbol)", "top(n) :- ref(_, n).\n.decl uses(v: symbol)"),  # top derived too
])
def test_no_join_filter_where_a_dropped_row_could_be_read(tmp_path: Path, change) -> None:
    text = SEMIJOIN.replace(*change)
    program = load_program(_program(tmp_path, text))
    wanted = {"uses", "tops"} | ({"seen"} if "seen(" in text else set())
    _, inputs = relevant(program, list(program.clauses), wanted)
    assert inputs["owner"].joins == ()


def test_a_requested_relation_is_never_cut_to_its_joins(tmp_path: Path) -> None:
    program = load_program(_program(tmp_path, SEMIJOIN.replace(
        ".decl held(n: symbol)", ".decl held(n: symbol)\n.output held")))
    _, inputs = relevant(program, list(program.clauses), set(SEMIJOIN_WANT) | {"held"})
    assert inputs["owner"].joins == ()


@pytest.mark.skipif(shutil.which("souffle") is None, reason="souffle is not on PATH")
def test_soufflé_agrees_on_the_join_filtered_program(tmp_path: Path) -> None:
    got = solve(_program(tmp_path, SEMIJOIN), facts=SEMIJOIN_ROWS, engine="souffle",
                output_relations=set(SEMIJOIN_WANT))
    assert got.relations == SEMIJOIN_WANT
