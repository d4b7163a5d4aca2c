"""The Relay text parser reads TVM v0.19 printouts and its test programs (relay-notes §1, §4.4)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from extractor.relay.ast import (
    UNIT,
    Attrs,
    Call,
    Constant,
    Constructor,
    Function,
    FuncType,
    GlobalVar,
    If,
    IncompleteType,
    Let,
    Match,
    MetaRef,
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
    TypeVar,
    Var,
    let_chain,
    post_order,
)
from extractor.relay.parser import parse, parse_expr, parse_file
from tests.support.paths import DATA

RELAY = DATA / "relay"
V = '#[version = "0.0.5"]\n'

F32 = TensorType((), "float32")
I32 = TensorType((), "int32")
T3 = TensorType((3,), "float32")

LIST_DEFN = """
type List[A] {
  Cons(A, List[A]),
  Nil,
}
"""


def scalar(e: object) -> object:
    assert isinstance(e, Constant) and e.data.shape == ()
    return e.data.item()


def is_call(e: object, op: str, nargs: int = 2) -> bool:
    return (
        isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == op and len(e.args) == nargs
    )


def count(root: object, kind: type) -> int:
    return sum(isinstance(n, kind) for n in post_order(root))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------ seed program


def test_seed_copy_is_exact_and_parses():
    copy = DATA / "seed_issue_program.relay"
    # the bytes of the seed program shipped with the project (apache/tvm #6803), verbatim
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == (
        "8c0c13b107cfa9b7113fe59a4348f23132e9955a92b8bc99f5fa4a492186a2c8")
    mod = parse_file(copy)
    assert list(mod.functions) == ["main"]
    main = mod["main"]
    assert [p.name_hint for p in main.params] == [
        "input_0", "output_0", "Wrapper_Dense_weight", "Wrapper_Dense_bias"]
    assert [p.type_annotation for p in main.params] == [
        TensorType((5, 10), "float32"), TensorType((5, 20), "float32"),
        TensorType((20, 10), "float32"), TensorType((20,), "float32")]
    assert main.ret_type == TupleType((F32, TensorType((5, 20), "float32")))
    outer = main.body
    assert isinstance(outer, Let) and outer.var.name_hint == "x"
    assert outer.body is outer.var
    lets, body = let_chain(outer.value)  # the parenthesised let block as a let value
    assert [lt.var.name_hint for lt in lets] == ["x1", "pred", "x2", "x3", "x4"]
    assert body is lets[-1].var
    dense = lets[0].value
    assert is_call(dense, "nn.dense") and dense.args == (main.params[0], main.params[2])
    assert dense.attrs == Attrs((("units", 20),), "relay.attrs.DenseAttrs")
    bias = lets[1].value
    assert bias.attrs == Attrs((("axis", -1),), "relay.attrs.BiasAddAttrs")
    assert bias.args[0] is lets[0].var
    assert lets[2].value.attrs.type_key == "relay.attrs.SoftmaxAttrs"
    assert is_call(lets[3].value, "nn.cross_entropy_with_logits")
    assert isinstance(lets[4].value, Tuple)
    assert lets[4].value.fields == (lets[3].var, lets[1].var)
    # spans name the file, line and column
    assert dense.span.source == str(copy)
    assert (dense.span.line, dense.span.col) == (4, 43)
    assert (lets[1].var.span.line, lets[1].var.span.col) == (5, 9)


# ------------------------------------------------------------------------------- gradient output


def test_grad_square_printout_parses():
    path = RELAY / "grad_square.relay"
    mod = parse_file(path)
    fn = mod["main"]
    assert isinstance(fn, Function)
    assert fn.ret_type == TupleType((T3, TupleType((T3,))))
    # §2.2: 3 RefCreate, 6 RefRead, 4 RefWrite in the AST
    assert [count(fn, k) for k in (RefCreate, RefRead, RefWrite)] == [3, 6, 4]
    lets, body = let_chain(fn.body)
    names = [lt.var.name_hint for lt in lets]
    assert names == ["x_0", "x_30", "x_31", "x_32", "x_33"]
    bp_t = RefType(FuncType((), UNIT))
    r_t = TupleType((T3, RefType(T3)))
    assert lets[0].var.type_annotation == bp_t
    assert lets[1].var.type_annotation == r_t
    # the reverse-mode function literal, hoisted as %6 and called in place
    call = lets[2].value
    assert isinstance(call, Call) and isinstance(call.op, Function)
    rev = call.op
    assert [p.type_annotation for p in rev.params] == [r_t, bp_t]
    assert call.args == (lets[1].var, lets[0].var)
    rlets, rbody = let_chain(rev.body)
    assert rbody is rlets[6].var  # %x_7
    write_bp = rlets[-1].value
    assert isinstance(write_bp, RefWrite) and write_bp.ref is rev.params[1]
    closure = write_bp.value
    assert isinstance(closure, Function) and closure.ret_type == UNIT
    clets, _ = let_chain(closure.body)
    # the closure reads variables of the enclosing function: the very same Var objects
    assert clets[0].value.tuple_value is rlets[6].var
    assert clets[-4].value.op is rlets[7].var  # %x_8() calls the previous backpropagator
    # tuple projections: %7 = %x_31.1 is the ref that is seeded
    seed = lets[3].value
    assert isinstance(seed, RefWrite) and isinstance(seed.ref, TupleGetItem)
    assert seed.ref.index == 1 and seed.ref.tuple_value is lets[2].var
    # the body tuple ends in a one-element tuple of a ref_read
    assert isinstance(body, Tuple) and isinstance(body.fields[1], Tuple)
    assert isinstance(body.fields[1].fields[0], RefRead)
    # the same text is also an expression
    e = parse_expr(path.read_text())
    assert isinstance(e, Function) and count(e, RefWrite) == 4


def test_bare_nested_let_value_as_gradient_prints_it():
    text = V + """
    fn (%x: float32) -> float32 {
      let %y: float32 = let %a: float32 = %x;
        let %b: float32 = multiply(%a, %a) /* ty=float32 */;
        %b;
      let %z = let %c = 1f; %0 = (%c, %y); %0.0;
      %z
    }
    """
    fn = parse_expr(text)
    lets, body = let_chain(fn.body)
    assert [lt.var.name_hint for lt in lets] == ["y", "z"]
    inner, inner_body = let_chain(lets[0].value)
    assert [lt.var.name_hint for lt in inner] == ["a", "b"]
    assert inner_body is inner[1].var and inner[0].value is fn.params[0]
    zlets, zbody = let_chain(lets[1].value)
    assert [lt.var.name_hint for lt in zlets] == ["c"]
    assert isinstance(zbody, TupleGetItem)
    assert zbody.tuple_value.fields == (zlets[0].var, lets[0].var)
    assert body is lets[1].var


def test_let_value_forms_parenthesised_and_braced():
    for value in ("(let %b = 1; %b)", "{ let %b = 1; %b }", "let %b = 1; %b"):
        e = parse_expr(f"let %a = {value}; %a")
        assert isinstance(e, Let) and e.body is e.var
        inner = e.value
        assert isinstance(inner, Let) and inner.var.name_hint == "b" and inner.body is inner.var
        assert scalar(inner.value) == 1


# ---------------------------------------------------------------------------------- DCE programs

DCE_TESTS = ["dead_let", "one_live_let", "nested_let", "live_recursion", "dead_recursion",
             "add_with_let", "tuple_get_item", "inline_into_function", "impure_op", "impure_func",
             "refs"]


@pytest.mark.parametrize("name", DCE_TESTS)
@pytest.mark.parametrize("stage", ["before", "after"])
def test_dce_programs_parse(name, stage):
    mod = parse_file(RELAY / f"dce_{name}.{stage}.relay")
    assert "main" in mod.functions
    for fn in mod.functions.values():
        assert isinstance(fn, Function)


def test_dce_complexity():
    """test_complexity's inception_v3 (built by Python in TVM) is read back from its printout."""
    from aliaslog.zoo.relay_models import build_relay_typed
    from extractor.relay.alpha import assert_alpha_equal
    from extractor.relay.printer import astext
    from extractor.relay.typeinfer import infer_types

    typed = build_relay_typed("inception_v3")
    mod = parse(astext(typed.module, types=typed.types), "inception_v3.relay")
    assert_alpha_equal(mod, typed.module)  # annotations included
    main = mod["main"]
    assert len(main.params) == 473 and main.params[0].name_hint == "data"
    assert main.params[-1].name_hint == "fc2_bias"  # TVM's own name for the fc1 bias
    assert infer_types(mod).module["main"].ret_type == TensorType((1, 1000), "float32")


