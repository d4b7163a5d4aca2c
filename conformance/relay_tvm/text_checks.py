"""The checks every Relay text program of TVM's tests gets, as TVM's test does them.

A module is parsed and type-checked (`tvm.relay.parse` runs InferType); an expression is
parsed, and type-checked when its test runs InferType. A program in a `pytest.raises` block
must be rejected. Each accepted program is printed and parsed back, and the result must be
alpha-equal to what was printed (the typed module for a module, as TVM prints one): the
round trip TVM's text format promises and test_ir_parser/test_ir_text_printer check.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import adapter
from .classify import BUG, NOT_TEXT, PASS, SKIP, Check, classify_error, missing_op, one_line
from .discover import Program
from .metadata import dropped_targets, metadata_section
from .source import TvmSource

_HEADER = re.compile(r'#\[version = "0\.0\.5"\]')
VERSION = '#[version = "0.0.5"]'


def full_text(p: Program, src: TvmSource) -> str:
    """The text to parse: init module (std files or text) first, then the program, then the
    meta table as a `#[metadata]` section."""
    assert p.text is not None
    text = p.text
    if p.init_std:
        parts = [src.std(s) if not s.startswith("text:") else s[5:] for s in p.init_std]
        bodies = [_HEADER.sub("", t, count=1) for t in [*parts, text]]
        text = VERSION + "\n" + "\n".join(bodies)
    if p.meta:
        text = text.rstrip() + "\n" + metadata_section(p.meta) + "\n"
    return text


def _check(p: Program, kind: str, status: str, cause: str = "", detail: str = "",
           program: str = "") -> Check:
    return Check(p.file, p.test, p.line, kind, status, cause, detail, program or (p.text or ""),
                 p.variant)


def _attempt(fn: Callable[[], Any], cause: str) -> tuple[Any, tuple[str, str, str] | None]:
    try:
        return fn(), None
    except Exception as e:  # every failure of the project is a finding
        return None, classify_error(e, cause if isinstance(e, adapter.LocatedError)
                                    else f"{cause} (crash: {type(e).__name__})")


def check_program(p: Program, src: TvmSource) -> list[Check]:
    """The checks of one program (only the first when parsing does not get through)."""
    if p.text is None:
        return [_check(p, "parse", SKIP + "static-text",
                       detail="the text is assembled by Python at run time (loops, joins, "
                              "printing a Python-built module)")]
    if p.meta_problem or p.init_problem:
        return [_check(p, "parse", NOT_TEXT, detail=p.meta_problem or p.init_problem)]
    text = full_text(p, src)
    note = " (meta table written as #[metadata]; VirtualDevice targets as null)" \
        if p.meta and dropped_targets(p.meta) else ""
    parse = adapter.parse if p.kind == "module" else adapter.parse_expr

    if p.expect_error:
        def reject() -> None:
            node = parse(text)
            if p.kind == "module":
                adapter.infer_types(node)
        try:
            reject()
        except adapter.LocatedError as e:
            return [_check(p, "reject", PASS, detail=one_line(e), program=text)]
        except Exception as e:
            return [_check(p, "reject", BUG, "parser (crash on bad input)", one_line(e), text)]
        return [_check(p, "reject", BUG, "parser accepts what TVM rejects",
                       "TVM's test expects a DiagnosticError; we accept the program", text)]

    node, err = _attempt(lambda: parse(text), "parser")
    if err is not None:
        return [_check(p, "parse", err[0], err[1], err[2] + note, text)]
    out = [_check(p, "parse", PASS, detail=note.strip(), program=text)]

    typed: Any = None
    if p.typechecked_by_test:
        def infer() -> Any:
            if p.kind == "module":
                return adapter.infer_types(node)
            return adapter.infer_expr(node)
        typed, err = _attempt(infer, "typeinfer")
        out.append(_check(p, "typecheck", *(err or (PASS, "", "")), program=text))

    out.append(_roundtrip(p, node, typed, text))
    return out


_META_REF = re.compile(r"meta\[([\w.]+)\]\[\d+\]")


def _lost_meta_refs(source: str, printed: str) -> dict[str, int]:
    """Per type key, how many fewer `meta[K][i]` references the printed program has."""
    def refs(text: str) -> dict[str, int]:
        body = text.split("#[metadata]", 1)[0]
        out: dict[str, int] = {}
        for m in _META_REF.finditer(body):
            out[m.group(1)] = out.get(m.group(1), 0) + 1
        return out
    before, after = refs(source), refs(printed)
    return {k: n - after.get(k, 0) for k, n in before.items() if after.get(k, 0) < n}


def _roundtrip(p: Program, node: Any, typed: Any, text: str) -> Check:
    """Print (the typed module when there is one), parse back, compare alpha-equal."""
    if p.kind == "module" and typed is not None:
        subject, types = typed.module, typed.types
    elif p.kind == "expr" and typed is not None:
        subject, types = typed
    else:
        subject, types = node, None
    printed, err = _attempt(lambda: adapter.astext(subject, types, header=True), "printer")
    if err is not None:
        return _check(p, "roundtrip", *err, program=text)
    parse = adapter.parse if p.kind == "module" else adapter.parse_expr
    back, err = _attempt(lambda: parse(printed), "printer (printed text does not parse)")
    if err is not None:
        status = BUG if err[0].startswith(SKIP) and missing_op(err[2]) is None else err[0]
        return _check(p, "roundtrip", status, err[1], err[2], printed)
    lost = _lost_meta_refs(text, printed)
    if lost:
        return _check(p, "roundtrip", BUG, "printer drops metadata references",
                      f"the input refers to {lost} more often than the printed text does "
                      "(v0.19 prints every attribute and virtual device that refers to one)",
                      printed)
    try:
        adapter.assert_alpha_equal(back, subject)
    except AssertionError as e:
        return _check(p, "roundtrip", BUG, "round trip not alpha-equal", one_line(e), printed)
    except Exception as e:
        return _check(p, "roundtrip", BUG, f"alpha-equality (crash: {type(e).__name__})",
                      one_line(e), printed)
    return _check(p, "roundtrip", PASS, program=text)
