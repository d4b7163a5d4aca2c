"""Dependency-free SVG charts (log-log scatter, horizontal bars) so reports stay self-contained
and the package needs no plotting library; every mark carries a `<title>` tooltip."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb",
           "#222222")
MARKERS = ("circle", "square", "triangle", "diamond")
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif"
INK, MUTED, GRID, SHADE, ALERT = "#1f2328", "#57606a", "#d8dee4", "#f3f5f7", "#b42318"
CHAR_W = 0.6  # average glyph width per font-size unit, to size label columns without a font
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")

Formatter = Callable[[float], str]


class Point(NamedTuple):
    """One scatter mark: position and the tooltip that says what it is."""

    x: float
    y: float
    tip: str


class Series(NamedTuple):
    """A named set of scatter points drawn in one colour and marker."""

    name: str
    points: Sequence[Point]


def esc(text: object) -> str:
    """Escape for SVG/HTML and replace characters XML forbids: labels come from user files."""
    return html.escape(_NOT_XML.sub("\ufffd", str(text)), quote=True)


def text_width(text: str, size: float) -> float:
    """Rough rendered width, enough to lay out labels and legends without measuring fonts."""
    return len(text) * size * CHAR_W


def clip(text: str, size: float, room: float) -> str:
    """Shorten `text` with an ellipsis to fit `room` pixels (the full text goes in a tooltip)."""
    fits = max(1, int(room / (size * CHAR_W)))
    return text if len(text) <= fits else text[: max(1, fits - 1)] + "…"


def fmt_number(v: float) -> str:
    """Compact count label (12.3k, 4.5M) so bar ends and ticks stay narrow."""
    a = abs(v)
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e4, "k")):
        if a >= div:
            d = 1e3 if suffix == "k" else div
            s = f"{v / d:.3g}"
            return (s if "e" not in s else f"{v / d:.0f}") + suffix
    if a == 0 or a >= 1:
        return f"{round(v, 2):g}"
    return f"{v:.2g}"


def fmt_seconds(v: float) -> str:
    """Duration label in the unit a reader expects (µs, ms, s)."""
    if v == 0:
        return "0 s"
    if abs(v) < 1e-3:
        return f"{round(v * 1e6, 6):.3g} µs"
    if abs(v) < 1:
        return f"{round(v * 1e3, 6):.3g} ms"
    return f"{v:.3g} s" if abs(v) < 1000 else f"{v:.0f} s"


def linear_ticks(vmax: float, count: int = 5, integer: bool = False) -> list[float]:
    """Round tick values from 0 to at least `vmax` (steps of 1, 2, 2.5 or 5 × 10^k)."""
    if not vmax > 0 or not math.isfinite(vmax):
        return [0.0, 1.0]
    raw = vmax / count
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-9))
    if integer:
        step = max(1.0, round(step))
    n = max(1, math.ceil(vmax / step - 1e-9))
    return [round(i * step, 10) for i in range(n + 1)]


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[float]]:
    """Labelled and minor ticks of a log axis over [lo, hi]; the outer decades bound the domain."""
    a, b = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    if b <= a:
        b = a + 1
    decades = [10.0 ** k for k in range(a, b + 1)]
    minor = [m * 10.0 ** k for k in range(a, b) for m in range(2, 10)]
    if b - a == 1:
        major = sorted(decades + [2 * decades[0], 5 * decades[0]])
    elif b - a > 7:
        stride = math.ceil((b - a) / 7)
        major = decades[::stride] + ([] if (b - a) % stride == 0 else [decades[-1]])
        minor = [d for d in decades if d not in major]
    else:
        major = decades
    return major, [m for m in minor if m not in major]


def _svg_open(width: float, height: float, label: str) -> str:
    """Root element; width/height plus viewBox so CSS can scale the chart down to fit a page."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{esc(label)}" '
            f'font-family="{esc(FONT)}" font-size="12" fill="{INK}">')


