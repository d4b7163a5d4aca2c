"""The HTML report of `aliaslog audit`: the passes in order, and each finding with the
module's TVMScript around its bindings before and after the pass that introduced it."""

from __future__ import annotations

from html import escape
from pathlib import Path

from ..loading import write_text_atomically
from .audit import AuditFinding, AuditReport

CSS = """body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1200px}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}
tr.bad td{background:#fde2e2}pre{background:#f6f6f6;padding:6px;overflow-x:auto;font-size:12px}
.hit{background:#ffe08a;display:block}.finding{border-left:4px solid #c33;padding-left:1em}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em}
.cols>div{min-width:0}"""


def _excerpt(script: str, lines: set[int], context: int = 3) -> str:
    """The script lines around `lines`, those lines marked."""
    text = script.splitlines()
    if not text or not lines:
        return ""
    keep = sorted({i for n in lines for i in range(n - context, n + context + 1)
                   if 1 <= i <= len(text)})
    out, last = [], None
    for i in keep:
        if last is not None and i != last + 1:
            out.append("…")
        line = escape(f"{i:4}  {text[i - 1]}")
        out.append(f'<span class="hit">{line}</span>' if i in lines else line)
        last = i
    return "\n".join(out)


def _lines(f: AuditFinding, side: str) -> set[int]:
    """Script lines of the finding's bindings in the module before or after its pass."""
    j = f.as_json()["bindings"]
    places = ([b.get("before") for b in j] if side == "before" else j)
    if side == "before" and not f.prior:  # an effect change: roles are before / after
        places = [b for b in j if b["role"] == "before"]
    elif side == "after" and not f.prior:
        places = [b for b in j if b["role"] == "after"]
    return {p["line"] for p in places if p and p["source"] == "script" and p["line"]}


def _finding(f: AuditFinding, report: AuditReport) -> str:
    c = report.confirmations.get(f.ordinal) if f.severity == "error" else None
    parts = [f'<div class="finding"><h3>{escape(f.severity)} {escape(f.check)} — '
             f"introduced by {escape(f.introduced_by)} (pass {f.pass_index})</h3>",
             f"<pre>{escape(f.describe())}</pre>"]
    if c is not None:
        parts.append(f"<p><b>VM:</b> {escape(c.status)} — {escape(c.detail)}</p>")
    before, after = f.scripts
    cols = [(f"before {escape(f.introduced_by)}", _excerpt(before, _lines(f, "before"))),
            (f"after {escape(f.introduced_by)}", _excerpt(after, _lines(f, "after")))]
    if any(body for _, body in cols):
        parts.append('<div class="cols">' + "".join(
            f"<div><h4>{title}</h4><pre>{body}</pre></div>" for title, body in cols) + "</div>")
    return "".join(parts) + "</div>"


def render(report: AuditReport, file: str) -> str:
    rows = "".join(
        f'<tr class="{"bad" if s.findings else ""}"><td>{s.index}</td><td>{escape(s.name)}</td>'
        f"<td>{escape(s.leaf)}</td><td>{'yes' if s.changed else ''}</td><td>{s.findings}</td>"
        f"<td>{escape(s.error)}</td></tr>" for s in report.steps)
    failed = ("" if report.failed is None else
              f"<p><b>TVM's pipeline failed in {escape(report.failed[0])}:</b> "
              f"{escape(report.failed[1])}</p>")
    errors = report.errors
    warnings = len(report.findings) - len(errors)
    given = sum(f.pass_index == 0 for f in errors)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>aliaslog audit "
            f"{escape(Path(file).name)}</title><style>{CSS}</style></head><body>"
            f"<h1>aliaslog audit: {escape(file)}</h1>"
            f"<p>target {escape(report.target)}, pipeline {escape(report.pipeline)}, "
            f"passes before it: {escape(', '.join(report.passes) or 'none')}; "
            f"{_count(len(errors), 'error finding')} ({given} in the module as given), "
            f"{_count(warnings, 'warning')}</p>"
            f"{failed}<h2>Passes</h2><table><tr><th>#</th><th>pass</th><th>inner pass</th>"
            f"<th>changed</th><th>new findings</th><th>analysis error</th></tr>{rows}</table>"
            f"<h2>Findings</h2>" + ("".join(_finding(f, report) for f in report.findings)
                                    or "<p>none</p>") + "</body></html>")


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def write_html(report: AuditReport, file: str, path: str) -> None:
    write_text_atomically(path, render(report, file))
