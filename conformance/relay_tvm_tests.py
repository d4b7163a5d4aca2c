"""TVM v0.19's own Relay tests, run through aliaslog (issue 14's measurement).

Usage: python conformance/relay_tvm_tests.py --tvm MIRROR [--rev v0.19.0] [--json OUT]
                                            [--jobs N] [--files NAME ...] [--time-limit S]

MIRROR is a git directory of apache/tvm (a bare mirror is enough); the test files are read with
`git show REV:...` at run time, never copied. Three sources of checks:

* every Relay text program in `tests/python/relay/**` (found statically with Python's `ast`):
  parsed (or rejected, inside `pytest.raises`), type-checked where TVM's test does it (always
  for `tvm.relay.parse`, which runs InferType), printed and parsed back alpha-equal;
* the test functions of test_ir_parser, test_ir_text_printer, test_pass_gradient,
  test_backend_interpreter, test_pass_dead_code_elimination, test_pass_to_a_normal_form,
  test_pass_partial_eval and test_pass_eta_expand, run as TVM wrote them against a small
  `tvm` stand-in over the project (`relay_tvm/shim`);
* hand transcriptions (`relay_tvm/transcribed.py`) of what those tests check behind objects
  only Python can build.

Each check is `pass`, `fail-project-bug`, `not-expressible-as-text` (with the reason),
`skipped-needs-X` (X: the missing op, pass or feature) or `harness-error` (a crash of this
harness, never a verdict). The exit status is 0, or 3 when the harness crashed on something.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.relay_tvm.classify import HARNESS  # noqa: E402
from conformance.relay_tvm.report import render, summary  # noqa: E402
from conformance.relay_tvm.runner import run  # noqa: E402
from conformance.relay_tvm.source import TvmSource  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tvm", required=True, help="git directory of apache/tvm (a mirror)")
    ap.add_argument("--rev", default="v0.19.0", help="tag or commit (default v0.19.0)")
    ap.add_argument("--json", help="write every check and the summary here")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--files", nargs="*", help="only these test files (base names)")
    ap.add_argument("--time-limit", type=int, default=300, help="seconds per check")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    src = TvmSource(args.tvm, args.rev)
    res = run(args.tvm, args.rev, args.jobs, args.files, args.time_limit)
    s = summary(res, args.rev, src.commit, src.relay_ops())
    s["seconds"] = round(time.perf_counter() - t0, 1)
    print(render(s))
    print(f"\n{s['seconds']} s")
    if args.json:
        doc = {"summary": s, "checks": [c.as_dict() for c in res.checks]}
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    return 3 if any(c.status == HARNESS for c in res.checks) else 0


if __name__ == "__main__":
    sys.exit(main())