def test_dce_live_recursion_let_var_in_scope_of_its_value():
    main = parse_file(RELAY / "dce_live_recursion.before.relay")["main"]
    let = main.body
    assert isinstance(let, Let) and let.var.name_hint == "f"
    f = let.value
    assert isinstance(f, Function) and f.ret_type == I32
    assert [p.type_annotation for p in f.params] == [I32, I32]  # `int` means int32
    branch = f.body
    assert isinstance(branch, If)
    assert is_call(branch.cond, "equal") and branch.cond.args[0] is f.params[0]
    rec = branch.false_branch
    assert isinstance(rec, Call) and rec.op is let.var  # the closure calls itself
    assert is_call(rec.args[0], "subtract") and is_call(rec.args[1], "log", 1)
    assert isinstance(let.body, Call) and let.body.op is let.var


def test_dce_add_with_let_and_tuple_get_item_shapes():
    e = parse_file(RELAY / "dce_add_with_let.before.relay")["main"].body
    assert is_call(e, "add") and isinstance(e.args[0], Let) and scalar(e.args[1]) == 2
    assert scalar(e.args[0].body) == 3
    g = parse_file(RELAY / "dce_tuple_get_item.after.relay")["main"].body
    assert isinstance(g, TupleGetItem) and g.index == 0
    assert [scalar(f) for f in g.tuple_value.fields] == [1, 2, 3, 4]


