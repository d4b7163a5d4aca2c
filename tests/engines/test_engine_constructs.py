"""Soufflé constructs the embedded engine translates: each program's outputs, checked against
the rows Soufflé 2.5 gives (and against Soufflé itself when it is on PATH)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aliaslog.engines import EngineError, solve

HAVE_SOUFFLE = shutil.which("souffle") is not None

# (name, program, {fact file: text}, {relation: expected rows})
CASES = [
    ("binary min and max functors", """
.decl a(x: number, y: number)
a(3, 7). a(-2, 5).
.decl r(lo: number, hi: number, m3: number)
.output r
r(lo, hi, m3) :- a(x, y), lo = min(x, y), hi = max(x, y), m3 = max(x, y, 6).
.decl s(x: symbol)
.output s
s(min("pear", "apple")).
""", {}, {"r": [(-2, 5, 6), (3, 7, 7)], "s": [("apple",)]}),
    ("an aggregate's own variables shadow the rule's", """
.decl a(n: symbol, x: number)
a("A", 3). a("A", 4). a("B", 2). a("B", 3).
.decl res(n: symbol, x: number)
.output res
res("minAB+", Y) :- Y = min Z + Y : { a(A, Z), a(B, Y), A != B }.
res("maxAB+", Y) :- Y = max Z + Y : { a(A, Z), a(B, Y), A != B }.
""", {}, {"res": [("maxAB+", 7), ("minAB+", 5)]}),
    ("several .input directives add up; several .output directives each write", """
.decl e(x: number)
.input e
.input e(filename="more.facts")
.decl o(x: number)
.output o
.output o(filename="copy.csv")
o(x) :- e(x).
""", {"e.facts": "1\n2\n", "more.facts": "2\n3\n"}, {"o": [(1,), (2,), (3,)]}),
    ("string functors", """
.decl w(s: symbol)
w("héllo"). w("12abc"). w("0x1F").
.decl r(s: symbol, n: number, sub: symbol, c: symbol)
.output r
r(s, strlen(s), substr(s, 1, 3), cat(s, "!", to_string(strlen(s)))) :- w(s).
.decl num(s: symbol, n: number)
.output num
num(s, to_number(s)) :- w(s), !contains("h", s).
.decl past(s: symbol)
.output past
past(substr(s, 9, 2)) :- w(s), s = "12abc".
""", {}, {"r": [("0x1F", 4, "x1F", "0x1F!4"), ("12abc", 5, "2ab", "12abc!5"),
                ("héllo", 6, "él", "héllo!6")],
          "num": [("0x1F", 31), ("12abc", 12)], "past": [("",)]}),
    ("match is std::regex_match; a bad pattern fails match and !match alike", """
.decl w(s: symbol)
w("foobar"). w("fooobar"). w("a1").
.decl m(s: symbol)
.output m
m(s) :- w(s), match("fo{2}b.*", s).
m(s) :- w(s), !match("fo{x}b.*", s).
m(s) :- w(s), match("[[:alpha:]][[:digit:]]", s).
m(s) :- w(s), match("(?P<x>a)1", s).
""", {}, {"m": [("a1",), ("foobar",)]}),
    ("range counts up, down and by a step; logical and shift functors", """
.decl r(k: symbol, x: number)
.output r
r("up", x) :- x = range(1, 4).
r("down", x) :- x = range(3, 0).
r("step", x) :- x = range(0, 10, 4).
r("logic", (1 land 0) + 2 * (lnot 0) + 4 * (0 lor 3) + 8 * (1 lxor 1)).
r("shift", (1 bshl 4) + (-16 bshr 2) + (-1 bshru 28)).
""", {}, {"r": [("down", 1), ("down", 2), ("down", 3), ("logic", 6), ("shift", 27),
                ("step", 0), ("step", 4), ("step", 8), ("up", 1), ("up", 2), ("up", 3)]}),
    ("eqrel is an equivalence relation", """
.decl e(x: number, y: number) eqrel
.output e
e(1, 2). e(2, 3). e(5, 5).
""", {}, {"e": [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (3, 3),
                (5, 5)]}),
    (".override replaces a base component's rules", """
