"""What a text-program test does beyond parsing, for files not run through the shim.

One check per (test, pass) for every v0.19 pass the test applies that the project lacks
(skipped-needs-pass:X), one for compiled execution (not expressible: a target, devices and
Python-built inputs), and one asking for a shim run when the test uses only passes the project
has. Parsing, type checking and printing of the test's programs are checked by text_checks.
"""

from __future__ import annotations

from .classify import NOT_TEXT, SKIP, Check
from .discover import Program, TestInfo
from .shim.passes import IMPLEMENTED


def body_checks(path: str, infos: dict[str, TestInfo], progs: list[Program]) -> list[Check]:
    """The test-body checks of one file's text-program tests."""
    out: list[Check] = []
    for name in sorted({p.test for p in progs}):
        info = infos.get(name)
        if info is None or not name.startswith("test"):
            continue
        missing = sorted(p for p in info.passes if p not in IMPLEMENTED)
        for p in missing:
            what = p if p.startswith("gradient:") else f"pass:{p}"
            out.append(Check(path, name, info.line, "test-body", SKIP + what,
                             detail=f"the test applies relay.transform.{p}"))
        if info.executors:
            out.append(Check(path, name, info.line, "test-body", NOT_TEXT,
                             detail="execution on a TVM target/executor with Python-built "
                                    f"inputs ({', '.join(sorted(info.executors))})"))
        if not missing and info.passes:
            out.append(Check(path, name, info.line, "test-body", SKIP + "shim-run",
                             detail="the test only applies passes the project has "
                                    f"({', '.join(sorted(info.passes))}); run the file "
                                    "through the shim to check them"))
    return out