def test_dce_impure_op_metadata_and_graph_binding():
    before = parse_file(RELAY / "dce_impure_op.before.relay")
    assert before.type_defs["Storage"].extern and before.type_defs["Storage"].constructors == ()
    lets, body = let_chain(before["main"].body)
    assert [lt.var.name_hint for lt in lets] == ["size", "alignment", "x", "_"]
    assert lets[0].var.type_annotation == TensorType((), "int64")
    cast = lets[0].value
    assert cast.attrs == Attrs((("dtype", "int64"),), "relay.attrs.CastAttrs")
    alloc = lets[2].value
    assert is_call(alloc, "memory.alloc_storage", 3)  # size, shape (a meta constant), alignment
    assert alloc.args[1].data.tolist() == [64, 2]
    vd = alloc.attrs["virtual_device"]
    assert isinstance(vd, MetaRef) and vd.type_key == "VirtualDevice" and vd.index == 0
    assert vd.fields["device_type_int"] == "1"
    kill = lets[3].value
    assert is_call(kill, "memory.kill", 1) and kill.args[0] is lets[2].var
    assert scalar(body) == 0
    after = parse_file(RELAY / "dce_impure_op.after.relay")["main"].body
    assert isinstance(after, Let) and is_call(after.value.args[0], "memory.alloc_storage", 3)


def test_dce_impure_func_and_refs_globals():
    mod = parse_file(RELAY / "dce_impure_func.before.relay")
    y = mod["main"].body
    assert isinstance(y.value, Call) and y.value.op == GlobalVar("f") and y.value.args == ()
    refs = parse_file(RELAY / "dce_refs.before.relay")
    f = refs["f"]
    assert f.params[0].type_annotation is None  # no inference in the parser
    flets, _ = let_chain(f.body)
    assert isinstance(flets[0].value, RefRead) and isinstance(flets[1].value, RefWrite)
    mlets, _ = let_chain(refs["main"].body)
    assert isinstance(mlets[0].value, RefCreate)
    assert mlets[1].value.args == (mlets[0].var,) and mlets[2].value.args == (mlets[0].var,)


def test_dce_inline_into_function_closure_captures_outer_let():
    main = parse_file(RELAY / "dce_inline_into_function.after.relay")["main"]
    lets, body = let_chain(main.body)
    f = lets[1].value
    assert is_call(f.body, "add") and f.body.args[0] is lets[0].var
    assert is_call(f.body.args[1], "add") and f.body.args[1].args == (f.params[0], f.params[0])
    assert isinstance(body, Tuple) and all(c.op is lets[1].var for c in body.fields)


# -------------------------------------------------------------------- §4.4 test_ir_parser cases


@pytest.mark.parametrize(
    ("text", "value", "dtype"),
    [
        ("1", 1, "int32"), ("0", 0, "int32"), ("-100", -100, "int32"), ("-05", -5, "int32"),
        ("-42i64", -42, "int64"), ("-42i16", -42, "int16"), ("7i16", 7, "int16"),
        ("2147483647", 2147483647, "int32"), ("2147483648", 2147483648, "int64"),
        ("-2147483648", -2147483648, "int32"), ("--10", 10, "int32"), ("---10", -10, "int32"),
        ("1f", 1.0, "float32"), ("1.5f", 1.5, "float32"), ("1e-05f", 1e-05, "float32"),
        ("1e+10f", 1e10, "float32"), ("1E-1f", 0.1, "float32"), ("-10.0f", -10.0, "float32"),
        ("3f16", 3.0, "float16"), ("2.5f64", 2.5, "float64"), ("1.0f32", 1.0, "float32"),
        ("65504f16", 65504.0, "float16"),
        ("True", True, "bool"), ("False", False, "bool"),
    ],
)
def test_literals(text, value, dtype):
    c = parse_expr(text)
    assert isinstance(c, Constant) and str(c.data.dtype) == dtype
    assert c.data.shape == ()
    if isinstance(value, float):
        assert c.data.item() == pytest.approx(value)
    else:
        assert c.data.item() == value


def test_inf_literals():
    assert scalar(parse_expr("inff")) == float("inf")
    assert scalar(parse_expr("-inff")) == float("-inf")
    clip = parse_expr("free_var %x: Tensor[(3, 4), float32]; clip(%x, a_min=-inff, a_max=inff)")
    assert clip.attrs == Attrs((("a_min", float("-inf")), ("a_max", float("inf"))),
                               "relay.attrs.ClipAttrs")


