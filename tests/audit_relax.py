"""Audit campaign over random Relax modules: `python -m tests.audit_relax --n N [--start S]`.

Each seed's module (tests/randmod_relax.py) goes through `aliaslog audit` once per variant of
tests/fuzz_relax.py (the user's passes before relax.build's default llvm pipeline), with the
fuzzer's packed functions described; every pass that introduced an error finding is then
confirmed on the VM (--confirm: the build with and without that pass, three calls). The
summary lists, per TVM pass, the findings it introduced and how many the VM reproduced.
Each seed runs in a child process (`--worker`), so a TVM crash costs one seed, not the run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from . import randmod_relax as rm
from .fuzz_relax import EFFECTS, VARIANTS, load

HERE = Path(__file__).resolve().parent


def audit_variant(seed: int, variant: str) -> dict[str, Any]:
    """One variant of one seed: its findings, each with the pass and the VM's verdict."""
    from aliaslog.options import EngineOptions
    from aliaslog.relax import audit_module
    from aliaslog.relax.confirm import confirm_report, fresh_constants

    EMBEDDED = EngineOptions("embedded")
    rm.register_packed()
    mod = load(rm.render(rm.generate(seed)))
    given = fresh_constants(mod)
    report = audit_module(mod, VARIANTS[variant], engine=EMBEDDED, op_effects=[str(EFFECTS)])
    confirm_report(report, given, seed)
    safe = not any(f.severity == "error" and f.pass_index == 0 for f in report.findings)
    return {"failed": report.failed is not None, "safe_as_written": safe,
            "analysis_errors": sum(bool(s.error) for s in report.steps),
            "findings": [{"check": f.check, "severity": f.severity, "pass": f.introduced_by,
                          "vm": (report.confirmations[f.ordinal].status
                                 if f.ordinal in report.confirmations else None)}
                         for f in report.findings]}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per pass: error findings introduced, and the VM's verdicts on them, apart for modules
    that are safe as written (the pass broke them) and ones already unsafe."""
    per_pass: dict[str, Counter[str]] = {}
    totals: Counter[str] = Counter()
    for r in rows:
        for v in r["variants"].values():
            if "crashed" in v:
                totals["crashed (TVM)"] += 1
                continue
            totals["audits"] += 1
            totals["pipeline failed"] += v["failed"]
            totals["analysis errors"] += v["analysis_errors"]
            totals["safe as written"] += v["safe_as_written"]
            for f in v["findings"]:
                if f["severity"] != "error":
                    continue
                where = "safe as written" if v["safe_as_written"] else "unsafe as written"
                c = per_pass.setdefault(f"{f['pass']} ({where})", Counter())
                c["findings"] += 1
                c[f"vm {f['vm']}"] += 1
    return {"modules": len(rows), **dict(totals),
            "per_pass": {p: dict(sorted(c.items())) for p, c in sorted(
                per_pass.items(), key=lambda kv: -kv[1]["findings"])}}


def _children(seeds: list[int], variants: list[str], timeout: float,
              out: Path | None) -> list[dict[str, Any]]:
    """Each seed in a child that prints a line per variant; a variant that kills its child is
    recorded as crashed and the child restarted on the variants after it. Rows are appended
    to out/rows.jsonl as seeds finish (a long campaign can be read while it runs)."""
    rows = []
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "rows.jsonl").write_text("")
    for seed in seeds:
        row: dict[str, Any] = {"seed": seed, "variants": {}}
        left = list(variants)
        while left:
            cmd = [sys.executable, "-m", "tests.audit_relax", "--worker", "--start", str(seed),
                   "--variants", ",".join(left)]
            try:
                done = subprocess.run(cmd, cwd=HERE.parent, capture_output=True, text=True,
                                      timeout=timeout)
                printed, code = done.stdout, done.returncode
            except subprocess.TimeoutExpired as exc:
                printed, code = exc.stdout or "", "timeout"
                printed = printed.decode() if isinstance(printed, bytes) else printed
            for line in printed.splitlines():
                if line.startswith('{"variant"'):
                    msg = json.loads(line)
                    row["variants"][msg["variant"]] = msg["result"]
            left = [v for v in left if v not in row["variants"]]
            if left and code != 0:
                row["variants"][left.pop(0)] = {"crashed": f"exit {code}"}
            elif left:
                break
        rows.append(row)
        if out is not None:
            with (out / "rows.jsonl").open("a") as f:
                f.write(json.dumps(row) + "\n")
        print(f"seed {seed} done", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--timeout", type=float, default=600, help="seconds per seed")
    ap.add_argument("--out", type=Path, help="write rows.jsonl and summary.json here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variants {', '.join(unknown)} (choose from {', '.join(VARIANTS)})")
    if args.worker:
        for v in variants:
            result = audit_variant(args.start, v)
            print(json.dumps({"variant": v, "result": result}), flush=True)
        return 0
    t0 = time.time()
    rows = _children(list(range(args.start, args.start + args.n)), variants, args.timeout,
                     args.out)
    summary = summarize(rows)
    summary["seconds"] = round(time.time() - t0, 1)
    if args.out:
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
