"""Tests of the Datalog engine layer: the Soufflé subset, the embedded engine, Soufflé runs."""

from __future__ import annotations

import logging
import os
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliaslog.engines import EngineError, available_engines, solve
from aliaslog.engines.base import sort_rows
from aliaslog.engines.dialect import load_program
from aliaslog.engines.embedded.model import parse_atom_args
from aliaslog.engines.embedded.translate import clingo_name, quote
from aliaslog.engines.tsv_files import read_tsv
from tests.support import paths

DATA = paths.DATA / "engines"
POINTS_TO = DATA / "points_to" / "pt.dl"
CASES = sorted(p.name for p in DATA.iterdir() if (p / "program.dl").exists())

HAVE_SOUFFLE = shutil.which("souffle") is not None
needs_souffle = pytest.mark.skipif(not HAVE_SOUFFLE, reason="souffle is not on PATH "
                                   "(put /opt/souffle/bin on PATH to compare both engines)")


def case_options(case: Path) -> dict:
    """defines.txt (K=V per line) and include_dirs.txt (paths relative to the case)."""
    opts: dict = {"defines": {}, "include_dirs": []}
    if (case / "defines.txt").exists():
        lines = (case / "defines.txt").read_text().split()
        opts["defines"] = dict(ln.split("=", 1) for ln in lines)
    if (case / "include_dirs.txt").exists():
        opts["include_dirs"] = [case / ln for ln in (case / "include_dirs.txt").read_text().split()]
    return opts


def expected_relations(case: Path) -> dict[str, list]:
    opts = case_options(case)
    prog = load_program(case / "program.dl", opts["include_dirs"], opts["defines"])
    out = {}
    for name in prog.outputs():
        f = case / "expected" / f"{name}.csv"
        kinds = prog.relations[name].kinds
        if not kinds:
            out[name] = [()] if f.read_text().strip() else []
        else:
            out[name] = sort_rows(read_tsv(f, kinds, prog.records))
    return out


# --- the per-construct programs -----------------------------------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_case_embedded(name: str) -> None:
    case = DATA / name
    res = solve(case / "program.dl", case / "facts", engine="embedded", **case_options(case))
    assert res.engine == "embedded"
    assert res.relations == expected_relations(case)


@needs_souffle
@pytest.mark.parametrize("name", CASES)
def test_case_souffle_matches_expected_and_embedded(name: str) -> None:
    case = DATA / name
    opts = case_options(case)
    sou = solve(case / "program.dl", case / "facts", engine="souffle", **opts)
    emb = solve(case / "program.dl", case / "facts", engine="embedded", **opts)
    assert sou.engine == "souffle"
    assert sou.relations == expected_relations(case)
    assert sou.relations == emb.relations


def test_defines_select_the_other_branches() -> None:
    case = DATA / "includes"
    res = solve(case / "program.dl", case / "facts", engine="embedded",
                include_dirs=case_options(case)["include_dirs"])
    assert res.relations["mode"] == [("flow-insensitive",)]
    assert res.relations["limited"] == [(1,), (5,)]  # LIMIT defaults to 100


def test_output_relations_filter_and_unknown_name() -> None:
    case = DATA / "basic_join"
    res = solve(case / "program.dl", case / "facts", engine="embedded",
                output_relations={"has_out"})
    assert set(res.relations) == {"has_out"}
    with pytest.raises(EngineError, match="`edge` is not an output relation"):
        solve(case / "program.dl", case / "facts", engine="embedded", output_relations={"edge"})


# --- the points-to benchmark --------------------------------------------------------------------