def _heading(title: str, subtitle: str, width: float) -> tuple[list[str], float]:
    """Title and subtitle lines; returns the parts and the y below them."""
    parts, y = [], 8.0
    if title:
        y += 18
        parts.append(f'<text x="12" y="{y:.0f}" font-size="15" font-weight="600">'
                     f'{esc(clip(title, 15, width - 24))}</text>')
    if subtitle:
        y += 18
        parts.append(f'<text x="12" y="{y:.0f}" fill="{MUTED}">'
                     f'{esc(clip(subtitle, 12, width - 24))}</text>')
    return parts, y + 6


def _legend(items: Sequence[tuple[str, str]], x0: float, y: float, width: float,
            marker: Callable[[int, float, float, str], str]) -> tuple[list[str], float]:
    """A wrapping row of legend entries; returns parts and the y below the legend."""
    parts, x, y = [], x0, y + 14
    for i, (name, color) in enumerate(items):
        w = 22 + text_width(name, 12) + 16
        if x > x0 and x + w > width - 12:
            x, y = x0, y + 18
        parts.append(marker(i, x + 6, y - 4, color))
        parts.append(f'<text x="{x + 16:.1f}" y="{y:.1f}">{esc(name)}</text>')
        x += w
    return parts, y + 10


def _marker(i: int, x: float, y: float, color: str, tip: str = "") -> str:
    """Marker shape `i` (cycled) at (x, y): shape as well as colour tells series apart."""
    kind = MARKERS[i % len(MARKERS)]
    title = f"<title>{esc(tip)}</title>" if tip else ""
    style = f'fill="{color}" fill-opacity="0.8" stroke="#fff" stroke-width="0.8"'
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.2" {style}>{title}</circle>'
    if kind == "square":
        return (f'<rect x="{x - 3.6:.1f}" y="{y - 3.6:.1f}" width="7.2" height="7.2" {style}>'
                f'{title}</rect>')
    if kind == "triangle":
        d = f"M{x:.1f},{y - 5:.1f}L{x + 4.8:.1f},{y + 3.6:.1f}L{x - 4.8:.1f},{y + 3.6:.1f}Z"
    else:
        d = f"M{x:.1f},{y - 5:.1f}L{x + 4.5:.1f},{y:.1f}L{x:.1f},{y + 5:.1f}L{x - 4.5:.1f},{y:.1f}Z"
    return f'<path d="{d}" {style}>{title}</path>'


