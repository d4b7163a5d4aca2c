"""Solve time of this checkout's rules against another commit's, per variant, in one run.

Usage: python benchmarks/bench_rules.py REV [--sizes N ...] [--variants V ...] [--repeat R]
                                        [--engine embedded]

A change to `datalog_rules/` must not make the analysis slower where users run it (the
insensitive variant). For each MLP-chain gradient program (`benchmarks/mlp_chain.py`, N
operator calls) the facts are extracted once, in memory; then the rules of commit REV (taken
with `git archive REV datalog_rules`) and this checkout's solve them in turn, --repeat times,
reading back what `aliaslog dce` and `batch` read (the verdicts), and each reports its
fastest solve. The ratio is this checkout's over REV's (below 1.00: faster). One more solve of
each reads every output: each relation both rule sets have must hold the same rows, or the
row says which differ. All numbers come from this one run; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aliaslog.engines import solve  # noqa: E402
from aliaslog.options import AnalysisOptions  # noqa: E402
from aliaslog.pipeline import VERDICT_RELATIONS  # noqa: E402
from aliaslog.relay.analysis import analysis_program  # noqa: E402
from benchmarks.mlp_chain import mlp_chain  # noqa: E402
from extractor.relay.parser import parse  # noqa: E402
from extractor.relay.transforms.gradient import gradient_module  # noqa: E402
from extractor.relay.typeinfer import infer_types  # noqa: E402
from extractor.relay_facts import extract_relay  # noqa: E402


def rules_at(rev: str, into: Path) -> Path:
    """`datalog_rules/` of commit rev, unpacked under into; its main.dl."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "datalog_rules"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into / "datalog_rules" / "main.dl"


def facts_of(n_ops: int) -> dict:
    """The facts of the gradient of an MLP chain of about n_ops operator calls."""
    grad = gradient_module(infer_types(parse(mlp_chain(n_ops))).module)
    facts = extract_relay(analysis_program(grad), "main").facts
    facts.seal()
    return {**facts.rows, "run_nonce": [("bench",)]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="the commit to compare with (e.g. HEAD~1, a tag)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[300, 1000, 2500])
    ap.add_argument("--variants", nargs="*",
                    default=[v.name for v in AnalysisOptions.variants()
                             if v.liveness == "flow-insensitive"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engine", default="embedded")
    args = ap.parse_args()
    try:
        variants = {name: AnalysisOptions.parse(name) for name in args.variants}
    except ValueError as e:
        ap.error(str(e))

    with tempfile.TemporaryDirectory() as tmp:
        programs = {args.rev: rules_at(args.rev, Path(tmp)),
                    "this": ROOT / "datalog_rules" / "main.dl"}
        print(f"{'N ops':>7} {'variant':>16} {args.rev:>12} {'this':>9} {'ratio':>6}  outputs")
        for n in args.sizes:
            facts = facts_of(n)
            for name in args.variants:
                defines = variants[name].defines()
                best: dict[str, float] = {}
                for _ in range(args.repeat):
                    for label, program in programs.items():
                        t = time.perf_counter()
                        solve(program, facts=facts, engine=args.engine, defines=defines,
                              output_relations=set(VERDICT_RELATIONS))
                        best[label] = min(best.get(label, 1e9), time.perf_counter() - t)
                old, new = (solve(p, facts=facts, engine=args.engine, defines=defines).relations
                            for p in programs.values())
                differ = sorted(r for r in old.keys() & new.keys()
                                if sorted(map(repr, old[r])) != sorted(map(repr, new[r])))
                verdict = "same" if not differ else "DIFFER: " + ", ".join(differ)
                print(f"{n:>7} {name:>16} {best[args.rev]:>12.2f} {best['this']:>9.2f} "
                      f"{best['this'] / best[args.rev]:>6.2f}  {verdict}", flush=True)


if __name__ == "__main__":
    main()
