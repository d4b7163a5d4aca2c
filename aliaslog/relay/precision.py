"""`aliaslog precision`: what each analysis variant costs and buys, statically and against the
dynamic oracle: observed alias pairs over static ones, and DCE recall (of the bindings runs
show removable, the share the analysis removes); 0 unsound observations required."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from extractor.relay import ast as A

from .. import plots
from ..options import DEFAULT_ENGINE, AnalysisOptions, EngineOptions
from .analysis import analysis_program, analyze
from .oracle import access_variables, observe, oracle_removable, unsound_findings


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
    oracle_removable: int  # bindings the runs show removable (oracle.oracle_removable)
    removed_of_oracle: int  # of those, the ones this variant's analysis removes
    unsound: list[str] = field(default_factory=list)

    @property
    def oracle_precision(self) -> float:
        """Observed / static alias pairs (1.0 when the analysis claims no alias at all)."""
        return self.observed_pairs / self.static_access_pairs if self.static_access_pairs else 1.0

    @property
    def dce_recall(self) -> float:
        """Oracle-removable bindings the analysis removes (1.0 when the runs show none)."""
        return self.removed_of_oracle / self.oracle_removable if self.oracle_removable else 1.0


def measure(mod: A.Module, program: str, variants: tuple[AnalysisOptions, ...],
            seeds: tuple[int, ...], engine: EngineOptions = DEFAULT_ENGINE) -> list[Row]:
    """Analyse one program under every variant and compare with what its runs do (the runs
    and the analyses are of one analysed program, so their bindings are the same nodes)."""
    program_run = analysis_program(mod)
    obs = observe(program_run, seeds)
    dead = oracle_removable(program_run, seeds)
    rows = []
    for v in variants:
        t0 = time.perf_counter()
        res = analyze(mod, v, engine=engine)
        seconds = time.perf_counter() - t0
        assert res.extraction.module is program_run
        acc = access_variables(res)
        static_pairs = {(a, b) for a, b in res.relations["may_alias"] if a in acc and b in acc}
        m = res.metrics
        rows.append(Row(program, v.name, seconds, m["bindings"], m["removable"],
                        m["avg points-to set x100"], m["may-alias pairs"],
                        m["call-graph edges"], m["polymorphic call sites"],
                        len(static_pairs) // 2, len(obs.alias_pairs(res)) // 2,
                        len(dead), len(dead & {id(let) for let in res.analysed_removable()}),
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
                                       "oracle_removable": 0, "removed_of_oracle": 0,
                                       "unsound": 0})
        s["programs"] += 1
        for k in ("seconds", "bindings", "removable", "alias_pairs", "call_edges",
                  "poly_call_sites", "static_access_pairs", "observed_pairs",
                  "oracle_removable", "removed_of_oracle"):
            s[k] += getattr(r, k)
        s["avg_pts_x100"] += r.avg_pts_x100
        s["unsound"] += len(r.unsound)
    table = []
    for name, s in out.items():
        n = s["programs"]
        table.append({"variant": name, **s, "avg_pts_x100": round(s["avg_pts_x100"] / n),
                      "seconds": round(s["seconds"], 3),
                      "oracle_precision": round(s["observed_pairs"] / s["static_access_pairs"], 3)
                      if s["static_access_pairs"] else 1.0,
                      "dce_recall": round(s["removed_of_oracle"] / s["oracle_removable"], 3)
                      if s["oracle_removable"] else 1.0})
    return table


COLUMNS = (("variant", "variant"), ("programs", "programs"), ("seconds", "time s"),
           ("avg_pts_x100", "avg pts ×100"), ("alias_pairs", "alias pairs"),
           ("call_edges", "call edges"), ("poly_call_sites", "poly sites"),
           ("removable", "removable"), ("observed_pairs", "observed"),
           ("static_access_pairs", "static"), ("oracle_precision", "oracle precision"),
           ("oracle_removable", "oracle-removable"), ("removed_of_oracle", "removed of those"),
           ("dce_recall", "DCE recall"), ("unsound", "unsound"))


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
               ("removable", "removable"), ("oracle_precision", "oracle precision"),
               ("dce_recall", "DCE recall")]
    base = table[0] if table else {"variant": "?"}
    variants = [str(row["variant"]) for row in table]
    values: list[list[float | None]] = []
    tips: list[list[str]] = []
    for key, label in metrics:
        b = float(base.get(key, 0) or 0)  # type: ignore[arg-type]
        ratios: list[float | None] = []
        for row in table:
            v = float(row[key])  # type: ignore[arg-type]
            ratios.append(v / b if b else (1.0 if v == 0 else None))  # no ratio to a zero base
        values.append(ratios)
        tips.append([f"{name} {label}: {row[key]}" + (f" (×{r:.2f})" if r is not None else "")
                     for name, row, r in zip(variants, table, ratios, strict=True)])
    return plots.bar_chart(
        [label for _, label in metrics], variants, values, mode="grouped",
        title=f"each variant relative to {base['variant']} (= 1.0)",
        subtitle="bar length = value / baseline value; hover a bar for the absolute value",
        x_label="ratio to baseline", tips=tips, ref_line=(1.0, f"{base['variant']} = 1"),
        width=760, value_format=lambda v: f"{v:.2g}")


def rows_as_dicts(rows: list[Row]) -> list[dict[str, object]]:
    """Rows for CSV / JSON output (unsound observations joined into one cell)."""
    return [{**{k: v for k, v in asdict(r).items() if k != "unsound"},
             "oracle_precision": round(r.oracle_precision, 3),
             "dce_recall": round(r.dce_recall, 3),
             "unsound": "; ".join(r.unsound)} for r in rows]


def relay_files(paths: list[str]) -> list[Path]:
    """The .relay files named, or found (sorted) in the directories named."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.glob("*.relay")) if p.is_dir() else [p])
    return out
