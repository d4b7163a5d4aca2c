"""Bad Relay text gives a located ParseError (line, column, what was expected, what was found)."""

from __future__ import annotations

import pytest

from extractor.diagnostics import LocatedError
from extractor.relay.errors import ParseError
from extractor.relay.parser import MAX_DEPTH, parse, parse_expr

V = '#[version = "0.0.5"]\n'
LIST_DEFN = "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n"


def perr(text: str, *, module: bool = False, source: str = "from_string") -> ParseError:
    """The ParseError that parsing `text` raises (as a module or as an expression)."""
    with pytest.raises(ParseError) as info:
        if module:
            parse(text, source)
        else:
            parse_expr(text, source)
    e = info.value
    assert isinstance(e, LocatedError) and e.span is not None
    assert e.text == text  # the source is attached so render() can show the caret line
    return e


def at(e: ParseError) -> tuple[int, int]:
    assert e.span is not None
    return e.span.line, e.span.col


# --------------------------------------------------------------------------------- truncated input


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        (V + "def @main() {", (2, 14), "expected an expression but found end of file"),
        (V + "def @main(%x: float32) {\n  %x", (3, 5),
         "expected `}` closing the function body but found end of file"),
        (V + "def @main(%x: float32", (2, 22),
         "expected `,` or `)` in the parameter list but found end of file"),
        (V + "def @main(%x: Tensor[(3, ", (2, 26), "expected a dimension"),
        (V + "def @main() { let %x = 1 }", (2, 26),
         "expected `;` after the let value but found `}`"),
        (V + "def @main() { let %x = 1; }", (2, 27),
         "expected an expression but found `}`"),
        (V + LIST_DEFN.replace("Nil,\n}\n", ""), (4, 3),
         "expected a constructor name but found end of file"),
        (V + "def @main() { if (True) { 1 } }", (2, 31),
         "expected `else` but found `}`"),
        (V + "def", (2, 4), "expected a global name (`@name`) after `def` but found end of file"),
    ],
)
def test_truncated_module(text, where, message):
    e = perr(text, module=True)
    assert at(e) == where
    assert message in e.message


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("(1, 2", (1, 6), "expected `,` or `)` in the tuple but found end of file"),
        ("1 +", (1, 4), "expected an expression but found end of file"),
        ("let %x = 1", (1, 11), "expected `;` after the let value but found end of file"),
        ("ref_write(1", (1, 12), "expected `,` and a value in `ref_write(ref, value)`"),
        ("add(1, 2", (1, 9), "expected `,` or `)` in the argument list but found end of file"),
        ("fn (%x) -> { %x }", (1, 12), "expected a type but found `{`"),
        ("", (1, 1), "expected an expression but found end of file"),
        ("(1 2)", (1, 4), "expected `,` or `)` but found integer `2`"),
        ("(1, 2,, 3)", (1, 7), "expected an expression but found `,`"),
        ("let 1 = 2; 3", (1, 5), "expected a local variable (`%name`) after `let`"),
        ("let %0 = 2; 3", (1, 5), "expected a local variable (`%name`) after `let` but found "
                                  "graph variable `%0`"),
        ("(1, 2).x", (1, 8), "expected a tuple index after `.` but found identifier `x`"),
        ("1 2", (1, 3), "expected end of input but found integer `2`"),
    ],
)
def test_truncated_or_malformed_expression(text, where, message):
    e = perr(text)
    assert at(e) == where
    assert message in e.message


def test_unterminated_comment_and_string():
    e = perr("1 + /* open /* nested */ still open")
    assert at(e) == (1, 5) and "unterminated block comment" in e.message
    e = perr('nn.conv2d(1, 2, data_layout="NCHW)')
    assert at(e) == (1, 29) and "unterminated string" in e.message


