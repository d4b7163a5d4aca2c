"""Type inference: op relations, unification, ADTs, recursion, refs, located errors, deep chains."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from extractor.diagnostics import Span
from extractor.relay import ops
from extractor.relay.ast import (
    UNIT,
    Attrs,
    Call,
    Clause,
    Constructor,
    Expr,
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
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    const,
    post_order,
    type_str,
)
from extractor.relay.errors import RelayTypeError
from extractor.relay.ops import broadcast_shapes
from extractor.relay.typeinfer import Typed, infer_expr, infer_types

from .op_registry import RELATIONS

SEED = Path(__file__).parent / "data" / "seed_issue_program.relay"
HEADER = '#[version = "0.0.5"]\n'

try:  # the parser is written concurrently; the lead removes this guard
    from extractor.relay.parser import parse, parse_expr

    HAVE_PARSER = True
except Exception:  # pragma: no cover - only while the parser is missing
    HAVE_PARSER = False

needs_parser = pytest.mark.skipif(not HAVE_PARSER, reason="parser not importable yet")


def T(*shape: int | None, dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


F32 = T()
I32 = T(dtype="int32")
BOOL = T(dtype="bool")


def call(op: str, *args: Expr, span: Span | None = None, **attrs: object) -> Call:
    d = ops.lookup(op)
    return Call(Op(op), tuple(args), Attrs.of(d.attrs_type_key if d else None, **attrs),
                span=span)


def op_type(op: str, *arg_types: Type, **attrs: object) -> Type:
    """The result type of `op` applied to arguments of the given types."""
    params = [Var(f"a{i}", t) for i, t in enumerate(arg_types)]
    body = call(op, *params, **attrs)
    fn, types = infer_expr(Function(tuple(params), body))
    assert isinstance(fn, Function)
    assert fn.ret_type == types[id(fn.body)]
    return types[id(fn.body)]


def op_error(op: str, *arg_types: Type, **attrs: object) -> str:
    with pytest.raises(RelayTypeError) as ei:
        op_type(op, *arg_types, **attrs)
    return ei.value.message


def all_vars_annotated(e: Expr) -> bool:
    for n in post_order(e):
        if isinstance(n, Var) and (n.type_annotation is None
                                   or _has_incomplete(n.type_annotation)):
            return False
        if isinstance(n, Function) and (n.ret_type is None or _has_incomplete(n.ret_type)):
            return False
        if isinstance(n, Match):
            for c in n.clauses:
                stack = [c.lhs]
                while stack:
                    p = stack.pop()
                    if isinstance(p, PatternVar) and p.var.type_annotation is None:
                        return False
                    if isinstance(p, PatternConstructor | PatternTuple):
                        stack.extend(p.patterns)
    return True


def _has_incomplete(t: Type) -> bool:
    return "_" in type_str(t)


# ------------------------------------------------------------------------------ the seed


def seed_ast(annotate: bool) -> Function:
    """The issue's program built with the AST constructors, optionally without let types."""
    x = Var("input_0", T(5, 10))
    y = Var("output_0", T(5, 20))
    w = Var("Wrapper_Dense_weight", T(20, 10))
    b = Var("Wrapper_Dense_bias", T(20))

    def v(name: str, t: Type) -> Var:
        return Var(name, t if annotate else None)

    x1, pred, x2, x3 = v("x1", T(5, 20)), v("pred", T(5, 20)), v("x2", T(5, 20)), v("x3", F32)
    ret = TupleType((F32, T(5, 20)))
    x4, xo = v("x4", ret), v("x", ret)
    inner = Let(x1, call("nn.dense", x, w, units=20),
                Let(pred, call("nn.bias_add", x1, b, axis=-1),
                    Let(x2, call("nn.log_softmax", pred),
                        Let(x3, call("nn.cross_entropy_with_logits", x2, y),
                            Let(x4, Tuple((x3, pred)), x4)))))
    return Function((x, y, w, b), Let(xo, inner, xo), ret if annotate else None)


@pytest.mark.parametrize("annotate", [True, False])
def test_seed_ast_infers_and_fills_every_annotation(annotate: bool) -> None:
    typed = infer_types(Module({"main": seed_ast(annotate)}))
    main = typed.module["main"]
    assert main.ret_type == TupleType((F32, T(5, 20)))
    assert all_vars_annotated(main)
    lets = {n.var.name_hint: n.var.type_annotation for n in post_order(main) if isinstance(n, Let)}
    assert lets == {"x1": T(5, 20), "pred": T(5, 20), "x2": T(5, 20), "x3": F32,
                    "x4": TupleType((F32, T(5, 20))), "x": TupleType((F32, T(5, 20)))}
    assert typed.type_of(main) == FuncType((T(5, 10), T(5, 20), T(20, 10), T(20)),
                                           TupleType((F32, T(5, 20))))
    assert_every_node_typed(typed)


def assert_every_node_typed(typed: Typed) -> None:
    """Every Expr node of a typed concrete module has a complete checked type."""
    for fn in typed.module.functions.values():
        for n in post_order(fn):
            t = typed.type_of(n)
            if not (isinstance(n, Function) and n.type_params):
                assert not _has_incomplete(t), (n, t)


@needs_parser
def test_seed_text_infers_to_issue_types() -> None:
    mod = parse(SEED.read_text(), str(SEED))
    typed = infer_types(mod)
    main = typed.module["main"]
    assert type_str(main.ret_type) == "(float32, Tensor[(5, 20), float32])"
    assert all_vars_annotated(main)
    lets = [n for n in post_order(main) if isinstance(n, Let)]
    assert len(lets) == 6


@needs_parser
def test_seed_text_without_annotations() -> None:
    text = """#[version = "0.0.5"]
def @main(%input_0: Tensor[(5, 10), float32], %output_0: Tensor[(5, 20), float32],
          %w: Tensor[(20, 10), float32], %b: Tensor[(20), float32]) {
  let %x = (
    let %x1 = nn.dense(%input_0, %w, units=20);
    let %pred = nn.bias_add(%x1, %b, axis=-1);
    let %x2 = nn.log_softmax(%pred);
    let %x3 = nn.cross_entropy_with_logits(%x2, %output_0);
    (%x3, %pred)
  );
  %x
}"""
    main = infer_types(parse(text)).module["main"]
    assert type_str(main.ret_type) == "(float32, Tensor[(5, 20), float32])"
    assert all_vars_annotated(main)
    anns = {n.var.name_hint: type_str(n.var.type_annotation)
            for n in post_order(main) if isinstance(n, Let)}
    assert anns["x3"] == "float32" and anns["x"] == "(float32, Tensor[(5, 20), float32])"


