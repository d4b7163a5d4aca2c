"""The `aliaslog batch` HTML report and its SVG charts: every model drawn, failures shown,
names escaped, nothing loaded from outside, and a real browser renders it."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from aliaslog import plots
from aliaslog.batch import report
from aliaslog.batch.report import write_report
from tests.support.paths import REPO

SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM = "/usr/bin/chromium"
NASTY = "evil<script>alert('x')</script>&\"co\""
STAGES_RELAY = ("load", "typecheck", "facts", "solve", "read-back", "dce")


def relay_row(i: int, model: str, variant: str = "plain") -> dict:
    """An ok Relay row whose numbers grow with i, so charts have a spread to draw."""
    bindings = 5 + 7 * i + (60 if variant == "gradient" else 0)
    removable = i % 4 + (10 if variant == "gradient" else 0)
    stages = {s: round(0.0004 * (k + 1) * bindings, 6) for k, s in enumerate(STAGES_RELAY)}
    if variant == "gradient":
        stages["gradient"] = 0.002 * bindings
    return {"model": model, "path": f"zoo/{model}{'.grad' if variant == 'gradient' else ''}.relay",
            "ir": "relay", "variant": variant, "sha256": f"{i:064x}", "status": "ok",
            "error": None, "stages": stages, "total_seconds": sum(stages.values()) + 0.01,
            "size": {"bindings": bindings, "facts": 30 * bindings, "nodes": 5 * bindings},
            "metrics": {"bindings": bindings, "kept": bindings - removable,
                        "removable": removable, "cells": i % 5, "may-alias pairs": 3 * i,
                        "call-graph edges": i % 7, "polymorphic call sites": i % 2,
                        "avg points-to set x100": 100 + i},
            "dce": {"aliaslog_removed": removable, "tvm_removed": removable // 2,
                    "tvm_pass": "relay purity DCE (#9542)"},
            "engine": "embedded", "worker": f"pid {1000 + i}", "cached": i % 9 == 0}


def relax_row(model: str, variant: str) -> dict:
    """An ok Relax row: no `cells` metric (Relax has tensors, not reference cells)."""
    return {"model": model, "path": f"relax/{model}.py", "ir": "relax", "variant": variant,
            "sha256": "f" * 64, "status": "ok", "error": None,
            "stages": {"load": 0.5, "lower": 0.2, "facts": 0.05, "solve": 0.3, "read-back": 0.01,
                       "dce": 0.04},
            "total_seconds": 1.2, "size": {"bindings": 148, "facts": 4000, "nodes": 900},
            "metrics": {"bindings": 148, "kept": 140, "removable": 8, "may-alias pairs": 364,
                        "call-graph edges": 0, "tensors": 200},
            "dce": {"aliaslog_removed": 8, "tvm_removed": 3,
                    "tvm_pass": "relax.transform.DeadCodeElimination"},
            "engine": "embedded", "worker": "pid 77", "cached": False}


def failed_row(model: str, status: str, error: str, variant: str = "plain") -> dict:
    """A row a worker gave up on: no size, metrics or dce, maybe partial stages."""
    return {"model": model, "path": f"zoo/{model}.relay", "ir": "relay", "variant": variant,
            "sha256": "0" * 64, "status": status, "error": error, "stages": {"load": 0.01},
            "total_seconds": 600.0 if status == "timeout" else 0.02, "engine": "embedded",
            "worker": "pid 5", "cached": False}


def forty_rows() -> list[dict]:
    """40 models: 30 plain Relay, 5 of them again after autodiff, 2 Relax, an error, a timeout,
    and a model whose name is hostile HTML."""
    rows = [relay_row(i, f"model{i:02d}") for i in range(30)]
    rows += [relay_row(i, f"model{i:02d}", "gradient") for i in range(5)]
    rows += [relax_row("bert", "input"), relax_row("bert", "lowered")]
    rows.append(failed_row("broken", "error",
                           "zoo/broken.relay:3:7: parse error: expected `)` but found `}`"))
    rows.append(failed_row("gpt2-xl", "timeout", "no result after 600 s", "gradient"))
    rows.append(relay_row(31, NASTY))
    return rows


META = {"started": "2025-01-07T10:00:00", "finished": "2025-01-07T10:01:30", "workers": 2,
        "backend": "processes", "engine": "embedded",
        "versions": {"aliaslog": "0.1.0", "python": "3.11.7", "numpy": "2.0", "tvm": None,
                     "souffle": None},
        "command": "aliaslog batch zoo/ --out out -j 2",
        "counts": {"ok": 38, "error": 1, "timeout": 1, "cached": 4}}


class Page(HTMLParser):
    """Collects tags with attributes, the raw text of each <svg>, and visible text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def charts(html_text: str) -> dict[str, ET.Element]:
    """Each inline <svg>, parsed as XML (so it must be well-formed), keyed by its aria-label."""
    out = {}
    for m in re.finditer(r"<svg\b.*?</svg>", html_text, re.S):
        root = ET.fromstring(m.group(0))
        out[root.get("aria-label")] = root
    return out


