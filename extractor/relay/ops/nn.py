"""Neural-network operators: dense, matmul, batch_matmul, bias_add, softmax, log_softmax, the
cross-entropies, batch_norm and dropout, layer / instance / group / L2 normalisation, pad.

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
from .registry import F, Kernel, OpAttrs, OpDef, OpError, Relation, attr, register
from .registry import make_call as op
from .relation import ArgMismatch, Defer, Dim, RelError, Result

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

# ------------------------------------------------------- layer, instance, group and L2 norms
# v0.19 registers no compute for these four: SimplifyInference always rewrites them
# (simplify_inference.cc), so their kernels compute exactly what the rewrite builds: mean and
# biased variance over the normalised axes, `(x - mean) / sqrt(var + eps)` with eps a scalar of
# the data's dtype holding float32(epsilon), then gamma and beta along `axis`.

_NORM_FIELDS = (F("axis", pod_int=True), F("epsilon", 1e-5), F("center", True), F("scale", True))


def _norm_type(min_rank: int = 1) -> Relation:
    """LayerNormRel / InstanceNormRel / GroupNormRel: (data, gamma (C), beta (C)) -> data."""

    def rel(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
        x = R.tensor(args, 0)
        if len(x.shape) < min_rank:
            raise RelError(f"expected a tensor of rank >= {min_rank} but found {type_str(x)}", 0)
        ax = R.axis(attrs["axis"], len(x.shape), x)
        vec = TensorType((x.shape[ax],), x.dtype)
        assign: dict[int, Type] = {}
        for i in (1, 2):
            if isinstance(args[i], IncompleteType):
                assign[i] = vec
                continue
            t = R.tensor(args, i)
            if len(t.shape) != 1 or not R.dim_eq(t.shape[0], vec.shape[0]) or t.dtype != x.dtype:
                raise ArgMismatch(i, vec, t)
        return Result(x, assign) if assign else x

    return rel


def _eps(x: np.ndarray, eps: float) -> np.ndarray:
    """MakeConstantScalar(dtype, float(eps)): the float32 value in the data's dtype."""
    return np.asarray(np.float32(eps)).astype(x.dtype)


def _normalise(x: np.ndarray, axes: tuple[int, ...], eps: float) -> np.ndarray:
    mean = np.mean(x, axis=axes, keepdims=True).astype(x.dtype)
    var = np.mean((x - mean) * (x - mean), axis=axes, keepdims=True).astype(x.dtype)
    return (x - mean) / np.sqrt(var + _eps(x, eps))


def _affine(out: np.ndarray, args: list[Any], attrs: Attrs, opname: str, ax: int) -> np.ndarray:
    """`* gamma` and `+ beta`, each broadcast along `ax` (ExpandBiasToMatchAxis)."""
    gamma, beta = K.tensor(args[1], "gamma"), K.tensor(args[2], "beta")
    for name, v in (("gamma", gamma), ("beta", beta)):
        if v.shape != (out.shape[ax],):
            raise OpError(f"{name} {v.shape} does not match axis {ax} of data {out.shape}")
    shape = [1] * out.ndim
    shape[ax] = out.shape[ax]
    if attr(attrs, opname, "scale"):
        out = out * gamma.reshape(shape)
    if attr(attrs, opname, "center"):
        out = out + beta.reshape(shape)
    return out


def _layer_norm_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    ax = K.axis(int(attr(attrs, "nn.layer_norm", "axis")), x.ndim)
    out = _normalise(x, (ax,), float(attr(attrs, "nn.layer_norm", "epsilon")))
    return _affine(out, args, attrs, "nn.layer_norm", ax).astype(x.dtype)


register(OpDef("nn.layer_norm", 3, "relay.attrs.LayerNormAttrs",
               (F("axis", -1, pod_int=True), *_NORM_FIELDS[1:]),
               relation=_norm_type(), kernel=_layer_norm_kernel))


def _instance_norm_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    if x.ndim <= 2:
        raise OpError(f"instance_norm needs a tensor of rank > 2, got {x.shape}")
    ax = K.axis(int(attr(attrs, "nn.instance_norm", "axis")), x.ndim)
    axes = tuple(i for i in range(1, x.ndim) if i != ax)
    out = _normalise(x, axes, float(attr(attrs, "nn.instance_norm", "epsilon")))
    return _affine(out, args, attrs, "nn.instance_norm", ax).astype(x.dtype)


register(OpDef("nn.instance_norm", 3, "relay.attrs.InstanceNormAttrs",
               (F("axis", 1, pod_int=True), *_NORM_FIELDS[1:]),
               relation=_norm_type(3), kernel=_instance_norm_kernel))


def _group_norm_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    out = _norm_type()(args, attrs)
    x = R.tensor(args, 0)
    c = x.shape[R.axis(attrs["axis"], len(x.shape), x)]
    g = R.integer(attrs["num_groups"], "num_groups")
    if g <= 0 or (c is not None and c % g):
        raise RelError(f"num_groups {g} does not divide the {c} channels of {type_str(x)}", 0)
    return out