def _gen(out: Path, groups: int = 12, seed: int = 7) -> Path:
    """Seeded points-to facts: variables and heaps in groups, copies, loads and stores mostly
    inside a group (so sets stay bounded), some fields never loaded, a query set."""
    rng = random.Random(seed)
    rel: dict[str, list[tuple[str, ...]]] = {n: [] for n in
                                             ("alloc", "assign", "load", "store", "queryVar")}
    for g in range(groups):
        vs = [f"v{g}_{i}" for i in range(30)]
        hs = [f"h{g}_{i}" for i in range(6)]
        fs = [f"f{g}_{i}" for i in range(5)]
        rel["alloc"] += [(rng.choice(vs), h) for h in hs for _ in range(2)]
        rel["assign"] += [(rng.choice(vs), rng.choice(vs)) for _ in range(45)]
        rel["load"] += [(rng.choice(vs), rng.choice(vs), rng.choice(fs[:3])) for _ in range(8)]
        rel["store"] += [(rng.choice(vs), rng.choice(fs), rng.choice(vs)) for _ in range(10)]
        rel["queryVar"] += [(v,) for v in rng.sample(vs, 8)]
    out.mkdir(parents=True)
    for name, rows in rel.items():
        (out / f"{name}.facts").write_text("".join("\t".join(r) + "\n" for r in sorted(set(rows))))
    return out


def _python_points_to(facts: Path) -> dict[str, set]:
    """An independent evaluation of pt.dl in plain Python (naive fixpoint over sets)."""

    def rows(name: str) -> list[tuple[str, ...]]:
        text = (facts / f"{name}.facts").read_text()
        return [tuple(ln.split("\t")) for ln in text.splitlines()]

    alloc, assign, load, store = rows("alloc"), rows("assign"), rows("load"), rows("store")
    query = [r[0] for r in rows("queryVar")]
    pts: set = set(alloc)
    hpts: set = set()
    while True:
        by_var: dict[str, set] = {}
        for v, h in pts:
            by_var.setdefault(v, set()).add(h)
        new_h = {(h, f, h2) for b, f, x in store for h in by_var.get(b, ()) for h2 in
                 by_var.get(x, ())}
        by_hf: dict[tuple, set] = {}
        for h, f, h2 in new_h:
            by_hf.setdefault((h, f), set()).add(h2)
        new_p = set(pts)
        new_p |= {(to, h) for to, fr in assign for h in by_var.get(fr, ())}
        new_p |= {(to, h2) for to, b, f in load for h in by_var.get(b, ())
                  for h2 in by_hf.get((h, f), ())}
        if new_p == pts and new_h == hpts:
            break
        pts, hpts = new_p, new_h
    by_var = {}
    for v, h in pts:
        by_var.setdefault(v, set()).add(h)
    loaded = {f for _, _, f in load}
    read = {(h, f) for _, b, f in load for h in by_var.get(b, ())}
    qs = set(query)
    return {
        "pointsTo": pts,
        "heapPointsTo": hpts,
        "alias": {(a, b) for a in qs for b in qs if a != b
                  and by_var.get(a, set()) & by_var.get(b, set())},
        "deadStore": {r for r in store if r[1] not in loaded},
        "unreadHeapField": {(h, f) for h, f, _ in hpts if (h, f) not in read},
        "ptCount": {(v, len(by_var.get(v, ()))) for v in qs},
    }


def test_points_to_matches_independent_evaluation(tmp_path: Path) -> None:
    facts = _gen(tmp_path / "facts")
    res = solve(POINTS_TO, facts, engine="embedded")
    want = _python_points_to(facts)
    assert set(res.relations) == set(want)
    for name, rows in want.items():
        assert res.relations[name] == sort_rows(list(rows)), name
    assert len(res.relations["ptCount"]) == 96
    assert any(n == 0 for _, n in res.relations["ptCount"])  # empty groups count 0
    assert res.relations["deadStore"] and res.relations["unreadHeapField"]


@needs_souffle
def test_points_to_both_engines_identical(tmp_path: Path) -> None:
    facts = _gen(tmp_path / "facts")
    sou = solve(POINTS_TO, facts, tmp_path / "out_s", engine="souffle")
    emb = solve(POINTS_TO, facts, tmp_path / "out_e", engine="embedded")
    assert sou.relations == emb.relations
    for f in sorted((tmp_path / "out_s").iterdir()):
        # the embedded engine writes the same rows in Soufflé's format
        a = sorted(f.read_text().splitlines())
        b = sorted((tmp_path / "out_e" / f.name).read_text().splitlines())
        assert a == b, f.name


