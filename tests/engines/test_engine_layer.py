"""The engine layer stands on its own: atomic publishing, and imports that skip the IR packages."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from aliaslog.engines import publish
from aliaslog.engines.publish import publish_dir
from tests.support.paths import REPO


def _fill(files: dict[str, str]):
    def fill(d: Path) -> None:
        for name, text in files.items():
            (d / name).write_text(text)
    return fill


def test_publish_replaces_the_whole_set_and_leaves_no_staging(tmp_path: Path) -> None:
    out = tmp_path / "out"
    publish_dir(out, _fill({"a.csv": "1\n", "b.csv": "2\n"}), owned_suffix=".csv")
    publish_dir(out, _fill({"a.csv": "3\n"}), owned_suffix=".csv")
    assert {p.name: p.read_text() for p in out.iterdir()} == {"a.csv": "3\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RENAME_EXCHANGE is Linux's")
def test_publish_never_leaves_the_target_missing(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    publish_dir(out, _fill({"a.csv": "old\n"}), owned_suffix=".csv")
    real_rename, real_rmtree = os.rename, publish.shutil.rmtree
    seen: list[bool] = []

    def watching_rename(a, b):
        seen.append(out.exists())
        real_rename(a, b)

    def watching_rmtree(p, **kw):
        seen.append(out.exists() and (out / "a.csv").read_text() == "new\n")
        real_rmtree(p, **kw)

    monkeypatch.setattr(publish.os, "rename", watching_rename)
    monkeypatch.setattr(publish.shutil, "rmtree", watching_rmtree)
    publish_dir(out, _fill({"a.csv": "new\n"}), owned_suffix=".csv")
    assert seen and all(seen)  # the swap is one exchange: no rename while the target is away
    assert (out / "a.csv").read_text() == "new\n"


def test_publish_keeps_the_target_when_fill_fails(tmp_path: Path) -> None:
    out = tmp_path / "out"
    publish_dir(out, _fill({"a.facts": "x\n"}), owned_suffix=".facts")

    def broken(d: Path) -> None:
        (d / "a.facts").write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        publish_dir(out, broken, owned_suffix=".facts")
    assert (out / "a.facts").read_text() == "x\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_publish_refuses_a_directory_with_foreign_files(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="refusing to replace"):
        publish_dir(out, _fill({"a.csv": ""}), owned_suffix=".csv")
    assert (out / "notes.txt").read_text() == "keep me"


def test_engine_layer_imports_no_ir_package() -> None:
    code = ("import sys, aliaslog.engines, aliaslog.engines.embedded.run, "
            "aliaslog.engines.souffle_backend\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('extractor.relay', 'tvm'))"
            " or m in ('extractor.facts', 'extractor.schema'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


class _FakeControl:
    """Records what clingo would parse and ground; fails on a chunk holding `bad`."""

    def __init__(self) -> None:
        self.parsed: list[str] = []
        self.calls: list[tuple[str, str]] = []

    def add(self, part: str, params: list, text: str) -> None:
        if "bad" in text:
            raise RuntimeError("parsing failed")
        self.parsed.append(text)
        self.calls.append(("add", part))

    def ground(self, parts: list) -> None:
        self.calls.extend(("ground", name) for name, _ in parts)


def test_fact_chunks_are_grounded_in_order_while_the_next_is_made():
    from aliaslog.engines.embedded.run import _ground_pipelined

    ctl = _FakeControl()
    _ground_pipelined(ctl, (f"p({i})." for i in range(50)))
    assert ctl.parsed == [f"p({i})." for i in range(50)]
    # each chunk is a part of its own, grounded before the next is parsed (its parse is freed)
    parts = [part for op, part in ctl.calls if op == "add"]
    assert len(set(parts)) == 50
    assert ctl.calls == [(op, part) for part in parts for op in ("add", "ground")]


def test_a_chunk_clingo_rejects_stops_the_feed_and_is_raised_here():
    from aliaslog.engines.embedded.run import _ground_pipelined

    made: list[int] = []

    def chunks():
        for i in range(1000):
            made.append(i)
            yield "bad." if i == 3 else f"p({i})."

    ctl = _FakeControl()
    with pytest.raises(RuntimeError, match="parsing failed"):
        _ground_pipelined(ctl, chunks())
    assert ctl.parsed == ["p(0).", "p(1).", "p(2)."] and len(made) < 10


def test_a_failing_producer_stops_the_parser_thread():
    from aliaslog.engines.embedded.run import _ground_pipelined

    def chunks():
        yield "p(1)."
        raise ValueError("formatting failed")

    ctl = _FakeControl()
    with pytest.raises(ValueError, match="formatting failed"):
        _ground_pipelined(ctl, chunks())
    assert ctl.parsed == ["p(1)."]
    assert not [t for t in threading.enumerate() if t.name == "clingo-parse"]


def test_shown_atoms_print_as_clingo_prints_them():
    """The reused-buffer printer gives exactly `str()`, long symbols (a grown buffer) too."""
    import clingo

    from aliaslog.engines.embedded.run import symbol_texts

    syms = [clingo.Function("r", [clingo.String('q"uo\\te\n'), clingo.Number(-7)]),
            clingo.Function("", [clingo.String("x" * 10_000), clingo.Tuple_([])]),
            clingo.Function("flag"), clingo.Number(3), clingo.String("")]
    want = [str(s) for s in syms]
    got = list(symbol_texts(list(syms)))
    assert got == want


def test_in_memory_facts_reach_clingo_in_chunks_of_bounded_rows(tmp_path, monkeypatch):
    """A long relation is split into chunks (each parsed, grounded and freed in turn), with
    the same result as one chunk; negation over chunked facts too."""
    from aliaslog.engines import solve
    from aliaslog.engines.embedded import facts as embedded_facts

    prog = tmp_path / "p.dl"
    prog.write_text('.decl e(a: symbol, b: symbol)\n.input e\n.decl r(a: symbol)\n.output r\n'
                    'r("a").\nr(y) :- r(x), e(x, y).\n.decl n(x: symbol)\n.output n\n'
                    'n(x) :- e(x, _), !r(x).\n')
    rows = {"e": [("a", "b"), ("b", "c"), ("x", "y"), ("c", "d"), ("y", "z")]}
    whole = solve(prog, facts=rows, engine="embedded").relations
    assert whole == {"r": [("a",), ("b",), ("c",), ("d",)], "n": [("x",), ("y",)]}
    sizes: list[int] = []
    real = embedded_facts._format
    monkeypatch.setattr(embedded_facts, "CHUNK_ROWS", 2)
    monkeypatch.setattr(embedded_facts, "_format",
                        lambda *args, **kw: sizes.append(len(args[3])) or real(*args, **kw))
    assert solve(prog, facts=rows, engine="embedded").relations == whole
    assert sizes == [2, 2, 1]


@pytest.mark.parametrize("engine", ["embedded", "souffle"])
def test_output_symbols_are_read_as_the_callers_own_strings(tmp_path, engine):
    """`solve(symbols=...)`: an output symbol equal to a key comes back as that very object
    (read-back shares the extractor's ids), others as before; the relations are unchanged."""
    import shutil

    from aliaslog.engines import solve

    if engine == "souffle" and shutil.which("souffle") is None:
        pytest.skip("souffle is not on PATH")
    prog = tmp_path / "p.dl"
    prog.write_text('.decl e(a: symbol, b: symbol)\n.input e\n.decl r(a: symbol, b: symbol)\n'
                    '.output r\nr(x, y) :- e(x, y).\nr(y, "new") :- e(_, y).\n')
    mine = "".join(["n", "1"])  # (made at run time: not the interned literal)
    rows = {"e": [("n0", mine)]}
    plain = solve(prog, facts=rows, engine=engine).relations
    calls: list[int] = []
    own = {mine: mine}
    got = solve(prog, facts=rows, engine=engine,
                symbols=lambda: calls.append(1) or dict(own)).relations
    assert got == plain == {"r": [("n0", "n1"), ("n1", "new")]}
    assert calls == [1]
    assert all(row[0] is mine for row in got["r"] if row[0] == "n1")
    assert got["r"][0][1] is mine
