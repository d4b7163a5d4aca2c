"""Neural-network operators: dense, matmul, batch_matmul, bias_add, softmax, log_softmax, the
cross-entropies, batch_norm and dropout.

`nn.dropout` is stateful in v0.19 (its mask is random), so its effect is `random`. The kernels
of `nn.batch_norm` and `nn.dropout` compute their inference forms (the moving statistics, a
mask of ones), which is also what SimplifyInference rewrites their first result to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import Attrs, Call, Expr, IncompleteType, TensorType, TupleType, Type, const, type_str
from . import kernel as K
from . import relation as R
from .grad import attrs_of, csl, div, dtype, matmul, mul, neg, rsum, shape, sub
from .registry import F, Kernel, OpAttrs, OpDef, OpError, attr, register
from .registry import make_call as op
from .relation import ArgMismatch, Defer, RelError, Result

# ------------------------------------------------------------------------------ dense algebra


def _dense_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """data (..., K) x weight (units, K) -> (..., units); weight inferred from units if unknown."""
    x = R.tensor(args, 0)
    if not x.shape:
        raise RelError(f"expected a tensor of rank >= 1 but found {type_str(x)}", 0)
    k = x.shape[-1]
    units = attrs["units"]
    out_dtype = attrs["out_dtype"] or x.dtype
    if isinstance(args[1], IncompleteType):
        if units is None:
            raise Defer
        w = TensorType((R.integer(units, "units"), k), x.dtype)
        return Result(TensorType((*x.shape[:-1], w.shape[0]), out_dtype), {1: w})
    w = R.tensor(args, 1)
    n = w.shape[0] if len(w.shape) == 2 else None
    if units is not None:
        n = R.integer(units, "units")
    if len(w.shape) != 2 or not R.dim_eq(w.shape[0], n) or not R.dim_eq(w.shape[1], k):
        raise ArgMismatch(1, TensorType((n, k), w.dtype), w)
    units_dim = n if n is not None else w.shape[0]
    return TensorType((*x.shape[:-1], units_dim), out_dtype)


def _dense_kernel(args: list[Any], attrs: Attrs) -> Any:
    x, w = K.tensor(args[0], "data"), K.tensor(args[1], "weight")
    units = attr(attrs, "nn.dense", "units")
    if w.ndim != 2 or x.ndim < 1 or x.shape[-1] != w.shape[1]:
        raise OpError(f"data {x.shape} and weight {w.shape} do not match (weight is units x K)")
    if units is not None and int(units) != w.shape[0]:
        raise OpError(f"units={units} but the weight has {w.shape[0]} rows")
    dt = K.out_dtype(attrs, "nn.dense", x.dtype)
    return np.matmul(x.astype(dt), w.astype(dt).T)


def _dense_grad(orig: Call, g: Expr) -> list[Expr]:
    data, weight = orig.args
    units_w, units_x = shape(weight)[1], shape(data)[1]
    return [
        csl(op("nn.dense", g, op("transpose", weight, axes=None), units=units_w), data),
        csl(
            op("nn.dense", op("transpose", g, axes=None), op("transpose", data, axes=None),
               units=units_x),
            weight,
        ),
    ]


register(OpDef("nn.dense", 2, "relay.attrs.DenseAttrs",
               (F("units", nullable=True), F("out_dtype", "")),
               relation=_dense_type, kernel=_dense_kernel, gradient=_dense_grad))


def _matmul_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """nn.matmul: a (..., K) [or (..., K, M) transposed] x b (K, N) [or (N, K) transposed]."""
    a, b = R.tensor(args, 0), R.tensor(args, 1)
    ta, tb = bool(attrs["transpose_a"]), bool(attrs["transpose_b"])
    if len(a.shape) < (2 if ta else 1):
        raise RelError(f"expected a tensor of rank >= {2 if ta else 1} but found {type_str(a)}", 0)
    if ta:
        lead, k = (*a.shape[:-2], a.shape[-1]), a.shape[-2]
    else:
        lead, k = a.shape[:-1], a.shape[-1]
    if len(b.shape) != 2:
        raise RelError(f"expected a 2-D tensor but found {type_str(b)}", 1)
    n, kb = (b.shape[0], b.shape[1]) if tb else (b.shape[1], b.shape[0])
    units = attrs["units"]
    if units is not None and not R.dim_eq(n, R.integer(units, "units")) or not R.dim_eq(k, kb):
        want_n = n if units is None else units
        expected = (want_n, k) if tb else (k, want_n)
        raise ArgMismatch(1, TensorType(expected, b.dtype), b)
    if n is None and units is not None:
        n = units
    return TensorType((*lead, n), attrs["out_dtype"] or a.dtype)


def _matmul_kernel(args: list[Any], attrs: Attrs) -> Any:
    a, b = K.tensor(args[0], "data"), K.tensor(args[1], "weight")
    if attr(attrs, "nn.matmul", "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if attr(attrs, "nn.matmul", "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    dt = K.out_dtype(attrs, "nn.matmul", a.dtype)
    if b.ndim != 2 or a.ndim < 1 or a.shape[-1] != b.shape[0]:
        raise OpError(f"matmul of {a.shape} and {b.shape} (after transposes) does not match")
    return np.matmul(a.astype(dt), b.astype(dt))


def _matmul_grad(orig: Call, g: Expr) -> list[Expr]:
    a, b = orig.args
    attrs = attrs_of(orig)
    ta, tb = bool(attrs["transpose_a"]), bool(attrs["transpose_b"])
    if ta and tb:
        return [csl(matmul(b, g, True, True), a), csl(matmul(g, a, True, True), b)]
    if ta:
        return [csl(matmul(b, g, transpose_b=True), a), csl(matmul(a, g), b)]
    if tb:
        return _dense_grad(orig, g)  # v0.19 keeps nn.dense for the (False, True) case
    return [csl(matmul(g, b, transpose_b=True), a), csl(matmul(a, g, transpose_a=True), b)]


# MatmulAttrs: `units` has no default (always printed), nn.h
register(OpDef("nn.matmul", 2, "relay.attrs.MatmulAttrs",
               (F("units", nullable=True), F("out_dtype", ""), F("transpose_a", False),
                F("transpose_b", False)),
               relation=_matmul_type, kernel=_matmul_kernel, gradient=_matmul_grad))


def _batch_matmul_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """x (B, M, K) x y (B, K, N) [(B, N, K) with transpose_b] -> (B, M, N); B broadcasts."""
    x, y = R.tensor(args, 0), R.tensor(args, 1)
    for i, t in ((0, x), (1, y)):
        if len(t.shape) != 3:
            raise RelError(f"expected a 3-D tensor but found {type_str(t)}", i)
    ta, tb = bool(attrs["transpose_a"]), bool(attrs["transpose_b"])
    m, k = (x.shape[2], x.shape[1]) if ta else (x.shape[1], x.shape[2])
    n, ky = (y.shape[1], y.shape[2]) if tb else (y.shape[2], y.shape[1])
    batch = R.broadcast_shapes(x.shape[:1], y.shape[:1])
    if batch is None or not R.dim_eq(k, ky):
        expected = (x.shape[0], n, k) if tb else (x.shape[0], k, n)
        raise ArgMismatch(1, TensorType(expected, y.dtype), y)
    return TensorType((batch[0], m, n), attrs["out_dtype"] or x.dtype)


def _batch_matmul_kernel(args: list[Any], attrs: Attrs) -> Any:
    a, b = K.tensor(args[0], "x"), K.tensor(args[1], "y")
    if a.ndim != 3 or b.ndim != 3:
        raise OpError(f"batch_matmul needs rank-3 inputs, got {a.shape} and {b.shape}")
    if attr(attrs, "nn.batch_matmul", "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if attr(attrs, "nn.batch_matmul", "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise OpError(f"batch_matmul inner dims differ: {a.shape} x {b.shape}")
    dt = K.out_dtype(attrs, "nn.batch_matmul", a.dtype)
    return np.matmul(a.astype(dt), b.astype(dt))


def _bmm(a: Expr, b: Expr, ta: bool, tb: bool) -> Call:
    return op("nn.batch_matmul", a, b, transpose_a=ta, transpose_b=tb)


def _batch_matmul_grad(orig: Call, g: Expr) -> list[Expr]:
    lhs, rhs = orig.args
    attrs = attrs_of(orig)
    ta, tb = bool(attrs["transpose_a"]), bool(attrs["transpose_b"])
    if ta and tb:
        return [csl(_bmm(rhs, g, True, True), lhs), csl(_bmm(g, lhs, True, True), rhs)]
    if ta:
        return [csl(_bmm(rhs, g, False, True), lhs), csl(_bmm(lhs, g, False, False), rhs)]
    if tb:
        perm = (0, 2, 1)
        return [
            csl(_bmm(g, op("transpose", rhs, axes=perm), False, True), lhs),
            csl(_bmm(op("transpose", g, axes=perm), op("transpose", lhs, axes=perm), False, True),
                rhs),
        ]
    return [csl(_bmm(g, rhs, False, True), lhs), csl(_bmm(lhs, g, True, False), rhs)]


# BatchMatmulAttrs declares transpose_b = false (nn.h); the Python API passes True, which
# therefore prints
register(OpDef("nn.batch_matmul", 2, "relay.attrs.BatchMatmulAttrs",
               (F("out_dtype", ""), F("transpose_a", False), F("transpose_b", False)),
               relation=_batch_matmul_type, kernel=_batch_matmul_kernel,
               gradient=_batch_matmul_grad))


def _bias_add_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    x = R.tensor(args, 0)
    ax = R.axis(attrs["axis"], len(x.shape), x)
    want = TensorType((x.shape[ax],), x.dtype)
    if isinstance(args[1], IncompleteType):
        return Result(x, {1: want})
    b = R.tensor(args, 1)
    if len(b.shape) != 1 or not R.dim_eq(b.shape[0], x.shape[ax]) or b.dtype != x.dtype:
        raise ArgMismatch(1, want, b)
    return x


def _bias_add_kernel(args: list[Any], attrs: Attrs) -> Any:
    x, b = K.tensor(args[0], "data"), K.tensor(args[1], "bias")
    axis = K.axis(int(attr(attrs, "nn.bias_add", "axis")), x.ndim)
    if b.ndim != 1 or b.shape[0] != x.shape[axis]:
        raise OpError(f"bias {b.shape} does not match axis {axis} of data {x.shape}")
    shape = [1] * x.ndim
    shape[axis] = b.shape[0]
    return (x + b.reshape(shape)).astype(x.dtype)


def _bias_add_grad(orig: Call, g: Expr) -> list[Expr]:
    data, _bias = orig.args
    axis = attrs_of(orig)["axis"]
    return [csl(g, data), rsum(g, axis, keepdims=False, exclude=True)]


register(OpDef("nn.bias_add", 2, "relay.attrs.BiasAddAttrs", (F("axis", 1, pod_int=True),),
               relation=_bias_add_type, kernel=_bias_add_kernel, gradient=_bias_add_grad))

# ------------------------------------------------------------------------------------ softmax

_SOFTMAX_FIELDS = (F("axis", -1, pod_int=True),)


def _softmax_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    R.axis(attrs["axis"], len(x.shape), x)
    return x


def _softmax_impl(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True) if x.shape[axis] else 0
    z = x - m
    with np.errstate(divide="ignore"):
        lse = np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
    out = z - lse if log else np.exp(z - lse)
    return out.astype(x.dtype)


def _softmax_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    return _softmax_impl(x, K.axis(int(attr(attrs, "nn.softmax", "axis")), x.ndim), log=False)


def _softmax_grad(orig: Call, g: Expr) -> list[Expr]:
    axis = attrs_of(orig)["axis"]
    return [mul(sub(g, rsum(mul(g, orig), axis, True)), orig)]


register(OpDef("nn.softmax", 1, "relay.attrs.SoftmaxAttrs", _SOFTMAX_FIELDS,
               relation=_softmax_type, kernel=_softmax_kernel, gradient=_softmax_grad))


def _log_softmax_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    return _softmax_impl(x, K.axis(int(attr(attrs, "nn.log_softmax", "axis")), x.ndim), log=True)


def _log_softmax_grad(orig: Call, g: Expr) -> list[Expr]:
    axis = attrs_of(orig)["axis"]
    return [sub(g, mul(rsum(g, axis, keepdims=True), op("exp", orig)))]


register(OpDef("nn.log_softmax", 1, "relay.attrs.SoftmaxAttrs", _SOFTMAX_FIELDS,
               relation=_softmax_type, kernel=_log_softmax_kernel, gradient=_log_softmax_grad))

# ------------------------------------------------------------------------------ cross-entropy


def _cross_entropy_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, y = R.tensor(args, 0), R.tensor(args, 1)
    if len(x.shape) != 2:
        raise RelError(f"expected a 2-D tensor but found {type_str(x)}", 0)
    if len(y.shape) != 2 or not R.shape_eq(x.shape, y.shape) or x.dtype != y.dtype:
        raise ArgMismatch(1, x, y)
    return TensorType((), x.dtype)


def _xent_kernel(log: bool) -> Kernel:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x, y = K.tensor(args[0], "predictions"), K.tensor(args[1], "targets")
        if x.ndim != 2 or x.shape != y.shape:
            raise OpError(f"inputs must be 2-D with equal shapes, got {x.shape} and {y.shape}")
        with np.errstate(divide="ignore"):
            lx = np.log(x) if log else x
        return np.asarray(-np.sum(lx * y) / x.shape[0]).astype(x.dtype)

    return run


def _batch_size(x: Expr) -> Call:
    """`cast(take(shape_of(x), 0, axis=0), x.dtype)`: the batch size as a scalar of x's dtype."""
    b = op("take", op("shape_of", x, dtype="int32"), const(0, "int32"), axis=0)
    return op("cast", b, dtype=dtype(x))