def rows_of(svg: ET.Element) -> dict[str, ET.Element]:
    """Bar chart rows by category name."""
    return {g.get("data-category"): g for g in svg.iter(f"{SVG}g") if g.get("class") == "row"}


def shown(t: ET.Element) -> str:
    """The visible text of an SVG <text>, without its <title> tooltip."""
    tip = t.find(f"{SVG}title")
    return (t.text or "") + ("" if tip is None else tip.tail or "")


def bars(g: ET.Element) -> list[ET.Element]:
    """The bar marks of one chart row."""
    return [r for r in g.iter(f"{SVG}rect") if r.get("class") == "bar"]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, list[dict]]:
    """The report of the 40 rows, written once for the tests that only read it."""
    rows = forty_rows()
    path = tmp_path_factory.mktemp("report") / "sub" / "report.html"
    write_report(rows, META, path)
    return path, path.read_text(encoding="utf-8"), rows


TITLES = {"kept": "Bindings kept vs removable, per model",
          "removed": "Bindings removed: aliaslog DCE vs TVM DCE, per model",
          "found": "What the analysis found, per model"}


def test_every_chart_is_present_and_well_formed(page):
    _, text, _ = page
    found = charts(text)
    assert len(found) == 5
    assert set(TITLES.values()) <= set(found)
    assert {"Time per stage vs nodes — front end and total",
            "Time per stage vs facts — Datalog stages"} <= set(found)


def test_each_model_has_its_row_in_every_per_model_chart(page):
    _, text, rows = page
    labels = {report.label(r) for r in rows}
    assert len(labels) == 40
    assert "model03 (gradient)" in labels and "bert (relax lowered)" in labels
    for title in TITLES.values():
        assert set(rows_of(charts(text)[title])) == labels, title


def test_bars_match_the_numbers_and_missing_data_is_not_drawn(page):
    _, text, _ = page
    kept = rows_of(charts(text)[TITLES["kept"]])
    tips = [b.find(f"{SVG}title").text for b in bars(kept["model05"])]
    assert tips == ["model05 — kept: 39", "model05 — removable: 1"]
    # A stacked bar's segments are laid end to end in proportion to their values.
    k, r = bars(kept["model04 (gradient)"])  # 83 kept + 10 removable
    assert float(r.get("x")) == pytest.approx(float(k.get("x")) + float(k.get("width")), abs=0.2)
    assert float(k.get("width")) / float(r.get("width")) == pytest.approx(83 / 10, rel=0.02)

    found = rows_of(charts(text)[TITLES["found"]])
    assert len(bars(found["model07"])) == 3
    relax = found["bert (relax input)"]  # no `cells` metric: a dash, not a zero-length bar
    assert [b.find(f"{SVG}title").text.split(" — ")[1] for b in bars(relax)] == [
        "may-alias pairs: 364", "call-graph edges: 0"]
    assert [shown(t) for t in relax.iter(f"{SVG}text") if t.get("class") == "missing"] == ["—"]


def test_failed_rows_show_their_status_instead_of_bars(page):
    _, text, _ = page
    for title in TITLES.values():
        rows = rows_of(charts(text)[title])
        for name, status in (("broken", "error"), ("gpt2-xl (gradient)", "timeout")):
            g = rows[name]
            assert bars(g) == []
            [note] = [t for t in g.iter(f"{SVG}text") if t.get("class") == "note"]
            assert note.find(f"{SVG}title").text.startswith(f"{status}: ")
    [note] = [t for t in rows_of(charts(text)[TITLES["kept"]])["broken"].iter(f"{SVG}text")
              if t.get("class") == "note"]
    assert shown(note).startswith("error: line 3:7: parse error")  # its own path left out