@needs_parser
def test_parsed_type_error_is_located() -> None:
    text = """#[version = "0.0.5"]
def @main(%x: Tensor[(5, 10), float32], %w: Tensor[(20, 20), float32]) {
  nn.dense(%x, %w, units=20)
}"""
    with pytest.raises(RelayTypeError) as ei:
        infer_types(parse(text, "bad.relay"))
    err = ei.value
    assert err.message == ("expected Tensor[(20, 10), float32] but found "
                           "Tensor[(20, 20), float32] in argument 1 of nn.dense")
    assert err.span is not None and (err.span.source, err.span.line) == ("bad.relay", 3)


@needs_parser
def test_parsed_refs_with_untyped_param() -> None:
    """test_refs of the DCE suite: @f's ref param gets its type from @main's calls."""
    text = """#[version = "0.0.5"]
def @f(%r) {
  let %v = ref_read(%r);
  let %u = ref_write(%r, %v + %v);
  %v
}
def @main() {
  let %r = ref(0);
  let %y = @f(%r);
  let %z = @f(%r);
  %z
}"""
    typed = infer_types(parse(text))
    f = typed.module["f"]
    assert f.params[0].type_annotation == RefType(I32)
    assert f.ret_type == I32
    assert all_vars_annotated(f) and all_vars_annotated(typed.module["main"])


# ----------------------------------------------------------------------- elementwise ops


def test_broadcast_shapes() -> None:
    assert broadcast_shapes((5, 1), (1, 4)) == (5, 4)
    assert broadcast_shapes((3,), (2, 3)) == (2, 3)
    assert broadcast_shapes((None, 3), (4, 1)) == (4, 3)
    assert broadcast_shapes((None,), (1,)) == (None,)
    assert broadcast_shapes((2, 3), (3, 2)) is None


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "power", "maximum"])
def test_binary_broadcast(op: str) -> None:
    assert op_type(op, T(5, 1), T(1, 4)) == T(5, 4)
    assert op_type(op, T(3), T(2, 3)) == T(2, 3)
    assert op_type(op, F32, T(2, 3)) == T(2, 3)
    assert op_type(op, T(None, 3), T(4, 3)) == T(4, 3)


@pytest.mark.parametrize("op", ["equal", "not_equal", "less", "less_equal", "greater",
                                "greater_equal"])
def test_comparisons_give_bool(op: str) -> None:
    assert op_type(op, T(5, 1), T(4)) == T(5, 4, dtype="bool")


def test_binary_errors_name_both_types() -> None:
    msg = op_error("add", T(5, 10), T(5, 20))
    assert "Tensor[(5, 10), float32]" in msg and "Tensor[(5, 20), float32]" in msg
    msg = op_error("multiply", T(3), T(3, dtype="int32"))
    assert msg == ("expected Tensor[(3), float32] but found Tensor[(3), int32] in argument 1 "
                   "of multiply")


@pytest.mark.parametrize("op", ["negative", "exp", "log", "tanh", "sigmoid", "nn.relu", "copy",
                                "zeros_like", "ones_like", "sqrt", "abs", "erf"])
def test_unary_identity(op: str) -> None:
    assert op_type(op, T(2, 3)) == T(2, 3)


def test_unary_rejects_non_tensor() -> None:
    msg = op_error("negative", TupleType((F32, F32)))
    assert msg == "expected a tensor but found (float32, float32) in argument 0 of negative"


def test_where_clip_leaky_relu_logical() -> None:
    assert op_type("where", T(5, 1, dtype="bool"), T(5, 3), T(3)) == T(5, 3)
    assert "argument 2 of where" in op_error("where", BOOL, T(3), T(3, dtype="int32"))
    assert op_type("clip", T(4), a_min=0.0, a_max=1.0) == T(4)
    assert op_type("nn.leaky_relu", T(4, 2), alpha=0.1) == T(4, 2)
    assert op_type("logical_and", T(2, dtype="bool"), T(2, dtype="bool")) == T(2, dtype="bool")
    assert op_type("logical_not", T(2, dtype="bool")) == T(2, dtype="bool")


# ---------------------------------------------------------------------------------- dense


def test_dense() -> None:
    assert op_type("nn.dense", T(5, 10), T(20, 10), units=20) == T(5, 20)
    assert op_type("nn.dense", T(2, 5, 10), T(7, 10), units=None) == T(2, 5, 7)
    assert op_type("nn.dense", T(5, 10, dtype="int8"), T(3, 10, dtype="int8"), units=3,
                   out_dtype="int32") == T(5, 3, dtype="int32")


def test_dense_errors() -> None:
    assert op_error("nn.dense", T(5, 20), T(5, 10), units=5) == (
        "expected Tensor[(5, 20), float32] but found Tensor[(5, 10), float32] in argument 1 "
        "of nn.dense")
    # units must equal weight.shape[0]
    assert op_error("nn.dense", T(5, 10), T(20, 10), units=30) == (
        "expected Tensor[(30, 10), float32] but found Tensor[(20, 10), float32] in argument 1 "
        "of nn.dense")
    assert "expected a tensor of rank >= 1" in op_error("nn.dense", F32, T(2, 1), units=2)


def test_dense_infers_weight_from_units() -> None:
    """relay.testing builds weights as untyped free vars; InferType gives them shapes."""
    data = Var("data", T(4, 784))
    w = Var("fc1_weight")
    b = Var("fc1_bias")
    body = call("nn.bias_add", call("nn.dense", data, w, units=128), b, axis=-1)
    fn, types = infer_expr(Function((data, w, b), body))
    assert isinstance(fn, Function)
    assert [p.type_annotation for p in fn.params] == [T(4, 784), T(128, 784), T(128)]
    assert fn.ret_type == T(4, 128)


# ---------------------------------------------------------------------- bias_add, softmax


def test_bias_add_axes() -> None:
    assert op_type("nn.bias_add", T(1, 64, 7, 7), T(64)) == T(1, 64, 7, 7)  # default axis 1
    assert op_type("nn.bias_add", T(5, 20), T(20), axis=-1) == T(5, 20)
    assert op_type("nn.bias_add", T(1, 7, 7, 64), T(64), axis=3) == T(1, 7, 7, 64)
    assert op_error("nn.bias_add", T(5, 20), T(5)) == (
        "expected Tensor[(20), float32] but found Tensor[(5), float32] in argument 1 of "
        "nn.bias_add")
    assert "argument 1 of nn.bias_add" in op_error("nn.bias_add", T(5, 20), T(20, dtype="int32"))
    assert "axis 2 is out of range" in op_error("nn.bias_add", T(5, 20), T(20), axis=2)


def test_softmax_log_softmax() -> None:
    assert op_type("nn.softmax", T(5, 20)) == T(5, 20)
    assert op_type("nn.log_softmax", T(5, 20), axis=1) == T(5, 20)
    assert "out of range" in op_error("nn.log_softmax", T(5, 20), axis=2)