def test_comments_anywhere_nested_and_line():
    assert parse_expr("// a line comment!\n()") .fields == ()
    assert isinstance(parse_expr("/* block\n still block */ ()"), Tuple)
    assert isinstance(parse_expr("/* outer /* nested */ still outer */ ()"), Tuple)
    e = parse_expr(
        "free_var /*a*/ %x /*b*/ : /*c*/ Tensor[ /*d*/ (3) /*e*/, float32] /*f*/ ; "
        "add /* ty=fn */ ( %x /* ty=Tensor[(3), float32] span=a.py:1:2 */ , // c\n %x )"
        " /* ty=Tensor[(3), float32] span=from_string:3:5 */"
    )
    assert is_call(e, "add") and e.args[0] is e.args[1]
    assert e.args[0].type_annotation == T3


def test_precedence_and_associativity_trees():
    # 1 * 1 + 1 < 1 == 1  =>  equal(less(add(multiply(1, 1), 1), 1), 1)
    e = parse_expr("1 * 2 + 3 < 4 == 5")
    assert is_call(e, "equal") and scalar(e.args[1]) == 5
    lt = e.args[0]
    assert is_call(lt, "less") and scalar(lt.args[1]) == 4
    add = lt.args[0]
    assert is_call(add, "add") and scalar(add.args[1]) == 3
    mul = add.args[0]
    assert is_call(mul, "multiply") and [scalar(a) for a in mul.args] == [1, 2]
    # 1 == 1 < 1 + 1 * 1  =>  equal(1, less(1, add(1, multiply(1, 1))))
    e = parse_expr("1 == 2 < 3 + 4 * 5")
    assert is_call(e, "equal") and scalar(e.args[0]) == 1
    assert is_call(e.args[1], "less") and is_call(e.args[1].args[1], "add")
    assert is_call(e.args[1].args[1].args[1], "multiply")
    # left associativity at every level
    for text, op in [("1 - 2 - 3", "subtract"), ("1 / 2 / 3", "divide"),
                     ("1 != 2 == 3", None), ("1 <= 2 >= 3", None)]:
        e = parse_expr(text)
        assert isinstance(e, Call) and isinstance(e.args[0], Call)
        assert scalar(e.args[1]) == 3
        if op:
            assert e.op.name == op and e.args[0].op.name == op
    assert parse_expr("1 != 2 == 3").op.name == "equal"
    assert parse_expr("1 != 2 == 3").args[0].op.name == "not_equal"
    assert parse_expr("1 <= 2 >= 3").op.name == "greater_equal"
    assert parse_expr("1 > 2").op.name == "greater" and parse_expr("1 < 2").op.name == "less"
    # parentheses override precedence
    e = parse_expr("1 * (2 + 3)")
    assert is_call(e, "multiply") and is_call(e.args[1], "add")
    # spans of sugared calls run from the left operand to the right one
    e = parse_expr("10 +\n  20")
    assert (e.span.line, e.span.col, e.span.end_line, e.span.end_col) == (1, 1, 2, 5)


def test_graph_bindings_share_nodes():
    e = parse_expr("%0 = (); %1 = 1; (%0, %0, %1)")
    assert isinstance(e, Tuple)
    assert e.fields[0] is e.fields[1]
    assert e.fields[0] is not e.fields[2] and e.fields[0].fields == ()
    assert scalar(e.fields[2]) == 1
    # first binding wins, and the table outlives scopes
    e = parse_expr("%0 = 1; %0 = 2; (fn () { %1 = 3; %1 }, %0, %1)")
    assert scalar(e.fields[1]) == 1 and e.fields[2] is e.fields[0].body


def test_ref_program_with_shared_graph_node():
    mod = parse(V + "def @main(%x: float32) { %0 = ref(%x); ref_write(%0, 1f); ref_read(%0) }")
    body = mod["main"].body
    assert isinstance(body, Let) and body.var.name_hint == ""  # `e1; e2` is `let %"" = e1; e2`
    assert isinstance(body.value, RefWrite) and isinstance(body.body, RefRead)
    assert body.value.ref is body.body.ref
    assert isinstance(body.value.ref, RefCreate) and body.value.ref.value is mod["main"].params[0]
    assert scalar(body.value.value) == 1.0


def test_seq_and_let_forms():
    e = parse_expr("(); ()")
    assert isinstance(e, Let) and e.var.name_hint == "" and e.var.type_annotation is None
    e = parse_expr("let %_ = 1; ()")
    assert isinstance(e, Let) and e.var.name_hint == "_" and e.body.fields == ()
    e = parse_expr("let %x: int32 = 1; %x")
    assert e.var.type_annotation == I32 and e.body is e.var
    e = parse_expr("let %x = 1; let %x = %x; %x")  # shadowing (TVM binds before the value)
    assert e.body.var is not e.var and e.body.body is e.body.var
    e = parse_expr("let %x = 1; { let %y = %x; %y }; %x")
    assert isinstance(e.body, Let) and e.body.var.name_hint == "" and e.body.body is e.var


