"""The whole measurement: every test file's text programs, the shim runs, the transcriptions.

Work is split by file over worker processes; a crash of the harness on a file becomes a
`harness-error` check naming the file (never a verdict on the project), so one bad file
cannot hide the others.
"""

from __future__ import annotations

import multiprocessing
import signal
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .classify import BUG, HARNESS, Check, one_line
from .discover import discover
from .source import TESTS, TvmSource
from .test_body import body_checks
from .text_checks import check_program
from .transcribed import run_table

# the files whose Python-built tests run through the shim, as TVM wrote them
SHIM_FILES = ("test_ir_parser.py", "test_ir_text_printer.py", "test_pass_gradient.py",
              "test_backend_interpreter.py", "test_pass_dead_code_elimination.py",
              "test_pass_to_a_normal_form.py", "test_pass_partial_eval.py",
              "test_pass_eta_expand.py", "test_op_grad_level2.py")


@dataclass
class Result:
    """All checks of a run, the tests TVM skips itself, and what was run."""

    checks: list[Check] = field(default_factory=list)
    tvm_skipped: list[str] = field(default_factory=list)
    files: int = 0
    programs: int = 0


class _Timeout(Exception):
    pass


def _with_alarm(seconds: int, fn: Any, *args: Any) -> Any:
    def handler(signum: int, frame: Any) -> None:
        raise _Timeout(f"longer than {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _text_task(mirror: str, rev: str, path: str, limit: int) -> tuple[list[Check], int]:
    src = TvmSource(mirror, rev)
    progs, infos = discover(path, src.show(path))
    shim_file = path.rsplit("/", 1)[-1] in SHIM_FILES
    out: list[Check] = []
    for p in progs:
        if shim_file and p.text is None:
            continue  # printed from a Python-built module: the shim run checks it
        try:
            out += _with_alarm(limit, check_program, p, src)
        except _Timeout as e:
            out.append(Check(path, p.test, p.line, "parse", BUG, "timeout", str(e),
                             p.text or "", p.variant))
    if not shim_file:
        out += body_checks(path, infos, progs)
    return out, len(progs)


def _shim_task(mirror: str, rev: str, path: str, limit: int) -> tuple[list[Check], list[str]]:
    from .shim.run import run_file  # builds the tvm stand-in on first use

    return run_file(path, TvmSource(mirror, rev), limit)


def _task(args: tuple[str, str, str, str, int]) -> dict[str, Any]:
    what, mirror, rev, path, limit = args
    try:
        if what == "text":
            checks, n = _text_task(mirror, rev, path, limit)
            return {"checks": checks, "programs": n, "skipped": []}
        checks, skipped = _shim_task(mirror, rev, path, limit)
        return {"checks": checks, "programs": 0, "skipped": skipped}
    except Exception as e:  # the harness's own crash, reported as such
        tb = traceback.format_exc(limit=-4)
        return {"checks": [Check(path, "<file>", 0, what, HARNESS, f"harness crash ({what})",
                                 one_line(f"{e!r} {tb}", 800))],
                "programs": 0, "skipped": []}


def test_files(src: TvmSource, only: Iterable[str] | None = None) -> list[str]:
    """The Python files under tests/python/relay at the revision (optionally some by name)."""
    names = set(only or ())
    return [f for f in src.files(TESTS) if f.endswith(".py")
            and (not names or f.rsplit("/", 1)[-1] in names)]


def run(mirror: str, rev: str = "v0.19.0", jobs: int = 2, files: Iterable[str] | None = None,
        time_limit: int = 300, transcriptions: bool = True) -> Result:
    """Run every check; `files` restricts to some test files (by base name)."""
    src = TvmSource(mirror, rev)
    paths = test_files(src, files)
    tasks = [("text", mirror, src.commit, p, time_limit) for p in paths]
    tasks += [("shim", mirror, src.commit, p, time_limit) for p in paths
              if p.rsplit("/", 1)[-1] in SHIM_FILES]
    res = Result(files=len(paths))
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=8) as pool:
            outs = pool.map(_task, tasks, chunksize=1)
    else:
        outs = [_task(t) for t in tasks]
    for o in outs:
        res.checks += o["checks"]
        res.programs += o["programs"]
        res.tvm_skipped += o["skipped"]
    if transcriptions:
        wanted = set(files or ())
        res.checks += [c for c in run_table(src)
                       if not wanted or c.file.rsplit("/", 1)[-1] in wanted]
    return res