def test_time_charts_plot_every_stage_of_every_sized_row_on_log_axes(page):
    _, text, rows = page
    svg = charts(text)["Time per stage vs facts — Datalog stages"]
    series = {g.get("data-series"): g for g in svg.iter(f"{SVG}g")
              if g.get("class") == "series"}
    assert list(series) == ["facts", "solve", "read-back"]
    sized = [r for r in rows if r["status"] == "ok"]
    assert all(len(list(g)) == len(sized) for g in series.values())
    tip = next(iter(series["solve"])).find(f"{SVG}title").text
    assert re.fullmatch(r".+: solve [\d.]+ (µs|ms|s) at \S+ facts \(ok\)", tip)
    labels = [t.text for t in svg.iter(f"{SVG}text")]
    assert "1 s" in labels and "100 ms" in labels  # decade ticks of a log axis
    bindings_chart = charts(text)["Time per stage vs nodes — front end and total"]
    names = [g.get("data-series") for g in bindings_chart.iter(f"{SVG}g")
             if g.get("class") == "series"]
    assert names == ["load", "typecheck", "gradient", "lower", "dce", "total"]


def test_names_from_files_are_escaped_everywhere(page):
    _, text, _ = page
    assert "<script" not in text
    assert "evil&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;&quot;co&quot;" in text
    parser = Page()
    parser.feed(text)
    assert NASTY in "".join(parser.text)  # shown as text, verbatim
    assert NASTY in rows_of(charts(text)[TITLES["kept"]])


