"""Relax analysis time (extract + solve + read-back) against relax.build of the same module.

Usage: python benchmarks/bench_relax.py [--models bert vit ...] [--engines E ...] [--repeat R]

For each fixture model in tests/data/relax and each extraction point (input, legalized,
lowered), the analysis is timed without the lowering that reaches the point (relax.build's own
pipeline does that work), and divided by the time of `relax.build(module, "llvm")` of the
same input module measured in this run. Target: ratio <= 0.2 for every model. Each figure is
the best of --repeat runs. All numbers come from this one run; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aliaslog.engines import available_engines  # noqa: E402
from aliaslog.options import EngineOptions  # noqa: E402
from aliaslog.relax import analyze_relax  # noqa: E402
from extractor.relax_load import POINTS, load_relax_module  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "relax"
MODELS = ("bert", "vit", "resnet", "gpt2")
STAGES = ("facts", "solve", "read-back")


def build_seconds(mod, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Best wall time of relax.build(mod, "llvm")."""
    from tvm import relax

    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        relax.build(mod, "llvm")
        best = min(best, time.perf_counter() - t)
    return best


def analysis_seconds(mod, point: str, engine: str, repeat: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """Best extract + solve + read-back time at a point (its lowering not counted), and
    bindings."""
    best, n = float("inf"), 0
    compiled = engine == "souffle-compiled"
    for _ in range(repeat + compiled):  # the first compiled run builds the cached binary
        opts = EngineOptions("souffle" if compiled else engine, compiled=compiled)
        res = analyze_relax(mod, point=point, engine=opts)
        best = min(best, sum(res.timings[s] for s in STAGES))
        n = len(res.kept_ids) + len(res.removable_ids)
    return best, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    ap.add_argument("--engines", nargs="+", default=available_engines(),
                    help="embedded, souffle, souffle-compiled (Soufflé's cached binary)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'model':8} {'build s':>8} {'point':10} {'engine':16} {'bindings':>8} "
          f"{'analysis s':>10} {'ratio':>6}")
    worst = 0.0
    for name in args.models:
        mod = load_relax_module(DATA / f"{name}.py")
        build = build_seconds(mod, args.repeat)
        for point in POINTS:
            for engine in args.engines:
                secs, n = analysis_seconds(mod, point, engine, args.repeat)
                ratio = secs / build
                worst = max(worst, ratio)
                print(f"{name:8} {build:8.3f} {point:10} {engine:16} {n:8d} {secs:10.3f} "
                      f"{ratio:6.3f}")
    print(f"worst ratio {worst:.3f} (target <= 0.2)")


if __name__ == "__main__":
    main()