def _group_norm_kernel(args: list[Any], attrs: Attrs) -> Any:
    """GroupNormToInferUnpack: reshape C into (num_groups, C / num_groups), normalise over the
    group and every axis after it, reshape back."""
    x = K.tensor(args[0])
    ax = K.axis(int(attr(attrs, "nn.group_norm", "axis")), x.ndim)
    g = int(attr(attrs, "nn.group_norm", "num_groups"))
    c = x.shape[ax]
    if g <= 0 or c % g:
        raise OpError(f"num_groups {g} does not divide the {c} channels of {x.shape}")
    y = x.reshape(*x.shape[:ax], g, c // g, *x.shape[ax + 1:])
    axes = tuple(range(ax + 1, y.ndim))
    out = _normalise(y, axes, float(attr(attrs, "nn.group_norm", "epsilon"))).reshape(x.shape)
    return _affine(out, args, attrs, "nn.group_norm", ax).astype(x.dtype)


register(OpDef("nn.group_norm", 3, "relay.attrs.GroupNormAttrs",
               (F("num_groups", 0, pod_int=True), F("axis", 1, pod_int=True),
                *_NORM_FIELDS[1:]),
               relation=_group_norm_type, kernel=_group_norm_kernel))


def _l2_normalize_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    for a in R.ints(attrs["axis"] if attrs["axis"] is not None else (), "axis"):
        R.axis(a, len(x.shape), x)
    return x


def _l2_normalize_kernel(args: list[Any], attrs: Attrs) -> Any:
    """L2NormToInferUnpack: x / sqrt(maximum(sum(x * x, axis, keepdims), float32(eps)))."""
    x = K.tensor(args[0])
    axes = tuple(K.axis(a, x.ndim) for a in K.ints(attr(attrs, "nn.l2_normalize", "axis")))
    eps = np.float32(attr(attrs, "nn.l2_normalize", "eps"))
    s = np.sum(x * x, axis=axes, keepdims=True).astype(x.dtype)
    return (x / np.sqrt(np.maximum(s, eps))).astype(x.dtype)


# L2NormalizeAttrs: neither eps nor axis has a default (both always print), nn.h
register(OpDef("nn.l2_normalize", 1, "relay.attrs.L2NormalizeAttrs", (F("eps"), F("axis")),
               relation=_l2_normalize_type, kernel=_l2_normalize_kernel))

# ------------------------------------------------------------------------------------- pad


def _pad_widths(v: Any, rank: int) -> list[tuple[int, int]]:
    if not isinstance(v, tuple | list) or len(v) != rank:
        raise RelError(f"There should be as many pad width pairs as shape dimensions but the "
                       f"shape has {rank} dimensions and there are "
                       f"{len(v) if isinstance(v, tuple | list) else 0} pad width pairs.")
    out = []
    for i, p in enumerate(v):
        pair = R.ints(p, "pad_width")
        if len(pair) != 2:
            raise RelError(f"Each pad width element should be a pair but at index {i} there are "
                           f"{len(pair)} elements.")
        out.append((pair[0], pair[1]))
    return out


def _pad_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """PadRel: each dim grows by its (before, after) widths; a negative width crops."""
    x = R.tensor(args, 0)
    R.tensor(args, 1)
    widths = _pad_widths(attrs["pad_width"], len(x.shape))
    shape: list[Dim] = []
    for d, (a, b) in zip(x.shape, widths, strict=True):
        if d is None:
            shape.append(None)
            continue
        if d + a + b < 0:
            raise RelError(f"Output shape post padding should be positive but got {d + a + b}",
                           0)
        shape.append(d + a + b)
    if attrs["pad_mode"] not in ("constant", "edge", "reflect"):
        raise RelError(f"unsupported pad_mode {attrs['pad_mode']!r}")
    return TensorType(tuple(shape), x.dtype)


def _pad_kernel(args: list[Any], attrs: Attrs) -> Any:
    """topi::pad: the pad value cast to the data's dtype; edge / reflect index the border
    (reflect excludes it, as numpy's); a negative width crops."""
    x, v = K.tensor(args[0], "data"), K.tensor(args[1], "pad_value")
    try:
        widths = _pad_widths(attr(attrs, "nn.pad", "pad_width"), x.ndim)
    except RelError as err:
        raise OpError(err.message) from None
    mode = attr(attrs, "nn.pad", "pad_mode")
    crop = tuple(slice(max(-a, 0), x.shape[i] - max(-b, 0)) for i, (a, b) in enumerate(widths))
    y = x[crop]
    grow = [(max(a, 0), max(b, 0)) for a, b in widths]
    if mode == "constant":
        fill = np.asarray(v).astype(x.dtype).reshape(-1)[0] if v.size else 0
        return np.pad(y, grow, mode="constant", constant_values=fill)
    if mode in ("edge", "reflect"):
        return np.pad(y, grow, mode=mode)
    raise OpError(f"unsupported pad_mode {mode!r}")


register(OpDef("nn.pad", 2, "relay.attrs.PadAttrs", (F("pad_width"), F("pad_mode", "constant")),
               relation=_pad_type, kernel=_pad_kernel))