def test_adt_definitions_constructors_and_match():
    for kw, complete in (("match", True), ("match?", False)):
        mod = parse(V + LIST_DEFN + f"""
        def @length[A](%xs: List[A]) -> int32 {{
          {kw} (%xs) {{
            Cons(_, %rest : List[A]) => {{
              ();
              1 + @length(%rest)
            }},
            Nil => 0,
          }}
        }}
        """)
        td = mod.type_defs["List"]
        a = TypeVar("A")
        assert td.type_vars == (a,) and [c.name_hint for c in td.constructors] == ["Cons", "Nil"]
        cons, nil = td.constructors
        assert cons.inputs == (a, TypeCall("List", (a,))) and cons.tag == 0 and nil.tag == 1
        assert cons.belong_to == "List" and nil.inputs == ()
        f = mod["length"]
        assert f.type_params == (a,) and f.params[0].type_annotation == TypeCall("List", (a,))
        m = f.body
        assert isinstance(m, Match) and m.complete is complete and m.data is f.params[0]
        c0, c1 = m.clauses
        assert isinstance(c0.lhs, PatternConstructor) and c0.lhs.constructor == cons
        wild, rest = c0.lhs.patterns
        assert isinstance(wild, PatternWildcard) and isinstance(rest, PatternVar)
        assert rest.var.type_annotation == TypeCall("List", (a,))
        assert isinstance(c0.rhs, Let) and c0.rhs.var.name_hint == ""
        call = c0.rhs.body.args[1]
        assert call.op == GlobalVar("length") and call.args == (rest.var,)
        assert c1.lhs.constructor == nil and c1.lhs.patterns == () and scalar(c1.rhs) == 0


def test_constructor_expressions_and_forward_references():
    mod = parse(V + """
    def @make_singleton(%x: int32) -> List[int32] {
      Cons(%x, Nil)
    }
    def @other() -> Either[int32, float32] { Left(1) }
    """ + LIST_DEFN + """
    type Either[A, B] {
      Left(A),
      Right(B),
    }
    """)
    body = mod["make_singleton"].body
    cons = mod.type_defs["List"].constructors[0]
    assert isinstance(body, Call) and body.op == cons and isinstance(body.op, Constructor)
    nil = body.args[1]
    assert isinstance(nil, Call) and nil.op == mod.type_defs["List"].constructors[1]
    assert nil.args == ()  # a nullary constructor written alone is a call
    assert mod["make_singleton"].ret_type == TypeCall("List", (I32,))
    assert mod["other"].ret_type == TypeCall("Either", (I32, F32))
    assert [c.name_hint for c in mod.type_defs["Either"].constructors] == ["Left", "Right"]
    # a constructor with fields, not called, stays a Constructor value
    e = parse(V + LIST_DEFN + "def @main() { Cons }")["main"].body
    assert isinstance(e, Constructor) and e.name_hint == "Cons"


def test_type_definition_forms():
    mod = parse(V + """
    type Ayy { Nil }
    type Empty { }
    extern type T[A]
    extern type Storage
    type my_dtype {
      my_cons(Tensor[(?, 1), uint16]),
    }
    """)
    assert [c.name_hint for c in mod.type_defs["Ayy"].constructors] == ["Nil"]
    assert mod.type_defs["Empty"].constructors == () and not mod.type_defs["Empty"].extern
    t = mod.type_defs["T"]
    assert t.extern and t.type_vars == (TypeVar("A"),) and t.constructors == ()
    assert mod.type_defs["Storage"].extern
    assert mod.type_defs["my_dtype"].constructors[0].inputs == (
        TensorType((None, 1), "uint16"),)


def test_patterns_all_forms():
    mod = parse(V + LIST_DEFN + """
    def @f(%p: (int32, List[int32])) -> int32 {
      match? (%p) {
        (%a, Cons(%h: int32, _)) => %a + %h,
        (_, %l) => 0,
      }
    }
    """)
    m = mod["f"].body
    assert m.complete is False
    tup = m.clauses[0].lhs
    assert isinstance(tup, PatternTuple) and isinstance(tup.patterns[1], PatternConstructor)
    a_pat, cons_pat = tup.patterns
    h_pat = cons_pat.patterns[0]
    assert h_pat.var.type_annotation == I32
    assert m.clauses[0].rhs.args == (a_pat.var, h_pat.var)
    assert isinstance(m.clauses[1].lhs.patterns[0], PatternWildcard)


def test_tuples_projection_and_calls():
    assert parse_expr("()").fields == ()
    one = parse_expr("(0,)")
    assert isinstance(one, Tuple) and len(one.fields) == 1
    assert len(parse_expr("(0, 1)").fields) == 2 and len(parse_expr("(0, 1, 2,)").fields) == 3
    assert isinstance(parse_expr("(0)"), Constant)  # parentheses, not a tuple
    e = parse_expr("free_var %t; %t.1.0")  # chained projections (extension)
    assert isinstance(e, TupleGetItem) and e.index == 0 and e.tuple_value.index == 1
    e = parse_expr("free_var %f; free_var %a; free_var %b; %f(%a)(%b)")
    assert isinstance(e, Call) and isinstance(e.op, Call) and e.args[0].name_hint == "b"
    assert e.op.op.name_hint == "f"
    e = parse_expr("free_var %f; %f.0(1)")
    assert isinstance(e.op, TupleGetItem)
    assert isinstance(parse_expr("@foo"), GlobalVar)
    assert parse_expr("nn.global_avg_pool2d") == Op("nn.global_avg_pool2d")


