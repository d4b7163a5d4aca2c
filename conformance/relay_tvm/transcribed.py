"""Hand transcriptions, as Relay text, of the parts of TVM's Python-built tests the shim cannot
run as written (a Python-built object stands in the way) but whose property can be written as
text. Each entry names the TVM test it transcribes and says what it leaves out; the rest of
those tests stays classified by the shim run (not expressible / skipped).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import adapter
from .classify import BUG, PASS, Check, classify_error, one_line
from .metadata import metadata_section
from .source import TvmSource
from .static_meta import MetaEntry
from .text_checks import VERSION

A = adapter.ast


@dataclass(frozen=True)
class Transcribed:
    """Our Relay text, the check TVM's test makes on it, and the expected outcome."""

    test: str  # "file.py::test_name" under tests/python/relay
    what: str  # which part of the test, and what is left out
    kind: str  # "module" | "expr"
    text: str
    check: str  # "prints" | "parses" | "evaluates"
    expected: Any = None  # prints: substrings; evaluates: predicate on the result
    forbidden: tuple[str, ...] = ()  # prints: substrings that must not appear without meta
    std: tuple[str, ...] = ()  # std files parsed before the text (an init module)
    inputs: Callable[[], list[Any]] | None = None
    meta: dict[str, list[MetaEntry]] = field(default_factory=dict)


def _stack_overflow_text() -> str:
    """test_pass_plan_devices.py::test_stack_overflow's program, built the same way."""
    end = 1555
    lines = ["def @main(%a: Tensor[(5, 7), float32], %b: Tensor[(5, 7), float32],",
             "          %c: Tensor[(5, 7), float32], %d: Tensor[(5, 7), float32]) {",
             "%0 = add(%a, %b);", "%1 = add(%c, %d);"]
    lines += [f"%{i} = add(%{i - 1}, %{i - 2});" for i in range(2, end)]
    lines += [f"add(%{end - 1}, %{end - 2})", "}"]
    return VERSION + "\n" + "\n".join(lines)


_ROW = np.random.default_rng(0).random((1, 10)).astype("float32")
_ROW2 = np.random.default_rng(1).random((1, 10)).astype("float32")


def _id_results(v: Any) -> bool:
    """@id returns each value unchanged: Nil, Cons(a, Nil), a ref holding b, (a, b)."""
    nil, cons, ref, tup = v
    return (isinstance(nil, adapter.ConstructorValue) and nil.constructor.name_hint == "Nil"
            and not nil.fields
            and isinstance(cons, adapter.ConstructorValue) and cons.constructor.name_hint == "Cons"
            and np.array_equal(cons.fields[0], _ROW) and not cons.fields[1].fields
            and isinstance(ref, adapter.RefCell) and np.array_equal(ref.value, _ROW2)
            and np.array_equal(tup[0], _ROW) and np.array_equal(tup[1], _ROW2))


TABLE: tuple[Transcribed, ...] = (
    Transcribed(
        "test_ir_text_printer.py::test_meta_data",
        "conv2d attrs print (`channels=2`) with and without metadata; the symbolic batch "
        "dimension (te.size_var, a TIR variable) is made concrete",
        "expr",
        "fn (%x: Tensor[(1, 10, 224, 224), float32], %w) {\n"
        "  nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=2, kernel_size=[3, 3])\n}",
        "prints", ("channels=2",)),
    Transcribed(
        "test_ir_text_printer.py::test_meta_data",
        "`relay.const([1, 2, 3])` prints as meta[relay.Constant][0] with a metadata section "
        "(`type_key`), which printing without metadata leaves out",
        "expr", "meta[relay.Constant][0]", "prints", ("meta[relay.Constant][0]", "type_key"),
        forbidden=("type_key",),
        meta={"relay.Constant": [MetaEntry("relay.Constant",
                                           {"value": [1, 2, 3], "dtype": "int32"})]}),
    Transcribed(
        "test_backend_interpreter.py::test_function_taking_adt_ref_tuple",
        "the Prelude's @id applied to a Nil, a Cons, a ref and a tuple returns each unchanged "
        "(the test builds those values as runtime containers in Python; here they are built "
        "by the program, 2 tuple fields instead of 10)",
        "module",
        VERSION + "\n"
        "def @main(%a: Tensor[(1, 10), float32], %b: Tensor[(1, 10), float32]) {\n"
        "  let %nil: List[Tensor[(1, 10), float32]] = Nil;\n"
        "  (@id(%nil), @id(Cons(%a, %nil)), @id(ref(%b)), @id((%a, %b)))\n}",
        "evaluates", _id_results, std=("prelude.rly",), inputs=lambda: [_ROW, _ROW2]),
    Transcribed(
        "test_pass_plan_devices.py::test_stack_overflow",
        "the 1555-deep chain of graph bindings parses, type-checks and round-trips (the text "
        "is built by a Python loop there and here; PlanDevices itself is not run)",
        "module", _stack_overflow_text(), "parses"),
)


def _full_text(t: Transcribed, src: TvmSource) -> str:
    text = t.text
    if t.std:
        from .shim.module import joined_text  # one joining rule for both

        text = joined_text([src.std(s) for s in t.std] + [text])
    if t.meta:
        text = text + "\n" + metadata_section(t.meta)
    return text


def run_entry(t: Transcribed, src: TvmSource) -> Check:
    """Run one transcription; the check passes only if it shows what TVM's test shows."""
    file, test = t.test.split("::")
    path = f"tests/python/relay/{file}"
    text = _full_text(t, src)

    def done(status: str, cause: str = "", detail: str = "") -> Check:
        return Check(path, test, 0, "transcribed", status, cause, detail or t.what, text)

    parse = adapter.parse if t.kind == "module" else adapter.parse_expr
    try:
        node = parse(text)
        if t.check == "prints":
            full = adapter.astext(node, show_meta=True, header=True)
            bare = adapter.astext(node, show_meta=False, header=True)
            missing = [s for s in t.expected if s not in full]
            leaked = [s for s in t.forbidden if s in bare]
            if missing or leaked:
                return done(BUG, "printer output differs from TVM's",
                            f"missing {missing}, present without metadata {leaked}: {full!r}"[
                                :400])
            adapter.assert_alpha_equal(parse(full), node)
        elif t.check == "parses":
            typed = adapter.infer_types(node)
            adapter.assert_alpha_equal(parse(adapter.astext(typed.module, typed.types)),
                                       typed.module)
        elif t.check == "evaluates":
            adapter.infer_types(node)
            value = adapter.evaluate(node, t.inputs() if t.inputs else [])
            if not t.expected(value):
                return done(BUG, "value differs from TVM's (interpreter)",
                            one_line(f"got {value!r}"))
    except AssertionError as e:
        return done(BUG, "round trip not alpha-equal", one_line(e))
    except Exception as e:  # the project's failure is the finding
        status, cause, detail = classify_error(e, type(e).__name__)
        return done(status, cause, detail)
    return done(PASS)


def run_table(src: TvmSource) -> list[Check]:
    return [run_entry(t, src) for t in TABLE]