def test_deep_reachability_chain(tmp_path: Path) -> None:
    n = 20_000
    prog = tmp_path / "chain.dl"
    prog.write_text(".decl edge(a: number, b: number)\n.input edge\n"
                    ".decl reach(a: number)\n.output reach\n"
                    "reach(0).\nreach(b) :- reach(a), edge(a, b).\n")
    facts = tmp_path / "facts"
    facts.mkdir()
    (facts / "edge.facts").write_text("".join(f"{i}\t{i + 1}\n" for i in range(n)))
    res = solve(prog, facts, engine="embedded")
    assert res.relations["reach"] == [(i,) for i in range(n + 1)]


# --- symbols ------------------------------------------------------------------------------------


def test_symbol_constants_round_trip_exactly(tmp_path: Path) -> None:
    prog = tmp_path / "sym.dl"
    prog.write_text('.decl s(x: symbol)\n.output s\n'
                    's("tab\\there").\ns("new\\nline").\ns("q\\"uote").\ns("back\\\\slash").\n'
                    's("ünï ✓ 😀").\ns("cr\\rx").\ns("\\\\n literally").\n')
    facts = tmp_path / "facts"
    facts.mkdir()
    res = solve(prog, facts, engine="embedded")
    assert res.relations["s"] == sort_rows([
        ("tab\there",), ("new\nline",), ('q"uote',), ("back\\slash",), ("ünï ✓ 😀",),
        ("cr\rx",), ("\\n literally",)])


def test_souffle_refuses_symbols_its_tsv_cannot_carry(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    prog = _write(tmp_path, '.decl s(x: symbol)\n.output s\ns("ok").\ns("a\\tb").\n')
    _fake_souffle(tmp_path, "exit 0", monkeypatch)
    with pytest.raises(EngineError) as info:
        solve(prog, tmp_path / "facts", engine="souffle")
    assert "rules.dl:4:3" in str(info.value) and "tab, newline" in str(info.value)
    with caplog.at_level(logging.WARNING, logger="aliaslog.engines"):
        res = solve(prog, tmp_path / "facts", engine="auto")
    assert res.engine == "embedded" and res.relations["s"] == [("a\tb",), ("ok",)]
    assert any("tab, newline" in r.getMessage() for r in caplog.records)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                                blacklist_characters="\0")), min_size=1,
                max_size=3))
def test_clingo_quoting_round_trips(values: list[str]) -> None:
    import clingo

    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "p(" + ",".join(quote(v) for v in values) + ").")
    ctl.ground([("base", [])])
    shown: list[str] = []
    ctl.solve(on_model=lambda m: shown.extend(str(s) for s in m.symbols(atoms=True)))
    assert len(shown) == 1
    assert parse_atom_args(shown[0], ["s"] * len(values)) == tuple(values)


def test_facts_with_special_characters_round_trip_through_out_dir(tmp_path: Path) -> None:
    case = DATA / "escaping"
    res = solve(case / "program.dl", case / "facts", tmp_path / "out", engine="embedded")
    rows = read_tsv(tmp_path / "out" / "t.csv", ["s", "s"], {})
    assert sort_rows(rows) == res.relations["t"]
    assert ('back\\slash', 'quo"te') in res.relations["t"]
    assert ('"', "ünï ✓ 😀") in res.relations["t"]


def test_relation_names_map_injectively() -> None:
    names = ["a.b", "a_db", "a__b", "a_b", "A?b", "a_qb"]
    assert len({clingo_name(n) for n in names}) == len(names)


# --- errors -------------------------------------------------------------------------------------


def _write(tmp_path: Path, text: str, name: str = "rules.dl") -> Path:
    p = tmp_path / name
    p.write_text(text)
    (tmp_path / "facts").mkdir(exist_ok=True)
    return p


