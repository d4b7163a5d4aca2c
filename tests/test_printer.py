"""The text printer writes what TVM v0.19's printer writes (relay-notes §1.3), and it re-parses."""

from __future__ import annotations

import json

import numpy as np
import pytest

from extractor.relay.alpha import assert_alpha_equal
from extractor.relay.ast import (
    EMPTY_ATTRS,
    Attrs,
    Call,
    Clause,
    Constant,
    Constructor,
    Function,
    FuncType,
    GlobalVar,
    If,
    IncompleteType,
    Let,
    Match,
    Module,
    Op,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    const,
    type_str,
)
from extractor.relay.json_io import load_metadata
from extractor.relay.parser import parse, parse_expr
from extractor.relay.printer import VERSION_HEADER, astext, format_float

T = TensorType((5, 10), "float32")
T3 = TensorType((3,), "float32")
A = TypeVar("A")
CONS = Constructor("Cons", (A, TypeCall("List", (A,))), "List", 0)
NIL = Constructor("Nil", (), "List", 1)
LIST = TypeData("List", (A,), (CONS, NIL))


def call(name: str, *args, **attrs):  # noqa: ANN001, ANN202 - test shorthand
    from extractor.relay.ops import lookup

    opdef = lookup(name)
    key = opdef.attrs_type_key if opdef else None
    return Call(Op(name), tuple(args), Attrs.of(key, **attrs) if attrs else EMPTY_ATTRS)


def last(e) -> str:  # noqa: ANN001
    """The printed expression without the `free_var` lines before it."""
    return astext(e).split("\n")[-1]


# ----------------------------------------------------------------------------------- types


@pytest.mark.parametrize(
    ("ty", "text"),
    [
        (T, "Tensor[(5, 10), float32]"),
        (TensorType((20,), "float32"), "Tensor[(20), float32]"),
        (TensorType((), "float32"), "float32"),
        (TensorType((), "bool"), "bool"),
        (TensorType((None, 3), "int64"), "Tensor[(?, 3), int64]"),
        (TensorType((2**40,), "int8"), "Tensor[(1099511627776i64), int8]"),
        (TupleType((T3, TensorType((), "int32"))), "(Tensor[(3), float32], int32)"),
        (TupleType((T3,)), "(Tensor[(3), float32],)"),
        (TupleType(()), "()"),
        (FuncType((T3,), T3), "fn (Tensor[(3), float32]) -> Tensor[(3), float32]"),
        (FuncType((), TupleType(())), "fn () -> ()"),
        (FuncType((A,), A, (A,)), "fn [A](A) -> A"),
        (RefType(FuncType((), TupleType(()))), "ref(fn () -> ())"),
        (TypeCall("List", (A,)), "List[A]"),
        (IncompleteType(), "_"),
    ],
)
def test_type_forms(ty, text) -> None:  # noqa: ANN001
    assert type_str(ty) == text


# -------------------------------------------------------------------------------- literals


@pytest.mark.parametrize(
    ("value", "dtype", "text"),
    [
        (3.0, "float32", "3f"),
        (0.1, "float32", "0.1f"),
        (1e-5, "float32", "1e-05f"),
        (1e10, "float32", "1e+10f"),
        (-2.5, "float32", "-2.5f"),
        (42, "int16", "42i16"),
        (-42, "int16", "-42i16"),
        (42, "int32", "42"),
        (-42, "int32", "-42"),
        (42, "int64", "42i64"),
        (3.0, "float16", "3f16"),
        (2.5, "float64", "2.5f64"),
        (0.1, "float64", "0.1f64"),
        (True, "bool", "True"),
        (False, "bool", "False"),
        (float("inf"), "float32", "inff"),
        (float("-inf"), "float32", "-inff"),
        (float(np.finfo(np.float32).max), "float32", "3.4028234663852886e+38f"),
        (65504.0, "float16", "6.55e+04f16"),
        (-(2**63), "int64", "-9223372036854775808i64"),
    ],
)
def test_scalar_constants_print_as_literals(value, dtype, text) -> None:  # noqa: ANN001
    c = Constant(np.asarray(value, dtype=dtype))
    assert astext(c) == text
    back = parse_expr(text)
    assert isinstance(back, Constant)
    assert back.data.dtype == c.data.dtype and back.data.tobytes() == c.data.tobytes()