def _cross_entropy_with_logits_grad(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    g = div(g, _batch_size(x))
    return [mul(neg(g), y), mul(neg(g), x)]


register(OpDef("nn.cross_entropy_with_logits", 2, relation=_cross_entropy_type,
               kernel=_xent_kernel(log=False), gradient=_cross_entropy_with_logits_grad))


def _cross_entropy_grad(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    g = div(g, _batch_size(x))
    return [div(mul(neg(g), y), x), mul(neg(g), op("log", x))]


register(OpDef("nn.cross_entropy", 2, relation=_cross_entropy_type, kernel=_xent_kernel(log=True),
               gradient=_cross_entropy_grad))

# ------------------------------------------------------------------------ batch_norm, dropout


def _batch_norm_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """(data, gamma, beta, mean, var) -> (out, new_mean, new_var); the vectors are (C)."""
    x = R.tensor(args, 0)
    ax = R.axis(attrs["axis"], len(x.shape), x)
    vec = TensorType((x.shape[ax],), x.dtype)
    assign: dict[int, Type] = {}
    for i in range(1, 5):
        if isinstance(args[i], IncompleteType):
            assign[i] = vec
            continue
        t = R.tensor(args, i)
        if len(t.shape) != 1 or not R.dim_eq(t.shape[0], vec.shape[0]) or t.dtype != x.dtype:
            raise ArgMismatch(i, vec, t)
    out = TupleType((x, vec, vec))
    return Result(out, assign) if assign else out


def _batch_norm_kernel(args: list[Any], attrs: Attrs) -> Any:
    opname = "nn.batch_norm"
    x, gamma, beta, mean, var = (K.tensor(a) for a in args)
    axis = K.axis(int(attr(attrs, opname, "axis")), x.ndim)
    eps = float(attr(attrs, opname, "epsilon"))
    for name, v in (("gamma", gamma), ("beta", beta), ("moving_mean", mean), ("moving_var", var)):
        if v.shape != (x.shape[axis],):
            raise OpError(f"{name} {v.shape} does not match axis {axis} of data {x.shape}")
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]

    def r(v: np.ndarray) -> np.ndarray:
        return v.reshape(shape)

    out = (x - r(mean)) / np.sqrt(r(var) + np.asarray(eps, dtype=var.dtype))
    if attr(attrs, opname, "scale"):
        out = out * r(gamma)
    if attr(attrs, opname, "center"):
        out = out + r(beta)
    return (out.astype(x.dtype), mean, var)


register(OpDef("nn.batch_norm", 5, "relay.attrs.BatchNormAttrs",
               (F("axis", 1, pod_int=True), F("epsilon", 1e-5), F("center", True),
                F("scale", True)),
               relation=_batch_norm_type, kernel=_batch_norm_kernel))


def _dropout_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    return TupleType((x, x))


def _dropout_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    return (x, np.ones_like(x))


register(OpDef("nn.dropout", 1, "relay.attrs.DropoutAttrs", (F("rate", 0.5),), stateful=True,
               effect="random", relation=_dropout_type, kernel=_dropout_kernel))