def test_metadata_truncated_or_missing():
    e = perr(V + "def @main() { meta[relay.Constant][0] }\n#[metadata]\n{\"root\": 1, \"nod",
             module=True)
    assert at(e) == (3, 1) and "invalid #[metadata] section" in e.message
    e = perr(V + "def @main() {\n  meta[relay.Constant][0]\n}", module=True)
    assert at(e) == (3, 3) and "no `#[metadata]` section" in e.message
    meta = ('#[metadata]\n{"root": 1, "nodes": [{"type_key": ""}, {"type_key": "Map", "keys": '
            '["VirtualDevice"], "data": [2]}, {"type_key": "Array", "data": [3]}, '
            '{"type_key": "VirtualDevice", "attrs": {}}], "b64ndarrays": []}')
    e = perr("meta[VirtualDevice][1]\n" + meta)
    assert at(e) == (1, 1) and "out of range: the metadata has 1 `VirtualDevice` entries" in (
        e.message)
    e = perr("meta[VirtualDevice][0]\n" + meta)
    assert at(e) == (1, 1) and "cannot be used as an expression" in e.message
    e = perr("meta[relay.Constant][0]\n" + meta)
    assert "has no `relay.Constant` entries" in e.message


# -------------------------------------------------------------------------------------- bad tokens


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("1.0", (1, 1), "invalid integer number `1.0`"),
        ("(1, 1e5)", (1, 5), "invalid integer number `1e5`"),
        ("65505f16", (1, 1), "float literal `65505f16` is out of range for float16"),
        ("1e39f", (1, 1), "out of range for float32"),
        ("128i8", (1, 1), "integer literal `128i8` is out of range for int8"),
        ("99999999999999999999", (1, 1), "out of range for int64"),
        ("1-2", (1, 1), "invalid integer number `1-2`"),
        ("3f8", (1, 1), "invalid float width `f8`"),
        ("12abc", (1, 1), "invalid number `12abc`"),
        ("1 $ 2", (1, 3), "unexpected character `$`"),
        ("free_var %r;\n!%r", (2, 1), "unexpected `!`"),
        ("#[foo]\n1", (1, 1), "unknown attribute"),
        ("% x", (1, 1), "expected a variable name after `%`"),
        ("@ f", (1, 1), "expected a global name after `@`"),
        ("meta[relay.Constant]", (1, 1), "malformed meta reference"),
        ("1\r2", (1, 2), "carriage return must be followed by a newline"),
    ],
)
def test_bad_tokens(text, where, message):
    e = perr(text)
    assert at(e) == where
    assert message in e.message


def test_version_header():
    e = perr("def @main() { 1 }", module=True)
    assert at(e) == (1, 1) and 'expected the version header `#[version = "0.0.5"]`' in e.message
    assert "found `def`" in e.message
    e = perr('#[version = "0.0.4"]\ndef @main() { 1 }', module=True)
    assert at(e) == (1, 1) and 'unsupported text format version "0.0.4"' in e.message
    e = perr(V + "1", module=True)
    assert at(e) == (2, 1) and "expected `def`, `type` or `extern` but found integer `1`" in (
        e.message)


# ------------------------------------------------------------------------- operators and attributes


def test_unknown_operator_with_suggestion():
    e = perr("free_var %x; free_var %w;\nnn.dnse(%x, %w, units=3)")
    assert at(e) == (2, 1)
    assert e.message.startswith("unknown operator `nn.dnse`; did you mean `nn.dense`")
    assert e.span is not None and e.span.end_col == 8
    e = perr(V + "def @main(%x: float32) {\n  %0 = multipy(%x, %x);\n  %0\n}", module=True)
    assert at(e) == (3, 8) and "did you mean `multiply`" in e.message
    e = perr("frobnicate(1)")
    assert e.message == "unknown operator `frobnicate`"