def test_float32_literal_is_shortest_round_trip() -> None:
    x = np.float32(1 / 3)
    s = format_float(float(x), "float32")
    assert np.float32(float(s)) == x and len(s) <= 11
    assert format_float(0.1, "float64") == "0.1"


@pytest.mark.parametrize(
    "data",
    [np.asarray(float("nan"), "float32"), np.asarray(5, "int8"), np.asarray(7, "uint8"),
     np.asarray(7, "uint16"), np.asarray(7, "uint32"), np.asarray(7, "uint64"),
     np.ones((2, 2), "float32"), np.arange(3, dtype="int64")],
)
def test_other_constants_go_to_metadata(data) -> None:  # noqa: ANN001
    c = Constant(data)
    text = astext(Tuple((c, c)))
    assert text.startswith("(meta[relay.Constant][0], meta[relay.Constant][0])\n#[metadata]\n")
    meta_json = text.split("#[metadata]\n", 1)[1]
    table = load_metadata(meta_json)
    (got,) = table["relay.Constant"]
    assert got.data.dtype == data.dtype and got.data.tobytes() == data.tobytes()
    assert json.loads(meta_json)["attrs"]["tvm_version"] == "0.19.0"


def test_meta_indices_count_per_node_and_show_meta_false_omits_section() -> None:
    c1, c2 = const(np.zeros(2, "float32")), const(np.ones(2, "float32"))
    e = call("add", c1, call("add", c2, c1))
    text = astext(e, show_meta=False)
    assert "add(meta[relay.Constant][1], meta[relay.Constant][0])" in text
    assert "add(meta[relay.Constant][0], %0)" in text
    assert "#[metadata]" not in text and "metadata section has been omitted" in text


# ------------------------------------------------------------------------ graph-normal form


def test_arguments_are_hoisted_callee_after_arguments() -> None:
    x, y = Var("x", T3), Var("y", T3)
    e = Function((x, y), call("add", call("negative", x), y))
    assert astext(e) == (
        "fn (%x: Tensor[(3), float32], %y: Tensor[(3), float32]) {\n"
        "  %0 = negative(%x);\n"
        "  add(%0, %y)\n"
        "}"
    )


def test_function_temps_numbered_before_the_function() -> None:
    a, x = Var("a"), Var("x")
    inner = Function((a,), call("add", call("negative", a), a))
    e = Function((x,), Call(inner, (call("exp", x),)))
    assert astext(e) == (
        "fn (%x) {\n"
        "  %0 = exp(%x);\n"
        "  %2 = fn (%a) {\n"
        "    %1 = negative(%a);\n"
        "    add(%1, %a)\n"
        "  };\n"
        "  %2(%0)\n"
        "}"
    )


def test_shared_node_hoisted_once() -> None:
    x = Var("x")
    n = call("negative", x)
    text = astext(Function((x,), call("add", n, n)))
    assert text == "fn (%x) {\n  %0 = negative(%x);\n  add(%0, %0)\n}"
    back = parse_expr(text)
    assert isinstance(back, Function) and isinstance(back.body, Call)
    assert back.body.args[0] is back.body.args[1]


def test_unique_let_value_inline_and_atoms_inline() -> None:
    x, y = Var("x", T3), Var("y")
    e = Function((x,), Let(y, call("multiply", x, const(2.0)), Tuple((y, GlobalVar("g"), NIL))))
    assert astext(e) == (
        "fn (%x: Tensor[(3), float32]) {\n"
        "  let %y = multiply(%x, 2f);\n"
        "  (%y, @g, Nil)\n"
        "}"
    )


