"""aliaslog check / analyze / dce on every IRModule class of TVM's own Relax transform tests.

Usage: python conformance/relax_tvm_tests.py MIRROR [--rev REV] [--jobs N] [--files GLOB]
                                             [--out DIR] [--time-limit S]

MIRROR is a git directory of apache/tvm (a bare mirror is enough). The test files
(`tests/python/relax/test_transform_*.py` and `test_dataflow_inplace.py` at REV) are read with
`git show` at run time, never copied: every class decorated with `ir_module` becomes one
TVMScript file in a temporary directory (the test file's imports and literal constants, the
statements of its test function before it, then the class), and the aliaslog command line
runs on it in a worker process, as a user would.

Per module and command the row says the exit status (0 ok, 1 findings, 2 bad input — e.g. a
class that needs its test function's arguments, or a TVM pipeline that fails —, 3 internal
error), whether stderr held a Python traceback and, for check, the points TVM's pipeline did
not reach (a partial verdict). The summary counts them, lists every internal error, and every
`error` finding on an `Expected*` module (TVM's own correct output programs, where a finding
is a false alarm unless justified). `--out DIR` writes rows.jsonl and summary.json there.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import fnmatch
import io
import json
import multiprocessing
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

COMMANDS = ("check", "analyze", "dce")
PATTERNS = ("tests/python/relax/test_transform_*.py", "tests/python/relax/test_dataflow_inplace.py")
# exit status -> outcome (aliaslog.cli.EXIT_STATUSES)
OUTCOMES = {0: "ok", 1: "findings", 2: "bad input", 3: "internal error", 130: "interrupted"}


@dataclass(frozen=True)
class Task:
    """One IRModule class of one test file, written out as a TVMScript file."""

    test_file: str
    cls: str
    line: int
    path: str


@dataclass
class Row:
    """One command on one module."""

    test_file: str
    cls: str
    line: int
    command: str
    status: int
    outcome: str
    traceback: bool
    seconds: float
    message: str
    findings: list[str]
    unchecked: list[str]  # check: the points TVM's pipeline did not reach, and why


def test_files(mirror: str, rev: str, files: str | None) -> list[str]:
    """Paths of the Relax transform test files at rev."""
    out = subprocess.run(["git", "-C", mirror, "ls-tree", "--name-only", rev,
                          "tests/python/relax/"], check=True, capture_output=True,
                         text=True).stdout.split()
    picked = [p for p in out if any(fnmatch.fnmatch(p, pat) for pat in PATTERNS)]
    return [p for p in picked if files is None or fnmatch.fnmatch(Path(p).name, files)]


def _is_ir_module(dec: ast.expr) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return ast.unparse(target).endswith("ir_module")


def _prelude(tree: ast.Module) -> str:
    """The test file's top-level imports and literal constants (what a class may refer to)."""
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):  # torch etc. may be missing
            keep.append(f"try:\n    {ast.unparse(node)}\nexcept ImportError:\n    pass")
        elif isinstance(node, ast.Assign):
            with contextlib.suppress(ValueError, TypeError, SyntaxError, RecursionError):
                ast.literal_eval(node.value)
                keep.append(ast.unparse(node))
    return "\n".join(keep)


def _locals_before(func: ast.FunctionDef, cls: ast.ClassDef) -> str:
    """The statements of the test function that precede the class (the locals it may use),
    each allowed to fail (a fixture argument it needs is not there)."""
    out = []
    for node in func.body:
        if node is cls or node.lineno >= cls.lineno:
            break
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom,
                             ast.FunctionDef)):
            out.append(f"try:\n{textwrap.indent(ast.unparse(node), '    ')}\n"
                       "except Exception:\n    pass")
    return "\n".join(out)


def module_classes(path: str, text: str) -> list[tuple[str, int, str]]:
    """(class name, line, TVMScript file text) for every ir_module class of a test file."""
    tree = ast.parse(text)
    prelude = _prelude(tree)
    lines = text.splitlines()
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(_is_ir_module(d) for d in node.decorator_list):
            start = min(d.lineno for d in node.decorator_list)
            body = textwrap.dedent("\n".join(lines[start - 1: node.end_lineno]))
            parent = parents.get(node)
            local = _locals_before(parent, node) if isinstance(parent, ast.FunctionDef) else ""
            out.append((node.name, start,
                        f"# from {path}:{start}\n{prelude}\n{local}\n\n\n{body}\n"))
    return sorted(out, key=lambda c: c[1])