def test_cross_entropy_with_logits_is_scalar() -> None:
    assert op_type("nn.cross_entropy_with_logits", T(5, 20), T(5, 20)) == F32
    assert op_type("nn.cross_entropy", T(5, 20), T(5, 20)) == F32
    assert op_error("nn.cross_entropy_with_logits", T(5, 20), T(5, 10)) == (
        "expected Tensor[(5, 20), float32] but found Tensor[(5, 10), float32] in argument 1 "
        "of nn.cross_entropy_with_logits")
    assert "2-D" in op_error("nn.cross_entropy_with_logits", T(20), T(20))


# ----------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("op", ["sum", "max", "min", "mean", "prod"])
def test_reductions(op: str) -> None:
    x = T(2, 3, 4)
    assert op_type(op, x) == F32
    assert op_type(op, x, axis=1) == T(2, 4)
    assert op_type(op, x, axis=(-1,), keepdims=True) == T(2, 3, 1)
    assert op_type(op, x, axis=(0, 2)) == T(3)
    assert op_type(op, x, axis=(-1,), exclude=True) == T(4)
    assert op_type(op, x, axis=(1,), exclude=True, keepdims=True) == T(1, 3, 1)
    assert op_type(op, x, keepdims=True) == T(1, 1, 1)
    assert "axis 3 is out of range for Tensor[(2, 3, 4), float32]" in op_error(op, x, axis=3)


def test_argmax_and_variance() -> None:
    assert op_type("argmax", T(2, 3), axis=1) == T(2, dtype="int32")
    assert op_type("variance", T(2, 3), T(2, 1), axis=(1,), keepdims=True) == T(2, 1)
    assert "duplicate axes" in op_error("sum", T(2, 3), axis=(1, -1))


# ----------------------------------------------------------------------- shape operators


def test_transpose() -> None:
    assert op_type("transpose", T(2, 3, 4), axes=None) == T(4, 3, 2)
    assert op_type("transpose", T(2, 3, 4), axes=(0, 2, 1)) == T(2, 4, 3)
    assert op_type("transpose", T(2, 3), axes=(-1, 0)) == T(3, 2)
    assert "not a permutation" in op_error("transpose", T(2, 3), axes=(0, 0))


def test_shape_of_take_cast() -> None:
    assert op_type("shape_of", T(5, 10)) == T(2, dtype="int32")
    assert op_type("shape_of", T(5, 10), dtype="int64") == T(2, dtype="int64")
    assert op_type("take", T(2, dtype="int32"), I32, axis=0) == I32  # scalar index drops the dim
    assert op_type("take", T(5, 10), T(3, dtype="int32"), axis=1) == T(5, 3)
    assert op_type("take", T(5, 10), T(2, 2, dtype="int32"), axis=0) == T(2, 2, 10)
    assert op_type("take", T(5, 10), T(7, dtype="int32")) == T(7)  # axis None: flattened
    assert op_type("take", T(5, 10), I32) == F32
    assert "argument 1 of take" in op_error("take", T(5), T(2), axis=0)
    assert op_type("cast", T(5, dtype="int32"), dtype="float32") == T(5)
    assert op_type("cast_like", T(5, dtype="int32"), T(2)) == T(5)


def test_expand_dims_squeeze() -> None:
    assert op_type("expand_dims", T(5, 20), axis=-1) == T(5, 20, 1)
    assert op_type("expand_dims", T(5, 20), axis=0, num_newaxis=2) == T(1, 1, 5, 20)
    assert op_type("expand_dims", F32, axis=0) == T(1)
    assert "out of range" in op_error("expand_dims", T(5), axis=3)
    assert op_type("squeeze", T(1, 5, 1)) == T(5)
    assert op_type("squeeze", T(1, 5, 1), axis=(2,)) == T(1, 5)
    assert "cannot squeeze axis 1" in op_error("squeeze", T(1, 5, 1), axis=(1,))


def test_reshape_special_values() -> None:
    x = T(2, 3, 4)
    assert op_type("reshape", x, newshape=(6, 4)) == T(6, 4)
    assert op_type("reshape", x, newshape=(0, -1)) == T(2, 12)
    assert op_type("reshape", x, newshape=(-1,)) == T(24)
    assert op_type("reshape", x, newshape=(4, 0, 2)) == T(4, 3, 2)
    assert op_type("reshape", x, newshape=(-2,)) == T(2, 3, 4)
    assert op_type("reshape", x, newshape=(-3, 4)) == T(6, 4)
    assert op_type("reshape", x, newshape=(-4, 1, 2, -2)) == T(1, 2, 3, 4)
    assert op_type("reshape", T(None, 4), newshape=(-1, 2)) == T(None, 2)
    assert "cannot reshape Tensor[(2, 3, 4), float32]" in op_error("reshape", x, newshape=(5, 5))
    assert "more than one -1" in op_error("reshape", x, newshape=(-1, -1))


def test_like_ops_and_broadcast_to() -> None:
    assert op_type("reshape_like", T(2, 6), T(3, 4)) == T(3, 4)
    assert "cannot reshape" in op_error("reshape_like", T(2, 6), T(3, 3))
    assert op_type("broadcast_to", T(1, 4), shape=(3, 4)) == T(3, 4)
    assert "cannot broadcast" in op_error("broadcast_to", T(2, 4), shape=(3, 4))
    assert op_type("broadcast_to_like", T(4), T(3, 4)) == T(3, 4)
    assert op_type("collapse_sum_like", T(3, 4), T(4)) == T(4)
    assert op_type("collapse_sum_like", T(5, 20), T(5, 20)) == T(5, 20)
    assert "cannot collapse" in op_error("collapse_sum_like", T(3, 4), T(2, 3, 4))
    assert op_type("zeros", shape=(2, 3), dtype="float32") == T(2, 3)
    assert op_type("ones", shape=(4,), dtype="int32") == T(4, dtype="int32")
    assert op_type("full", F32, shape=(2,)) == T(2)


def test_concatenate_stack_split() -> None:
    a, b = Var("a", T(2, 3)), Var("b", T(2, 5))
    fn, types = infer_expr(Function((a, b), call("concatenate", Tuple((a, b)), axis=1)))
    assert isinstance(fn, Function) and fn.ret_type == T(2, 8)
    fn, _ = infer_expr(Function((a,), call("stack", Tuple((a, a, a)), axis=-1)))
    assert isinstance(fn, Function) and fn.ret_type == T(2, 3, 3)
    with pytest.raises(RelayTypeError, match="cannot be concatenated"):
        infer_expr(Function((a, b), call("concatenate", Tuple((a, b)), axis=0)))
    with pytest.raises(RelayTypeError, match="expected a tuple of tensors but found"):
        infer_expr(Function((a,), call("concatenate", a)))
    assert op_type("split", T(4, 6), indices_or_sections=3, axis=1) == TupleType((T(4, 2),) * 3)
    assert op_type("split", T(10), indices_or_sections=(2, 5)) == TupleType((T(2), T(3), T(5)))
    assert "equal parts" in op_error("split", T(4, 5), indices_or_sections=2, axis=1)


