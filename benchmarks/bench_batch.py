"""Batch throughput: the same models with 1 and with 2 workers, and where the time goes.

    python benchmarks/bench_batch.py DIR... [--workers 1,2] [--out /tmp/bench_batch]

Runs `aliaslog batch` (library call, cache bypassed with force) once per worker count over
the same files and prints wall time, the speedup over 1 worker (target: >= 1.8x with 2
workers on 2 cores) and the time per stage summed over the models. Measure on an otherwise
idle machine: the ratio is only meaningful when every worker has a core of its own.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

from aliaslog.batch.runner import run_batch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--out", default="/tmp/bench_batch")
    ap.add_argument("--time-limit", type=float, default=1800)
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    wall: dict[int, float] = {}
    stages: dict[str, float] = defaultdict(float)
    n_ok = 0
    for w in counts:
        t0 = time.perf_counter()
        res = run_batch(args.paths, Path(args.out) / f"w{w}", workers=w, force=True,
                        time_limit=args.time_limit, progress=False)
        wall[w] = time.perf_counter() - t0
        bad = [r for r in res.rows if r["status"] != "ok"]
        n_ok = len(res.rows) - len(bad)
        print(f"{w} worker{'s' * (w > 1)}: {len(res.rows)} models ({len(bad)} not ok) in "
              f"{wall[w]:.1f} s", flush=True)
        if w == counts[0]:
            for r in res.rows:
                for name, s in r.get("stages", {}).items():
                    stages[name] += s
    base = counts[0]
    for w in counts[1:]:
        print(f"speedup {w} vs {base} workers: {wall[base] / wall[w]:.2f}x")
    total = sum(stages.values()) or 1.0
    print(f"\ntime per stage over {n_ok} models ({base} worker run):")
    for name, s in sorted(stages.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<10} {s:8.2f} s  {100 * s / total:5.1f}%")


if __name__ == "__main__":
    main()
