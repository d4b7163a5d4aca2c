"""The HTML report of `aliaslog batch`: one self-contained file (inline CSS and SVG, no script,
no external asset) so it can be archived, mailed or opened offline next to the CSV."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from string import Template
from typing import Any

from ..loading import write_text_atomically
from ..plots import (
    ALERT,
    PALETTE,
    Point,
    Series,
    bar_chart,
    esc,
    fmt_number,
    fmt_seconds,
    scatter_loglog,
)
from ..workloads import GROUP_TITLES, IR_ORDER, VARIANT_ORDER

STAGES = ("startup", "load", "typecheck", "gradient", "lower", "prepare", "facts", "solve",
          "read-back", "dce", "check", "audit")
FACT_STAGES = ("facts", "solve", "read-back")  # these scale with the fact count, not nodes
UNSCALED = ("startup",)  # worker start-up (imports) does not depend on the model: not plotted
STATUS_NOTE = {"error": "error", "timeout": "timeout"}
LOCATION = re.compile(r"(\S+?):(\d+:\d+):")  # `file:line:col:` that located errors start with
WIDE, HALF = 1300, 640


def label(row: Mapping[str, Any]) -> str:
    """How charts and the table name a row: gradient and Relax rows say so (`mlp (gradient)`)."""
    model = str(row.get("model") or Path(str(row.get("path") or "?")).stem)
    ir, variant = str(row.get("ir") or "?"), str(row.get("variant") or "?")
    if ir == "relay":
        return model if variant == "plain" else f"{model} ({variant})"
    return f"{model} ({ir} {variant})"


def group(row: Mapping[str, Any]) -> str:
    """The header a row is listed under in the per-model charts."""
    ir, variant = str(row.get("ir") or "?"), str(row.get("variant") or "?")
    return GROUP_TITLES.get((ir, variant), f"{ir.capitalize()} · {variant}")


def ordered(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows by IR, variant, then model name, so each group reads as one block."""
    def key(r: Mapping[str, Any]) -> tuple[int, int, str, str, str]:
        ir, variant = str(r.get("ir")), str(r.get("variant"))
        return (IR_ORDER.get(ir, 9), VARIANT_ORDER.get(variant, 9), variant,
                label(r).lower(), str(r.get("path")))
    return sorted(rows, key=key)