def test_page_is_self_contained(page):
    _, text, _ = page
    parser = Page()
    parser.feed(text)
    tags = {t for t, _ in parser.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed"}
    for tag, attrs in parser.tags:
        for key in ("src", "href", "xlink:href", "action"):
            value = attrs.get(key)
            assert value is None or value.startswith("#"), (tag, key, value)
    assert not re.search(r"url\(|@import|https?://(?!www\.w3\.org/2000/svg\")", text)


def test_header_table_and_failure_list(page):
    _, text, rows = page
    parser = Page()
    parser.feed(text)
    visible = " ".join(" ".join(parser.text).split())
    assert "aliaslog batch zoo/ --out out -j 2" in visible
    assert "2 (processes)" in visible and "(90 s wall)" in visible
    for count, what in ((38, "ok"), (1, "error"), (1, "timeout"), (4, "cached")):
        assert f"{count}{what}" in visible.replace(" ", "")
    assert "Failures (2)" in visible
    assert ("broken — error: zoo/broken.relay:3:7: parse error: expected `)` but found `}`"
            in visible)
    assert "gpt2-xl (gradient) — timeout: no result after 600 s" in visible
    # One table row per model plus one error line per failure.
    body = text[text.index("<tbody>"):text.index("</tbody>")]
    model_cells = re.findall(r'<td class="model"', body)
    assert len(model_cells) == len(rows)
    assert len(re.findall(r'<tr class="errline', body)) == 2
    assert len(re.findall(r'<tr class="failed', body)) == 2


def test_groups_keep_gradient_and_relax_rows_apart(page):
    _, text, _ = page
    svg = charts(text)[TITLES["removed"]]
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    heads = [t for t in texts if t in ("Relay · plain", "Relay · after autodiff",
                                       "Relax · input", "Relax · lowered")]
    assert heads == ["Relay · plain", "Relay · after autodiff", "Relax · input",
                     "Relax · lowered"]
    order = list(rows_of(svg))
    assert order.index("model04") < order.index("model00 (gradient)") < order.index(
        "bert (relax input)")


def test_write_is_atomic_and_readable(tmp_path, monkeypatch):
    path = tmp_path / "report.html"
    path.write_text("old")
    write_report([], {}, path)
    assert (path.stat().st_mode & 0o777) == 0o644
    assert "no data" in path.read_text()  # empty batch: charts say so instead of crashing

    def broken(rows, meta):
        raise RuntimeError("render failed")

    monkeypatch.setattr(report, "render", broken)
    path.write_text("old")
    with pytest.raises(RuntimeError):
        write_report(forty_rows(), META, path)
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["report.html"]


def test_duplicate_labels_are_told_apart_by_path():
    a, b = relay_row(1, "mlp"), relay_row(2, "mlp")
    b["path"] = "other/mlp.relay"
    assert report.unique_labels([a, b]) == ["mlp [zoo/mlp.relay]", "mlp [other/mlp.relay]"]


def test_malformed_numbers_are_treated_as_missing(tmp_path):
    row = relay_row(3, "odd")
    row["metrics"]["kept"] = "many"
    row["metrics"]["removable"] = float("nan")
    row["stages"]["solve"] = None
    row["size"] = None
    path = tmp_path / "r.html"
    write_report([row], META, path)
    kept = rows_of(charts(path.read_text())[TITLES["kept"]])["odd"]
    assert bars(kept) == []
    assert [shown(t) for t in kept.iter(f"{SVG}text") if t.get("class") == "missing"] == ["—"]


# --- plots ------------------------------------------------------------------------------------


def test_ticks_and_formats():
    assert plots.linear_ticks(9) == [0, 2, 4, 6, 8, 10]
    assert plots.linear_ticks(3, integer=True) == [0, 1, 2, 3]
    assert plots.linear_ticks(0) == [0.0, 1.0]
    major, minor = plots.log_ticks(0.003, 40)
    assert major == [0.001, 0.01, 0.1, 1, 10, 100] and 0.002 in minor and 0.01 not in minor
    assert plots.log_ticks(5, 5)[0] == [1, 2, 5, 10]  # one decade: 2 and 5 labelled too
    assert [plots.fmt_seconds(v) for v in (0.00002, 0.01, 2.5, 4000)] == [
        "20 µs", "10 ms", "2.5 s", "4000 s"]
    assert [plots.fmt_number(v) for v in (0, 7, 1234, 12345, 2_500_000)] == [
        "0", "7", "1234", "12.3k", "2.5M"]


def test_scatter_drops_what_a_log_axis_cannot_show():
    svg = ET.fromstring(plots.scatter_loglog(
        [plots.Series("a", [plots.Point(10, 0.5, "p1"), plots.Point(0, 1, "zero x")]),
         plots.Series("b", [plots.Point(100, 2, "p2"), plots.Point(50, -1, "negative y")])],
        title="t"))
    tips = [t.text for t in svg.iter(f"{SVG}title")]
    assert tips == ["p1", "p2"]
    assert any("2 points ≤ 0 not drawn" in (t.text or "") for t in svg.iter(f"{SVG}text"))
    empty = ET.fromstring(plots.scatter_loglog([plots.Series("a", [])], title="t"))
    assert "no data" in [t.text for t in empty.iter(f"{SVG}text")]


def test_bar_chart_rejects_mismatched_data():
    with pytest.raises(ValueError, match="one row per category"):
        plots.bar_chart(["a", "b"], ["s"], [[1]])
    with pytest.raises(ValueError, match="notes"):
        plots.bar_chart(["a"], ["s"], [[1]], notes=[None, None])
    with pytest.raises(ValueError, match="mode"):
        plots.bar_chart(["a"], ["s"], [[1]], mode="pie")


def test_long_labels_are_clipped_with_the_full_name_in_a_tooltip():
    name = "a_really_long_model_name_from_some_zoo_" * 3
    svg = ET.fromstring(plots.bar_chart([name], ["s"], [[3]], width=500))
    [g] = [g for g in svg.iter(f"{SVG}g") if g.get("class") == "row"]
    label = g.find(f"{SVG}text")
    assert label.find(f"{SVG}title").text == name
    assert shown(label).endswith("…") and len(shown(label)) < 40


# --- the browser ------------------------------------------------------------------------------


def png_facts(path: Path) -> tuple[int, int, int]:
    """(width, height, distinct byte values of the decoded scanlines), checked against IHDR."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        ihdr = chunk if kind == b"IHDR" else ihdr
        idat += chunk if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", ihdr[:10])
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    raw = zlib.decompress(idat)
    assert depth == 8 and len(raw) == height * (1 + width * channels)
    return width, height, len(set(raw))


@pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                    reason="needs Debian's chromium at /usr/bin/chromium for a real render")
def test_chromium_renders_every_chart(page, tmp_path):
    path, _, _ = page
    shot = tmp_path / "shot.png"
    proc = subprocess.run([sys.executable, str(REPO / "conformance" / "report_screenshot.py"),
                           str(path), "-o", str(shot), "--window-size", "1200,2000"],
                          capture_output=True, text=True, timeout=400, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "svg charts rendered by chromium: 5 (in the file: 5)" in proc.stdout
    width, height, distinct = png_facts(shot)
    assert (width, height) == (1200, 2000)
    assert shot.stat().st_size > 30_000 and distinct > 64  # drawn, not a blank page


def test_screenshot_script_explains_a_missing_browser(page, tmp_path):
    path, _, _ = page
    proc = subprocess.run([sys.executable, str(REPO / "conformance" / "report_screenshot.py"),
                           str(path), "-o", str(tmp_path / "s.png"),
                           "--chromium", str(tmp_path / "no-such-chromium")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "no-such-chromium not found" in proc.stderr and "apt-get install chromium" in proc.stderr
