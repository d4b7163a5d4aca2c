"""`aliaslog batch`: the command line over runner.run_batch."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from ..arguments import module_argument, op_effects_argument, tir_effects_argument
from ..loading import output_dir_arg
from ..options import AnalysisOptions, EngineOptions
from ..workloads import MODULE_MARKER


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `batch` and its options."""
    sp = sub.add_parser(
        "batch", help="analyse many models (Relay and Relax files or directories) in parallel; "
                      "results as JSON lines, CSV and an HTML report")
    sp.add_argument("paths", nargs="+", help="model files (.relay, .json, TVMScript .py) or "
                                             "directories searched recursively; a .py file found "
                                             "there is run only if it has the line "
                                             f"'{MODULE_MARKER}' (aliaslog zoo writes it)")
    sp.add_argument("--out", required=True, metavar="DIR", type=output_dir_arg,
                    help="results.jsonl, results.csv, meta.json, report.html and cache/ go here")
    sp.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="worker processes (default: the number of CPUs)")
    sp.add_argument("--time-limit", type=float, default=600, metavar="SECONDS",
                    help="per model; an overrunning model is killed and reported (default 600)")
    sp.add_argument("--force", action="store_true", help="recompute cached results")
    sp.add_argument("--dask", metavar="ADDRESS",
                    help="run on a Dask distributed scheduler (e.g. tcp://host:8786) "
                         "instead of local processes")
    AnalysisOptions.add_arguments(sp)
    EngineOptions.add_arguments(sp)
    sp.add_argument("--at", default="input", choices=["input", "legalized", "lowered"],
                    help="Relax extraction point, reached by lowering each model in its worker "
                         "(a *.lowered.py file named on the command line is taken as it is)")
    module_argument(sp, of="each TVMScript file")
    op_effects_argument(sp)
    tir_effects_argument(sp)
    sp.add_argument("--audit", action="store_true",
                    help="Relax: also audit each model through relax.build's default llvm "
                         "pipeline, pass by pass; the report gets a per-pass table")
    sp.add_argument("--quiet", action="store_true", help="no progress output")
    sp.add_argument("--check-outputs", action="store_true",
                    help="Relay: run each program before and after aliaslog's DCE on seeded "
                         "inputs; different results make the row an error")
    sp.add_argument("--allow-failures", action="store_true",
                    help="exit 0 even when some models failed or timed out (they are rows)")
    sp.set_defaults(func=cmd_batch)


def cmd_batch(args: argparse.Namespace) -> int:
    """Run the batch; exit 1 when a model failed or timed out (0 with --allow-failures), 130
    when interrupted (what is missing is listed, and a rerun resumes)."""
    from .runner import run_batch

    options = {"analysis": AnalysisOptions.from_args(args).as_json(),
               "engine": EngineOptions.from_args(args).as_json(), "relax_point": args.at,
               "check_outputs": args.check_outputs, "audit": args.audit,
               "module": args.module, "op_effects": args.op_effects,
               "tir_effects": args.tir_effects}
    command = "aliaslog batch " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    res = run_batch(args.paths, args.out, task_options=options, workers=args.workers,
                    time_limit=args.time_limit, force=args.force, dask_address=args.dask,
                    progress=not args.quiet, command=command)
    c = res.meta["counts"]
    for s in res.skipped:
        print(f"skipped {s['path']}: {s['reason']}")
    print(f"{len(res.rows)} models: {c['ok']} ok, {c['error']} errors, {c['timeout']} timeouts "
          f"({c['cached']} from cache)" + (f", {c['skipped']} files skipped" if c["skipped"]
                                           else "")
          + f" -> {res.out}/report.html, results.jsonl, results.csv")
    if res.interrupted:
        missing = res.meta["missing"]
        print(f"interrupted: {len(missing)} models not analysed ("
              + ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
              + "); run the same command again to resume", file=sys.stderr)
        return 130
    failed = c["error"] + c["timeout"]
    if failed and not args.allow_failures:
        print(f"{failed} models failed or timed out (see report.html; --allow-failures to exit 0)",
              file=sys.stderr)
        return 1
    return 0
