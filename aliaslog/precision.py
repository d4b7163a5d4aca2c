"""`aliaslog precision`: what each analysis variant costs and buys, statically and against the
dynamic oracle (observed alias pairs over static ones; 0 unsound observations required)."""

from __future__ import annotations

import html
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from extractor.relay import ast as A

from .analysis import CONTEXTS, analyze
from .oracle import access_variables, observe, unsound_findings

LIVENESS = {"": False, "+fs": True}


@dataclass(frozen=True)
class Variant:
    """A points-to context variant and a liveness variant: `1-call`, `insensitive+fs`, ..."""

    context: str
    flow_sensitive: bool

    @property
    def name(self) -> str:
        return self.context + ("+fs" if self.flow_sensitive else "")

    @staticmethod
    def parse(text: str) -> Variant:
        context, plus, rest = text.partition("+")
        if context not in CONTEXTS or (plus and rest != "fs"):
            raise ValueError(f"unknown variant `{text}`: a context ({', '.join(CONTEXTS)}), "
                             "optionally followed by +fs (flow-sensitive liveness)")
        return Variant(context, bool(plus))


ALL_VARIANTS = tuple(Variant(c, fs) for c in CONTEXTS for fs in (False, True))


@dataclass
class Row:
    """One program under one variant."""

    program: str
    variant: str
    seconds: float
    bindings: int
    removable: int
    avg_pts_x100: int
    alias_pairs: int
    call_edges: int
    poly_call_sites: int
    static_access_pairs: int  # may-alias pairs among variables cells are accessed through
    observed_pairs: int  # pairs the oracle saw holding the same cell
    unsound: list[str] = field(default_factory=list)

    @property
    def oracle_precision(self) -> float:
        """Observed / static alias pairs (1.0 when the analysis claims no alias at all)."""
        return self.observed_pairs / self.static_access_pairs if self.static_access_pairs else 1.0


def measure(mod: A.Module, program: str, variants: tuple[Variant, ...], seeds: tuple[int, ...],
            engine: str = "auto") -> list[Row]:
    """Analyse one program under every variant and compare with what its runs do."""
    obs = observe(mod, seeds)
    rows = []
    for v in variants:
        t0 = time.perf_counter()
        res = analyze(mod, engine=engine, context=v.context, flow_sensitive=v.flow_sensitive)
        seconds = time.perf_counter() - t0
        acc = access_variables(res)
        static_pairs = {(a, b) for a, b in res.relations["may_alias"] if a in acc and b in acc}
        m = res.metrics
        rows.append(Row(program, v.name, seconds, m["bindings"], m["removable"],
                        m["avg points-to set x100"], m["may-alias pairs"],
                        m["call-graph edges"], m["polymorphic call sites"],
                        len(static_pairs) // 2, len(obs.alias_pairs(res)) // 2,
                        unsound_findings(res, obs)))
    return rows


def summary(rows: list[Row]) -> list[dict[str, object]]:
    """Totals per variant over all programs, in the order the variants were given."""
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        s = out.setdefault(r.variant, {"programs": 0, "seconds": 0.0, "bindings": 0,
                                       "removable": 0, "avg_pts_x100": 0, "alias_pairs": 0,
                                       "call_edges": 0, "poly_call_sites": 0,
                                       "static_access_pairs": 0, "observed_pairs": 0,
                                       "unsound": 0})
        s["programs"] += 1
        for k in ("seconds", "bindings", "removable", "alias_pairs", "call_edges",
                  "poly_call_sites", "static_access_pairs", "observed_pairs"):
            s[k] += getattr(r, k)
        s["avg_pts_x100"] += r.avg_pts_x100
        s["unsound"] += len(r.unsound)
    table = []
    for name, s in out.items():
        n = s["programs"]
        table.append({"variant": name, **s, "avg_pts_x100": round(s["avg_pts_x100"] / n),
                      "seconds": round(s["seconds"], 3),
                      "oracle_precision": round(s["observed_pairs"] / s["static_access_pairs"], 3)
                      if s["static_access_pairs"] else 1.0})
    return table


COLUMNS = (("variant", "variant"), ("programs", "programs"), ("seconds", "time s"),
           ("avg_pts_x100", "avg pts ×100"), ("alias_pairs", "alias pairs"),
           ("call_edges", "call edges"), ("poly_call_sites", "poly sites"),
           ("removable", "removable"), ("observed_pairs", "observed"),
           ("static_access_pairs", "static"), ("oracle_precision", "oracle precision"),
           ("unsound", "unsound"))


def markdown(table: list[dict[str, object]]) -> str:
    """The per-variant table as Markdown."""
    head = "| " + " | ".join(t for _, t in COLUMNS) + " |"
    sep = "|---" + "|---:" * (len(COLUMNS) - 1) + "|"
    lines = [head, sep]
    for row in table:
        lines.append("| " + " | ".join(str(row[k]) for k, _ in COLUMNS) + " |")
    return "\n".join(lines)


def svg(table: list[dict[str, object]]) -> str:
    """Bars per metric, each variant relative to the first (the baseline), as standalone SVG."""
    metrics = [("seconds", "time"), ("avg_pts_x100", "avg points-to"),
               ("alias_pairs", "alias pairs"), ("call_edges", "call edges"),
               ("removable", "removable"), ("oracle_precision", "oracle precision")]
    base = table[0]
    colors = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb",
              "#000000"]
    bar, gap, height = 12, 28, 160
    width = 60 + len(metrics) * (len(table) * bar + gap)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 90}" '
             'font-family="sans-serif" font-size="11">',
             f'<text x="10" y="14">each variant relative to {html.escape(str(base["variant"]))}'
             ' (= 1.0)</text>']
    top = 2.0
    x = 50
    for key, label in metrics:
        for i, row in enumerate(table):
            b = float(base[key]) or 1.0
            ratio = min(float(row[key]) / b, top) if b else 1.0
            h = height * ratio / top
            parts.append(f'<rect x="{x + i * bar}" y="{20 + height - h:.1f}" width="{bar - 2}" '
                         f'height="{h:.1f}" fill="{colors[i % len(colors)]}">'
                         f'<title>{html.escape(str(row["variant"]))} {label}: {row[key]}'
                         '</title></rect>')
        parts.append(f'<text x="{x}" y="{height + 36}">{label}</text>')
        x += len(table) * bar + gap
    y1 = 20 + height / 2
    parts.append(f'<line x1="45" x2="{width}" y1="{y1}" y2="{y1}" stroke="#888" '
                 'stroke-dasharray="3,3"/>')
    for i, row in enumerate(table):
        parts.append(f'<rect x="{50 + i * 110}" y="{height + 50}" width="10" height="10" '
                     f'fill="{colors[i % len(colors)]}"/><text x="{64 + i * 110}" '
                     f'y="{height + 59}">{html.escape(str(row["variant"]))}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def rows_as_dicts(rows: list[Row]) -> list[dict[str, object]]:
    """Rows for CSV / JSON output (unsound observations joined into one cell)."""
    return [{**{k: v for k, v in asdict(r).items() if k != "unsound"},
             "oracle_precision": round(r.oracle_precision, 3),
             "unsound": "; ".join(r.unsound)} for r in rows]


def relay_files(paths: list[str]) -> list[Path]:
    """The .relay files named, or found (sorted) in the directories named."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.glob("*.relay")) if p.is_dir() else [p])
    return out