def test_split_projection_as_in_lstm() -> None:
    x = Var("x", T(1, 16))
    parts = Var("parts")
    body = Let(parts, call("split", x, indices_or_sections=4, axis=1),
               call("sigmoid", TupleGetItem(parts, 3)))
    fn, _ = infer_expr(Function((x,), body))
    assert isinstance(fn, Function) and fn.ret_type == T(1, 4)


def test_strided_slice_one_hot() -> None:
    assert op_type("strided_slice", T(4, 6), begin=(1, 0), end=(3, 6)) == T(2, 6)
    assert op_type("strided_slice", T(4, 6), begin=(0,), end=(6,), strides=(2,)) == T(2, 6)
    assert op_type("strided_slice", T(4, 6), begin=(1,), end=(-1,), axes=(1,)) == T(4, 4)
    assert op_type("strided_slice", T(4, 6), begin=(1, 1), end=(2, -1),
                   slice_mode="size") == T(2, 5)
    assert op_type("one_hot", T(5, dtype="int32"), F32, F32, depth=10,
                   dtype="float32") == T(5, 10)
    assert op_type("one_hot", T(5, dtype="int32"), F32, F32, depth=10, axis=0,
                   dtype="float32") == T(10, 5)


# ---------------------------------------------------------------------------- conv / pool


def test_conv2d() -> None:
    x = T(1, 3, 224, 224)
    assert op_type("nn.conv2d", x, T(64, 3, 7, 7), strides=(2, 2), padding=(3, 3),
                   channels=64, kernel_size=(7, 7)) == T(1, 64, 112, 112)
    assert op_type("nn.conv2d", x, T(8, 3, 3, 3), padding=(1, 1, 1, 1)) == T(1, 8, 224, 224)
    assert op_type("nn.conv2d", x, T(8, 3, 3, 3), padding=(0, 0, 2, 2)) == T(1, 8, 224, 224)
    assert op_type("nn.conv2d", x, T(8, 3, 3, 3), dilation=(2, 2)) == T(1, 8, 220, 220)
    # depthwise (mobilenet): groups = channels, weight (C, 1, 3, 3)
    assert op_type("nn.conv2d", T(1, 32, 56, 56), T(32, 1, 3, 3), groups=32,
                   padding=(1, 1)) == T(1, 32, 56, 56)
    assert op_type("nn.conv2d", T(1, 224, 224, 3), T(7, 7, 3, 64), strides=(2, 2),
                   padding=(3, 3), data_layout="NHWC", kernel_layout="HWIO") == T(1, 112, 112, 64)


def test_conv2d_errors_and_weight_inference() -> None:
    assert op_error("nn.conv2d", T(1, 3, 8, 8), T(4, 5, 3, 3)) == (
        "expected Tensor[(4, 3, 3, 3), float32] but found Tensor[(4, 5, 3, 3), float32] in "
        "argument 1 of nn.conv2d")
    assert "argument 1 of nn.conv2d" in op_error("nn.conv2d", T(1, 3, 8, 8), T(4, 3, 3, 3),
                                                 channels=5)
    data, w = Var("data", T(1, 3, 32, 32)), Var("conv0_weight")
    fn, _ = infer_expr(Function((data, w), call("nn.conv2d", data, w, channels=16,
                                                kernel_size=(3, 3), padding=(1, 1))))
    assert isinstance(fn, Function)
    assert fn.params[1].type_annotation == T(16, 3, 3, 3)
    assert fn.ret_type == T(1, 16, 32, 32)


def test_conv2d_transpose_dcgan() -> None:
    data, w = Var("data", T(1, 1024, 4, 4)), Var("g2_deconv_weight")
    body = call("nn.conv2d_transpose", data, w, channels=512, kernel_size=(5, 5),
                strides=(2, 2), padding=(2, 2), output_padding=(1, 1))
    fn, _ = infer_expr(Function((data, w), body))
    assert isinstance(fn, Function)
    assert fn.params[1].type_annotation == T(1024, 512, 5, 5)  # IOHW
    assert fn.ret_type == T(1, 512, 8, 8)
    assert op_type("nn.conv2d_transpose", T(1, 4, 5, 5), T(4, 2, 3, 3),
                   strides=(2, 2)) == T(1, 2, 11, 11)
    assert "argument 1 of nn.conv2d_transpose" in op_error(
        "nn.conv2d_transpose", T(1, 4, 5, 5), T(3, 2, 3, 3))


def test_batch_norm_returns_three_tuple() -> None:
    c = T(16)
    assert op_type("nn.batch_norm", T(1, 16, 8, 8), c, c, c, c) == TupleType(
        (T(1, 16, 8, 8), c, c))
    assert op_error("nn.batch_norm", T(1, 16, 8, 8), c, T(8), c, c) == (
        "expected Tensor[(16), float32] but found Tensor[(8), float32] in argument 2 of "
        "nn.batch_norm")
    data = Var("data", T(1, 16, 8, 8))
    g, b, m, v = (Var(n) for n in ("bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var"))
    body = TupleGetItem(call("nn.batch_norm", data, g, b, m, v, epsilon=2e-5), 0)
    fn, _ = infer_expr(Function((data, g, b, m, v), body))
    assert isinstance(fn, Function) and fn.ret_type == T(1, 16, 8, 8)
    assert [p.type_annotation for p in fn.params[1:]] == [c] * 4


def test_pools_flatten_dropout() -> None:
    x = T(1, 64, 112, 112)
    assert op_type("nn.max_pool2d", x, pool_size=(3, 3), strides=(2, 2),
                   padding=(1, 1)) == T(1, 64, 56, 56)
    assert op_type("nn.avg_pool2d", T(1, 8, 7, 7), pool_size=(2, 2), strides=(2, 2),
                   ceil_mode=True) == T(1, 8, 4, 4)
    assert op_type("nn.avg_pool2d", T(1, 8, 7, 7), pool_size=(2, 2), strides=(2, 2)) == T(
        1, 8, 3, 3)
    assert op_type("nn.global_avg_pool2d", x) == T(1, 64, 1, 1)
    assert op_type("nn.global_max_pool2d", T(1, 7, 7, 64), layout="NHWC") == T(1, 1, 1, 64)
    assert op_type("nn.batch_flatten", T(1, 64, 1, 1)) == T(1, 64)
    assert op_type("nn.batch_flatten", T(5, 2, 3)) == T(5, 6)
    assert op_type("nn.dropout", T(4, 8), rate=0.5) == TupleType((T(4, 8), T(4, 8)))