def test_let_in_value_position_is_parenthesised() -> None:
    y, z, a = Var("y"), Var("z"), Var("a")
    inner = Let(z, call("negative", call("exp", y)), z)
    text = astext(Function((y,), Let(a, inner, a)))
    assert text == (
        "fn (%y) {\n"
        "  let %a = (\n"
        "    %0 = exp(%y);\n"
        "    let %z = negative(%0);\n"
        "    %z\n"
        "  );\n"
        "  %a\n"
        "}"
    )
    assert_alpha_equal(parse_expr(text), Function((y,), Let(a, inner, a)))


def test_shared_let_is_hoisted_in_parentheses() -> None:
    y, z = Var("y"), Var("z")
    inner = Let(z, call("negative", y), z)
    text = astext(Function((y,), Tuple((inner, inner))))
    assert text == (
        "fn (%y) {\n"
        "  %0 = (\n"
        "    let %z = negative(%y);\n"
        "    %z\n"
        "  );\n"
        "  (%0, %0)\n"
        "}"
    )


def test_let_shared_mid_chain_is_not_printed_twice() -> None:
    a, b = Var("a"), Var("b")
    tail = Let(b, const(1.0), b)
    e = Tuple((Let(a, const(2.0), tail), tail))
    text = astext(e)
    assert text.count("let %b") == 1
    assert_alpha_equal(parse_expr(text), e)


def test_projection_tuple_and_nested_projection() -> None:
    x = Var("x", TupleType((TupleType((T3, T3)), T3)))
    e = Function((x,), Tuple((TupleGetItem(TupleGetItem(x, 0), 1), Tuple((x,)))))
    assert astext(e) == (
        "fn (%x: ((Tensor[(3), float32], Tensor[(3), float32]), Tensor[(3), float32])) {\n"
        "  %0 = %x.0;\n"
        "  %1 = %0.1;\n"
        "  %2 = (%x,);\n"
        "  (%1, %2)\n"
        "}"
    )


def test_projection_of_int_literal_is_parenthesised() -> None:
    e = TupleGetItem(const(42), 0)
    assert astext(e) == "(42).0"


def test_if_and_refs() -> None:
    c, r = Var("c", TensorType((), "bool")), Var("r", RefType(T3))
    e = Function((c, r), If(call("logical_not", c), RefWrite(r, RefRead(r)),
                            RefCreate(const(1.0))))
    assert astext(e) == (
        "fn (%c: bool, %r: ref(Tensor[(3), float32])) {\n"
        "  %0 = logical_not(%c);\n"
        "  if (%0) {\n"
        "    %1 = ref_read(%r);\n"
        "    ref_write(%r, %1)\n"
        "  } else {\n"
        "    ref(1f)\n"
        "  }\n"
        "}"
    )


def test_operators_print_as_calls_never_infix() -> None:
    x = Var("x")
    text = astext(call("subtract", call("divide", x, x), call("less", x, x)))
    assert "divide(%x, %x)" in text and "less(%x, %x)" in text and "subtract(%0, %1)" in text
    for infix in (" + ", " - ", " / ", " < ", " * "):
        assert infix not in text


# --------------------------------------------------------------------------------- naming


def test_names_made_unique_and_valid() -> None:
    vs = [Var("x"), Var("x"), Var("x"), Var(""), Var("1a"), Var("a.b"), Var("_p"), Var("x1")]
    fn = Function(tuple(vs), Tuple(tuple(vs)))
    text = astext(fn)
    head = text.split("{")[0]
    assert head == "fn (%x, %x1, %x2, %v, %v1a, %a_b, %v_p, %x11) "
    back = parse_expr(text)
    assert_alpha_equal(back, fn)


def test_free_vars_declared() -> None:
    a, b = Var("a", T3), Var("b")
    text = astext(Function((), call("add", a, b)))
    assert text == ("free_var %a: Tensor[(3), float32];\nfree_var %b;\n"
                    "fn () {\n  add(%a, %b)\n}")
    assert_alpha_equal(parse_expr(text), Function((), call("add", a, b)))