def _positive(v: object) -> bool:
    """Drawable on a log axis."""
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def scatter_loglog(series: Sequence[Series], *, title: str = "", subtitle: str = "",
                   x_label: str = "", y_label: str = "", x_format: Formatter = fmt_number,
                   y_format: Formatter = fmt_number, width: int = 640, height: int = 440,
                   colors: Sequence[str] = PALETTE) -> str:
    """Log-log scatter with one colour+marker per series (time against size, typically)."""
    drawn = [[p for p in s.points if _positive(p.x) and _positive(p.y)] for s in series]
    dropped = sum(len(s.points) for s in series) - sum(map(len, drawn))
    if dropped:
        note = f"{dropped} point{'s' if dropped > 1 else ''} ≤ 0 not drawn (log axes)"
        subtitle = f"{subtitle} · {note}" if subtitle else note
    parts, top = _heading(title, subtitle, width)
    items = [(f"{s.name} ({len(d)})", colors[i % len(colors)])
             for i, (s, d) in enumerate(zip(series, drawn, strict=True))]
    legend, top = _legend(items, 64, top, width, lambda i, x, y, c: _marker(i, x, y, c))
    parts += legend
    left, right, bottom = 70.0, width - 16.0, height - 48.0
    top += 8
    xs = [p.x for d in drawn for p in d]
    ys = [p.y for d in drawn for p in d]
    parts.insert(0, _svg_open(width, height, title or "scatter chart"))
    parts.append(f'<rect x="{left}" y="{top:.1f}" width="{right - left:.1f}" '
                 f'height="{bottom - top:.1f}" fill="#fff" stroke="{GRID}"/>')
    if not xs:
        parts.append(f'<text x="{(left + right) / 2:.1f}" y="{(top + bottom) / 2:.1f}" '
                     f'text-anchor="middle" fill="{MUTED}">no data</text></svg>')
        return "\n".join(parts)
    xmaj, xmin = log_ticks(min(xs), max(xs))
    ymaj, ymin = log_ticks(min(ys), max(ys))
    lx0, lx1 = math.log10(min(xmaj + xmin)), math.log10(max(xmaj + xmin))
    ly0, ly1 = math.log10(min(ymaj + ymin)), math.log10(max(ymaj + ymin))

    def px(v: float) -> float:
        return left + 6 + (right - left - 12) * (math.log10(v) - lx0) / (lx1 - lx0)

    def py(v: float) -> float:
        return bottom - 6 - (bottom - top - 12) * (math.log10(v) - ly0) / (ly1 - ly0)

    for v in xmin:
        parts.append(f'<line x1="{px(v):.1f}" x2="{px(v):.1f}" y1="{top:.1f}" y2="{bottom}" '
                     f'stroke="{SHADE}"/>')
    for v in ymin:
        parts.append(f'<line x1="{left}" x2="{right}" y1="{py(v):.1f}" y2="{py(v):.1f}" '
                     f'stroke="{SHADE}"/>')
    for v in xmaj:
        x = px(v)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top:.1f}" y2="{bottom + 4}" '
                     f'stroke="{GRID}"/><text x="{x:.1f}" y="{bottom + 17}" '
                     f'text-anchor="middle" fill="{MUTED}">{esc(x_format(v))}</text>')
    for v in ymaj:
        y = py(v)
        parts.append(f'<line x1="{left - 4}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="{GRID}"/><text x="{left - 7}" y="{y + 4:.1f}" '
                     f'text-anchor="end" fill="{MUTED}">{esc(y_format(v))}</text>')
    parts.append(f'<text x="{(left + right) / 2:.1f}" y="{height - 10}" text-anchor="middle">'
                 f'{esc(x_label)}</text>')
    parts.append(f'<text transform="translate(16,{(top + bottom) / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle">{esc(y_label)}</text>')
    for i, pts in enumerate(drawn):
        color = colors[i % len(colors)]
        parts.append(f'<g class="series" data-series="{esc(series[i].name)}">')
        parts += [_marker(i, px(p.x), py(p.y), color, p.tip) for p in pts]
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def _bar(x: float, y: float, w: float, h: float, color: str, tip: str) -> str:
    """One bar with its tooltip (zero-length bars stay 1px wide so they can be hovered)."""
    return (f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{max(w, 1.0):.1f}" '
            f'height="{h:.1f}" fill="{color}"><title>{esc(tip)}</title></rect>')