def unique_labels(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Row labels, with the path added where two rows would otherwise share a name."""
    names = [label(r) for r in rows]
    dup = {n for n in names if names.count(n) > 1}
    return [f"{n} [{r.get('path')}]" if n in dup else n for n, r in zip(names, rows, strict=True)]


def num(d: object, key: str) -> float | None:
    """A finite number from a row sub-dict, or None when absent or malformed (never a crash)."""
    v = d.get(key) if isinstance(d, Mapping) else None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return v


def size_of(row: Mapping[str, Any], key: str) -> float | None:
    """Model size from `size`, falling back on the metric of the same name."""
    v = num(row.get("size"), key)
    return v if v is not None else num(row.get("metrics"), key)


def failure(row: Mapping[str, Any]) -> str | None:
    """The note a failed row shows in place of its bars (its own file name is left out)."""
    status = str(row.get("status") or "ok")
    if status == "ok":
        return None
    err = str(row.get("error") or "").strip()
    m = LOCATION.match(err)
    if m and m.group(1).endswith(Path(str(row.get("path") or "?")).name):
        err = f"line {m.group(2)}: {err[m.end():].lstrip()}"
    return f"{STATUS_NOTE.get(status, status)}: {err}" if err else STATUS_NOTE.get(status, status)


def stage_names(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Known stages in pipeline order, then any other stage the rows report."""
    seen = {s for r in rows if isinstance(r.get("stages"), Mapping) for s in r["stages"]}
    return [s for s in STAGES if s in seen] + sorted(seen - set(STAGES))


# ---------------------------------------------------------------------------------------------
# charts


def time_charts(rows: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[str]:
    """(a) seconds per stage against model size: front-end stages by IR nodes, solver by facts.

    Nodes, not bindings: a model in graph form (TVM's zoo as printed) has no let bindings.
    """
    stages = stage_names(rows)
    by_nodes = [s for s in stages if s not in FACT_STAGES + UNSCALED] + ["total"]
    by_facts = [s for s in stages if s in FACT_STAGES]
    out = []
    for size_key, names, what in (("nodes", by_nodes, "front end and total"),
                                  ("facts", by_facts, "Datalog stages")):
        series = []
        for s in names:
            pts = []
            for r, name in zip(rows, labels, strict=True):
                x = size_of(r, size_key)
                y = num(r, "total_seconds") if s == "total" else num(r.get("stages"), s)
                if x is None or y is None:
                    continue
                pts.append(Point(x, y, f"{name}: {s} {fmt_seconds(y)} at {fmt_number(x)} "
                                       f"{size_key} ({r.get('status')})"))
            series.append(Series(s, pts))
        out.append(scatter_loglog(
            series, title=f"Time per stage vs {size_key} — {what}",
            subtitle="one point per model and stage; log-log", x_label=f"{size_key} (log)",
            y_label="seconds (log)", y_format=fmt_seconds, width=HALF, height=460))
    return out


def per_model_chart(rows: Sequence[Mapping[str, Any]], labels: Sequence[str],
                    series: Sequence[tuple[str, Callable[[Mapping[str, Any]], float | None]]],
                    *, mode: str, title: str, subtitle: str, x_label: str,
                    colors: Sequence[str] = PALETTE, width: int = HALF,
                    detail: Callable[[Mapping[str, Any]], str] = lambda r: "") -> str:
    """A per-model bar chart: failed rows show their status in place of bars."""
    values = [[get(r) for _, get in series] for r in rows]
    tips = [[f"{name} — {s}: {fmt_number(v) if v is not None else 'no data'}{detail(r)}"
             for (s, _), v in zip(series, vals, strict=True)]
            for r, name, vals in zip(rows, labels, values, strict=True)]
    return bar_chart(labels, [s for s, _ in series], values, mode=mode, title=title,
                     subtitle=subtitle, x_label=x_label, groups=[group(r) for r in rows],
                     notes=[failure(r) for r in rows], tips=tips, colors=colors, width=width)


def metric(key: str) -> Callable[[Mapping[str, Any]], float | None]:
    """Getter for one analysis metric."""
    return lambda r: num(r.get("metrics"), key)


def dce(key: str) -> Callable[[Mapping[str, Any]], float | None]:
    """Getter for one DCE removal count."""
    return lambda r: num(r.get("dce"), key)


def tvm_pass(r: Mapping[str, Any]) -> str:
    """Tooltip suffix naming the TVM pass a row was compared with."""
    p = r.get("dce", {}).get("tvm_pass") if isinstance(r.get("dce"), Mapping) else None
    return f" (TVM: {p})" if p else ""


# ---------------------------------------------------------------------------------------------
# page


_HERE = Path(__file__).parent
CSS = (_HERE / "report.css").read_text(encoding="utf-8")
PAGE = Template((_HERE / "report.html").read_text(encoding="utf-8"))


def _when(iso: object) -> str:
    """An ISO time as `2024-05-01 12:03:04` (unparsable text is shown as given)."""
    try:
        return datetime.fromisoformat(str(iso)).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return str(iso or "?")


def _duration(meta: Mapping[str, Any]) -> str:
    """Wall time between start and finish, if both parse."""
    try:
        d = (datetime.fromisoformat(str(meta.get("finished")))
             - datetime.fromisoformat(str(meta.get("started")))).total_seconds()
    except (ValueError, TypeError):
        return ""
    return f" ({fmt_seconds(d)} wall)"


def counts(rows: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]) -> dict[str, int]:
    """ok/error/timeout/cached counts: the runner's when given, else counted from the rows."""
    given = meta.get("counts") if isinstance(meta.get("counts"), Mapping) else {}
    out = {s: sum(1 for r in rows if r.get("status") == s) for s in ("ok", "error", "timeout")}
    out["cached"] = sum(1 for r in rows if r.get("cached"))
    for k in out:
        if isinstance(given.get(k), int):
            out[k] = given[k]
    return out


def header(rows: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]) -> str:
    """Command, dates, workers, engine, versions and the status counts."""
    versions = meta.get("versions") if isinstance(meta.get("versions"), Mapping) else {}
    vtext = " · ".join(f"{esc(k)} <span class=mono>{esc(v) if v else '—'}</span>"
                       for k, v in versions.items()) or "—"
    c = counts(rows, meta)
    pills = "".join(f'<span class="pill {k}"><b>{c[k]}</b>{k}</span>'
                    for k in ("ok", "error", "timeout", "cached"))
    n_skipped = len(meta.get("skipped") or ())
    if n_skipped:
        pills += f'<span class="pill"><b>{n_skipped}</b>skipped files</span>'
    items = [("started", esc(_when(meta.get("started")))),
             ("finished", esc(_when(meta.get("finished")) + _duration(meta))),
             ("workers", f"{esc(meta.get('workers', '?'))} ({esc(meta.get('backend', '?'))})"),
             ("engine", esc(meta.get("engine", "?"))), ("versions", vtext)]
    dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items)
    return (f"<header><h1>aliaslog batch report</h1>"
            f'<pre class="cmd">{esc(meta.get("command") or "aliaslog batch")}</pre>'
            f'<dl class="meta">{dl}</dl><div class="pills">{pills}'
            f'<span class="pill"><b>{len(rows)}</b>rows</span></div></header>')