def test_matmul_batch_matmul() -> None:
    assert op_type("nn.matmul", T(5, 10), T(10, 20)) == T(5, 20)
    assert op_type("nn.matmul", T(5, 10), T(20, 10), transpose_b=True) == T(5, 20)
    assert op_type("nn.matmul", T(10, 5), T(10, 20), transpose_a=True) == T(5, 20)
    assert "argument 1 of nn.matmul" in op_error("nn.matmul", T(5, 10), T(11, 20))
    assert op_type("nn.batch_matmul", T(2, 3, 4), T(2, 5, 4)) == T(2, 3, 5)
    assert op_type("nn.batch_matmul", T(1, 3, 4), T(2, 4, 5), transpose_b=False) == T(2, 3, 5)
    assert "argument 1 of nn.batch_matmul" in op_error("nn.batch_matmul", T(2, 3, 4),
                                                       T(2, 5, 3))


def test_checkpoint_and_memory_ops() -> None:
    assert op_type("annotation.checkpoint", T(3)) == T(3)
    assert op_type("annotation.checkpoint", TupleType((T(3), F32))) == TupleType((T(3), F32))
    assert op_type("memory.alloc_storage", T(dtype="int64"), T(dtype="int64")) == TypeCall(
        "Storage")
    storage = TypeCall("Storage")
    assert op_type("memory.alloc_tensor", storage, T(dtype="int64"), T(2, dtype="int64"),
                   const_shape=(2, 3), dtype="float32") == T(2, 3)
    assert op_type("memory.alloc_tensor", storage, T(dtype="int64"), T(2, dtype="int64"),
                   dtype="float32") == T(None, None)
    assert op_type("memory.kill", T(2, 3)) == UNIT


def test_every_registered_op_has_a_relation() -> None:
    assert sorted(set(ops.OPS) - set(RELATIONS)) == []


def test_op_without_relation_and_wrong_arity() -> None:
    ops.register(ops.OpDef("test.no_relation", 1))
    try:
        msg = op_error("test.no_relation", T(3))
        assert msg == "operator test.no_relation has no type relation"
    finally:
        del ops.OPS["test.no_relation"]
    x = Var("x", T(3))
    with pytest.raises(RelayTypeError, match=r"nn\.dense expects 2 arguments but got 1$"):
        infer_expr(Function((x,), call("nn.dense", x, units=3)))
    with pytest.raises(RelayTypeError, match="attribute axis must be an integer, not 'last' in "
                                             "nn.softmax"):
        op_type("nn.softmax", T(3), axis="last")


# ------------------------------------------------------------------------ core constructs


def test_tuples_and_projections() -> None:
    a, b = Var("a", T(3)), Var("b", I32)
    t = Var("t")
    body = Let(t, Tuple((a, b, Tuple(()))), Tuple((TupleGetItem(t, 1), TupleGetItem(t, 2))))
    fn, types = infer_expr(Function((a, b), body))
    assert isinstance(fn, Function)
    assert fn.ret_type == TupleType((I32, UNIT))
    with pytest.raises(RelayTypeError, match=r"index 3 is out of range for the tuple type"):
        infer_expr(Function((a, b), TupleGetItem(Tuple((a, b)), 3)))
    with pytest.raises(RelayTypeError, match=r"expected a tuple but found Tensor\[\(3\)"):
        infer_expr(Function((a,), TupleGetItem(a, 0)))


def test_projection_of_a_later_known_tuple() -> None:
    """`%p.0` where %p's type only becomes known from a later use (a deferred relation)."""
    p = Var("p")
    x = Var("x", T(2))
    f = Var("f")
    # let %f = fn(%p) { negative(%p.0) }; %f((%x, %x))
    body = Let(f, Function((p,), call("negative", TupleGetItem(p, 0))),
               Call(f, (Tuple((x, x)),)))
    fn, _ = infer_expr(Function((x,), body))
    assert isinstance(fn, Function) and fn.ret_type == T(2)
    inner = fn.body.value  # type: ignore[attr-defined]
    assert inner.params[0].type_annotation == TupleType((T(2), T(2)))
    assert inner.ret_type == T(2)


def test_refs() -> None:
    x = Var("x", F32)
    r = Var("r")
    u = Var("u")
    body = Let(r, RefCreate(x), Let(u, RefWrite(r, call("add", RefRead(r), x)),
                                    Tuple((RefRead(r), u))))
    fn, types = infer_expr(Function((x,), body))
    assert isinstance(fn, Function)
    assert fn.ret_type == TupleType((F32, UNIT))
    lets = [n for n in post_order(fn) if isinstance(n, Let)]
    assert {n.var.name_hint: n.var.type_annotation for n in lets} == {"r": RefType(F32),
                                                                      "u": UNIT}


def test_ref_errors_name_both_types() -> None:
    x = Var("x", F32)
    with pytest.raises(RelayTypeError) as ei:
        infer_expr(Function((x,), RefWrite(RefCreate(x), const(1))))
    assert ei.value.message == "expected ref(float32) but found ref(int32) in ref_write"
    with pytest.raises(RelayTypeError, match="expected a reference but found float32"):
        infer_expr(Function((x,), RefRead(x)))


def test_backpropagator_cell_of_the_gradient() -> None:
    """`let %bp: ref(fn () -> ()) = ref(fn () -> () { () })`, then `ref_read(%bp)()`."""
    bp = Var("bp")
    noop = Function((), Tuple(()))
    r = Var("r")
    body = Let(bp, RefCreate(noop), Let(r, Call(RefRead(bp), ()), r))
    e, types = infer_expr(body)
    assert types[id(e)] == UNIT
    assert e.var.type_annotation == RefType(FuncType((), UNIT))  # type: ignore[attr-defined]
    assert e.value.value.ret_type == UNIT  # type: ignore[attr-defined]


def test_closures_capture_and_call() -> None:
    x = Var("x", T(3))
    y = Var("y")
    f = Var("f")
    g = Var("g")
    # let %f = fn (%y) { %x * %y }; let %g = %f; (%g(%x), %f)
    body = Let(f, Function((y,), call("multiply", x, y)),
               Let(g, f, Tuple((Call(g, (x,)), f))))
    fn, _ = infer_expr(Function((x,), body))
    assert isinstance(fn, Function)
    assert fn.ret_type == TupleType((T(3), FuncType((T(3),), T(3))))
    assert all_vars_annotated(fn)


def test_calling_a_non_function_and_arity() -> None:
    x = Var("x", T(3))
    with pytest.raises(RelayTypeError, match=r"expected a function but found Tensor\[\(3\), "
                                             r"float32\] in the call of %x"):
        infer_expr(Function((x,), Call(x, ())))
    f = Var("f")
    y = Var("y", T(3))
    with pytest.raises(RelayTypeError, match="%f expects 1 argument but got 2$"):
        infer_expr(Function((x,), Let(f, Function((y,), y), Call(f, (x, x)))))


def test_let_annotation_mismatch_is_located() -> None:
    sp = Span("prog.relay", 7, 3, 7, 30)
    x = Var("x", T(5, 10))
    w = Var("w", T(20, 10))
    y = Var("y", T(5, 10), span=Span("prog.relay", 7, 7))
    with pytest.raises(RelayTypeError) as ei:
        infer_expr(Function((x, w), Let(y, call("nn.dense", x, w, units=20), y, span=sp)))
    assert ei.value.message == ("expected Tensor[(5, 10), float32] but found "
                                "Tensor[(5, 20), float32] in let %y")
    assert ei.value.span == sp