def test_wrong_attribute_names():
    e = perr("free_var %x; free_var %w;\nnn.dense(%x, %w, unit=3)")
    assert at(e) == (2, 18)
    assert e.message == ("unknown attribute `unit` for operator `nn.dense` "
                         "(valid: `units`, `out_dtype`)")
    e = perr("free_var %x;\nsum(%x, axis=[1], keepdim=True)")
    assert at(e) == (2, 19) and "`axis`, `keepdims`, `exclude`" in e.message
    e = perr("add(1, 2, axis=1)")
    assert at(e) == (1, 11) and "operator `add` takes no attributes" in e.message
    e = perr("nn.softmax(1, axis=1, axis=2)")
    assert at(e) == (1, 23) and "duplicate attribute `axis`" in e.message
    e = perr('nn.softmax(1, attrs_type_key="relay.attrs.DenseAttrs")')
    assert at(e) == (1, 15) and "does not match operator `nn.softmax`" in e.message


def test_non_operator_call_attrs_need_type_key():
    e = perr("free_var %f;\n%f(1, name=\"x\")")
    assert at(e) == (2, 7) and 'need `attrs_type_key="..."`' in e.message
    e = perr("free_var %f; %f(1, attrs_type_key=3)")
    assert "`attrs_type_key` must be a string" in e.message


# --------------------------------------------------------------------------- duplicates and scoping


def test_duplicate_definitions():
    e = perr(V + "def @id[A](%x: A) -> A { %x }\ndef @id[A](%x: A) -> A { %x }", module=True)
    assert at(e) == (3, 5) and "duplicate definition of global `@id`" in e.message
    e = perr(V + LIST_DEFN + LIST_DEFN, module=True)
    assert at(e) == (6, 6) and "duplicate definition of type `List`" in e.message
    e = perr(V + "type Ayy { Lmao }\ntype Haha { Lmao }", module=True)
    assert at(e) == (3, 13) and "duplicate constructor `Lmao` (already defined in type `Ayy`)" in (
        e.message)
    e = perr(V + "type Ayy { Lmao }\ntype Lmao { Ayy }", module=True)
    assert at(e) == (2, 12) and "constructor `Lmao` has the same name as a type" in e.message
    e = perr("free_var %x; free_var %x; %x")
    assert at(e) == (1, 23) and "duplicate free variable `%x`" in e.message


def test_scoping_errors():
    e = perr("if (True) { let %x = (); () } else { %x }")
    assert at(e) == (1, 38) and e.message == "unknown local variable `%x`"
    e = perr("let %y = { let %x = 1; %x }; %x")
    assert at(e) == (1, 30) and "unknown local variable `%x`" in e.message
    e = perr("(fn (%a) { %a }, %a)")
    assert at(e) == (1, 18)
    e = perr("%1 = 2; %2")
    assert at(e) == (1, 9) and "unbound graph variable `%2`" in e.message
    e = perr(V + "def @main() { @missing(1) }", module=True)
    assert at(e) == (2, 15) and "undefined global `@missing`" in e.message
    e = perr(V + "def @main(%x: Foo) { %x }", module=True)
    assert at(e) == (2, 15) and "unknown type `Foo`" in e.message
    e = perr(V + "def @main(%x: float33x) { %x }", module=True)
    assert at(e) == (2, 15) and "invalid dtype `float33x`" in e.message
    e = perr(V + LIST_DEFN + "def @f(%l: List[int32]) { match (%l) { Conz(_, _) => 1 } }",
             module=True)
    assert at(e) == (6, 40) and "unknown constructor `Conz` in pattern" in e.message
    e = perr(V + LIST_DEFN + "def @f(%l: List[int32]) {\n  match (%l) { Nil -> 1 }\n}",
             module=True)
    assert at(e) == (7, 20) and "expected `=>` after the pattern but found `->`" in e.message
    e = perr("free_var %t: Tensor[(3), flot32]; %t")
    assert at(e) == (1, 26) and "expected a dtype (e.g. `float32`) but found identifier" in (
        e.message)


# ------------------------------------------------------------------------------------------ nesting


def nest(open_: str, close: str, inner: str, n: int = 10_000) -> str:
    return open_ * n + inner + close * n