.comp A {
  .decl R(x: number) overridable
  .output R
  R(1).
}
.comp B : A {
  .override R
  R(2).
}
.comp Wrap<T> : T { }
.init b = B
.init w = Wrap<A>
""", {}, {"b.R": [(2,)], "w.R": [(1,)]}),
    ("a fact may hold aggregates and constant expressions", """
.decl a(x: number)
a(1). a(2).
.decl e(k: symbol, n: number)
.output e
e("count", count : { a(_) } + 1).
e("sum", sum x : { a(x) }).
e("arith", 6 * 7).
""", {}, {"e": [("arith", 42), ("count", 3), ("sum", 3)]}),
    ("inline relations are substituted, never built", """
.decl nat(x: number)
nat(0).
nat(x + 1) :- x < 3000, nat(x).
.decl pair(x: number, y: number) inline
pair(x, y) :- nat(x), nat(y).
.decl same(a: number, b: number, r: number) inline
same(a, b, a) :- a = b.
.decl q(x: number)
.output q
q(x) :- pair(x, x), x < 2, same(x, x, _).
""", {}, {"q": [(0,), (1,)]}),
    ("2.5 annotations, __LINE__, `.type T` alone and identity conversions", """
@[doc = "ignored"]
.type T
.decl at(line: number, t: T, n: number)
.output at
at(__LINE__, "x", to_number(to_number(7))).
""", {}, {"at": [(6, "x", 7)]}),
    ("magic-transform and other strategy pragmas do not change results", """
.pragma "magic-transform" "*"
.pragma "suppress-warnings" "*"
.decl e(x: number, y: number)
e(1, 2). e(2, 3).
.decl p(x: number, y: number)
.output p
p(x, y) :- e(x, y).
p(x, z) :- p(x, y), e(y, z).
""", {}, {"p": [(1, 2), (1, 3), (2, 3)]}),
]


def _write(tmp_path: Path, program: str, facts: dict[str, str]) -> tuple[Path, Path]:
    prog = tmp_path / "p.dl"
    prog.write_text(program)
    fdir = tmp_path / "facts"
    fdir.mkdir()
    for name, text in facts.items():
        (fdir / name).write_text(text)
    return prog, fdir


@pytest.mark.parametrize("name,program,facts,expected", CASES, ids=[c[0] for c in CASES])
def test_construct(tmp_path: Path, name: str, program: str, facts: dict[str, str],
                   expected: dict[str, list]) -> None:
    prog, fdir = _write(tmp_path, program, facts)
    res = solve(prog, fdir, tmp_path / "out", engine="embedded")
    assert res.relations == expected
    if HAVE_SOUFFLE:
        assert solve(prog, fdir, engine="souffle").relations == expected


def test_every_output_directive_writes_its_file_and_header(tmp_path: Path) -> None:
    prog, fdir = _write(tmp_path, """
.decl o(a: number, b: symbol)
.output o
.output o(filename="with_header.csv", headers=true)
o(1, "x").
""", {})
    solve(prog, fdir, tmp_path / "out", engine="embedded")
    assert (tmp_path / "out" / "o.csv").read_text() == "1\tx\n"
    assert (tmp_path / "out" / "with_header.csv").read_text() == "a\tb\n1\tx\n"


def test_printsize_and_stdout_are_printed_as_souffle_prints_them(tmp_path: Path) -> None:
    prog, fdir = _write(tmp_path, """