def interruption(meta: Mapping[str, Any]) -> str:
    """A banner when the batch was stopped: the report is partial, and what it lacks."""
    if not meta.get("interrupted"):
        return ""
    missing = [str(m) for m in meta.get("missing") or ()]
    items = "".join(f'<li class="mono">{esc(m)}</li>' for m in missing)
    return (f'<div class="failures" id="interrupted"><b>This batch was interrupted</b>: '
            f"{len(missing)} model{'s' * (len(missing) != 1)} not analysed (run the same "
            f"command again to resume).<ul>{items}</ul></div>")


def key_figures(rows: Sequence[Mapping[str, Any]]) -> str:
    """A few totals a reader wants before the charts."""
    def total(get: Callable[[Mapping[str, Any]], float | None]) -> float:
        return sum(v for r in rows for v in [get(r)] if v is not None)

    ok = [r for r in rows if r.get("status") == "ok"]
    slow = max(ok, key=lambda r: num(r, "total_seconds") or 0.0, default=None)
    figs = [(fmt_number(total(lambda r: size_of(r, "bindings"))), "bindings analysed"),
            (fmt_number(total(metric("removable"))), "removable per aliaslog"),
            (f"{fmt_number(total(dce('aliaslog_removed')))} vs "
             f"{fmt_number(total(dce('tvm_removed')))}", "removed: aliaslog DCE vs TVM DCE"),
            (fmt_seconds(total(lambda r: num(r, "total_seconds"))), "worker time, all rows")]
    if slow is not None:
        figs.append((fmt_seconds(num(slow, "total_seconds") or 0.0), f"slowest: {label(slow)}"))
    return '<div class="figures">' + "".join(
        f'<div class="figure"><div class="v">{esc(v)}</div><div class="k">{esc(k)}</div></div>'
        for v, k in figs) + "</div>"


