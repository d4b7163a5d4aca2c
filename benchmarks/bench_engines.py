"""Time the Datalog engines end to end on the dlbench points-to program and a deep chain.

Usage: python benchmarks/bench_engines.py [--1m] [--compiled] [--repeat N] [--dlbench DIR]

Every available engine runs the same .dl file; rows must be identical across engines (checked).
Seconds are wall time of `solve()` (load facts, evaluate, read all outputs back), the best of
--repeat runs; ratios are relative to interpreted Soufflé measured in the same invocation.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aliaslog.engines import available_engines, solve  # noqa: E402

DEFAULT_DLBENCH = Path(__file__).resolve().parents[1] / "tests" / "data" / "dlbench"

CHAIN_DL = """.decl edge(a: number, b: number)
.input edge
.decl reach(a: number)
.output reach
reach(0).
reach(b) :- reach(a), edge(a, b).
"""


def _run(program: Path, facts: Path, engine: str, repeat: int) -> tuple[float, dict]:
    best = float("inf")
    rels: dict = {}
    for _ in range(repeat):
        kind = "souffle" if engine.startswith("souffle") else engine
        t0 = time.perf_counter()
        res = solve(program, facts, engine=kind, compiled=engine == "souffle-compiled",
                    timeout=3600)
        best = min(best, time.perf_counter() - t0)
        rels = res.relations
    return best, rels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--1m", dest="one_m", action="store_true", help="also run the 1M-fact input")
    ap.add_argument("--compiled", action="store_true", help="also time `souffle -o` binaries")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--chain", type=int, default=20_000, help="steps of the reachability chain")
    ap.add_argument("--dlbench", type=Path, default=DEFAULT_DLBENCH)
    args = ap.parse_args(argv)

    engines = available_engines()
    if "souffle" in engines and args.compiled:
        engines.append("souffle-compiled")
    engines.sort(key=lambda e: {"souffle": 0, "souffle-compiled": 1, "embedded": 2}[e])
    print(f"engines: {', '.join(engines)}; repeat={args.repeat}; cpus={os.cpu_count()}")

    sizes = ["10k", "100k"] + (["1m"] if args.one_m else [])
    rows: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as tmp_s:
        tmp = Path(tmp_s)
        if "souffle-compiled" in engines:
            t0 = time.perf_counter()
            solve(args.dlbench / "pt.dl", _gen(args.dlbench, "10k", tmp), engine="souffle",
                  compiled=True, timeout=3600)
            print(f"souffle -o build (or cache hit) + first run: {time.perf_counter() - t0:.1f} s")
        for size in sizes:
            facts = _gen(args.dlbench, size, tmp)
            times, results = {}, {}
            for eng in engines:
                times[eng], results[eng] = _run(args.dlbench / "pt.dl", facts, eng, args.repeat)
            _same(results, f"pt {size}")
            rows.append((f"pt.dl {size}", times))
            _print_row(rows[-1], engines)
        chain = tmp / "chain.dl"
        chain.write_text(CHAIN_DL)
        cfacts = tmp / "chain_facts"
        cfacts.mkdir()
        (cfacts / "edge.facts").write_text("".join(f"{i}\t{i + 1}\n" for i in range(args.chain)))
        if "souffle-compiled" in engines:
            t0 = time.perf_counter()
            solve(chain, cfacts, engine="souffle", compiled=True, timeout=3600)
            print(f"souffle -o build of chain.dl + first run: {time.perf_counter() - t0:.1f} s")
        times, results = {}, {}
        for eng in engines:
            times[eng], results[eng] = _run(chain, cfacts, eng, args.repeat)
        _same(results, "chain")
        rows.append((f"chain {args.chain}", times))
        _print_row(rows[-1], engines)

    print()
    head = "| input | " + " | ".join(engines) + (" | embedded / souffle |" if "souffle" in engines
                                                 and "embedded" in engines else " |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for label, times in rows:
        cells = [f"{times[e]:.2f}" for e in engines]
        ratio = ""
        if "souffle" in times and "embedded" in times:
            ratio = f" {times['embedded'] / times['souffle']:.1f}× |"
        print(f"| {label} | " + " | ".join(cells) + " |" + ratio)
    return 0


def _gen(dlbench: Path, size: str, tmp: Path) -> Path:
    out = tmp / f"facts_{size}"
    if not out.exists():
        subprocess.run([sys.executable, str(dlbench / "gen.py"), size, str(out)], check=True,
                       capture_output=True)
    return out


def _same(results: dict[str, dict], what: str) -> None:
    engines = list(results)
    for e in engines[1:]:
        if results[e] != results[engines[0]]:
            raise SystemExit(f"{what}: {e} and {engines[0]} disagree")


def _print_row(row: tuple[str, dict[str, float]], engines: list[str]) -> None:
    label, times = row
    print(f"{label:>14}: " + "  ".join(f"{e} {times[e]:.2f}s" for e in engines), flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