@pytest.mark.parametrize(
    ("kind", "text", "col"),
    [
        ("parens", nest("(", ")", "1"), MAX_DEPTH + 1),
        ("calls", nest("negative(", ")", "1"), 9 * MAX_DEPTH + 1),
        ("fn", nest("fn () { ", " }", "1"), 8 * MAX_DEPTH + 1),
        ("if", nest("if (True) { ", " } else { 0 }", "1"), 12 * (MAX_DEPTH - 1) + 5),
        ("blocks", nest("{", "}", "1"), MAX_DEPTH + 1),
        ("tuples", nest("(1, ", ")", "1"), 4 * (MAX_DEPTH - 1) + 2),
        ("refs", nest("ref(", ")", "1"), 4 * MAX_DEPTH + 1),
        ("types", "free_var %x: " + nest("(", ",)", "float32") + "; %x", 13 + MAX_DEPTH),
        ("ref types", "free_var %x: " + nest("ref(", ")", "float32") + "; %x",
         14 + 4 * (MAX_DEPTH - 1)),
        ("attr arrays", "nn.softmax(1, axis=" + nest("[", "]", "1") + ")", 20 + MAX_DEPTH - 1),
        ("let values", "let %a = " * 10_000 + "1;" + " %a;" * 9_999 + " %a",
         9 * MAX_DEPTH + 1),
        ("else if", "if (True) { 0 } else " * 10_000 + "{ 1 }", 21 * (MAX_DEPTH - 1) + 5),
    ],
)
def test_deep_nesting_is_a_located_error(kind, text, col):
    e = perr(text)
    assert e.message == f"nesting too deep (limit {MAX_DEPTH})", kind
    assert at(e) == (1, col), kind


def test_deep_nesting_in_patterns_and_modules():
    text = V + LIST_DEFN + "def @f(%l: List[int32]) {\n  match (%l) {\n    " + nest(
        "Cons(", ", _)", "_") + " => 1\n  }\n}"
    e = perr(text, module=True)
    assert e.message == f"nesting too deep (limit {MAX_DEPTH})"
    assert e.span is not None and e.span.line == 8
    lines = "\n".join("fn () {" for _ in range(10_000))
    e = perr(V + "def @main() {\n" + lines + "1" + "}" * 10_001, module=True)
    assert at(e) == (MAX_DEPTH + 3, 1)  # the body of the 500th `fn` is one level too deep


def test_moderate_nesting_is_fine():
    e = parse_expr(nest("(", ")", "1", 200))
    assert e.data.item() == 1
    e = parse_expr("let %a = " * 200 + "1;" + " %a;" * 199 + " %a")
    for _ in range(200):
        assert e.body is e.var
        e = e.value
    assert e.data.item() == 1
    e = parse_expr(nest("fn () { ", " }", "1", 200))
    for _ in range(200):
        e = e.body
    assert e.data.item() == 1


# ------------------------------------------------------------------------------------------ render


def test_render_shows_file_line_and_caret():
    text = V + "def @main(%x: float32) {\n  nn.dense(%x, %x, unit=3)\n}\n"
    e = perr(text, module=True, source="model.relay")
    out = e.render()
    assert out.splitlines() == [
        "model.relay:3:20: parse error: unknown attribute `unit` for operator `nn.dense` "
        "(valid: `units`, `out_dtype`)",
        "    nn.dense(%x, %x, unit=3)",
        "                     ^^^^",
    ]
    assert str(e) == out


def test_parse_file_rejects_invalid_utf8(tmp_path):
    from extractor.relay.parser import parse_file

    bad = tmp_path / "bad.relay"
    bad.write_bytes(V.encode() + b"def @main() {\n  \xff\n}\n")
    with pytest.raises(ParseError) as info:
        parse_file(bad)
    assert info.value.span is not None
    assert (info.value.span.line, info.value.span.col) == (3, 3)
    assert "not valid UTF-8" in info.value.message