def failures(rows: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> str:
    """The failed rows and their errors, listed before any chart."""
    items = [f'<li><span class="badge {esc(r.get("status"))}">{esc(r.get("status"))}</span> '
             f'<b>{esc(name)}</b> <span class="mono">{esc(r.get("path", ""))}</span><br>'
             f'<span class="mono" style="color:{ALERT}">{esc(r.get("error") or "(no message)")}'
             "</span></li>"
             for r, name in zip(rows, labels, strict=True) if r.get("status") != "ok"]
    if not items:
        return ""
    return (f'<h2 id="failures">Failures ({len(items)})</h2><div class="failures"><ul>'
            + "".join(items) + "</ul></div>")


def skipped_files(meta: Mapping[str, Any]) -> str:
    """The files found but not analysed (never run), each with why."""
    skipped = [s for s in meta.get("skipped") or () if isinstance(s, Mapping)]
    if not skipped:
        return ""
    items = "".join(f'<li><span class="mono">{esc(s.get("path", "?"))}</span>: '
                    f'{esc(s.get("reason") or "")}</li>' for s in skipped)
    return (f'<h2 id="skipped">Skipped files ({len(skipped)})</h2><p class="explain">Found '
            "under a directory but not analysed, and never run.</p>"
            f'<div class="card"><ul>{items}</ul></div>')


def _cell(v: float | None, fmt: Callable[[float], str] = lambda v: f"{v:g}") -> str:
    """A numeric table cell; missing values are a grey dash, not 0."""
    return '<td class="na">—</td>' if v is None else f'<td class="n">{esc(fmt(v))}</td>'


def _ms(v: float) -> str:
    """Seconds shown as milliseconds with the decimals that matter, so a column lines up."""
    ms = v * 1e3
    return f"{ms:.2f}" if ms < 1 else f"{ms:.1f}" if ms < 100 else f"{ms:,.0f}"


def table(rows: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> str:
    """Every row, failed ones included with their error on a full-width line below."""
    stages = stage_names(rows)
    metric_cols = [("kept", "kept"), ("removable", "remov\u00adable"), ("cells", "cells"),
                   ("may-alias pairs", "may-alias pairs"), ("call-graph edges", "call edges"),
                   ("polymorphic call sites", "poly. call sites"),
                   ("avg points-to set x100", "avg pts ×100")]
    engines = sorted({str(r.get("engine")) for r in rows if r.get("engine")})
    run_cols = (["engine"] if len(engines) > 1 else []) + ["cached"]
    supers = [("", 1), ("milliseconds", 1 + len(stages)), ("size", 3),
              ("analysis metrics", len(metric_cols)), ("DCE removed", 3), ("", len(run_cols))]
    heads = (["model", "total"] + [s.replace("check", "\u00adcheck") for s in stages]
             + ["bind\u00adings", "facts", "nodes"] + [t for _, t in metric_cols]
             + ["aliaslog", "TVM", "Δ"] + run_cols)
    numeric = set(range(1, 1 + 1 + len(stages) + 3 + len(metric_cols) + 3))
    ncols = len(heads)
    out = ['<div class="tablewrap"><table><thead><tr class="super">'
           + "".join(f'<th colspan="{n}">{t}</th>' for t, n in supers) + "</tr><tr>"
           + "".join(f'<th class="{"n" if i in numeric else ""}">{esc(h)}</th>'
                     for i, h in enumerate(heads)) + "</tr></thead><tbody>"]
    prev = None
    for r, name in zip(rows, labels, strict=True):
        g = group(r)
        if g != prev:
            out.append(f'<tr class="grp"><td colspan="{ncols}">{esc(g)}</td></tr>')
            prev = g
        status = str(r.get("status") or "?")
        cls = "" if status == "ok" else f' class="failed {esc(status)}"'
        ours, tvm = dce("aliaslog_removed")(r), dce("tvm_removed")(r)
        where = (f"{r.get('path', '?')}\nsha256 {r.get('sha256') or '—'}\n"
                 f"{r.get('engine') or '—'} engine, {r.get('worker') or '—'}")
        badge = "" if status == "ok" else f' <span class="badge {esc(status)}">{esc(status)}</span>'
        cells = [f'<td class="model" title="{esc(where)}">{esc(name)}{badge}</td>',
                 _cell(num(r, "total_seconds"), _ms)]
        cells += [_cell(num(r.get("stages"), s), _ms) for s in stages]
        cells += [_cell(num(r.get("size"), k)) for k in ("bindings", "facts", "nodes")]
        cells += [_cell(metric(k)(r)) for k, _ in metric_cols]
        delta = None if ours is None or tvm is None else ours - tvm
        cells += [_cell(ours), _cell(tvm), _cell(delta, lambda v: f"{v:+g}" if v else "0")
                  .replace('class="n"', f'class="n {"more" if delta > 0 else "fewer"}"'
                           if delta else 'class="n"')]
        if len(engines) > 1:
            cells.append(f"<td>{esc(r.get('engine') or '—')}</td>")
        cells.append(f"<td>{'yes' if r.get('cached') else ''}</td>")
        out.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
        if status != "ok":
            out.append(f'<tr class="errline {esc(status)}"><td colspan="{ncols}">'
                       f'{esc(name)} — {esc(status)}: {esc(r.get("error") or "(no message)")}'
                       f' <span class="mono">({esc(r.get("path", "?"))}, '
                       f'{esc(r.get("worker") or "—")})</span></td></tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def audit_table(rows: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> str:
    """Per pass of the audited pipeline: on how many models it changed the module, and which
    findings it introduced on which models (rows without an audit are left out)."""
    audited = [(r, lab) for r, lab in zip(rows, labels, strict=True)
               if isinstance(r.get("audit"), Mapping)]
    if not audited:
        return ""
    order: dict[str, None] = {}
    changed: dict[str, int] = {}
    found: dict[str, dict[str, list[str]]] = {}
    for r, lab in audited:
        for s in r["audit"]["passes"]:
            order.setdefault(s["name"])
            changed[s["name"]] = changed.get(s["name"], 0) + bool(s["changed"])
        for f in r["audit"]["findings"]:
            found.setdefault(f["introduced_by"], {}).setdefault(lab, []).append(
                f"{f['check']}" + (" (warning)" if f["severity"] != "error" else ""))
    names = [n for n in found if n not in order] + list(order)  # "input" first
    body = "".join(
        f"<tr><td>{esc(n)}</td><td>{changed.get(n, 0)}</td>"
        f"<td>{sum(len(v) for v in found.get(n, {}).values())}</td><td>"
        + esc("; ".join(f"{m}: {', '.join(ks)}" for m, ks in found.get(n, {}).items()) or "—")
        + "</td></tr>" for n in names)
    return (f'<h2 id="audit">Audit, pass by pass ({len(audited)} models)</h2>'
            '<p class="explain">Each model through relax.build\'s default llvm pipeline, checked '
            "after every pass; a finding belongs to the pass after which it first appears "
            "(input: the model as given).</p><table><thead><tr><th>pass</th>"
            "<th>models it changed</th><th>findings</th><th>on models</th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


def render(rows: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]) -> str:
    """The whole page as a string (write_report writes it)."""
    rows = ordered(rows)
    labels = unique_labels(rows)
    passes = sorted({str(r["dce"]["tvm_pass"]) for r in rows
                     if isinstance(r.get("dce"), Mapping) and r["dce"].get("tvm_pass")})
    a1, a2 = time_charts(rows, labels)
    kept = per_model_chart(
        rows, labels, [("kept", metric("kept")), ("removable", metric("removable"))],
        mode="stacked", title="Bindings kept vs removable, per model",
        subtitle="bar length = bindings; green = what aliaslog proves removable",
        x_label="bindings", colors=("#9aa7b4", "#228833"))
    removals = per_model_chart(
        rows, labels, [("aliaslog DCE", dce("aliaslog_removed")),
                       ("TVM DCE", dce("tvm_removed"))],
        mode="grouped", title="Bindings removed: aliaslog DCE vs TVM DCE, per model",
        subtitle="TVM pass: " + (", ".join(passes) or "—"),
        x_label="bindings removed", colors=("#228833", "#4477aa"), detail=tvm_pass)
    sizes = per_model_chart(
        rows, labels, [("ref cells", metric("cells")),
                       ("may-alias pairs", metric("may-alias pairs")),
                       ("call-graph edges", metric("call-graph edges"))],
        mode="panels", title="What the analysis found, per model",
        subtitle="each column on its own scale; — = not reported for this model",
        x_label="count", colors=("#aa3377", "#ee6677", "#4477aa"), width=WIDE)
    failed = any(r.get("status") != "ok" for r in rows)
    title = f"aliaslog batch — {len(rows)} rows — {_when(meta.get('finished'))}"
    return PAGE.substitute(
        title=esc(title), css=CSS, header=header(rows, meta), interrupted=interruption(meta),
        figures=key_figures(rows),
        failures_link='<a href="#failures">failures</a>' if failed else "",
        failures=failures(rows, labels), time_left=a1,
        skipped_link='<a href="#skipped">skipped</a>' if meta.get("skipped") else "",
        skipped=skipped_files(meta), time_right=a2, kept=kept,
        removals=removals, found=sizes, n_rows=len(rows),
        table=audit_table(rows, labels) + table(rows, labels))


def write_report(rows: list[dict], meta: dict, path: Path) -> None:
    """Write the report to `path` through a temporary file and a rename (no half-written page)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(target, render(rows, meta))
