"""Seconds per stage of the whole analysis on gradient programs of MLP chains, per engine.

Usage: python benchmarks/bench_analysis.py [--sizes N ...] [--engines E ...] [--repeat R]
                                           [--seed-only]

Stages: parse, gradient (incl. type inference), prepare (the program as the debug executor
runs it: ToANormalForm, EtaExpand), facts, solve, read-back (what DCE needs, as `analyze`,
`dce` and `batch` read it: verdicts, reasons, metrics; neither the demand graph that only
`explain` reads nor the points-to relations that only the oracle reads). Each row is one
program size and engine; the ratio columns compare with the previous size of the same engine
(per doubling of N, and per op) and with the first engine at the same size. The seed program
(apache/tvm #6803) is timed end to end (parse -> gradient -> analyze -> DCE) first.
With --repeat R every (size, engine) runs R times, the engines taking turns, and each stage
reports its fastest run (on a shared machine the other load only ever adds time).
The `solve x` column is the embedded solve over interpreted Soufflé's solve at the same size.
Each run is one job, as one `aliaslog` command is (`survivors_frozen`: the collector never
rescans what the passes built). All numbers come from this one run; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aliaslog.engines import available_engines  # noqa: E402
from aliaslog.options import EngineOptions  # noqa: E402
from aliaslog.relay.analysis import analyze  # noqa: E402
from aliaslog.relay.dce import remove_relay_bindings  # noqa: E402
from benchmarks.mlp_chain import mlp_chain  # noqa: E402
from extractor.relay.parser import parse, parse_file  # noqa: E402
from extractor.relay.transforms.gradient import gradient_module  # noqa: E402
from extractor.relay.typeinfer import infer_types  # noqa: E402
from extractor.runtime import survivors_frozen  # noqa: E402

SEED = Path(__file__).resolve().parents[1] / "tests" / "data" / "seed_issue_program.relay"
STAGES = ("parse", "gradient", "prepare", "facts", "solve", "read-back")


def seed_end_to_end(engine: str) -> tuple[float, int]:
    """Seconds for parse -> gradient -> analyze -> DCE on the seed, and bindings analysed."""
    t0 = time.perf_counter()
    grad = gradient_module(infer_types(parse_file(SEED)).module)
    result = analyze(grad, engine=EngineOptions(engine), explain=False, points_to=False)
    remove_relay_bindings(result)
    return time.perf_counter() - t0, len(result.kept_ids) + len(result.removable_ids)


def run(n_ops: int, engine: str) -> dict[str, float]:
    """Seconds per stage for one gradient program of about n_ops operator calls."""
    times: dict[str, float] = {}
    text = mlp_chain(n_ops)
    t = time.perf_counter()
    mod = parse(text)
    times["parse"] = time.perf_counter() - t
    t = time.perf_counter()
    grad = gradient_module(infer_types(mod).module)
    times["gradient"] = time.perf_counter() - t
    result = analyze(grad, engine=EngineOptions(engine), explain=False, points_to=False)
    times.update(result.timings)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 2500, 5000, 10000])
    ap.add_argument("--engines", nargs="*", default=available_engines())
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed-only", action="store_true")
    args = ap.parse_args()

    for engine in args.engines:
        analyze(parse_file(SEED), engine=EngineOptions(engine))  # warm up: caches, imports
        seconds, bindings = seed_end_to_end(engine)
        print(f"seed end to end ({engine}): {seconds:.3f} s, {bindings} bindings analysed")
    if args.seed_only:
        return

    header = f"{'N ops':>7} {'engine':>9} " + " ".join(f"{s:>9}" for s in STAGES)
    header += f" {'total':>8} {'x/doubling':>10} {'per-op x':>8} {'vs first':>8} {'solve x':>7}"
    print("\n" + header)
    first_engine: dict[int, float] = {}
    previous: dict[str, tuple[int, float]] = {}
    for n in args.sizes:
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.repeat):
            for engine in args.engines:
                with survivors_frozen():  # as one `aliaslog` command runs it
                    times = run(n, engine)
                best[engine] = {s: min(times[s], best.get(engine, times)[s]) for s in STAGES}
        for engine in args.engines:
            times = best[engine]
            total = sum(times.values())
            row = f"{n:>7} {engine:>9} " + " ".join(f"{times[s]:>9.3f}" for s in STAGES)
            row += f" {total:>8.3f}"
            if engine in previous:
                n0, t0 = previous[engine]
                doublings = math.log2(n / n0)
                per_doubling = (total / t0) ** (1 / doublings)
                row += f" {per_doubling:>10.2f} {per_doubling / 2:>8.2f}"
            else:
                row += f" {'':>10} {'':>8}"
            if n in first_engine:
                row += f" {total / first_engine[n]:>8.2f}"
            else:
                first_engine[n] = total
                row += f" {'1.00':>8}"
            if engine == "embedded" and "souffle" in best:
                row += f" {times['solve'] / best['souffle']['solve']:>7.2f}"
            previous[engine] = (n, total)
            print(row, flush=True)


if __name__ == "__main__":
    main()