def test_op_error_uses_call_span() -> None:
    sp = Span("prog.relay", 4, 12, 4, 40)
    x, w = Var("x", T(5, 10)), Var("w", T(20, 20))
    with pytest.raises(RelayTypeError) as ei:
        infer_expr(Function((x, w), call("nn.dense", x, w, units=20, span=sp)))
    assert ei.value.span == sp
    assert str(ei.value).startswith("prog.relay:4:12: type error: expected Tensor[(20, 10)")


def test_error_without_own_span_uses_enclosing_span() -> None:
    fsp = Span("prog.relay", 2, 1)
    x = Var("x", T(3))
    fn = Function((x,), call("add", x, const(np.zeros((2,), "float32"))), span=fsp)
    with pytest.raises(RelayTypeError) as ei:
        infer_types(Module({"main": fn}))
    assert ei.value.span == fsp
    assert "cannot broadcast Tensor[(3), float32] with Tensor[(2), float32] in add" == (
        ei.value.message)


def test_return_annotation_mismatch() -> None:
    x = Var("x", T(3))
    with pytest.raises(RelayTypeError) as ei:
        infer_expr(Function((x,), x, ret_type=T(4)))
    assert ei.value.message.startswith("expected Tensor[(4), float32] but found "
                                       "Tensor[(3), float32] in the body of the function")


def test_if_condition_and_branches() -> None:
    c = Var("c", BOOL)
    x = Var("x", T(3))
    fn, _ = infer_expr(Function((c, x), If(c, x, call("negative", x))))
    assert isinstance(fn, Function) and fn.ret_type == T(3)
    u = Var("u", T(dtype="uint1"))  # test_if of the gradient suite uses a uint1 cond
    fn, _ = infer_expr(Function((u, x), If(u, x, x)))
    assert isinstance(fn, Function) and fn.ret_type == T(3)
    k = Var("k")  # an unannotated condition is a bool scalar
    fn, _ = infer_expr(Function((k, x), If(k, x, x)))
    assert isinstance(fn, Function) and fn.params[0].type_annotation == BOOL
    with pytest.raises(RelayTypeError, match=r"expected bool but found Tensor\[\(3\), float32\] "
                                             r"in the condition of if"):
        infer_expr(Function((x,), If(x, x, x)))
    with pytest.raises(RelayTypeError, match=r"expected Tensor\[\(3\), float32\] but found "
                                             r"float32 in the else branch"):
        infer_expr(Function((c, x), If(c, x, const(1.0))))


def test_let_bound_recursive_closure() -> None:
    """test_live_recursion of the DCE suite: the let var is visible in its own value."""
    f, n, r = Var("f"), Var("n"), Var("r")
    one = const(1)
    body = If(call("equal", n, const(0)), const(0.0),
              call("log", Call(f, (call("subtract", n, one),))))
    e = Let(f, Function((n,), body), Let(r, Call(f, (const(2),)), r))
    out, types = infer_expr(e)
    assert types[id(out)] == F32
    fv = out.var  # type: ignore[attr-defined]
    assert fv.type_annotation == FuncType((I32,), F32)
    lam = out.value  # type: ignore[attr-defined]
    assert lam.params[0].type_annotation == I32 and lam.ret_type == F32
    # the recursive use inside the body is the same (re-annotated) var object
    uses = [x for x in post_order(lam) if isinstance(x, Var) and x.name_hint == "f"]
    assert uses == [fv]


def test_recursive_closure_type_mismatch() -> None:
    f, n = Var("f"), Var("n", I32)
    e = Let(f, Function((n,), Call(f, (const(1.0),))), f)
    with pytest.raises(RelayTypeError, match=r"expected int32 but found float32 in argument 0 "
                                             r"of %f"):
        infer_expr(e)


def test_mutually_recursive_globals_without_annotations() -> None:
    even, odd = GlobalVar("even"), GlobalVar("odd")
    n1, n2, a = Var("n"), Var("n"), Var("a", I32)

    def step(other: GlobalVar, n: Var, base: bool) -> Expr:
        return If(call("equal", n, const(0)), const(base),
                  Call(other, (call("subtract", n, const(1)),)))

    mod = Module({
        "even": Function((n1,), step(odd, n1, True)),
        "odd": Function((n2,), step(even, n2, False)),
        "main": Function((a,), Call(even, (a,))),
    })
    typed = infer_types(mod)
    for name in ("even", "odd"):
        fn = typed.module[name]
        assert fn.params[0].type_annotation == I32
        assert fn.ret_type == BOOL
    assert typed.module["main"].ret_type == BOOL


def test_unknown_global() -> None:
    with pytest.raises(RelayTypeError, match="unknown global @nope"):
        infer_types(Module({"main": Function((), Call(GlobalVar("nope"), ()))}))


def test_polymorphic_global_instantiated_per_call() -> None:
    a = TypeVar("A")
    x = Var("x", a)
    ident = Function((x,), x, a, (a,))
    p, q = Var("p", T(3)), Var("q", I32)
    gid = GlobalVar("id")
    main = Function((p, q), Tuple((Call(gid, (p,)), Call(gid, (q,)), Call(gid, (Tuple(()),)))))
    typed = infer_types(Module({"id": ident, "main": main}))
    assert typed.module["main"].ret_type == TupleType((T(3), I32, UNIT))
    assert typed.type_of(typed.module["id"]) == FuncType((a,), a, (a,))


def test_polymorphic_body_keeps_type_vars_rigid() -> None:
    a = TypeVar("A")
    x = Var("x", a)
    bad = Function((x,), call("negative", x), a, (a,))
    with pytest.raises(RelayTypeError, match="expected a tensor but found A in argument 0"):
        infer_types(Module({"bad": bad}))


@needs_parser
def test_polymorphic_argument_is_instantiated_at_the_call() -> None:
    """v0.19 test_pass_defunctionalization test_simple: `fn [A]` passed for `fn(A) -> B`; the
    solver binds the extra type parameter to a fresh hole (type_solver.cc, FuncType)."""
    mod = parse(HEADER + """def @simple[A, B](%f: fn(A) -> B, %xs: A) -> B {
  %f(%xs)
}
def @main(%l: Tensor[(5, 5), float32]) -> Tensor[(5, 5), float32] {
  %0 = fn[A](%x: A) -> A {
    %x
  };
  @simple(%0, %l)
}
""")
    typed = infer_types(mod)
    assert typed.module["main"].ret_type == T(5, 5)
    call_ = typed.module["main"].body
    assert typed.type_of(call_) == T(5, 5)
    from extractor.relay.interpreter import evaluate

    x = np.arange(25, dtype="float32").reshape(5, 5)
    np.testing.assert_array_equal(evaluate(typed.module, [x]), x)