.decl a(x: number, y: number)
a(1, 2). a(3, 4).
.printsize a
.decl b(x: number)
b(7).
.output b(IO=stdout, headers=true)
""", {})
    res = solve(prog, fdir, tmp_path / "out", engine="embedded")
    assert res.printed == ("a\t2\n---------------\nb\nx\n===============\n7\n"
                           "===============\n")
    assert not (tmp_path / "out" / "b.csv").exists()
    if HAVE_SOUFFLE:
        sou = solve(prog, fdir, engine="souffle", output_relations=set())
        assert sorted(sou.printed.splitlines()) == sorted(res.printed.splitlines())


@pytest.mark.parametrize("snippet,message", [
    ('.decl s(n: symbol, h: number)\n.decl t(n: symbol, h: number)\n'
     't(n, m) :- m = max h : { s(n, h) }.', "unsupported Soufflé construct `aggregate witness`"),
    ('.pragma "provenance" "explain"', 'unsupported Soufflé construct `.pragma "provenance"`'),
    ('.decl e(x: number, y: symbol) eqrel', "eqrel `e` must be binary over one type"),
    ('.comp A {\n.decl R(x: number)\n}\n.comp B : A {\n.override R\n}\n.init b = B',
     "relation `R` is not overridable"),
    ('.decl w(s: symbol)\nw("x").\n.decl n(x: number)\n.output n\nn(to_number(s)) :- w(s).',
     "wrong string provided by `to_number(\"x\")`"),
    ('.decl q(x: number)\nq(cat(x, x)) :- q(x).', "type mismatch: a number where the argument"),
    ('.decl a(x: symbol)\n.decl b(x: number)\nb(x) :- a(x).', "type mismatch: a symbol"),
    ('.decl r(t: number, t: number)', "doubly defined attribute name `t`"),
    ('.decl r(t: number) output output', "output qualifier already set"),
    ('.decl r(x: number)\n.printsize r\n.printsize r', "redefinition of printsize"),
    ('.decl a(x: number)\n.decl b(x: number)\na(1).\nb(x) :- a(x), a(x). .plan 0:(1,3)',
     "invalid execution order in plan (incomplete)"),
    ('.decl a(x: number)\na(1).\na(x) :- a(x), a(x). .plan 2:(1,2)',
     "only versions 0..1 permitted"),
    ('.decl a(x: number) inline\n.decl b(x: number) inline\n.decl c(x: number)\n.output c\n'
     'a(x) :- b(x).\nb(x) :- a(x).\nc(x) :- a(x).', "cannot inline cyclically dependent"),
    ('.decl a(x: number) inline\n.output a\na(1).', "IO relation `a` cannot be inlined"),
    ('.decl p(x: number)\n.decl s(x: number)\n.output s\np(1).\n'
     's(n) :- n = sum y : { p(x), y = count : { p(x) } }.',
     "unsupported Soufflé construct `aggregate inside an aggregate's body`"),
])
def test_rejections_are_located(tmp_path: Path, snippet: str, message: str) -> None:
    prog, fdir = _write(tmp_path, "// header\n" + snippet + "\n", {})
    with pytest.raises(EngineError) as info:
        solve(prog, fdir, engine="embedded")
    assert message in str(info.value)
    if "Soufflé aborts" not in str(info.value):
        assert "p.dl:" in str(info.value)


def test_gzip_fact_files_are_read_as_souffle_reads_them(tmp_path: Path) -> None:
    import gzip

    prog, fdir = _write(tmp_path, ".decl e(x: number, y: symbol)\n.input e\n.decl o(x: number)"
                        "\n.output o\no(x) :- e(x, _).\n", {})
    (fdir / "e.facts").write_bytes(gzip.compress(b"1\ta\n2\tb\n"))
    assert solve(prog, fdir, engine="embedded").relations == {"o": [(1,), (2,)]}


def test_a_once_file_included_again_adds_nothing(tmp_path: Path) -> None:
    prog, fdir = _write(tmp_path, '.once\n.include "p.dl"\n.decl ok()\n.output ok\nok().\n', {})
    assert solve(prog, fdir, engine="embedded").relations == {"ok": [()]}


def test_regex_syntax_not_mirrored_is_refused(tmp_path: Path) -> None:
    prog, fdir = _write(tmp_path, '.decl w(s: symbol)\nw("ab").\n.decl m(s: symbol)\n.output m\n'
                        'm(s) :- w(s), match("a\\\\qb", s).\n', {})
    with pytest.raises(EngineError, match="differs between ECMAScript"):
        solve(prog, fdir, engine="embedded")


def test_in_memory_facts_give_what_the_written_fact_files_give(tmp_path: Path) -> None:
    from extractor.tsv import escape_symbol

    prog, fdir = _write(tmp_path, """
