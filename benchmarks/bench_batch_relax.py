"""Batch time per Relax model against relax.build of the same model, at each extraction point.

    python benchmarks/bench_batch_relax.py ZOO_DIR [--models bert,gpt2] [--at input,lowered]
        [--audit] [--repeat R] [--out /tmp/bench_batch_relax]

ZOO_DIR is what `aliaslog zoo relax -o ZOO_DIR` wrote. For each extraction point, `aliaslog
batch` (library call, cache bypassed, one worker) analyses the models' `NAME.py` files; a
model's batch time is its row's worker time without the worker's start-up (importing tvm,
paid once per worker): loading the TVMScript, lowering to the point, facts, solve, read-back
and both DCEs (with --audit, also the audit through relax.build's pipeline, pass by pass). It
is divided by `relax.build(module, "llvm")` of the same module, timed here. Target: ratio <= 2
for every model, without --audit. The last column is what the batch no longer does: parse
the zoo's `NAME.lowered.py` (it lowers `NAME.py` in the worker instead). Each figure is the
best of --repeat runs; all numbers come from this one run; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aliaslog.batch.runner import run_batch  # noqa: E402
from extractor.relax_load import POINTS, load_relax_module  # noqa: E402


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Best wall time of fn() over `repeat` calls."""
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def batch_seconds(files: list[Path], point: str, audit: bool, repeat: int,
                  out: Path) -> dict[str, float]:
    """Best worker time per model file at one point, start-up excluded."""
    times: dict[str, float] = {}
    for i in range(repeat):
        res = run_batch(files, out / f"{point}-{i}", workers=1, force=True, progress=False,
                        time_limit=1800, task_options={"relax_point": point, "audit": audit})
        for r in res.rows:
            if r["status"] != "ok":
                raise SystemExit(f"{r['path']}: {r['status']}: {r['error']}")
            own = r["total_seconds"] - r["stages"].get("startup", 0.0)
            times[r["model"]] = min(times.get(r["model"], own), own)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("zoo", type=Path)
    ap.add_argument("--models", help="comma-separated (default: every NAME.py in ZOO)")
    ap.add_argument("--at", default="input,lowered", help="extraction points, comma-separated")
    ap.add_argument("--audit", action="store_true", help="batch --audit")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench_batch_relax"))
    args = ap.parse_args()
    from tvm import relax

    names = (args.models.split(",") if args.models else
             sorted(p.name[:-3] for p in args.zoo.glob("*.py") if p.name.count(".") == 1))
    files = [args.zoo / f"{n}.py" for n in names]
    points = [p for p in args.at.split(",") if p]
    if bad := [p for p in points if p not in POINTS]:
        raise SystemExit(f"--at: unknown point {', '.join(bad)} (choose from {', '.join(POINTS)})")
    by_point = {p: batch_seconds(files, p, args.audit, args.repeat, args.out) for p in points}
    print(f"{'model':12} {'build s':>8} " + " ".join(f"{p + ' s':>12} {'ratio':>6}"
                                                      for p in points)
          + f" {'parse lowered.py s':>18}")
    worst = 0.0
    for name, f in zip(names, files, strict=True):
        mod = load_relax_module(f)
        build = best(lambda m=mod: relax.build(m, "llvm"), args.repeat)
        cells = []
        for p in points:
            secs = by_point[p][name]
            worst = max(worst, secs / build)
            cells.append(f"{secs:12.3f} {secs / build:6.2f}")
        low = f.with_name(f"{name}.lowered.py")
        parse = (f"{best(lambda p=low: load_relax_module(p), 1):18.3f}" if low.exists()
                 else f"{'—':>18}")
        print(f"{name:12} {build:8.3f} " + " ".join(cells) + f" {parse}", flush=True)
    print(f"worst ratio {worst:.2f}" + (" (with the audit)" if args.audit else " (target <= 2)"))


if __name__ == "__main__":
    main()