@needs_parser
def test_instantiated_argument_must_still_fit() -> None:
    mod = parse(HEADER + """def @app(%f: fn(float32) -> int32, %x: float32) -> int32 { %f(%x) }
def @main(%y: float32) { @app(fn [A](%x: A) -> A { %x }, %y) }
""")
    with pytest.raises(RelayTypeError, match="argument 0 of @app"):
        infer_types(mod)


def test_polymorphic_global_value_shared_is_instantiated_per_use() -> None:
    """One @id node passed twice at two types: each use gets its own instance."""
    a = TypeVar("A")
    x = Var("x", a)
    ident = Function((x,), x, a, (a,))
    f, g = Var("f", FuncType((F32,), F32)), Var("g", FuncType((I32,), I32))
    apply2 = Function((f, g), Tuple((Call(f, (const(1.0, "float32"),)),
                                     Call(g, (const(2, "int32"),)))))
    gid, gapp = GlobalVar("id"), GlobalVar("apply2")
    main = Function((), Call(gapp, (gid, gid)))
    typed = infer_types(Module({"id": ident, "apply2": apply2, "main": main}))
    assert typed.module["main"].ret_type == TupleType((F32, I32))


# ---------------------------------------------------------------------------------- ADTs


def list_module() -> tuple[Module, Constructor, Constructor, Constructor, Constructor]:
    a = TypeVar("A")
    lst = TypeCall("List", (a,))
    cons = Constructor("Cons", (a, lst), "List", 0)
    nil = Constructor("Nil", (), "List", 1)
    nat = TypeCall("nat")
    z = Constructor("Z", (), "nat", 0)
    s = Constructor("S", (nat,), "nat", 1)
    defs = {"List": TypeData("List", (a,), (cons, nil)), "nat": TypeData("nat", (), (z, s))}
    return Module({}, defs), cons, nil, z, s


def test_adt_list_length_polymorphic_global() -> None:
    mod, cons, nil, z, s = list_module()
    a = TypeVar("A")
    lst = Var("l", TypeCall("List", (a,)))
    t = Var("t")
    length = GlobalVar("length")
    body = Match(lst, (
        Clause(PatternConstructor(cons, (PatternWildcard(), PatternVar(t))),
               Call(s, (Call(length, (t,)),))),
        Clause(PatternConstructor(nil, ()), Call(z, ())),
    ))
    length_fn = Function((lst,), body, TypeCall("nat"), (a,))
    x = Var("x", T(3))
    floats = Call(cons, (x, Call(cons, (x, Call(nil, ())))))
    ints = Call(cons, (const(1), Call(nil, ())))
    main = Function((x,), Tuple((Call(length, (floats,)), Call(length, (ints,)))))
    typed = infer_types(Module({"length": length_fn, "main": main}, mod.type_defs))
    assert typed.module["main"].ret_type == TupleType((TypeCall("nat"), TypeCall("nat")))
    assert_every_node_typed(typed)
    m = typed.module["length"].body
    assert isinstance(m, Match)
    pv = m.clauses[0].lhs.patterns[1]  # type: ignore[attr-defined]
    assert pv.var.type_annotation == TypeCall("List", (a,))


def test_match_binds_pattern_vars_and_fills_annotations() -> None:
    mod, cons, nil, z, s = list_module()
    x = Var("x", F32)
    lv, h = Var("l"), Var("h")
    body = Let(lv, Call(cons, (x, Call(nil, ()))), Match(lv, (
        Clause(PatternConstructor(cons, (PatternVar(h), PatternWildcard())), h),
        Clause(PatternConstructor(nil, ()), const(0.0)),
    )))
    fn, types = infer_expr(Function((x,), body), mod)
    assert isinstance(fn, Function)
    assert fn.ret_type == F32
    assert fn.body.var.type_annotation == TypeCall("List", (F32,))  # type: ignore[attr-defined]
    assert all_vars_annotated(fn)
    new_match = fn.body.body  # type: ignore[attr-defined]
    new_h = new_match.clauses[0].lhs.patterns[0].var
    assert new_h.type_annotation == F32
    assert new_match.clauses[0].rhs is new_h  # the use and the binder stay one node


def test_match_arm_mismatch_and_bad_pattern() -> None:
    mod, cons, nil, z, s = list_module()
    n = Var("n", TypeCall("nat"))
    with pytest.raises(RelayTypeError, match=r"expected float32 but found int32 in match arm 1"):
        infer_expr(Function((n,), Match(n, (Clause(PatternConstructor(z, ()), const(0.0)),
                                            Clause(PatternWildcard(), const(1))))), mod)
    with pytest.raises(RelayTypeError, match=r"expected nat but found List\[_\] in pattern Nil"):
        infer_expr(Function((n,), Match(n, (Clause(PatternConstructor(nil, ()), n),))), mod)
    with pytest.raises(RelayTypeError, match="belongs to unknown type List"):
        infer_expr(Call(nil, ()))


def test_nat_recursion_with_tuple_pattern() -> None:
    """nat_iterate-style: a recursive global matching on a nat inside a tuple."""
    mod, cons, nil, z, s = list_module()
    it = GlobalVar("iter")
    p = Var("p")
    k, x = Var("k"), Var("x")
    body = Match(p, (
        Clause(PatternTuple((PatternConstructor(z, ()), PatternVar(x))), x),
        Clause(PatternTuple((PatternConstructor(s, (PatternVar(k),)), PatternVar(x))),
               Call(it, (Tuple((k, call("multiply", x, x))),))),
    ))
    y = Var("y", T(2))
    main = Function((y,), Call(it, (Tuple((Call(s, (Call(z, ()),)), y)),)))
    typed = infer_types(Module({"iter": Function((p,), body), "main": main}, mod.type_defs))
    it_fn = typed.module["iter"]
    assert it_fn.params[0].type_annotation == TupleType((TypeCall("nat"), T(2)))
    assert it_fn.ret_type == T(2)
    assert all_vars_annotated(it_fn)


# -------------------------------------------------------------------- holes and leftovers


def test_unconstrained_stays_incomplete_but_constrained_is_error() -> None:
    x = Var("x")
    fn, _ = infer_expr(Function((x,), x))
    assert isinstance(fn, Function)
    assert fn.params[0].type_annotation == IncompleteType()
    assert fn.ret_type == IncompleteType()
    y = Var("y")
    with pytest.raises(RelayTypeError, match=r"cannot infer the type of this call of negative: "
                                             r"its argument types \(_\)"):
        infer_expr(Function((y,), call("negative", y)))


def test_partial_annotations_are_completed() -> None:
    x = Var("x", TupleType((T(3), IncompleteType())))
    q = Var("q", I32)
    f = Var("f")
    arg = Tuple((const(np.zeros(3, "float32")), q))
    body = Let(f, Function((x,), TupleGetItem(x, 0)), Call(f, (arg,)))
    e, _ = infer_expr(Function((q,), body))
    lam = e.body.value  # type: ignore[attr-defined]
    assert lam.params[0].type_annotation == TupleType((T(3), I32))


