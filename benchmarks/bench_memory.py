"""Peak memory of `aliaslog analyze` on long programs, measured with `/usr/bin/time -v`.

Usage: python benchmarks/bench_memory.py [--n 100000] [--engines embedded souffle]

Two programs of N bindings: a chain of N lets (`let %v1 = add(%v0, 1f); ...`) and N writes into
one cell (`let %w1 = ref_write(%r, add(ref_read(%r), 1f)); ...`). Each is analysed in a fresh
process (`aliaslog analyze FILE --engine E`) and the maximum resident set size is printed next
to the wall time, one row per program and engine, from one run. Target: under 1 GB at 100,000.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = '#[version = "0.0.5"]\n'


def let_chain(n: int) -> str:
    lines = [f"  let %v{i + 1} = add(%v{i}, 1f);" for i in range(n)]
    return (HEADER + "def @main(%v0: float32) -> float32 {\n" + "\n".join(lines)
            + f"\n  %v{n}\n}}\n")


def ref_writes(n: int) -> str:
    lines = [f"  let %w{i} = ref_write(%r, add(ref_read(%r), 1f));" for i in range(n)]
    return (HEADER + "def @main(%x: float32) -> float32 {\n  let %r = ref(%x);\n"
            + "\n".join(lines) + "\n  ref_read(%r)\n}\n")


def peak(path: Path, engine: str) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit status) of one analyze run."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "aliaslog.cli", "analyze", str(path),
           "--engine", engine, "--timeout", "3600"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-2000:])
    return (int(m.group(1)) / 1024 if m else float("nan")), wall, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="bindings per program")
    ap.add_argument("--engines", nargs="*", default=["embedded"]
                    + (["souffle"] if shutil.which("souffle") else []))
    args = ap.parse_args()
    if not Path("/usr/bin/time").exists():
        print("needs /usr/bin/time (Debian package `time`)", file=sys.stderr)
        return 2
    print(f"| program ({args.n:,} bindings) | engine | peak RSS MB | wall s | status |")
    print("|---|---|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in (("let chain", let_chain), ("ref writes", ref_writes)):
            path = Path(tmp) / f"{name.replace(' ', '_')}.relay"
            path.write_text(make(args.n))
            for engine in args.engines:
                mb, wall, code = peak(path, engine)
                print(f"| {name} | {engine} | {mb:,.0f} | {wall:.1f} | "
                      f"{'ok' if code == 0 else f'exit {code}'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
