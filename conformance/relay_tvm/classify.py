"""One check's record and the rules that classify an outcome (pass, project bug, not
expressible as text, skipped for a named missing feature, or a crash of the harness itself)."""

from __future__ import annotations

import re
import traceback
from dataclasses import asdict, dataclass
from typing import Any

from . import adapter

PASS = "pass"
BUG = "fail-project-bug"
NOT_TEXT = "not-expressible-as-text"
HARNESS = "harness-error"  # the harness crashed: never a verdict on the project
SKIP = "skipped-needs-"  # + what is missing, e.g. "op:cumsum", "pass:PlanDevices"


@dataclass
class Check:
    """One check of one TVM test: where it comes from, what it checks, and its outcome."""

    file: str
    test: str
    line: int
    kind: str  # parse | reject | typecheck | roundtrip | tvm-test | transcribed | test-body
    status: str
    cause: str = ""  # failures: the grouping (unknown-op, printer, typeinfer, ...)
    detail: str = ""  # the error, or why it is not expressible / skipped
    program: str = ""  # the Relay text concerned, where there is one (the reproducer)
    variant: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class NotExpressible(Exception):
    """The test needs something that cannot be written as Relay text (say which)."""


class Needs(Exception):
    """The test needs a feature the project does not have yet (e.g. 'pass:PlanDevices')."""

    def __init__(self, what: str, detail: str = "") -> None:
        super().__init__(f"needs {what}" + (f": {detail}" if detail else ""))
        self.what = what
        self.detail = detail


class NotInShim(Exception):
    """The tvm.relay shim has no stand-in for a name the test uses (a harness limit)."""


_OP_PATTERNS = (
    (re.compile(r"unknown operator `?([\w.]+)`?"), "op"),
    (re.compile(r"operator ([\w.]+) has no type relation"), "type-relation"),
    (re.compile(r"operator ([\w.]+) is not implemented by the interpreter"), "op-impl"),
    (re.compile(r"operator ([\w.]+) has no gradient rule"), "grad-rule"),
)


def missing_op(message: str) -> str | None:
    """'op:NAME' (or 'type-relation:NAME', ...) when an error says an op is not registered."""
    for pat, what in _OP_PATTERNS:
        m = pat.search(message)
        if m:
            return f"{what}:{m.group(1)}"
    return None


def one_line(e: BaseException | str, limit: int = 400) -> str:
    text = e if isinstance(e, str) else f"{type(e).__name__}: {e}"
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def origin(e: BaseException) -> str:
    """Where an exception was raised: 'project', 'shim', 'test' (TVM's test code) or 'other'."""
    tb = traceback.extract_tb(e.__traceback__)
    for frame in reversed(tb):
        fn = frame.filename
        if any(fn.startswith(d) for d in adapter.PROJECT_DIRS):
            return "project"
        if fn.startswith("<tvm:"):
            return "test"
        if "/conformance/relay_tvm/shim" in fn:
            return "shim"
    return "other"


def classify_error(e: BaseException, cause: str) -> tuple[str, str, str]:
    """(status, cause, detail) for an exception out of a project call labelled `cause`."""
    if isinstance(e, NotExpressible):
        return NOT_TEXT, "", one_line(str(e))
    if isinstance(e, Needs):
        return SKIP + e.what, "", one_line(e.detail or str(e))
    if isinstance(e, NotInShim):
        return SKIP + "shim:" + str(e), "", f"the tvm.relay shim has no {e}"
    msg = str(e)
    op = missing_op(msg)
    if op is not None and isinstance(e, adapter.LocatedError):
        return SKIP + op, "", one_line(e)
    if isinstance(e, RecursionError):
        return BUG, cause + " (recursion)", one_line(e)
    return BUG, cause, one_line(e)
