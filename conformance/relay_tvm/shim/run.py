"""Run every test function of a TVM test file, as TVM wrote it, against the shim.

The file's module-level statements run one by one (a failing one poisons only the names it
binds); each `test_*` function then runs once per `pytest.mark.parametrize` combination, with
a time limit, stdout captured, and its outcome classified: pass; the project's error or a
failed assertion of TVM's test (fail-project-bug); something not expressible as text; a
missing project feature (skipped-needs-X); or a crash of the shim itself (harness-error).
Tests TVM itself skips unconditionally are reported as such and not run.
"""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import linecache
import signal
import time
import traceback
from collections.abc import Iterator
from typing import Any

from .. import adapter
from ..classify import (
    BUG,
    HARNESS,
    PASS,
    Check,
    Needs,
    NotExpressible,
    NotInShim,
    classify_error,
    one_line,
    origin,
)
from ..source import TvmSource
from . import hooks, module
from .rewrite import namespace, rewrite
from .tvm_ns import resolve


class _Timeout(Exception):
    """The test ran past its time limit."""


class _Poisoned:
    """A name whose module-level statement failed: using it re-raises that failure."""

    def __init__(self, err: BaseException) -> None:
        self._err = err

    def _raise(self, *a: Any, **k: Any) -> Any:
        raise self._err

    __call__ = __iter__ = __getitem__ = _raise

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise self._err


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names]
    return [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                                                  ast.Store)]


def _marks(fn: Any) -> list[Any]:
    return list(getattr(fn, "pytestmark", []))


def _variants(fn: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, kwargs) per combination of the function's parametrize marks."""
    axes = []
    for m in _marks(fn):
        if m.name != "parametrize":
            continue
        names, values = m.args[0], m.args[1]
        keys = [k.strip() for k in names.split(",")] if isinstance(names, str) else list(names)
        axis = []
        for v in values:
            v = getattr(v, "values", v)  # pytest.param(...)
            vs = v if len(keys) > 1 else (v,)
            axis.append(dict(zip(keys, vs, strict=True)))
        axes.append(axis)
    for combo in itertools.product(*axes):
        kw: dict[str, Any] = {}
        for d in combo:
            kw.update(d)
        yield ", ".join(f"{k}={v!r}" for k, v in kw.items())[:120], kw


def _test_frame(e: BaseException, path: str) -> tuple[int, str]:
    """The innermost line of TVM's test code in the traceback, and its text."""
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if frame.filename == f"<tvm:{path}>":
            return frame.lineno or 0, (linecache.getline(frame.filename, frame.lineno or 0)
                                       or "").strip()
    return 0, ""


def _assert_cause(line: str) -> str:
    for key, cause in (("structural_equal", "structural equality with TVM's expected program"),
                       ("graph_equal", "structural equality with TVM's expected program"),
                       ("assert_parses_as", "parse result differs from TVM's"),
                       ("assert_prints_as", "printer output differs from TVM's"),
                       ("astext", "printer output differs from TVM's"),
                       ("checked_type", "inferred type differs from TVM's"),
                       ("allclose", "value differs from TVM's (interpreter/gradient)"),
                       ("count", "result differs from TVM's")):
        if key in line:
            return cause
    return "assertion of TVM's test fails"


def classify_outcome(e: BaseException | None, path: str, xfail_raises: Any) -> tuple[str, str,
                                                                                   str, int]:
    """(status, cause, detail, line) of one test run."""
    if e is None:
        return PASS, "", "", 0
    line, text = _test_frame(e, path)
    where = f" [test line {line}: {text[:120]}]" if line else ""
    if isinstance(e, (NotExpressible, Needs, NotInShim)):
        status, cause, detail = classify_error(e, "")
        return status, cause, detail + where, line
    if xfail_raises is not None and isinstance(e, xfail_raises):
        return PASS, "", f"fails as TVM's xfail expects: {one_line(e)}", line
    if isinstance(e, _Timeout):
        return BUG, "timeout", str(e) + where, line
    if isinstance(e, AssertionError):
        return BUG, _assert_cause(text), one_line(e) + where, line
    if isinstance(e, adapter.LocatedError):
        kind = type(e).__name__
        cause = {"ParseError": "parser", "EvalError": "interpreter"}.get(kind, kind)
        if kind == "RelayTypeError":
            cause = "gradient" if "gradient" in str(e) else "typeinfer"
        status, cause, detail = classify_error(e, cause)
        return status, cause, detail + where, line
    where_from = origin(e)
    if where_from == "project":
        return BUG, f"crash in the project ({type(e).__name__})", one_line(e) + where, line
    if where_from == "test":
        return BUG, f"TVM's test code fails on a result ({type(e).__name__})", \
            one_line(e) + where, line
    tb = traceback.format_exception(type(e), e, e.__traceback__)[-3:]
    return HARNESS, f"shim ({type(e).__name__})", one_line("".join(tb), 600), line


def _alarm(seconds: int) -> Any:
    def handler(signum: int, frame: Any) -> None:
        raise _Timeout(f"the test ran longer than {seconds} s")
    return signal.signal(signal.SIGALRM, handler)


def run_file(path: str, src: TvmSource, time_limit: int = 300) -> tuple[list[Check],
                                                                         list[str]]:
    """Checks for every test of one file, and the tests TVM itself skips."""
    module.SOURCE[:] = [src]
    text = src.show(path)
    filename = f"<tvm:{path}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    tree = rewrite(text, filename)
    ns = namespace(hooks, resolve, filename)
    sink = io.StringIO()
    for stmt in tree.body:
        code = compile(ast.Module([stmt], []), filename, "exec")
        try:
            with contextlib.redirect_stdout(sink):
                exec(code, ns)  # TVM's test file, rewritten for the shim
        except Exception as e:  # poison what the statement would bind
            for name in _bound_names(stmt):
                ns[name] = _Poisoned(e)
    checks: list[Check] = []
    skipped: list[str] = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test")):
            continue
        fn = ns.get(stmt.name)
        marks = {m.name: m for m in _marks(fn)} if callable(fn) else {}
        if "skip" in marks:
            skipped.append(f"{path}::{stmt.name} ({marks['skip'].kwargs.get('reason', '')})")
            continue
        xf = marks.get("xfail")
        xfail_raises = (xf.kwargs.get("raises", Exception) if xf is not None else None)
        for label, kw in _variants(fn) if callable(fn) else [("", {})]:
            checks.append(_run_one(path, stmt, fn, kw, label, xfail_raises, time_limit, sink))
    return checks, skipped


def _run_one(path: str, stmt: ast.FunctionDef, fn: Any, kw: dict[str, Any], label: str,
             xfail_raises: Any, time_limit: int, sink: io.StringIO) -> Check:
    err: BaseException | None = None
    old = _alarm(time_limit)
    signal.alarm(time_limit)
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(sink):
            if isinstance(fn, _Poisoned):
                fn()
            missing = [a.arg for a in stmt.args.args if a.arg not in kw]
            if missing:
                raise NotExpressible(f"pytest fixtures {missing} (targets/devices)")
            fn(**kw)
    except BaseException as e:  # every outcome is classified
        if isinstance(e, KeyboardInterrupt):
            raise
        err = e
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    status, cause, detail, line = classify_outcome(err, path, xfail_raises)
    secs = time.perf_counter() - t0
    if secs > 5:
        detail = (detail + f" ({secs:.0f} s)").strip()
    return Check(path, stmt.name, line or stmt.lineno, "tvm-test", status, cause, detail,
                 "", label)