.decl e(x: symbol, k: symbol, n: number)
.input e
.decl seen(x: symbol)
.output seen
seen(x) :- e(x, "a", _).
.decl rows(n: number)
.output rows
rows(c) :- c = count : { e(_, _, _) }.
.decl other(x: symbol, n: number)
.output other
other(x, n) :- e(x, k, n), k != "a".
""", {})
    rows = [("back\\slash", "a", 1), ("tab\there", "a", 2), ("plain", "b", 3), ('q"uote', "b", 4)]
    (fdir / "e.facts").write_text("".join("\t".join(escape_symbol(v) if isinstance(v, str)
                                                    else str(v) for v in r) + "\n" for r in rows))
    engines = ["embedded"] + (["souffle"] if HAVE_SOUFFLE else [])
    results = [solve(prog, fdir, engine=e).relations for e in engines]
    results += [solve(prog, facts={"e": rows}, engine=e).relations for e in engines]
    assert all(r == results[0] for r in results)
    assert results[0]["seen"] == [("back\\\\slash",), ("tab\\there",)]  # as the files hold them
    assert results[0]["rows"] == [(4,)]


_ROWS_PROGRAM = """.decl e(x: number)
.input e
.decl s(x: symbol, y: symbol)
.input s
.decl o(x: number)
.output o
o(x) :- e(x).
.decl p(x: symbol)
.output p
p(x) :- s(x, y).
.decl q(x: symbol)
.output q
q(x) :- s(x, "k").
"""


@pytest.mark.parametrize("engine", ["embedded"] + (["souffle"] if HAVE_SOUFFLE else []))
@pytest.mark.parametrize(("facts", "message"), [
    ({"e": [("1",)]}, "`e`: column 1 must hold numbers"),
    ({"e": [(1,), (True,)]}, "`e`: column 1 must hold numbers"),
    ({"s": [("a", "b"), ("c", 2)]}, "`s`: column 2 must hold symbols"),
    ({"s": [(3, "k")]}, "`s`: column 1 must hold symbols"),
    # one row too long and one too short: the text has as many separators as it should
    ({"s": [("a", "b", "c"), ("d",)]}, "`s`: a row of 3 columns, the relation has 2"),
    ({"e": [(1, 2)]}, "`e`: a row of 2 columns, the relation has 1"),
])
def test_in_memory_facts_off_their_declaration_are_refused(
        tmp_path: Path, engine: str, facts: dict, message: str) -> None:
    prog, _fdir = _write(tmp_path, _ROWS_PROGRAM, {})
    with pytest.raises(EngineError, match=message):
        solve(prog, facts=facts, engine=engine)


@pytest.mark.skipif(not HAVE_SOUFFLE, reason="souffle is not on PATH")
def test_in_memory_symbols_for_a_headed_input_are_checked_too(tmp_path: Path) -> None:
    """Written cell by cell for Soufflé (a header line): no join checks them on the way."""
    prog, _fdir = _write(tmp_path, _ROWS_PROGRAM.replace(".input s", ".input s(headers=true)"),
                         {})
    with pytest.raises(EngineError, match="`s`: column 2 must hold symbols"):
        solve(prog, facts={"s": [("a", 2)]}, engine="souffle")


def test_rows_no_rule_can_read_are_checked_too(tmp_path: Path) -> None:
    """`q` reads s only where y = "k" and `p` only column 1: the rest is checked all the same."""
    prog, _fdir = _write(tmp_path, _ROWS_PROGRAM.replace("p(x) :- s(x, y).\n", ""), {})
    for rows in ([("a", "k"), ("b", 7)], [("a", "k"), (7, "j")]):
        with pytest.raises(EngineError, match="must hold symbols"):
            solve(prog, facts={"s": rows}, engine="embedded")


def test_number_cells_read_as_souffle_reads_them(tmp_path: Path) -> None:
    prog, fdir = _write(tmp_path, ".decl e(x: number, y: number)\n.input e\n.decl o(x: number)\n"
                        ".output o\no(x + y) :- e(x, y).\n",
                        {"e.facts": "1\t2\n+5\t007\n -3\t0\n"})
    assert solve(prog, fdir, engine="embedded").relations == {"o": [(-3,), (3,), (12,)]}