@pytest.mark.parametrize("snippet,construct,col", [
    (".decl r(x: number) choice-domain x", "choice-domain", 20),
    (".decl r(x: number)\nr(x) :- r(y), x = autoinc().", "autoinc", 19),
    (".functor f(x: number): number", ".functor", 1),
    (".decl r(x: number)\nr(x) :- x = ord(\"a\").", "ord", 13),
    (".decl r(x: number)\nr(x) :- x = @f(1).", "@f", 13),
    (".decl r(x: float)", "float type", 12),
    (".decl r(x: number)\nr(x) :- r(y), x = mean y : { r(y) }.", "mean", 19),
    (".type T = A {x: number} | B {}", "algebraic data type", 11),
])
def test_unsupported_construct_is_located(tmp_path: Path, snippet: str, construct: str,
                                          col: int) -> None:
    prog = _write(tmp_path, "// header line\n\n" + snippet + "\n")
    with pytest.raises(EngineError) as info:
        solve(prog, tmp_path / "facts", engine="embedded")
    text = str(info.value)
    line = 3 + snippet[: snippet.rfind("\n") + 1].count("\n") if "\n" in snippet else 3
    assert f"unsupported Soufflé construct `{construct}`" in text
    assert f"rules.dl:{line}:{col}: engine error" in text
    assert "^" in text  # caret under the construct


def test_non_stratified_program_is_rejected(tmp_path: Path) -> None:
    prog = _write(tmp_path, ".decl p(x: number)\n.decl q(x: number)\n.output p\n"
                            "p(1).\nq(x) :- p(x), !p(x).\np(x) :- q(x).\n"
                            ".decl a(x: number)\n.decl b(x: number)\n"
                            "a(x) :- b(x), !b(x).\n")
    (tmp_path / "facts").mkdir(exist_ok=True)
    # q and p are in one cycle with a negative edge q -> p
    with pytest.raises(EngineError) as info:
        solve(prog, tmp_path / "facts", engine="embedded")
    text = str(info.value)
    assert "not stratifiable" in text and "{p, q}" in text
    assert "rules.dl:5:16" in text


def test_recursive_aggregate_is_rejected(tmp_path: Path) -> None:
    prog = _write(tmp_path, ".decl p(x: number)\n.output p\np(0).\n"
                            "p(n) :- n = count : { p(_) }, n < 5.\n")
    with pytest.raises(EngineError, match="not stratifiable"):
        solve(prog, tmp_path / "facts", engine="embedded")


@pytest.mark.parametrize("text,message", [
    (".decl p(x: number)\n.output p\np(x) :- x > 1.\n", "ungrounded variable `x`"),
    (".decl p(x: number)\n.output p\np(x) :- q(x).\n", "relation `q` is not declared"),
    (".decl p(x: number)\n.output p\np(1, 2).\n", "has 1 columns, used with 2"),
    (".decl p(x: number)\n.output p\np(\"a\").\n", "type mismatch: a symbol"),
    (".decl p(x: number)\n.output p\np(x) :- p(x), !p(_), x = _.\n", "underscore"),
    (".decl p(x: number)\n.output p\np(x) :- p(x) x.\n", "expected `.` ending the rule"),
    ('.decl p(x: symbol)\n.output p\np("a\\q").\n', "unknown escape sequence"),
    ("#include \"missing.dl\"\n", "included file `missing.dl` not found"),
    ("#ifdef X\n.decl p(x: number)\n", "`#if` without `#endif`"),
])
def test_user_mistakes_are_located(tmp_path: Path, text: str, message: str) -> None:
    prog = _write(tmp_path, text)
    with pytest.raises(EngineError) as info:
        solve(prog, tmp_path / "facts", engine="embedded")
    assert message in str(info.value)
    assert "rules.dl:" in str(info.value)


def test_recursive_include_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, '#include "b.dl"\n', "b.dl")
    prog = _write(tmp_path, '#include "b.dl"\n', "a.dl")
    (tmp_path / "b.dl").write_text('#include "a.dl"\n')
    with pytest.raises(EngineError, match="recursive include"):
        solve(prog, tmp_path / "facts", engine="embedded")


