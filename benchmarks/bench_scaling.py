"""Seconds per stage and peak memory of `aliaslog analyze` over programs of growing size, with
each stage's log-log slope against the number of bindings (1.0 is linear).

Usage: python benchmarks/bench_scaling.py FILE... [--engine embedded] [--repeat R]

Typically the zoo's largest training steps (`aliaslog zoo relay -o zoo`, then
`zoo/resnet-18.train.relay zoo/resnet-50.train.relay zoo/densenet-121.train.relay`). Each file
is analysed in a fresh process (`aliaslog analyze FILE --json`, under `/usr/bin/time -v` for
the peak RSS and the wall time; `rest` is the wall time outside the timed stages: start-up,
parse, type check, output); with --repeat R each stage reports its fastest of R runs. The
slope is the least-squares fit of log(seconds) on log(bindings analysed). All numbers come
from this one run.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
from pathlib import Path

STAGES = ("rest", "prepare", "facts", "solve", "read-back")


def measure(path: Path, engine: str) -> tuple[dict[str, float], int, float]:
    """(seconds per stage, bindings analysed, peak RSS MB) of one analyze run."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "aliaslog.cli", "analyze", str(path),
           "--engine", engine, "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{path}: analyze failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", proc.stderr)
    wall = sum(float(p) * 60 ** i for i, p in enumerate(reversed(w.group(1).split(":")))) \
        if w else float("nan")
    times = dict(out["timings"])
    times["rest"] = wall - sum(out["timings"].values())  # start-up, parse, type check, output
    return times, out["bindings"], int(m.group(1)) / 1024 if m else float("nan")


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y on log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(max(y, 1e-6)) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / den if den else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--engine", default="embedded")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    rows = []
    for path in args.files:
        best: dict[str, float] = {}
        peak = float("inf")
        for _ in range(args.repeat):
            times, bindings, rss = measure(path, args.engine)
            best = {s: min(times.get(s, 0.0), best.get(s, float("inf"))) for s in STAGES}
            peak = min(peak, rss)
        rows.append((path.name, bindings, best, peak))
        print(f"{path.name}: {bindings} bindings, "
              + ", ".join(f"{s} {best[s]:.2f} s" for s in STAGES) + f", peak {peak:.0f} MB",
              flush=True)
    print("\n| stage | " + " | ".join(f"{n} ({b:,} bindings)" for n, b, _, _ in rows)
          + " | log-log slope |")
    print("|---|" + "---:|" * (len(rows) + 1))
    xs = [float(b) for _, b, _, _ in rows]
    for s in STAGES:
        ys = [t[s] for _, _, t, _ in rows]
        fit = f"{slope(xs, ys):.2f}" if len(rows) > 1 else ""
        print(f"| {s} | " + " | ".join(f"{y:.2f} s" for y in ys) + f" | {fit} |")
    print("| peak RSS | " + " | ".join(f"{p:.0f} MB" for _, _, _, p in rows)
          + f" | {slope(xs, [p for *_, p in rows]):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