def collect(mirror: str, rev: str, files: str | None, tmp: Path) -> list[Task]:
    """Every module class of the chosen test files, each written to its own file under tmp."""
    tasks = []
    for path in test_files(mirror, rev, files):
        text = subprocess.run(["git", "-C", mirror, "show", f"{rev}:{path}"], check=True,
                              capture_output=True, text=True).stdout
        for cls, line, script in module_classes(path, text):
            out = tmp / f"{Path(path).stem}__{cls}_{line}.py"
            out.write_text(script)
            tasks.append(Task(path, cls, line, str(out)))
    return tasks


class _TimeLimit(Exception):
    """The command ran past --time-limit."""


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise _TimeLimit


def run_task(task: Task, time_limit: float) -> list[Row]:
    """Every command of COMMANDS on one module, in this worker process."""
    from aliaslog.cli import main

    signal.signal(signal.SIGALRM, _on_alarm)
    rows = []
    for command in COMMANDS:
        argv = [command, task.path, "--engine", "embedded"]
        if command == "check":
            argv.append("--json")
        if command == "dce":
            argv += ["-o", task.path + ".dce.py"]
        out, err = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, time_limit)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(argv)
        except _TimeLimit:
            status = -1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        seconds = time.perf_counter() - t0
        findings: list[str] = []
        unchecked: list[str] = []
        if command == "check" and status in (0, 1):
            with contextlib.suppress(ValueError):
                doc = json.loads(out.getvalue())
                findings = [f["text"].splitlines()[0] for f in doc["findings"]]
                unchecked = [f"{p}: {why}" for p, why in doc["points"].items()
                             if why != "checked"]
        message = next((ln for ln in err.getvalue().splitlines() if ln.strip()), "")
        rows.append(Row(task.test_file, task.cls, task.line, command, status,
                        OUTCOMES.get(status, "time limit" if status == -1 else str(status)),
                        "Traceback (most recent call last)" in err.getvalue(),
                        round(seconds, 3), message[:300], findings, unchecked))
    return rows


def _run(args: tuple[Task, float]) -> list[Row]:
    return run_task(*args)


def summarize(rows: list[Row], n_modules: int) -> dict[str, Any]:
    """Counts per command and outcome, internal errors, and findings on Expected modules."""
    by = Counter((r.command, r.outcome) for r in rows)
    expected_errors = [
        {"module": f"{r.test_file}:{r.line} {r.cls}", "findings": [
            f for f in r.findings if f.startswith("error ")]}
        for r in rows if r.command == "check" and r.cls.startswith("Expected")
        and any(f.startswith("error ") for f in r.findings)]
    return {
        "modules": n_modules,
        "counts": {c: {o: n for (cc, o), n in sorted(by.items()) if cc == c} for c in COMMANDS},
        "tracebacks": sum(r.traceback for r in rows),
        "partial_verdicts": sum(bool(r.unchecked) for r in rows),  # check, some points reached
        "internal_errors": [f"{r.command} {r.test_file}:{r.line} {r.cls}: {r.message}"
                            for r in rows if r.status == 3 or r.status == -1],
        "expected_modules": len({(r.test_file, r.line) for r in rows
                                 if r.cls.startswith("Expected")}),
        "expected_with_errors": expected_errors,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mirror", help="git directory of apache/tvm")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--files", metavar="GLOB", help="only test files whose name matches")
    ap.add_argument("--time-limit", type=float, default=300, help="seconds per command")
    ap.add_argument("--out", type=Path, help="write rows.jsonl and summary.json here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="aliaslog-tvm-tests-") as tmp:
        tasks = collect(args.mirror, args.rev, args.files, Path(tmp))
        print(f"{len(tasks)} modules from {len({t.test_file for t in tasks})} test files",
              file=sys.stderr)
        rows: list[Row] = []
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(args.jobs, maxtasksperchild=50) as pool:
            for i, got in enumerate(pool.imap_unordered(
                    _run, [(t, args.time_limit) for t in tasks]), 1):
                rows += got
                bad = [r for r in got if r.status in (3, -1) or r.traceback]
                for r in bad:
                    print(f"  {r.outcome}: {r.command} {r.test_file}:{r.line} {r.cls}: "
                          f"{r.message}", file=sys.stderr)
                if i % 50 == 0:
                    print(f"[{i}/{len(tasks)}]", file=sys.stderr)
    rows.sort(key=lambda r: (r.test_file, r.line, COMMANDS.index(r.command)))
    summary = summarize(rows, len(tasks))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "rows.jsonl").write_text("".join(json.dumps(asdict(r)) + "\n"
                                                     for r in rows))
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