def test_infinite_type_is_rejected() -> None:
    x = Var("x")
    with pytest.raises(RelayTypeError, match="in the call of %x"):
        infer_expr(Function((x,), Call(x, (x,))))


def test_type_of_foreign_node() -> None:
    typed = infer_types(Module({"main": seed_ast(True)}))
    with pytest.raises(RelayTypeError, match="not a node of the typed module"):
        typed.type_of(Var("stranger"))


def test_free_vars_in_infer_expr() -> None:
    x = Var("x", T(2, 2))
    e, types = infer_expr(call("nn.dense", x, x, units=2))
    assert types[id(e)] == T(2, 2)


# ---------------------------------------------------------------------- sharing and depth


def test_shared_nodes_stay_shared() -> None:
    x = Var("x", T(3))
    shared = call("exp", x)  # a graph-bound %0 used twice
    body = Tuple((shared, call("add", shared, shared)))
    fn, types = infer_expr(Function((x,), body))
    assert isinstance(fn, Function)
    t = fn.body
    assert isinstance(t, Tuple)
    assert t.fields[0] is t.fields[1].args[0] is t.fields[1].args[1]  # type: ignore[attr-defined]
    assert types[id(t.fields[0])] == T(3)


def test_unchanged_program_is_reused() -> None:
    main = seed_ast(True)
    typed = infer_types(Module({"main": main}))
    assert typed.module["main"] is main


def test_twenty_thousand_let_chain() -> None:
    n = 20_000
    x = Var("x", T(4))
    vs = [Var(f"v{i}") for i in range(n)]
    body: Expr = vs[-1]
    for i in reversed(range(n)):
        prev = x if i == 0 else vs[i - 1]
        body = Let(vs[i], call("add", prev, x), body)
    typed = infer_types(Module({"main": Function((x,), body)}))
    main = typed.module["main"]
    assert main.ret_type == T(4)
    lets = []
    e: Expr = main.body
    while isinstance(e, Let):
        lets.append(e)
        e = e.body
    assert len(lets) == n
    assert all(let.var.type_annotation == T(4) for let in lets)
    assert typed.type_of(lets[12345].value) == T(4)


def test_twenty_thousand_let_chain_error_is_located() -> None:
    n = 20_000
    x = Var("x", T(4))
    vs = [Var(f"v{i}") for i in range(n)]
    bad = Span("deep.relay", 15001, 3)
    body: Expr = vs[-1]
    for i in reversed(range(n)):
        prev = x if i == 0 else vs[i - 1]
        other = const(np.zeros(5, "float32")) if i == 15000 else x
        body = Let(vs[i], call("add", prev, other, span=bad if i == 15000 else None), body)
    with pytest.raises(RelayTypeError) as ei:
        infer_types(Module({"main": Function((x,), body)}))
    assert ei.value.span == bad


def test_deeply_nested_types_give_a_located_error_not_recursion_error() -> None:
    sp = Span("deep.relay", 1, 1)
    x = Var("x", F32)
    e: Expr = x
    for _ in range(20_000):
        e = Tuple((e,))
    try:
        infer_types(Module({"main": Function((x,), e, span=sp)}))
    except RelayTypeError as err:
        assert err.span == sp and "nested too deeply" in err.message


def test_deep_call_nesting_without_lets() -> None:
    """Graph-form programs (`%N = op(%N-1)`) nest calls deeply; no RecursionError."""
    x = Var("x", T(2))
    e: Expr = x
    for _ in range(5000):
        e = call("negative", e)
    fn, types = infer_expr(Function((x,), e))
    assert isinstance(fn, Function) and fn.ret_type == T(2)


# ----------------------------------------------------------------------------- model-like


def test_mlp_like_workload() -> None:
    """relay.testing.mlp: untyped weights, batch_flatten, dense/bias_add/relu, softmax."""
    data = Var("data", T(1, 1, 28, 28))
    ws = [Var(f"fc{i}_weight") for i in range(1, 4)]
    bs = [Var(f"fc{i}_bias") for i in range(1, 4)]
    h: Expr = call("nn.batch_flatten", data)
    for i, units in enumerate((128, 64, 10)):
        h = call("nn.bias_add", call("nn.dense", h, ws[i], units=units), bs[i], axis=-1)
        if i < 2:
            h = call("nn.relu", h)
    fn, _ = infer_expr(Function((data, *ws, *bs), call("nn.softmax", h)))
    assert isinstance(fn, Function)
    assert fn.ret_type == T(1, 10)
    assert [p.type_annotation for p in fn.params[1:4]] == [T(128, 784), T(64, 128), T(10, 64)]
    assert [p.type_annotation for p in fn.params[4:]] == [T(128), T(64), T(10)]


@needs_parser
def test_parsed_gradient_shaped_program() -> None:
    """The ops the higher-order gradient adds, in printed form, with ref-typed annotations."""
    text = """#[version = "0.0.5"]
def @main(%x: Tensor[(5, 10), float32], %w: Tensor[(20, 10), float32]) {
  let %bp: ref(fn () -> ()) = ref(fn () -> () { () });
  let %g = ref(zeros_like(%w));
  let %y = nn.dense(%x, %w, units=20);
  let %s = shape_of(%x, dtype="int32");
  let %b = cast(take(%s, 0, axis=0), dtype="float32");
  let %t = transpose(%w, axes=None);
  let %d = nn.dense(%y, %t, units=10);
  let %c = collapse_sum_like(%d, %x);
  let %e = sum(%y, axis=[-1], exclude=True);
  let %k = broadcast_to_like(expand_dims(%e, axis=0), %y);
  let %u = ref_write(%g, add(ref_read(%g), %w));
  let %v = ref_read(%bp)();
  (%c, %b, %k, ref_read(%g))
}"""
    main = infer_types(parse(text)).module["main"]
    assert type_str(main.ret_type) == ("(Tensor[(5, 10), float32], float32, "
                                       "Tensor[(5, 20), float32], Tensor[(20, 10), float32])")
    anns = {n.var.name_hint: type_str(n.var.type_annotation)
            for n in post_order(main) if isinstance(n, Let)}
    assert anns["bp"] == "ref(fn () -> ())"
    assert anns["g"] == "ref(Tensor[(20, 10), float32])"
    assert anns["e"] == "Tensor[(20), float32]"  # exclude=True keeps the listed axis
    assert anns["u"] == "()" and anns["v"] == "()"


@needs_parser
def test_parse_expr_with_graph_bindings() -> None:
    e = parse_expr("free_var %x: Tensor[(3), float32]; %0 = exp(%x); (%0, %0 * %0)")
    out, types = infer_expr(e)
    assert types[id(out)] == TupleType((T(3), T(3)))