def test_function_literals_and_attrs():
    f = parse_expr("fn () { 0 }")
    assert isinstance(f, Function) and f.params == () and f.ret_type is None
    f = parse_expr("fn (%x, %y) { %x + %y }")
    assert f.params[0].type_annotation is None and f.body.args == f.params
    f = parse_expr("fn (%x: int32) -> int32 { %x }")
    assert f.ret_type == I32
    f = parse_expr(
        "fn (%x: Tensor[(2, 3), float32], Primitive=1, relay.reshape_only=1) -> Tensor[(6), "
        "float32] { reshape(%x, newshape=[-1]) }")
    assert f.attrs == Attrs((("Primitive", 1), ("relay.reshape_only", 1)), "DictAttrs")
    assert f.body.attrs == Attrs((("newshape", (-1,)),), "relay.attrs.ReshapeAttrs")
    f = parse_expr("fn (Primitive=1) { () }")
    assert f.params == () and f.attrs["Primitive"] == 1
    f = parse_expr('fn (%x {virtual_device=meta[VirtualDevice][0]}: float32) { %x }'
                   + _META_VD)
    assert f.params[0].type_annotation == F32 and f.body is f.params[0]
    mod = parse(V + "def @id[A](%x: A) -> A { %x }\ndef @main() { @id(1) }")
    assert mod["id"].type_params == (TypeVar("A"),) and mod["id"].ret_type == TypeVar("A")
    rec = parse(V + "def @id(%x: int32) -> int32 { @id(%x) }")["id"]
    assert rec.body.op == GlobalVar("id")


def test_call_attrs_values_and_attrs_type_key():
    mod = parse(V + """
    def @main(%p0: Tensor[(2, 4), float32], %p1: Tensor[(2, 4), float32]) {
      %2 = fn (%data: Tensor[(2, 4), float32], %weight: Tensor[(2, 4), float32]) {
        %0 = nn.dense(%data, %weight, units=None);
        %1 = nn.relu(%0);
        add(%1, 1f)
      };
      %2(%p0, %p1, name="func_call_attrs", attrs_type_key="attrs.TestAttrs")
    }
    """)
    call = mod["main"].body
    assert isinstance(call.op, Function)
    assert call.attrs == Attrs((("name", "func_call_attrs"),), "attrs.TestAttrs")
    dense = call.op.body.args[0].args[0]
    assert dense.attrs == Attrs((("units", None),), "relay.attrs.DenseAttrs")
    e = parse_expr(
        'free_var %x: Tensor[(1, 32, 32, 3), float32]; free_var %y: Tensor[(1, 1, 3, 3), float32];'
        ' nn.conv2d(%x, %y, data_layout="NHWC", kernel_layout="HWIO", padding=[1, 1, 1, 1],'
        ' channels=nullptr, out_dtype="")')
    assert list(e.attrs.items()) == [("data_layout", "NHWC"), ("kernel_layout", "HWIO"),
                                     ("padding", (1, 1, 1, 1)), ("channels", None),
                                     ("out_dtype", "")]
    e = parse_expr("free_var %g; sum(%g, axis=[-1], keepdims=True, exclude=False)")
    assert e.attrs == Attrs((("axis", (-1,)), ("keepdims", True), ("exclude", False)),
                            "relay.attrs.ReduceAttrs")
    e = parse_expr("free_var %w; transpose(%w, axes=None)")
    assert e.attrs == Attrs((("axes", None),), "relay.attrs.TransposeAttrs")
    e = parse_expr('free_var %s; cast(take(%s, 0, axis=0), dtype="float32")')
    assert e.args[0].attrs["axis"] == 0 and e.attrs["dtype"] == "float32"
    assert parse_expr("free_var %x; nn.batch_norm(%x, %x, %x, %x, %x, epsilon=1e-05f)").attrs[
        "epsilon"] == pytest.approx(1e-05)
    # an op with an attrs type but none written still records the type key
    assert parse_expr("free_var %x; nn.log_softmax(%x)").attrs.type_key == (
        "relay.attrs.SoftmaxAttrs")
    assert parse_expr("free_var %x; negative(%x)").attrs == Attrs()