# ------------------------------------------------------------------------------ attributes


def test_only_non_default_attrs_printed_and_required_ones_always() -> None:
    x, w = Var("x"), Var("w")
    assert last(call("nn.dense", x, w)) == "nn.dense(%x, %w, units=None)"
    assert last(call("nn.dense", x, w, units=20)) == "nn.dense(%x, %w, units=20)"
    assert last(call("transpose", x)) == "transpose(%x, axes=None)"
    assert last(call("nn.bias_add", x, w, axis=1)) == "nn.bias_add(%x, %w)"
    assert last(call("nn.bias_add", x, w, axis=-1)) == "nn.bias_add(%x, %w, axis=-1)"
    assert last(call("sum", x, axis=(-1,), keepdims=True)) == (
        "sum(%x, axis=[-1], keepdims=True)")
    assert last(call("sum", x, axis=(1,), exclude=True, keepdims=False)) == (
        "sum(%x, axis=[1], exclude=True)")
    assert last(call("shape_of", x, dtype="int32")) == "shape_of(%x)"
    assert last(call("cast", x, dtype="float32")) == 'cast(%x, dtype="float32")'
    assert last(call("take", x, w, axis=0)) == "take(%x, %w, axis=0)"
    assert last(call("nn.batch_norm", x, x, x, x, x, epsilon=2e-5, scale=False)) == (
        "nn.batch_norm(%x, %x, %x, %x, %x, epsilon=2e-05f, scale=False)")
    assert last(call("nn.conv2d", x, w, padding=(1, 1, 1, 1), data_layout="NHWC")) == (
        'nn.conv2d(%x, %w, padding=[1, 1, 1, 1], data_layout="NHWC")')
    assert last(call("clip", x, a_min=0.0, a_max=6.0)) == "clip(%x, a_min=0f, a_max=6f)"
    assert last(call("expand_dims", x, axis=2**40)) == "expand_dims(%x, axis=1099511627776i64)"
    big = call("clip", x, a_min=float("-inf"), a_max=1e300)
    assert last(big) == "clip(%x, a_min=-inff, a_max=1e+300f64)"
    assert_alpha_equal(parse_expr(astext(big)), big)


def test_non_op_callee_attrs_carry_type_key() -> None:
    f = Var("f")
    e = Call(f, (Var("x"),), Attrs.of("relay.attrs.MyAttrs", k=1))
    text = astext(e)
    assert text.startswith("free_var %x;\nfree_var %f;\n")  # arguments before the callee
    assert last(e) == '%f(%x, k=1, attrs_type_key="relay.attrs.MyAttrs")'
    assert_alpha_equal(parse_expr(text), e)


def test_function_attrs_and_types_comments() -> None:
    x = Var("x", T3)
    body = call("exp", x)
    fn = Function((x,), body, T3, (), Attrs.of(Primitive=1))
    types = {id(x): T3, id(body): T3, id(fn): FuncType((T3,), T3)}
    assert astext(fn, types) == (
        "fn (%x: Tensor[(3), float32] /* ty=Tensor[(3), float32] */, Primitive=1) "
        "-> Tensor[(3), float32] {\n"
        "  exp(%x) /* ty=Tensor[(3), float32] */\n"
        "} /* ty=fn (Tensor[(3), float32]) -> Tensor[(3), float32] */"
    )


def test_let_binding_site_type_comment() -> None:
    x, y = Var("x", T3), Var("y", T3)
    value = call("negative", x)
    fn = Function((x,), Let(y, value, Tuple((y,))))
    text = astext(fn, {id(y): T3, id(value): T3})
    assert ("let %y: Tensor[(3), float32] /* ty=Tensor[(3), float32] */ = "
            "negative(%x) /* ty=Tensor[(3), float32] */;") in text
    assert_alpha_equal(parse_expr(text), fn)


# ------------------------------------------------------------------------ match and ADTs


