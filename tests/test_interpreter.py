"""The numpy interpreter: TVM v0.19 debug-interpreter semantics, op results, deep programs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from extractor.diagnostics import Span
from extractor.relay.ast import (
    Attrs,
    Call,
    Clause,
    Constant,
    Constructor,
    Function,
    GlobalVar,
    If,
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
)
from extractor.relay.interpreter import (
    Closure,
    ConstructorValue,
    EvalError,
    RefCell,
    eval_expr,
    evaluate,
    flatten_value,
    random_inputs,
)
from extractor.relay.ops import attr

from . import op_registry as relay_ops
from .op_registry import OP_IMPLS

RNG = np.random.default_rng(0)


def call(name: str, *args, **attrs) -> Call:
    return Call(Op(name), tuple(args), Attrs.of(None, **attrs))


def run(name: str, *arrays, **attrs):
    """Apply op `name` to constant arguments (a Python tuple becomes a Relay tuple)."""
    def arg(a):
        if isinstance(a, tuple):
            return Tuple(tuple(arg(x) for x in a))
        return Constant(np.asarray(a))

    return eval_expr(call(name, *(arg(a) for a in arrays), **attrs))


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def lets(bindings: list[tuple[Var, object]], body):
    """let v1 = e1; let v2 = e2; ...; body (built from the end, no recursion)."""
    for v, e in reversed(bindings):
        body = Let(v, e, body)
    return body


def seq(first, then):
    """first; then  (a let with an unused var)."""
    return Let(Var("_"), first, then)


F32 = TensorType((), "float32")
I32 = TensorType((), "int32")

# ------------------------------------------------------------------------------ elementwise

UNARY_EXPECT = {
    "negative": np.negative,
    "exp": np.exp,
    "log": lambda x: np.log(np.abs(x) + 1),
    "log2": lambda x: np.log2(np.abs(x) + 1),
    "log10": lambda x: np.log10(np.abs(x) + 1),
    "sqrt": lambda x: np.sqrt(np.abs(x)),
    "rsqrt": lambda x: 1 / np.sqrt(np.abs(x) + 1),
    "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asin": lambda x: np.arcsin(np.clip(x, -0.9, 0.9)),
    "acos": lambda x: np.arccos(np.clip(x, -0.9, 0.9)),
    "atan": np.arctan, "asinh": np.arcsinh,
    "acosh": lambda x: np.arccosh(np.abs(x) + 1),
    "atanh": lambda x: np.arctanh(np.clip(x, -0.9, 0.9)),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "abs": np.abs,
    "erf": lambda x: np.array([math.erf(v) for v in x.ravel()]).reshape(x.shape),
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "sign": np.sign,
    "copy": lambda x: x,
    "zeros_like": lambda x: np.zeros(x.shape),
    "ones_like": lambda x: np.ones(x.shape),
    "nn.relu": lambda x: np.where(x > 0, x, 0),
}
# inputs moved into each op's domain, mirroring the expectations above
UNARY_INPUT = {
    "log": lambda x: np.abs(x) + 1, "log2": lambda x: np.abs(x) + 1,
    "log10": lambda x: np.abs(x) + 1, "sqrt": np.abs, "rsqrt": lambda x: np.abs(x) + 1,
    "asin": lambda x: np.clip(x, -0.9, 0.9), "acos": lambda x: np.clip(x, -0.9, 0.9),
    "acosh": lambda x: np.abs(x) + 1, "atanh": lambda x: np.clip(x, -0.9, 0.9),
}


@pytest.mark.parametrize("name", sorted(UNARY_EXPECT))
def test_unary_float_ops(name):
    x = randn(3, 4) * 2
    xin = UNARY_INPUT.get(name, lambda v: v)(x).astype(np.float32)
    out = run(name, xin)
    assert out.dtype == np.float32 and out.shape == (3, 4)
    np.testing.assert_allclose(out, UNARY_EXPECT[name](x), rtol=1e-5, atol=1e-6)


def test_every_elementwise_op_in_the_registry_has_an_implementation():
    missing = [n for n in relay_ops._UNARY + relay_ops._BINARY if n not in OP_IMPLS]
    assert missing == []


BINARY_EXPECT = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "divide": np.divide, "maximum": np.maximum, "minimum": np.minimum,
    "power": lambda a, b: np.abs(a) ** b,
}


@pytest.mark.parametrize("name", sorted(BINARY_EXPECT))
def test_binary_float_ops_broadcast(name):
    a, b = randn(2, 1, 3), randn(4, 1)
    if name == "power":
        a = np.abs(a)
    out = run(name, a, b)
    assert out.shape == (2, 4, 3) and out.dtype == np.float32
    np.testing.assert_allclose(out, BINARY_EXPECT[name](a, b), rtol=1e-5)


def test_integer_division_and_modulo_follow_tvm():
    a = np.array([-7, 7, -7, 7, 6], dtype=np.int32)
    b = np.array([2, -2, -2, 2, 3], dtype=np.int32)
    assert run("divide", a, b).tolist() == [-3, -3, 3, 3, 2]  # truncation toward zero
    assert run("floor_divide", a, b).tolist() == [-4, -4, 3, 3, 2]
    assert run("mod", a, b).tolist() == [-1, 1, -1, 1, 0]  # sign of the dividend
    assert run("floor_mod", a, b).tolist() == [1, -1, -1, 1, 0]  # sign of the divisor
    assert run("divide", a, b).dtype == np.int32
    np.testing.assert_allclose(run("mod", np.float32([5.5, -5.5]), np.float32([2, 2])),
                               [1.5, -1.5])
    np.testing.assert_allclose(run("floor_mod", np.float32([5.5, -5.5]), np.float32([2, 2])),
                               [1.5, 0.5])


def test_comparisons_and_logic_give_bool():
    a, b = np.float32([1, 2, 3]), np.float32([2, 2, 2])
    expect = {"equal": [0, 1, 0], "not_equal": [1, 0, 1], "less": [1, 0, 0],
              "less_equal": [1, 1, 0], "greater": [0, 0, 1], "greater_equal": [0, 1, 1]}
    for name, want in expect.items():
        out = run(name, a, b)
        assert out.dtype == np.bool_, name
        assert out.tolist() == [bool(w) for w in want], name
    t, f = np.array([True, True, False]), np.array([True, False, False])
    assert run("logical_and", t, f).tolist() == [True, False, False]
    assert run("logical_or", t, f).tolist() == [True, True, False]
    assert run("logical_not", f).tolist() == [False, True, True]


def test_scalar_results_are_rank0_arrays():
    out = run("add", np.float32(1), np.float32(2))
    assert isinstance(out, np.ndarray) and out.shape == () and float(out) == 3.0


def test_leaky_relu_where_clip():
    x = np.float32([-2, -0.5, 0, 3])
    np.testing.assert_allclose(run("nn.leaky_relu", x), [-0.5, -0.125, 0, 3])
    np.testing.assert_allclose(run("nn.leaky_relu", x, alpha=0.1), [-0.2, -0.05, 0, 3])
    c = np.array([True, False, True, False])
    np.testing.assert_allclose(run("where", c, x, np.float32(9)), [-2, 9, 0, 9])
    np.testing.assert_allclose(run("clip", x, a_min=-1.0, a_max=1.0), [-1, -0.5, 0, 1])
    assert run("clip", x, a_min=-1.0, a_max=1.0).dtype == np.float32


# --------------------------------------------------------------------------- dense algebra


def test_dense_is_data_times_weight_transposed():
    x, w = randn(5, 10), randn(20, 10)
    out = run("nn.dense", x, w, units=20)
    np.testing.assert_allclose(out, x @ w.T, rtol=1e-5)
    assert out.shape == (5, 20)
    assert run("nn.dense", x, w, units=None).shape == (5, 20)
    xi, wi = np.int8([[1, 2]]), np.int8([[3, 4]])
    out = run("nn.dense", xi, wi, units=1, out_dtype="int32")
    assert out.dtype == np.int32 and out.tolist() == [[11]]


def test_dense_units_mismatch_is_a_located_error():
    sp = Span("prog.relay", 3, 7, 3, 15)
    e = Call(Op("nn.dense"), (Constant(randn(5, 10)), Constant(randn(20, 10))),
             Attrs.of(None, units=7), span=sp)
    with pytest.raises(EvalError) as ei:
        eval_expr(e)
    assert ei.value.span == sp
    assert "nn.dense" in str(ei.value) and "Tensor[(20, 10), float32]" in str(ei.value)


def test_matmul_and_batch_matmul():
    a, b = randn(3, 4), randn(4, 5)
    np.testing.assert_allclose(run("nn.matmul", a, b), a @ b, rtol=1e-5)
    np.testing.assert_allclose(run("nn.matmul", a, b.T.copy(), transpose_b=True), a @ b,
                               rtol=1e-5)
    x, y = randn(2, 3, 4), randn(2, 5, 4)
    np.testing.assert_allclose(run("nn.batch_matmul", x, y),
                               np.einsum("bmk,bnk->bmn", x, y), rtol=1e-5)
    y2 = randn(1, 4, 5)
    np.testing.assert_allclose(run("nn.batch_matmul", x, y2, transpose_b=False),
                               np.einsum("bmk,kn->bmn", x, y2[0]), rtol=1e-5)


def test_bias_add_default_axis_is_one_and_negative_axis_counts_from_end():
    x, b = randn(2, 3, 4, 5), randn(3)
    np.testing.assert_allclose(run("nn.bias_add", x, b), x + b[None, :, None, None])
    b5 = randn(5)
    np.testing.assert_allclose(run("nn.bias_add", x, b5, axis=-1), x + b5)
    with pytest.raises(EvalError, match="bias"):
        run("nn.bias_add", x, b5)


def test_softmax_log_softmax_cross_entropy():
    x = randn(5, 20)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    sm = e / e.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(run("nn.softmax", x), sm, rtol=1e-5)
    np.testing.assert_allclose(run("nn.softmax", x, axis=0),
                               np.exp(x) / np.exp(x).sum(axis=0), rtol=1e-5)
    lsm = run("nn.log_softmax", x)
    np.testing.assert_allclose(lsm, np.log(sm), rtol=1e-4, atol=1e-5)
    y = randn(5, 20)
    xe = run("nn.cross_entropy_with_logits", lsm, y)
    assert xe.shape == () and xe.dtype == np.float32
    np.testing.assert_allclose(xe, -np.sum(lsm * y) / 5, rtol=1e-5)
    p = sm
    np.testing.assert_allclose(run("nn.cross_entropy", p, y), -np.sum(np.log(p) * y) / 5,
                               rtol=1e-5)
    with pytest.raises(EvalError, match="cross_entropy_with_logits"):
        run("nn.cross_entropy_with_logits", x, randn(5, 3))


# ------------------------------------------------------------------------------ reductions


def test_reductions_axis_keepdims_exclude():
    x = randn(2, 3, 4)
    np.testing.assert_allclose(run("sum", x), x.sum(), rtol=1e-5)
    assert run("sum", x).shape == ()
    np.testing.assert_allclose(run("sum", x, axis=(-1,), keepdims=True),
                               x.sum(axis=-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(run("sum", x, axis=(1,), exclude=True), x.sum(axis=(0, 2)),
                               rtol=1e-5)
    np.testing.assert_allclose(run("sum", x, axis=1), x.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(run("max", x, axis=(0, 2)), x.max(axis=(0, 2)))
    np.testing.assert_allclose(run("min", x, axis=(2,), keepdims=True),
                               x.min(axis=2, keepdims=True))
    np.testing.assert_allclose(run("mean", x, axis=(0,)), x.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(run("prod", x, axis=(1,)), x.prod(axis=1), rtol=1e-5)
    np.testing.assert_allclose(run("sum", x, axis=(0, 1, 2), exclude=True), x, rtol=1e-6)
    # as TVM's GetReduceAxes: no axis (or an empty list) reduces everything, even with exclude
    np.testing.assert_allclose(run("sum", x, exclude=True), x.sum(), rtol=1e-5)
    np.testing.assert_allclose(run("mean", x, axis=()), x.mean(), rtol=1e-5)


def test_argmax_and_variance():
    x = np.float32([[1, 5, 5], [7, 0, 7]])
    out = run("argmax", x, axis=(1,))
    assert out.dtype == np.int32 and out.tolist() == [1, 0]
    assert run("argmax", x, axis=(1,), select_last_index=True).tolist() == [2, 2]
    assert run("argmax", x).tolist() == 3
    assert run("argmax", x, axis=(0,), keepdims=True).tolist() == [[1, 0, 1]]
    y = randn(3, 4)
    m = y.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(run("variance", y, m, axis=(1,)), y.var(axis=1), rtol=1e-5)
    np.testing.assert_allclose(run("variance", y, m, axis=(1,), unbiased=True),
                               y.var(axis=1, ddof=1), rtol=1e-5)


# ------------------------------------------------------------------------ shapes and layout


def test_transpose_shape_of_take_cast():
    x = randn(2, 3, 4)
    assert run("transpose", x, axes=None).shape == (4, 3, 2)
    np.testing.assert_array_equal(run("transpose", x, axes=None), x.T)
    np.testing.assert_array_equal(run("transpose", x, axes=(1, 0, -1)), x.transpose(1, 0, 2))
    s = run("shape_of", x)
    assert s.dtype == np.int32 and s.tolist() == [2, 3, 4]
    assert run("shape_of", x, dtype="int64").dtype == np.int64
    first = run("take", s, np.int32(0), axis=0)
    assert first.shape == () and int(first) == 2
    d = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(run("take", d, np.int32([5, 0])), [5, 0])  # axis None: flat
    np.testing.assert_array_equal(run("take", d, np.int32([-1, 7]), axis=0), d[[0, 2]])  # clip
    np.testing.assert_array_equal(run("take", d, np.int32([-1, 5]), axis=1, mode="wrap"),
                                  d[:, [3, 1]])
    c = run("cast", np.float32([1.7, -1.7]), dtype="int32")
    assert c.dtype == np.int32 and c.tolist() == [1, -1]
    assert run("cast_like", np.int32([1]), np.float64([0])).dtype == np.float64
    assert run("cast", np.float32([0, 2]), dtype="bool").tolist() == [False, True]


def test_expand_dims_squeeze_batch_flatten():
    x = randn(2, 3)
    assert run("expand_dims", x, axis=1).shape == (2, 1, 3)
    assert run("expand_dims", x, axis=-1, num_newaxis=2).shape == (2, 3, 1, 1)
    assert run("expand_dims", x, axis=0, num_newaxis=0).shape == (2, 3)
    y = randn(1, 3, 1, 2)
    assert run("squeeze", y).shape == (3, 2)
    assert run("squeeze", y, axis=(2,)).shape == (1, 3, 2)
    with pytest.raises(EvalError, match="squeeze"):
        run("squeeze", y, axis=(1,))
    np.testing.assert_array_equal(run("nn.batch_flatten", randn(2, 3, 4)).shape, (2, 12))


@pytest.mark.parametrize("shape,newshape,want", [
    ((2, 3, 4), (6, 4), (6, 4)),
    ((2, 3, 4), (0, -1), (2, 12)),
    ((2, 3, 4), (-1,), (24,)),
    ((2, 3, 4), (4, 0, 2), (4, 3, 2)),
    ((2, 3, 4), (-2,), (2, 3, 4)),
    ((2, 3, 4), (2, -2), (2, 3, 4)),
    ((2, 3, 4), (-3, 4), (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, 4), (2, 1, 3, 4)),
])
def test_reshape_special_values(shape, newshape, want):
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    out = run("reshape", x, newshape=newshape)
    assert out.shape == want
    np.testing.assert_array_equal(out.ravel(), x.ravel())


def test_reshape_errors_and_like_ops():
    with pytest.raises(EvalError, match="reshape"):
        run("reshape", randn(2, 3), newshape=(4, -1))
    x, like = randn(2, 6), randn(3, 4)
    np.testing.assert_array_equal(run("reshape_like", x, like), x.reshape(3, 4))
    b = randn(1, 4)
    np.testing.assert_array_equal(run("broadcast_to", b, shape=(3, 4)),
                                  np.broadcast_to(b, (3, 4)))
    np.testing.assert_array_equal(run("broadcast_to_like", b, like), np.broadcast_to(b, (3, 4)))


def test_collapse_sum_like_reverses_broadcasting():
    a = randn(2, 3, 4)
    np.testing.assert_allclose(run("collapse_sum_like", a, randn(4)), a.sum(axis=(0, 1)),
                               rtol=1e-5)
    np.testing.assert_allclose(run("collapse_sum_like", a, randn(3, 1)),
                               a.sum(axis=0).sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(run("collapse_sum_like", a, np.float32(0)), a.sum(), rtol=1e-5)
    np.testing.assert_array_equal(run("collapse_sum_like", a, a), a)
    with pytest.raises(EvalError, match="collapse_sum_like"):
        run("collapse_sum_like", a, randn(5))


def test_init_ops():
    z = run("zeros", shape=(2, 3))
    assert z.dtype == np.float32 and z.shape == (2, 3) and not z.any()
    o = run("ones", shape=(2,), dtype="int64")
    assert o.dtype == np.int64 and o.tolist() == [1, 1]
    f = run("full", np.float32(2.5), shape=(2, 2))
    assert f.dtype == np.float32 and f.tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert run("full", np.float32(2.5), shape=(1,), dtype="int32").tolist() == [2]


def test_concatenate_stack_split():
    a, b = randn(2, 3), randn(2, 1)
    np.testing.assert_array_equal(run("concatenate", (a, b), axis=1),
                                  np.concatenate([a, b], axis=1))
    np.testing.assert_array_equal(run("concatenate", (a, a)), np.concatenate([a, a]))
    np.testing.assert_array_equal(run("stack", (a, a), axis=-1), np.stack([a, a], axis=-1))
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    parts = run("split", x, indices_or_sections=3, axis=1)
    assert isinstance(parts, tuple) and len(parts) == 3
    np.testing.assert_array_equal(parts[1], x[:, 2:4])
    parts = run("split", x, indices_or_sections=(1, 4), axis=-1)
    assert [p.shape for p in parts] == [(2, 1), (2, 3), (2, 2)]
    with pytest.raises(EvalError, match="split"):
        run("split", x, indices_or_sections=4, axis=1)


def test_strided_slice():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(run("strided_slice", x, begin=(1, 0), end=(3, 6)), x[1:3])
    np.testing.assert_array_equal(
        run("strided_slice", x, begin=(0, 1), end=(4, 100), strides=(2, 2)), x[0:4:2, 1::2])
    np.testing.assert_array_equal(
        run("strided_slice", x, begin=(-1,), end=(-5,), strides=(-1,)), x[::-1])
    np.testing.assert_array_equal(
        run("strided_slice", x, begin=(2,), end=(-1,), axes=(1,)), x[:, 2:5])
    np.testing.assert_array_equal(
        run("strided_slice", x, begin=(1, 2), end=(2, -1), slice_mode="size"), x[1:3, 2:])


def test_one_hot_copy_dropout_checkpoint():
    idx = np.int32([0, 2])
    oh = run("one_hot", idx, np.float32(1), np.float32(0), depth=3, dtype="float32")
    np.testing.assert_array_equal(oh, [[1, 0, 0], [0, 0, 1]])
    oh0 = run("one_hot", idx, np.int32(5), np.int32(-1), depth=3, axis=0, dtype="int32")
    np.testing.assert_array_equal(oh0, [[5, -1], [-1, -1], [-1, 5]])
    x = randn(2, 2)
    out, mask = run("nn.dropout", x, rate=0.3)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(mask, np.ones((2, 2)))
    np.testing.assert_array_equal(run("annotation.checkpoint", x), x)
    np.testing.assert_array_equal(run("copy", x), x)


# ----------------------------------------------------------------------------- convolution


def naive_conv2d(x, w, stride, pad, dil, groups):
    """Direct-loop NCHW/OIHW convolution; pad = (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    pt, pl, pb, pr = pad
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=np.float64)
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (h + pt + pb - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pl + pr - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for b in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(oh):
                for j in range(ow):
                    s = 0.0
                    for ic in range(cg):
                        for ki in range(kh):
                            for kj in range(kw):
                                s += (xp[b, g * cg + ic, i * stride[0] + ki * dil[0],
                                         j * stride[1] + kj * dil[1]] * w[oc, ic, ki, kj])
                    out[b, oc, i, j] = s
    return out


@pytest.mark.parametrize("cin,cout,groups,k,stride,padding,dil", [
    (3, 4, 1, (3, 3), (1, 1), (0, 0), (1, 1)),
    (3, 4, 1, (3, 3), (1, 1), (1,), (1, 1)),
    (4, 6, 2, (3, 2), (2, 1), (1, 2), (1, 1)),
    (2, 3, 1, (3, 3), (2, 2), (1, 0, 2, 1), (2, 1)),
    (4, 4, 4, (3, 3), (1, 2), (1, 1, 1, 1), (1, 1)),  # depthwise
    (4, 8, 4, (2, 2), (1, 1), (0, 1, 1, 0), (2, 2)),  # depthwise with multiplier 2
])
def test_conv2d_matches_naive_loops(cin, cout, groups, k, stride, padding, dil):
    x = randn(2, cin, 7, 8)
    w = randn(cout, cin // groups, *k)
    out = run("nn.conv2d", x, w, strides=stride, padding=padding, dilation=dil, groups=groups,
              channels=cout, kernel_size=k)
    p = padding * 4 if len(padding) == 1 else (
        (padding[0], padding[1]) * 2 if len(padding) == 2 else padding)
    want = naive_conv2d(x, w, stride, p, dil, groups)
    assert out.shape == want.shape and out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_conv2d_rejects_other_layouts_and_mismatched_channels():
    with pytest.raises(EvalError, match="NCHW"):
        run("nn.conv2d", randn(1, 4, 4, 3), randn(3, 3, 3, 3), data_layout="NHWC")
    with pytest.raises(EvalError, match="groups"):
        run("nn.conv2d", randn(1, 3, 5, 5), randn(2, 2, 3, 3))


def naive_conv2d_transpose(x, w, stride, pad, dil, out_pad):
    """Scatter form of the transposed convolution (IOHW kernel), then crop the padding."""
    n, c, h, wd = x.shape
    _, o, kh, kw = w.shape
    fh = (h - 1) * stride[0] + dil[0] * (kh - 1) + 1
    fw = (wd - 1) * stride[1] + dil[1] * (kw - 1) + 1
    full = np.zeros((n, o, fh + out_pad[0], fw + out_pad[1]))
    for b in range(n):
        for ic in range(c):
            for i in range(h):
                for j in range(wd):
                    for oc in range(o):
                        for ki in range(kh):
                            for kj in range(kw):
                                full[b, oc, i * stride[0] + ki * dil[0],
                                     j * stride[1] + kj * dil[1]] += x[b, ic, i, j] * w[
                                    ic, oc, ki, kj]
    pt, pl, pb, pr = pad
    oh, ow = fh - pt - pb + out_pad[0], fw - pl - pr + out_pad[1]
    return full[:, :, pt:pt + oh, pl:pl + ow]


@pytest.mark.parametrize("stride,padding,dil,out_pad", [
    ((1, 1), (0, 0), (1, 1), (0, 0)),
    ((2, 2), (1, 1), (1, 1), (1, 1)),
    ((2, 1), (1, 0, 0, 1), (1, 2), (1, 0)),
])
def test_conv2d_transpose_matches_scatter_loops(stride, padding, dil, out_pad):
    x, w = randn(1, 3, 4, 5), randn(3, 2, 3, 3)
    out = run("nn.conv2d_transpose", x, w, strides=stride, padding=padding, dilation=dil,
              output_padding=out_pad)
    p = padding * 2 if len(padding) == 2 else padding
    want = naive_conv2d_transpose(x, w, stride, p, dil, out_pad)
    assert out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def test_batch_norm_returns_three_tuple():
    x = randn(2, 3, 4, 4)
    g, b, m, v = randn(3), randn(3), randn(3), np.abs(randn(3))
    out, mm, mv = run("nn.batch_norm", x, g, b, m, v, epsilon=2e-5)

    def r(a):
        return a[None, :, None, None]

    np.testing.assert_allclose(out, (x - r(m)) / np.sqrt(r(v) + 2e-5) * r(g) + r(b),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(mm, m)
    np.testing.assert_array_equal(mv, v)
    out2 = run("nn.batch_norm", x, g, b, m, v, scale=False, center=False)[0]
    np.testing.assert_allclose(out2, (x - r(m)) / np.sqrt(r(v) + 1e-5), rtol=1e-4, atol=1e-5)
    x3 = randn(2, 5, 3)
    g3, b3, m3, v3 = randn(3), randn(3), randn(3), np.abs(randn(3))
    out3 = run("nn.batch_norm", x3, g3, b3, m3, v3, axis=-1)[0]
    np.testing.assert_allclose(out3, (x3 - m3) / np.sqrt(v3 + 1e-5) * g3 + b3, rtol=1e-4,
                               atol=1e-5)


def naive_pool(x, kind, k, stride, pad, ceil, include_pad):
    n, c, h, w = x.shape
    pt, pl, pb, pr = pad

    def osize(size, kk, s, p0, p1):
        span = size + p0 + p1 - kk
        return (-(-span // s) if ceil else span // s) + 1

    oh, ow = osize(h, k[0], stride[0], pt, pb), osize(w, k[1], stride[1], pl, pr)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * stride[0] - pt, j * stride[1] - pl
            rows = [r for r in range(r0, r0 + k[0]) if 0 <= r < h]
            cols = [q for q in range(c0, c0 + k[1]) if 0 <= q < w]
            win = x[:, :, rows][:, :, :, cols]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                if include_pad:
                    nr = len([r for r in range(r0, r0 + k[0]) if r < h + pb])
                    nc = len([q for q in range(c0, c0 + k[1]) if q < w + pr])
                    cnt = nr * nc
                else:
                    cnt = len(rows) * len(cols)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return out


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("k,stride,padding,ceil,include", [
    ((2, 2), (2, 2), (0, 0), False, False),
    ((3, 3), (2, 2), (1, 1), False, False),
    ((3, 3), (2, 2), (1, 1), False, True),
    ((3, 2), (2, 2), (0, 1, 1, 0), True, False),
    ((3, 3), (2, 2), (1, 1), True, True),
])
def test_pool2d_matches_naive_loops(kind, k, stride, padding, ceil, include):
    x = randn(2, 3, 7, 6)
    attrs = dict(pool_size=k, strides=stride, padding=padding, ceil_mode=ceil)
    if kind == "avg":
        attrs["count_include_pad"] = include
    out = run(f"nn.{kind}_pool2d", x, **attrs)
    p = padding * 2 if len(padding) == 2 else padding
    want = naive_pool(x, kind, k, stride, p, ceil, include)
    assert out.shape == want.shape and out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_global_pools():
    x = randn(2, 3, 4, 5)
    np.testing.assert_allclose(run("nn.global_avg_pool2d", x), x.mean(axis=(2, 3), keepdims=True),
                               rtol=1e-5)
    np.testing.assert_allclose(run("nn.global_max_pool2d", x), x.max(axis=(2, 3), keepdims=True))


def test_attr_helper_uses_call_value_then_tvm_default():
    dense = relay_ops.lookup("nn.dense")
    bias = relay_ops.lookup("nn.bias_add")
    assert attr(Attrs.of(None, axis=-1), bias, "axis") == -1
    assert attr(Attrs(), bias, "axis") == 1
    assert attr(Attrs(), "nn.batch_matmul", "transpose_b") is True
    assert attr(Attrs(), dense, "units") is None  # null units: inferred from the weight
    assert attr(Attrs(), "transpose", "axes") is None  # null axes: reverse
    with pytest.raises(Exception, match="dtype"):
        attr(Attrs(), "cast", "dtype")


def test_unimplemented_and_unknown_ops_are_located_errors():
    sp = Span("m.relay", 2, 3)
    e = Call(Op("memory.kill"), (const(1.0),), span=sp)
    with pytest.raises(EvalError, match="memory.kill is not implemented") as ei:
        eval_expr(e)
    assert ei.value.span == sp
    with pytest.raises(EvalError, match="unknown operator nn.frobnicate"):
        eval_expr(Call(Op("nn.frobnicate"), (const(1.0),), span=sp))
    with pytest.raises(EvalError, match="takes 2 argument"):
        eval_expr(call("add", const(1.0)))


def test_op_shape_mismatch_names_op_and_shapes():
    sp = Span("m.relay", 4, 9, 4, 20)
    e = Call(Op("add"), (Constant(randn(2, 3)), Constant(randn(4))), span=sp)
    with pytest.raises(EvalError) as ei:
        eval_expr(e)
    msg = ei.value.render()
    assert msg.startswith("m.relay:4:9: runtime error: add")
    assert "Tensor[(2, 3), float32], Tensor[(4), float32]" in msg


# ------------------------------------------------------------------------------- semantics


def test_closures_capture_their_environment():
    a, b, mk, add1, add2 = Var("a"), Var("b"), Var("mk"), Var("add1"), Var("add2")
    inner = Function((b,), call("add", a, b))
    prog = lets([
        (mk, Function((a,), inner)),
        (add1, Call(mk, (const(1.0),))),
        (add2, Call(mk, (const(2.0),))),
    ], Tuple((Call(add1, (const(10.0),)), Call(add2, (const(10.0),)))))
    r1, r2 = eval_expr(prog)
    assert float(r1) == 11.0 and float(r2) == 12.0


def test_closure_captures_the_cell_not_its_contents():
    r, f = Var("r"), Var("f")
    prog = lets([
        (r, RefCreate(const(1.0))),
        (f, Function((), RefRead(r))),
        (Var("_"), RefWrite(r, const(2.0))),
    ], Call(f, ()))
    assert float(eval_expr(prog)) == 2.0


def test_a_shared_let_is_evaluated_once():
    # %s = (let %x = ref(k); fn () { %x }) is one node: ToANormalForm binds it once, so both
    # names hold one closure over one cell (relay-notes §1.2, corrected)
    x = Var("x")
    s = Let(x, RefCreate(const(0.0)), Function((), x))
    f1, f2 = Var("f1"), Var("f2")
    prog = lets([
        (f1, s),
        (f2, s),
        (Var("_"), RefWrite(Call(f1, ()), const(5.0))),
    ], Tuple((RefRead(Call(f1, ())), RefRead(Call(f2, ())))))
    a, b = eval_expr(prog)
    assert float(a) == 5.0 and float(b) == 5.0


def test_a_shared_ref_node_is_one_cell():
    shared = RefCreate(const(0.0))  # one node, reached twice (a printed %0 = ref(0f))
    a, b = Var("a"), Var("b")
    prog = lets([(a, shared), (b, shared), (Var("_"), RefWrite(a, const(1.0)))],
                Tuple((RefRead(a), RefRead(b), a, b)))
    events = []
    va, vb, ca, cb = eval_expr(prog, observer=lambda ev, node, cell: events.append(ev))
    assert float(va) == 1.0 and float(vb) == 1.0
    assert isinstance(ca, RefCell) and ca is cb
    assert events.count("create") == 1
    # a let-bound ref, used twice through its variable, is one cell too
    r = Var("r")
    prog2 = lets([(r, RefCreate(const(0.0))), (a, r), (b, r),
                  (Var("_"), RefWrite(a, const(1.0)))], RefRead(b))
    assert float(eval_expr(prog2)) == 1.0


def test_a_shared_call_node_is_evaluated_once():
    c = Var("c")
    bump = Let(Var("_"), RefWrite(c, call("add", RefRead(c), const(1.0))), RefRead(c))
    prog = Let(c, RefCreate(const(0.0)), Tuple((bump, bump, RefRead(c))))
    first, second, final = eval_expr(prog)
    assert (float(first), float(second), float(final)) == (1.0, 1.0, 1.0)


def test_a_node_shared_by_two_branches_runs_before_the_if():
    # the LCA of both arms is the scope around the if: the write is bound there, after the
    # condition's bindings (an if's parts are visited left to right), so it happens whichever
    # arm runs, once
    c = Var("c")
    w = RefWrite(c, const(7.0))
    cond = call("less", RefRead(c), const(1.0))
    prog = Let(c, RefCreate(const(0.0)), Tuple((If(cond, seq(w, const(1.0)),
                                                   seq(w, const(2.0))), RefRead(c))))
    branch, final = eval_expr(prog)
    assert (float(branch), float(final)) == (1.0, 7.0)


def test_a_node_shared_by_a_closure_and_its_maker_is_evaluated_once_outside():
    # %0 = ref_read(%c) is used inside a closure body and outside it: bound once, outside
    c, f = Var("c"), Var("f")
    read = RefRead(c)
    prog = lets([(c, RefCreate(const(1.0))),
                 (f, Function((), read)),
                 (Var("_"), RefWrite(c, const(2.0)))],
                Tuple((read, Call(f, ()))))
    outside, inside = eval_expr(prog)
    assert (float(outside), float(inside)) == (1.0, 1.0)


def test_ref_write_returns_unit_and_evaluates_ref_before_value():
    c, r = Var("c"), Var("r")

    def log(digit):  # c := c * 10 + digit
        return RefWrite(c, call("add", call("multiply", RefRead(c), const(10.0)),
                                const(float(digit))))

    w = Var("w")
    prog = lets([(c, RefCreate(const(0.0))), (r, RefCreate(const(0.0))),
                 (w, RefWrite(seq(log(1), r), seq(log(2), const(7.0))))],
                Tuple((w, RefRead(c), RefRead(r))))
    unit, order, stored = eval_expr(prog)
    assert unit == ()
    assert float(order) == 12.0
    assert float(stored) == 7.0


def test_call_arguments_are_evaluated_before_the_callee():
    c, f = Var("c"), Var("f")

    def log(digit):
        return RefWrite(c, call("add", call("multiply", RefRead(c), const(10.0)),
                                const(float(digit))))

    x = Var("x")
    prog = lets([
        (c, RefCreate(const(0.0))),
        (f, Function((x, Var("y")), x)),
        (Var("_"), Call(seq(log(1), f), (seq(log(2), const(0.0)), seq(log(3), const(0.0))))),
    ], RefRead(c))
    assert float(eval_expr(prog)) == 231.0


def test_ref_errors_are_located():
    sp = Span("r.relay", 5, 1)
    with pytest.raises(EvalError, match="ref_read of a tensor") as ei:
        eval_expr(RefRead(const(1.0), span=sp))
    assert ei.value.span == sp
    with pytest.raises(EvalError, match="ref_write to a tuple"):
        eval_expr(RefWrite(Tuple(()), const(1.0), span=sp))


def test_tuples_projection_and_if():
    t = Tuple((const(1.0), Tuple((const(2), const(True)))))
    assert int(eval_expr(TupleGetItem(TupleGetItem(t, 1), 0))) == 2
    assert eval_expr(Tuple(())) == ()
    pick = If(call("less", const(1.0), const(2.0)), const(10), const(20))
    assert int(eval_expr(pick)) == 10
    assert int(eval_expr(If(const(0), const(10), const(20)))) == 20  # any rank-0 tensor
    sp = Span("t.relay", 1, 1)
    with pytest.raises(EvalError, match="rank-0") as ei:
        eval_expr(If(Constant(np.array([True, False])), const(1), const(2), span=sp))
    assert ei.value.span == sp
    with pytest.raises(EvalError, match="projection .2 out of range"):
        eval_expr(TupleGetItem(Tuple((const(1),)), 2, span=sp))
    with pytest.raises(EvalError, match="projection .0 of a tensor"):
        eval_expr(TupleGetItem(const(1), 0, span=sp))


def test_calling_a_non_function_and_unbound_vars_are_located_errors():
    sp = Span("c.relay", 7, 3, 7, 9)
    with pytest.raises(EvalError, match="cannot call a tensor") as ei:
        eval_expr(Call(const(1.0), (), span=sp))
    assert ei.value.span == sp
    assert ei.value.render().startswith("c.relay:7:3: runtime error:")
    f = Var("f")
    with pytest.raises(EvalError, match="expects 1 argument"):
        eval_expr(Let(f, Function((Var("x"),), Tuple(())), Call(f, (), span=sp)))
    with pytest.raises(EvalError, match="unbound variable %ghost"):
        eval_expr(call("add", Var("ghost", span=sp), const(1.0)))
    with pytest.raises(EvalError, match="must be called"):
        eval_expr(Op("add"))


# -------------------------------------------------------------------------------------- ADTs

A = TypeVar("A")
CONS = Constructor("Cons", (A, TypeCall("List", (A,))), "List", 0)
NIL = Constructor("Nil", (), "List", 1)
LIST = TypeData("List", (A,), (CONS, NIL))


def relay_list(values):
    out = Call(NIL, ())
    for v in reversed(values):
        out = Call(CONS, (const(float(v)), out))
    return out


def sum_module() -> Module:
    """@sum(%l) = match (%l) { Cons(%h, %t) => %h + @sum(%t), Nil => 0f }."""
    l_, h, t = Var("l"), Var("h"), Var("t")
    body = Match(l_, (
        Clause(PatternConstructor(CONS, (PatternVar(h), PatternVar(t))),
               call("add", h, Call(GlobalVar("sum"), (t,)))),
        Clause(PatternConstructor(NIL, ()), const(0.0)),
    ))
    return Module({"sum": Function((l_,), body)}, {"List": LIST})


def test_long_adt_list_recursion_and_flatten():
    mod = sum_module()
    lst = eval_expr(relay_list(range(5000)), mod)  # 5,000 nested constructor calls
    assert float(evaluate(mod, [lst], entry="sum")) == sum(range(5000))
    assert len(flatten_value(lst)) == 5000
    assert "Cons(" in repr(lst)  # bounded description, no deep recursion


def test_constructors_and_match_with_global_recursion():
    mod = sum_module()
    lst = eval_expr(relay_list([1, 2, 3.5]), mod)
    assert isinstance(lst, ConstructorValue) and lst.constructor.name_hint == "Cons"
    assert len(flatten_value(lst)) == 3
    assert float(evaluate(mod, [lst], entry="sum")) == 6.5
    assert float(eval_expr(Call(GlobalVar("sum"), (relay_list([]),)), mod)) == 0.0


def test_match_binds_tuple_patterns_and_tries_clauses_in_order():
    a, b = Var("a"), Var("b")
    m = Match(Tuple((const(1.0), const(2.0))), (
        Clause(PatternTuple((PatternVar(a), PatternWildcard())), a),
        Clause(PatternTuple((PatternWildcard(), PatternVar(b))), b),
    ))
    assert float(eval_expr(m)) == 1.0
    h = Var("h")
    m2 = Match(relay_list([4]), (
        Clause(PatternConstructor(NIL, ()), const(0.0)),
        Clause(PatternConstructor(CONS, (PatternVar(h), PatternConstructor(NIL, ()))), h),
        Clause(PatternWildcard(), const(-1.0)),
    ))
    assert float(eval_expr(m2)) == 4.0


def test_non_exhaustive_match_is_a_located_error():
    sp = Span("adt.relay", 9, 5)
    h = Var("h")
    m = Match(relay_list([]), (
        Clause(PatternConstructor(CONS, (PatternVar(h), PatternWildcard())), h),
    ), complete=False, span=sp)
    with pytest.raises(EvalError, match="no clause matched value Nil") as ei:
        eval_expr(m)
    assert ei.value.span == sp


# ------------------------------------------------------------------------------- recursion


def fact_body(n: Var, self_call) -> If:
    return If(call("less", n, const(1)), const(1),
              call("multiply", n, self_call(call("subtract", n, const(1)))))


def test_global_recursion_factorial():
    n = Var("n", TensorType((), "int32"))
    fn = Function((n,), fact_body(n, lambda a: Call(GlobalVar("fact"), (a,))))
    mod = Module({"fact": fn})
    assert int(evaluate(mod, [np.int32(5)], entry="@fact")) == 120
    main_x = Var("x")
    mod2 = mod.with_function("main", Function((main_x,), Call(GlobalVar("fact"), (main_x,))))
    assert int(evaluate(mod2, [np.int32(6)])) == 720


def test_let_bound_recursion_sees_its_own_variable():
    n, f = Var("n"), Var("f")
    prog = Let(f, Function((n,), fact_body(n, lambda a: Call(f, (a,)))), Call(f, (const(6),)))
    assert int(eval_expr(prog)) == 720


def test_deep_non_tail_global_recursion():
    # @tri(n) = if (n < 1) { 0 } else { n + @tri(n - 1) }, 10,000 frames deep
    n = Var("n")
    body = If(call("less", n, const(1)), const(0),
              call("add", n, Call(GlobalVar("tri"), (call("subtract", n, const(1)),))))
    mod = Module({"tri": Function((n,), body)})
    assert int(evaluate(mod, [np.int32(10_000)], entry="tri")) == 10_000 * 10_001 // 2


def test_twenty_thousand_let_chain():
    x0 = Var("x0")
    vs = [x0] + [Var(f"x{i}") for i in range(1, 20_001)]
    binds = [(vs[i], call("add", vs[i - 1], const(1))) for i in range(1, len(vs))]
    prog = Let(x0, const(0), lets(binds, vs[-1]))
    assert int(eval_expr(prog)) == 20_000


def test_ten_thousand_nested_backpropagator_calls():
    """Like the higher-order gradient: each closure updates a cell then calls the previous one
    (in non-tail position, followed by an alias let), so the calls nest 10,000 deep."""
    bp, acc, last = Var("bp"), Var("acc"), Var("last")
    binds = [
        (bp, RefCreate(Function((), Tuple(())))),
        (acc, RefCreate(const(0.0))),
        (last, RefCreate(const(-1))),
    ]
    for i in range(10_000):
        prev, y, z = Var(f"prev{i}"), Var(f"y{i}"), Var(f"z{i}")
        body = lets([
            (Var("_"), RefWrite(acc, call("add", RefRead(acc), const(1.0)))),
            (Var("_"), RefWrite(last, const(i))),
            (y, Call(prev, ())),
            (z, y),
        ], z)
        binds.append((prev, RefRead(bp)))
        binds.append((Var("_"), RefWrite(bp, Function((), body))))
    done = Var("done")
    binds.append((done, Call(RefRead(bp), ())))
    prog = lets(binds, Tuple((done, RefRead(acc), RefRead(last))))
    unit, count, first_created_runs_last = eval_expr(prog)
    assert unit == ()
    assert float(count) == 10_000.0
    assert int(first_created_runs_last) == 0


# ----------------------------------------------------------------------------- entry points


def seed_module() -> Module:
    """The issue #6803 program, built directly."""
    inp = Var("input_0", TensorType((5, 10), "float32"))
    out = Var("output_0", TensorType((5, 20), "float32"))
    w = Var("Wrapper_Dense_weight", TensorType((20, 10), "float32"))
    b = Var("Wrapper_Dense_bias", TensorType((20,), "float32"))
    x, x1, pred, x2, x3, x4 = (Var(n) for n in ("x", "x1", "pred", "x2", "x3", "x4"))
    inner = lets([
        (x1, call("nn.dense", inp, w, units=20)),
        (pred, call("nn.bias_add", x1, b, axis=-1)),
        (x2, call("nn.log_softmax", pred)),
        (x3, call("nn.cross_entropy_with_logits", x2, out)),
        (x4, Tuple((x3, pred))),
    ], x4)
    ret = TupleType((TensorType((), "float32"), TensorType((5, 20), "float32")))
    return Module({"main": Function((inp, out, w, b), Let(x, inner, x), ret)})


def test_seed_program_against_numpy():
    mod = seed_module()
    args = random_inputs(mod["main"], seed=3)
    loss, pred = evaluate(mod, args)
    inp, out, w, b = args
    p = inp @ w.T + b
    lsm = p - p.max(axis=1, keepdims=True)
    lsm = lsm - np.log(np.exp(lsm).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(pred, p, rtol=1e-5)
    np.testing.assert_allclose(loss, -np.sum(lsm * out) / 5, rtol=1e-5)
    flat = flatten_value((loss, pred))
    assert [a.shape for a in flat] == [(), (5, 20)]


def test_evaluate_checks_entry_arity_and_argument_kinds():
    """v0.19's EvalFunction does not check argument types: a tensor of another dtype runs
    (the ops see it), one of the wrong shape fails in the op that cannot take it, and a value
    of the wrong kind (a tuple for a tensor) is refused up front, naming the parameter."""
    mod = seed_module()
    args = random_inputs(mod["main"], seed=0)
    with pytest.raises(EvalError, match="no function @nope"):
        evaluate(mod, args, entry="nope")
    with pytest.raises(EvalError, match="takes 4 argument"):
        evaluate(mod, args[:3])
    loss, _ = evaluate(mod, [args[0].astype(np.float64)] + args[1:])
    assert loss.dtype == np.float64
    with pytest.raises(EvalError, match=r"nn\.dense: data \(5, 10\) and weight \(10, 20\)"):
        evaluate(mod, [args[0], args[1], args[2].T, args[3]])
    with pytest.raises(EvalError, match=r"argument for %input_0: expected a tensor of type "
                                        r"Tensor\[\(5, 10\), float32\], got a tuple"):
        evaluate(mod, [(args[0],)] + args[1:])
    with pytest.raises(EvalError, match="executor mode"):
        evaluate(mod, args, mode_str="vm")
    assert len(evaluate(mod, args, mode_str="debug")) == 2


def test_random_inputs_are_deterministic_and_typed():
    p = [Var("a", TensorType((2, 3), "float32")), Var("i", TensorType((4,), "int64")),
         Var("m", TensorType((3,), "bool")),
         Var("t", TupleType((TensorType((), "float16"), TensorType((1,), "int32"))))]
    fn = Function(tuple(p), Tuple(()))
    one, two = random_inputs(fn, 7), random_inputs(fn, 7)
    flat1, flat2 = flatten_value(tuple(one)), flatten_value(tuple(two))
    assert all(np.array_equal(x, y) for x, y in zip(flat1, flat2, strict=True))
    assert [a.dtype for a in flat1] == [np.float32, np.int64, np.bool_, np.float16, np.int32]
    assert [a.shape for a in flat1] == [(2, 3), (4,), (3,), (), (1,)]
    assert flat1[1].min() >= 0 and flat1[1].max() < 5
    other = random_inputs(fn, 8)
    assert not np.array_equal(one[0], other[0])
    # the same signature with different variables gives the same inputs
    fn2 = Function(tuple(Var(v.name_hint + "2", v.type_annotation) for v in p), Tuple(()))
    assert np.array_equal(random_inputs(fn2, 7)[0], one[0])


def test_random_inputs_need_concrete_types():
    sp = Span("f.relay", 1, 10)
    for t in (None, TensorType((None, 3), "float32"), RefType(F32),
              TupleType((F32, RefType(F32)))):
        fn = Function((Var("x", t, span=sp),), Tuple(()))
        with pytest.raises(EvalError, match="concrete") as ei:
            random_inputs(fn, 0)
        assert ei.value.span == sp


def test_flatten_value_walks_tuples_adts_refs_and_rejects_closures():
    a, b, c = np.float32(1), randn(2), randn(3)
    cell = RefCell((np.asarray(b), ConstructorValue(CONS, (np.asarray(c), ()))))
    flat = flatten_value((np.asarray(a), cell, ()))
    assert [x.shape for x in flat] == [(), (2,), (3,)]
    clo = Closure(Function((), Tuple(())), {})
    with pytest.raises(EvalError, match="function"):
        flatten_value((clo,))
    loop = RefCell(())
    loop.value = (loop,)
    with pytest.raises(EvalError, match="contains itself"):
        flatten_value(loop)
    shared = RefCell(np.asarray(a))
    assert len(flatten_value((shared, shared))) == 2


def test_eval_expr_with_free_variable_env():
    x = Var("x")
    out = eval_expr(call("multiply", x, x), env={x: np.float32([3, 4])})
    np.testing.assert_array_equal(out, [9, 16])


# ------------------------------------------------------------------------- parsed programs


def test_parsed_shared_ref_node_is_one_cell():
    """TVM's test_ref text: `%0` is one shared RefCreate node; ToANormalForm binds it once, so
    the read sees the written 1f (what v0.19's debug executor returns)."""
    from extractor.relay.parser import parse

    mod = parse('#[version = "0.0.5"]\n'
                "def @main(%x: float32) { %0 = ref(%x); ref_write(%0, 1f); ref_read(%0) }")
    created = []
    out = evaluate(mod, [np.float32(3)], observer=lambda ev, n, c: created.append(ev))
    assert float(out) == 1.0
    assert created.count("create") == 1


def test_a_deep_dag_of_shared_nodes_runs_in_linear_time():
    """`%k = add(%k-1, %k-1)` 60 levels deep: once per node, not 2**60 times."""
    from extractor.relay.parser import parse

    lines = ["  %0 = add(%x, %x);"] + [f"  %{k} = add(%{k - 1}, %{k - 1});" for k in range(1, 60)]
    mod = parse('#[version = "0.0.5"]\ndef @main(%x: float64) {\n' + "\n".join(lines)
                + "\n  %59\n}\n")
    assert float(evaluate(mod, [np.float64(1)])) == 2.0 ** 60


def test_parsed_seed_program_and_let_recursion(seed_path):
    from extractor.relay.parser import parse, parse_expr

    mod = parse(seed_path.read_text(), str(seed_path))
    args = random_inputs(mod["main"], seed=11)
    loss, pred = evaluate(mod, args)
    want_loss, want_pred = evaluate(seed_module(), args)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-6)
    np.testing.assert_allclose(pred, want_pred, rtol=1e-6)
    fact = parse_expr("let %f = fn (%n: int32) -> int32 {\n"
                      "  if (%n < 1) { 1 } else { %n * %f(%n - 1) }\n"
                      "};\n%f(5)")
    assert int(eval_expr(fact)) == 120


def test_parsed_error_is_located_at_the_op():
    from extractor.relay.parser import parse_expr

    with pytest.raises(EvalError) as ei:
        eval_expr(parse_expr("let %a = (1f, 2f);\n%a + 1f", "x.relay"))
    assert ei.value.span is not None and ei.value.span.line == 2
    assert "add" in ei.value.message and "(float32, float32)" in ei.value.message