_META_VD = """
#[metadata]
{"root": 1, "nodes": [{"type_key": ""},
  {"type_key": "Map", "keys": ["VirtualDevice", "relay.Constant"], "data": [2, 4]},
  {"type_key": "Array", "data": [3]},
  {"type_key": "VirtualDevice", "attrs": {"device_type_int": "1", "virtual_device_id": "0",
                                          "target": "0", "memory_scope": "0"}},
  {"type_key": "Array", "data": [5, 6, 7]},
  {"type_key": "relay.Constant", "attrs": {"data": "0", "span": "0", "virtual_device_": "0",
                                           "_checked_type_": "0"}},
  {"type_key": "relay.Constant", "attrs": {"data": "1", "span": "0", "virtual_device_": "0",
                                           "_checked_type_": "0"}},
  {"type_key": "relay.Constant", "attrs": {"data": "2", "span": "0", "virtual_device_": "0",
                                           "_checked_type_": "0"}}],
 "b64ndarrays": [
  "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAABAAQACAAAAAAAAABAAAAAAAAAAQAAAAAAAAAACAAAAAAAAAA==",
  "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAAAAAAAAAAAMA/AAAAwAAAgD4=",
  "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAEBAQADAAAAAAAAAAMAAAAAAAAAAQAB"],
 "attrs": {"tvm_version": "0.19.0"}}
"""


def test_meta_constants_are_decoded_and_shared():
    mod = parse(V + """
    def @main(%x: Tensor[(1, 3), float32]) {
      %0 = add(%x, meta[relay.Constant][1] /* ty=Tensor[(1, 3), float32] */);
      (%0, meta[relay.Constant][1], meta[relay.Constant][0], meta[relay.Constant][2])
    }
    """ + _META_VD)
    body = mod["main"].body
    c1 = body.fields[1]
    assert isinstance(c1, Constant) and c1 is body.fields[0].args[1]
    assert c1.data.dtype == np.float32 and c1.data.shape == (1, 3)
    np.testing.assert_array_equal(c1.data, [[1.5, -2.0, 0.25]])
    c0 = body.fields[2]
    assert c0.data.dtype == np.int64 and c0.data.tolist() == [64, 2]
    c2 = body.fields[3]
    assert c2.data.dtype == np.bool_ and c2.data.tolist() == [True, False, True]
    assert c1.span.line == 4


def test_types_all_forms():
    e = parse_expr("""
    free_var %a: Tensor[(?, 3), float32];
    free_var %b: Tensor[(20), float32];
    free_var %c: Tensor[(5i64, 10), int8];
    free_var %d: int;
    free_var %e: (int32, ref(Tensor[(3), float32]));
    free_var %f: fn (float32, bool) -> ();
    free_var %g: _;
    free_var %h: (float32,);
    free_var %i: uint;
    free_var %j: float16;
    free_var %k: ref(fn () -> ());
    free_var %l: Tensor[(), float64];
    free_var %m: fn [A](A) -> A;
    (%a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l, %m)
    """)
    got = [v.type_annotation for v in e.fields]
    assert got == [
        TensorType((None, 3), "float32"),
        TensorType((20,), "float32"),
        TensorType((5, 10), "int8"),
        I32,
        TupleType((I32, RefType(T3))),
        FuncType((F32, TensorType((), "bool")), UNIT),
        IncompleteType(),
        TupleType((F32,)),
        TensorType((), "uint32"),
        TensorType((), "float16"),
        RefType(FuncType((), UNIT)),
        TensorType((), "float64"),
        FuncType((TypeVar("A"),), TypeVar("A"), (TypeVar("A"),)),
    ]
    assert parse_expr("let %_: () = (); ()").var.type_annotation == UNIT


def test_names_with_slash_quoted_names_and_free_vars():
    e = parse_expr("free_var %base/x: float32; let %a/b/c = %base/x; %a/b/c")
    assert e.var.name_hint == "a/b/c" and e.value.name_hint == "base/x"
    e = parse_expr('let %"" = 1; %""')
    assert e.var.name_hint == "" and e.body is e.var
    e = parse_expr("free_var %x: float32")  # a final free_var is the expression itself
    assert isinstance(e, Var) and e.type_annotation == F32


def test_if_scopes_and_else_if():
    e = parse_expr("if (True) { let %x = (); %x } else { 1 }")
    assert isinstance(e, If) and scalar(e.cond) is True and isinstance(e.true_branch, Let)
    e = parse_expr("free_var %c: bool; if (%c) { 0 } else if (%c) { 1 } else { 2 }")
    assert isinstance(e.false_branch, If) and scalar(e.false_branch.false_branch) == 2


def test_spans_on_nodes():
    text = V + "def @main(%x: float32) -> float32 {\n  let %y = negative(%x);\n  %y\n}\n"
    mod = parse(text, "prog.relay")
    main = mod["main"]
    assert (main.span.source, main.span.line, main.span.col) == ("prog.relay", 2, 1)
    assert (main.params[0].span.line, main.params[0].span.col) == (2, 11)
    let = main.body
    assert (let.span.line, let.span.col, let.span.end_line) == (3, 3, 4)
    call = let.value
    assert (call.span.line, call.span.col, call.span.end_col) == (3, 12, 24)
    assert (call.op.span.line, call.op.span.col) == (3, 12)


def test_module_order_and_version_optional_for_expressions():
    mod = parse(V + "def @b() { 1 }\ndef @a() { @b() }")
    assert list(mod.functions) == ["b", "a"] and mod.source_name == "from_string"
    assert scalar(parse_expr(V + "1")) == 1