def bar_chart(categories: Sequence[str], series: Sequence[str],
              values: Sequence[Sequence[float | None]], *, mode: str = "grouped",
              title: str = "", subtitle: str = "", x_label: str = "",
              groups: Sequence[str] | None = None, notes: Sequence[str | None] | None = None,
              tips: Sequence[Sequence[str]] | None = None, colors: Sequence[str] = PALETTE,
              ref_line: tuple[float, str] | None = None, width: int = 900,
              value_format: Formatter = fmt_number) -> str:
    """Horizontal bars, one row per category, readable for dozens of categories.

    `values[i][j]` is series j of category i; None is missing data (drawn as "—", never as 0).
    mode "grouped" puts the series side by side on one scale, "stacked" end to end, "panels"
    gives each series its own column and scale (for quantities of different magnitude).
    `groups[i]` names the group of category i: a header row starts each run of equal names.
    `notes[i]`, when set, replaces category i's bars (e.g. "timeout").
    """
    if mode not in ("grouped", "stacked", "panels"):
        raise ValueError(f"unknown bar chart mode `{mode}`")
    n, k = len(categories), len(series)
    if len(values) != n or any(len(row) != k for row in values):
        raise ValueError("values must have one row per category and one column per series")
    for name, seq in (("groups", groups), ("notes", notes), ("tips", tips)):
        if seq is not None and len(seq) != n:
            raise ValueError(f"{name} must have one entry per category")
    clean = [[v if isinstance(v, (int, float)) and math.isfinite(v) else None for v in row]
             for row in values]
    label_w = min(max([text_width(c, 12) for c in categories] + [60]) + 18, 0.42 * width, 320)
    parts, top = _heading(title, subtitle, width)
    if mode != "panels" and k > 0:
        items = [(s, colors[j % len(colors)]) for j, s in enumerate(series)]
        legend, top = _legend(items, 12, top, width, lambda j, x, y, c: (
            f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="{c}"/>'))
        parts += legend
    plot_l, plot_r, gap = label_w + 8, width - 12.0, 28.0
    end_room = 72.0 if mode == "stacked" else 44.0  # room for the value after a bar
    panels = [[j] for j in range(k)] if mode == "panels" else [list(range(k))]
    pw = (plot_r - plot_l - gap * (len(panels) - 1)) / max(1, len(panels))
    scales = []
    for p, cols in enumerate(panels):
        x0 = plot_l + p * (pw + gap)
        nums = [v for row in clean for j in cols for v in [row[j]] if v is not None]
        if mode == "stacked":
            nums = [sum(max(0.0, v or 0.0) for v in row) for row in clean]
        vmax = max([0.0] + nums + ([ref_line[0]] if ref_line else []))
        integer = all(float(v).is_integer() for v in nums)
        ticks = linear_ticks(vmax, max(2, int((pw - end_room) // 90)), integer)
        scales.append((x0, (pw - end_room) / ticks[-1], ticks))
    per_bar = 7.0 if k <= 3 else 6.0  # two grouped bars fill the same 20px row as one stacked
    row_h = max(20.0, k * per_bar + 6) if mode == "grouped" else 20.0
    header_top = top + (22 if mode == "panels" else 0) + 16
    # Rows (with group headers) first, to know the height.
    layout: list[tuple[str, int, float]] = []
    y = header_top + 4
    for i in range(n):
        if groups is not None and (i == 0 or groups[i] != groups[i - 1]):
            layout.append(("group", i, y))
            y += 24
        layout.append(("row", i, y))
        y += row_h
    bottom = y + 2
    height = bottom + 38 + (16 if x_label else 0)
    parts.insert(0, _svg_open(width, height, title or "bar chart"))
    for p, (x0, scale, ticks) in enumerate(scales):
        if mode == "panels":
            color = colors[p % len(colors)]
            parts.append(f'<rect x="{x0:.1f}" y="{top + 2:.1f}" width="10" height="10" '
                         f'fill="{color}"/><text x="{x0 + 15:.1f}" y="{top + 11:.1f}" '
                         f'font-weight="600">{esc(clip(series[p], 12, pw - 20))}</text>')
        for t in ticks:
            x = x0 + t * scale
            label = f'{esc(value_format(t))}'
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{header_top:.1f}" '
                         f'y2="{bottom:.1f}" stroke="{GRID}"/>')
            for ty in ((header_top - 4, bottom + 14) if n > 12 else (bottom + 14,)):
                parts.append(f'<text x="{x:.1f}" y="{ty:.1f}" text-anchor="middle" '
                             f'font-size="11" fill="{MUTED}">{label}</text>')
        if ref_line:
            x = x0 + ref_line[0] * scale
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{header_top - 2:.1f}" '
                         f'y2="{bottom:.1f}" stroke="{INK}" stroke-dasharray="4,3"/>'
                         f'<text x="{x + 4:.1f}" y="{bottom + 28:.1f}" font-size="11">'
                         f'{esc(ref_line[1])}</text>')
    if x_label:
        parts.append(f'<text x="{(plot_l + plot_r) / 2:.1f}" y="{height - 8:.1f}" '
                     f'text-anchor="middle">{esc(x_label)}</text>')
    for kind, i, y in layout:
        if kind == "group":
            parts.append(f'<text x="12" y="{y + 16:.1f}" font-weight="600">'
                         f'{esc(groups[i])}</text><line x1="12" x2="{plot_r:.1f}" '
                         f'y1="{y + 21:.1f}" y2="{y + 21:.1f}" stroke="{MUTED}"/>')
            continue
        parts.append(_bar_row(i, y, row_h, categories, series, clean, values, mode, scales,
                              panels, per_bar, label_w, plot_r, notes, tips, colors,
                              value_format))
    parts.append("</svg>")
    return "\n".join(parts)


def _bar_row(i: int, y: float, row_h: float, categories: Sequence[str], series: Sequence[str],
             clean: list[list[float | None]], values: Sequence[Sequence[float | None]],
             mode: str, scales: list[tuple[float, float, list[float]]],
             panels: list[list[int]], per_bar: float, label_w: float, plot_r: float,
             notes: Sequence[str | None] | None, tips: Sequence[Sequence[str]] | None,
             colors: Sequence[str], value_format: Formatter) -> str:
    """One category: shading, label, then its bars, a note, or "—" for missing values."""
    name = categories[i]
    out = [f'<g class="row" data-category="{esc(name)}">']
    if i % 2:
        out.append(f'<rect x="8" y="{y:.1f}" width="{plot_r - 8:.1f}" height="{row_h:.1f}" '
                   f'fill="{SHADE}"/>')
    mid = y + row_h / 2
    out.append(f'<text x="{label_w:.1f}" y="{mid + 4:.1f}" text-anchor="end">'
               f'<title>{esc(name)}</title>{esc(clip(name, 12, label_w - 14))}</text>')
    note = notes[i] if notes else None
    if note:
        x0 = scales[0][0]
        out.append(f'<text class="note" x="{x0 + 4:.1f}" y="{mid + 4:.1f}" fill="{ALERT}" '
                   f'font-style="italic"><title>{esc(note)}</title>'
                   f'{esc(clip(note, 12, plot_r - x0 - 8))}</text></g>')
        return "".join(out)

    def tip(j: int) -> str:
        if tips is not None:
            return tips[i][j]
        return f"{name} — {series[j]}: {values[i][j]}"

    def missing(x: float, yy: float, j: int) -> str:
        what = tip(j) if tips is not None else f"{name} — {series[j]}: no data"
        return (f'<text class="missing" x="{x + 3:.1f}" y="{yy:.1f}" fill="{MUTED}" '
                f'font-size="11"><title>{esc(what)}</title>—</text>')

    def end_label(x: float, yy: float, v: float, size: int = 10, text: str | None = None) -> str:
        return (f'<text x="{x + 4:.1f}" y="{yy:.1f}" font-size="{size}" fill="{MUTED}">'
                f'{esc(value_format(v) if text is None else text)}</text>')

    row = clean[i]
    if mode == "grouped":
        x0, scale, _ = scales[0]
        for j, v in enumerate(row):
            by = y + 4 + j * per_bar
            if v is None:
                out.append(missing(x0, by + per_bar - 1, j))
                continue
            w = max(0.0, v) * scale
            out.append(_bar(x0, by, w, per_bar - 1, colors[j % len(colors)], tip(j)))
            if per_bar >= 7:
                out.append(end_label(x0 + max(w, 1), by + per_bar - 0.5, v, 9))
    elif mode == "stacked":
        x0, scale, _ = scales[0]
        if all(v is None for v in row):
            out.append(missing(x0, mid + 4, 0))
        x = x0
        for j, v in enumerate(row):
            if v is None or v <= 0:
                continue
            out.append(_bar(x, y + 3, v * scale, row_h - 6, colors[j % len(colors)], tip(j)))
            x += v * scale
        present = [v for v in row if v is not None]
        if present:  # "88 + 19" reads better than the total alone when parts differ in scale
            text = " + ".join(map(value_format, present)) if len(row) <= 3 else None
            out.append(end_label(x, mid + 4, sum(v for v in present if v > 0), text=text))
    else:
        for (x0, scale, _), cols in zip(scales, panels, strict=True):
            j = cols[0]
            v = row[j]
            if v is None:
                out.append(missing(x0, mid + 4, j))
                continue
            w = max(0.0, v) * scale
            out.append(_bar(x0, y + 3, w, row_h - 6, colors[j % len(colors)], tip(j)))
            out.append(end_label(x0 + max(w, 1), mid + 4, v))
    out.append("</g>")
    return "".join(out)