def test_module_layout_adt_and_match() -> None:
    xs, h, t = Var("xs", TypeCall("List", (T3,))), Var("h"), Var("t")
    m = Match(xs, (
        Clause(PatternConstructor(CONS, (PatternVar(h), PatternWildcard())),
               Let(t, call("exp", h), t)),
        Clause(PatternConstructor(NIL), Call(NIL, ())),
    ))
    ys = Var("xs", xs.type_annotation)
    part = Match(ys, (Clause(PatternTuple((PatternWildcard(), PatternVar(Var("q")))),
                             const(0.0)),), complete=False)
    storage = TypeData("Storage", (), (), extern=True)
    mod = Module({"main": Function((xs,), m), "aux": Function((ys,), part)},
                 {"List": LIST, "Storage": storage})
    text = astext(mod)
    assert text == (
        f"{VERSION_HEADER}\n"
        "type List[A] {\n"
        "  Cons(A, List[A]),\n"
        "  Nil,\n"
        "}\n"
        "\n"
        "extern type Storage\n"
        "\n"
        "def @aux(%xs: List[Tensor[(3), float32]]) {\n"
        "  match? (%xs) {\n"
        "    (_, %q) => 0f,\n"
        "  }\n"
        "}\n"
        "\n"
        "def @main(%xs1: List[Tensor[(3), float32]]) {\n"
        "  match (%xs1) {\n"
        "    Cons(%h, _) => {\n"
        "      let %t = exp(%h);\n"
        "      %t\n"
        "    },\n"
        "    Nil => Nil,\n"
        "  }\n"
        "}\n"
    )
    back = parse(text)
    assert_alpha_equal(back, mod)


def test_nullary_constructor_call_prints_bare_and_hoists_in_arguments() -> None:
    x = Var("x")
    e = Call(CONS, (x, Call(NIL, ())))
    assert astext(e) == "free_var %x;\n%0 = Nil;\nCons(%x, %0)"


# --------------------------------------------------------------------------------- seed


def test_seed_program_round_trips(seed_path) -> None:  # noqa: ANN001
    text = seed_path.read_text()
    mod = parse(text, str(seed_path))
    printed = astext(mod)
    assert printed.startswith(VERSION_HEADER + "\ndef @main(%input_0: Tensor[(5, 10), float32]")
    assert "  let %x: (float32, Tensor[(5, 20), float32]) = (\n" in printed
    assert "nn.dense(%input_0, %Wrapper_Dense_weight, units=20);" in printed
    assert "nn.bias_add(%x1, %Wrapper_Dense_bias, axis=-1);" in printed
    assert "nn.log_softmax(%pred);" in printed
    assert_alpha_equal(parse(printed), mod)
    assert astext(parse(printed)) == printed


# ----------------------------------------------------------------------------- deep input


def test_twenty_thousand_lets_print_and_reparse() -> None:
    x = Var("x", T3)
    vs = [Var("t") for _ in range(20_000)]
    body: object = vs[-1]
    for i in reversed(range(len(vs))):
        prev = vs[i - 1] if i else x
        body = Let(vs[i], call("negative", prev), body)  # type: ignore[arg-type]
    fn = Function((x,), body)  # type: ignore[arg-type]
    text = astext(fn)
    lines = text.split("\n")
    assert len(lines) == 20_003
    assert lines[1] == "  let %t = negative(%x);" and lines[2] == "  let %t1 = negative(%t);"
    assert lines[-2] == "  %t19999"
    assert_alpha_equal(parse_expr(text), fn)


def test_deep_nesting_does_not_overflow() -> None:
    x = Var("x")
    e: object = x
    for _ in range(5_000):
        e = call("negative", e)
    text = astext(Function((x,), e))  # type: ignore[arg-type]
    assert text.split("\n")[-2] == "  negative(%4998)"
    deep: object = const(1.0)
    for i in range(3_000):
        v = Var(f"a{i}")
        deep = Let(v, deep, v)  # type: ignore[arg-type]
    text2 = astext(deep)  # type: ignore[arg-type]
    assert text2.startswith("let %a2999 = (\n  let %a2998 = (\n")