# ---------------------------------------------------------------------- long programs, no recursion


def test_long_let_chain_20000():
    n = 20_000
    lines = [V, "def @main(%x: float32) -> float32 {", "  let %v0: float32 = %x;"]
    lines += [f"  let %v{i}: float32 = add(%v{i - 1}, 1f) /* ty=float32 */;" for i in range(1, n)]
    lines += [f"  %v{n - 1}", "}"]
    main = parse("\n".join(lines))["main"]
    lets, body = let_chain(main.body)
    assert len(lets) == n and body is lets[-1].var
    assert lets[5].value.args[0] is lets[4].var


def test_long_seq_and_graph_chains_20000():
    n = 20_000
    text = "free_var %r: ref(float32); " + "ref_write(%r, 1f); " * n + "ref_read(%r)"
    lets, body = let_chain(parse_expr(text))
    assert len(lets) == n and isinstance(body, RefRead)
    assert all(lt.var.name_hint == "" for lt in lets[:10])
    text = "free_var %x: float32; %0 = negative(%x);\n" + "".join(
        f"%{i} = negative(%{i - 1});\n" for i in range(1, n)) + f"%{n - 1}"
    e = parse_expr(text)
    depth = 0
    while isinstance(e, Call):
        e, depth = e.args[0], depth + 1
    assert depth == n and isinstance(e, Var)


def test_long_operator_chain_10000():
    n = 10_000
    e = parse_expr(" + ".join(["1"] * n))
    depth = 0
    while is_call(e, "add"):
        assert scalar(e.args[1]) == 1
        e, depth = e.args[0], depth + 1
    assert depth == n - 1 and scalar(e) == 1
    e = parse_expr(" * ".join(["2"] * 5000) + " + 1")
    assert is_call(e, "add") and is_call(e.args[0], "multiply")


def test_meta_attrs_dims_and_crlf():
    meta = _META_VD.replace('"keys": ["VirtualDevice", "relay.Constant"]',
                            '"keys": ["relay.attrs.DenseAttrs", "relay.Constant"]')
    e = parse_expr("free_var %x; free_var %w;\r\nnn.dense(%x, %w, meta[relay.attrs.DenseAttrs][0])"
                   + meta)
    assert is_call(e, "nn.dense") and e.attrs == Attrs((), "relay.attrs.DenseAttrs")
    e = parse_expr("free_var %x: Tensor[(meta[relay.Constant][0], 3), float32]; %x" + _META_VD)
    assert e.type_annotation == TensorType((None, 3), "float32")  # symbolic dim: dynamic
    mod = parse(V.replace("\n", "\r\n") + "def @main() {\r\n  1\r\n}\r\n")
    assert mod["main"].body.span.line == 3


def test_mlp_printout():
    main = parse_file(RELAY / "mlp.relay")["main"]
    assert len(main.params) == 7 and main.ret_type == TensorType((1, 10), "float32")
    e, chain = main.body, []
    while isinstance(e, Call):
        chain.append(e.op.name)
        e = e.args[0]
    assert e is main.params[0]
    assert chain == ["nn.softmax", "nn.bias_add", "nn.dense", "nn.relu", "nn.bias_add", "nn.dense",
                     "nn.relu", "nn.bias_add", "nn.dense", "nn.batch_flatten"]


def test_prelude_style_module():
    mod = parse_file(RELAY / "prelude_sample.relay")
    assert list(mod.functions) == ["map", "hd", "nat_iterate", "main"]
    assert [c.name_hint for c in mod.type_defs["Option"].constructors] == ["Some", "None"]
    m = mod["map"]
    a, b = TypeVar("A"), TypeVar("B")
    assert m.type_params == (a, b)
    assert m.params[0].type_annotation == FuncType((a,), b)
    assert m.ret_type == TypeCall("List", (b,))
    nil_clause = m.body.clauses[1]
    assert isinstance(nil_clause.rhs, Call) and nil_clause.rhs.op.name_hint == "Nil"
    assert mod["hd"].body.complete is False
    nat = mod["nat_iterate"].body
    zero, succ = nat.clauses
    assert zero.lhs.constructor.name_hint == "z" and isinstance(zero.rhs, Function)
    inner = succ.rhs  # `%2 = ...;` is hoisted into the clause: the closure calls the same node
    assert isinstance(inner, Function) and inner.params[0].name_hint == "x3"
    call_f = inner.body
    assert call_f.op is mod["nat_iterate"].params[0]
    assert isinstance(call_f.args[0], Call) and isinstance(call_f.args[0].op, Call)
    assert call_f.args[0].op.op == GlobalVar("nat_iterate")
    body = mod["main"].body
    two = body.fields[2].op.args[1]  # s(s(z))
    assert two.op.name_hint == "s" and two.args[0].args[0].op.name_hint == "z"
    assert two.args[0].args[0].args == ()