def test_deeply_nested_terms_give_a_located_error(tmp_path: Path) -> None:
    prog = _write(tmp_path, ".decl p(x: number)\n.output p\np(x) :- x = "
                  + "(" * 5000 + "1" + ")" * 5000 + ".\n")
    with pytest.raises(EngineError, match="nested deeper"):
        solve(prog, tmp_path / "facts", engine="embedded")


def test_missing_fact_file_and_bad_number(tmp_path: Path) -> None:
    prog = _write(tmp_path, ".decl e(x: number)\n.input e\n.decl o(x: number)\n.output o\n"
                            "o(x) :- e(x).\n")
    with pytest.raises(EngineError, match="cannot open fact file"):
        solve(prog, tmp_path / "facts", engine="embedded")
    (tmp_path / "facts" / "e.facts").write_text("1\nzwei\n")
    with pytest.raises(EngineError, match=r"e.facts:2: cannot parse"):
        solve(prog, tmp_path / "facts", engine="embedded")


# --- Soufflé process handling with fake executables --------------------------------------------


def _fake_souffle(tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    script = bindir / "souffle"
    script.write_text("#!/bin/sh\nPATH=/usr/bin:/bin\n" + body + "\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))


def test_souffle_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert available_engines() == ["embedded"]
    case = DATA / "basic_join"
    with pytest.raises(EngineError, match="souffle not found on PATH"):
        solve(case / "program.dl", case / "facts", engine="souffle")
    res = solve(case / "program.dl", case / "facts", engine="auto")
    assert res.engine == "embedded"


def test_souffle_failure_reports_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_souffle(tmp_path, 'echo "Error: syntax error in rules" >&2\nexit 1', monkeypatch)
    assert "souffle" in available_engines()
    case = DATA / "basic_join"
    with pytest.raises(EngineError) as info:
        solve(case / "program.dl", case / "facts", engine="souffle")
    assert "souffle failed with exit code 1" in str(info.value)
    assert "Error: syntax error in rules" in str(info.value)


def test_souffle_timeout_kills_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "survived"
    _fake_souffle(tmp_path, f"sleep 5\ntouch {marker}", monkeypatch)
    case = DATA / "basic_join"
    with pytest.raises(EngineError, match=r"souffle timed out after 0.5 s"):
        solve(case / "program.dl", case / "facts", engine="souffle", timeout=0.5)
    assert not marker.exists()


def test_souffle_killed_by_signal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_souffle(tmp_path, 'echo "about to crash" >&2\nkill -SEGV $$', monkeypatch)
    case = DATA / "basic_join"
    with pytest.raises(EngineError) as info:
        solve(case / "program.dl", case / "facts", engine="souffle")
    assert "souffle crashed with signal 11 (SIGSEGV)" in str(info.value)
    assert "about to crash" in str(info.value)


def test_auto_falls_back_with_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        caplog: pytest.LogCaptureFixture) -> None:
    _fake_souffle(tmp_path, 'echo "Error: broken build" >&2\nexit 3', monkeypatch)
    case = DATA / "basic_join"
    with caplog.at_level(logging.WARNING, logger="aliaslog.engines"):
        res = solve(case / "program.dl", case / "facts", engine="auto")
    assert res.engine == "embedded"
    assert res.relations == expected_relations(case)
    msgs = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("souffle failed" in m and "exit code 3" in m and "embedded" in m for m in msgs)


def test_macro_values_are_checked_before_reaching_a_shell(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_souffle(tmp_path, "exit 0", monkeypatch)
    case = DATA / "basic_join"
    with pytest.raises(EngineError, match="cannot be passed to Soufflé"):
        solve(case / "program.dl", case / "facts", engine="souffle",
              defines={"X": "1; rm -rf /"})


# --- atomic out_dir -----------------------------------------------------------------------------


def test_out_dir_written_atomically(tmp_path: Path) -> None:
    case = DATA / "basic_join"
    out = tmp_path / "out"
    solve(case / "program.dl", case / "facts", out, engine="embedded")
    assert sorted(p.name for p in out.iterdir()) == ["has_out.csv", "labelled_edge.csv"]
    assert (out / "has_out.csv").read_text() == "a\nb\nc\nd\n"
    # a second run replaces the whole set; no staging directories are left behind
    solve(case / "program.dl", case / "facts", out, engine="embedded",
          output_relations={"has_out"})
    assert sorted(p.name for p in out.iterdir()) == ["has_out.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_failed_run_leaves_previous_out_dir_intact(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    case = DATA / "basic_join"
    out = tmp_path / "out"
    solve(case / "program.dl", case / "facts", out, engine="embedded")
    before = {p.name: p.read_text() for p in out.iterdir()}
    _fake_souffle(tmp_path, 'mkdir -p "$4"; printf "partial" > "$4/has_out.csv"; exit 1',
                  monkeypatch)
    with pytest.raises(EngineError):
        solve(case / "program.dl", case / "facts", out, engine="souffle")
    assert {p.name: p.read_text() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fakebin", "out"]


def test_out_dir_with_foreign_files_is_not_replaced(tmp_path: Path) -> None:
    case = DATA / "basic_join"
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(EngineError, match="refusing to replace"):
        solve(case / "program.dl", case / "facts", out, engine="embedded")
    assert (out / "notes.txt").read_text() == "keep me"


# --- real Soufflé specifics ---------------------------------------------------------------------


@needs_souffle
def test_souffle_compiled_is_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("c++") is None and shutil.which("g++") is None:
        pytest.skip("no C++ compiler for souffle -o")
    monkeypatch.setenv("ALIASLOG_CACHE", str(tmp_path / "cache"))
    case = DATA / "recursion"
    first = solve(case / "program.dl", case / "facts", engine="souffle", compiled=True,
                  timeout=900)
    assert first.engine == "souffle-compiled"
    assert first.relations == expected_relations(case)
    built = [p for p in (tmp_path / "cache").iterdir() if p.name.startswith("souffle-")]
    assert len(built) == 1
    stamp = os.stat(built[0] / "program").st_mtime_ns
    second = solve(case / "program.dl", case / "facts", engine="souffle", compiled=True)
    assert second.relations == first.relations
    assert os.stat(built[0] / "program").st_mtime_ns == stamp


@needs_souffle
def test_souffle_real_error_is_surfaced(tmp_path: Path) -> None:
    prog = _write(tmp_path, ".decl p(x: number)\n.output p\np(x) :- q(x).\n")
    with pytest.raises(EngineError) as info:
        solve(prog, tmp_path / "facts", engine="souffle")
    assert "exit code" in str(info.value) and "q" in str(info.value)


MAIN_DL = paths.REPO / "datalog_rules" / "main.dl"
BAD_DEFINES = [({"CONTEXT": "2"}, "CONTEXT is not read"), ({"CALL_SITES": "3"}, "1 or 2"),
               ({"CLOSURE_SENSITIVE": "2"}, "must be 1"),
               ({"CALL_SITES": "1", "CLOSURE_SENSITIVE": "1"}, "choose one"),
               ({"COMBINED": "1", "CALL_SITES": "2"}, "choose one"),
               ({"HEAP_CONTEXT": "1"}, "needs contexts"),
               ({"HEAP_CONTEXT": "2", "CALL_SITES": "1"}, "must be 1"),
               ({"FLOW_SENSITIVE": "yes"}, "must be 1")]


@pytest.mark.parametrize("engine", ["embedded", pytest.param("souffle", marks=needs_souffle)])
@pytest.mark.parametrize(("defines", "says"), BAD_DEFINES, ids=lambda x: str(x))
def test_main_dl_refuses_a_define_it_does_not_read(tmp_path: Path, engine: str,
                                                   defines: dict[str, str], says: str) -> None:
    """A -M value the rules would silently ignore (the old CONTEXT=2, CALL_SITES=3) is an
    error naming it, instead of running the insensitive analysis."""
    (tmp_path / "facts").mkdir()
    with pytest.raises(EngineError, match=says):
        solve(MAIN_DL, tmp_path / "facts", engine=engine, defines=defines)
