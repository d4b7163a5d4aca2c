"""Reductions: sum, max, min, mean, prod, all, any, argmax, argmin and variance over `axis`
(None: every axis).

`exclude` reduces the axes *not* listed; `keepdims` keeps the reduced axes as size 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ast import Attrs, Call, Expr, TensorType, Type, type_str
from . import kernel as K
from . import relation as R
from .grad import attrs_of, div, mul, reduce_axis, rsum, scalar, shape, unreduce_expand
from .registry import F, GradRule, Kernel, OpAttrs, OpDef, OpError, Relation, attr, register
from .registry import make_call as op
from .relation import Dim, RelError

_REDUCE_FIELDS = (F("axis", None), F("keepdims", False), F("exclude", False))


def _type_axes(x: TensorType, attrs: OpAttrs) -> list[int]:
    """The axes of x a reduction removes, sorted and non-negative (`exclude` resolved)."""
    rank = len(x.shape)
    axis = attrs["axis"]
    if axis is None:
        return list(range(rank))
    axes = [R.axis(a, rank, x) for a in R.ints(axis, "axis")]
    if len(set(axes)) != len(axes):
        raise RelError(f"duplicate axes {list(R.ints(axis, 'axis'))} for {type_str(x)}", 0)
    if attrs["exclude"]:
        axes = [i for i in range(rank) if i not in axes]
    return sorted(axes)


def _reduce_type(out_dtype: str | None = None) -> Relation:
    def rel(args: Sequence[Type], attrs: OpAttrs) -> Type:
        x = R.tensor(args, 0)
        axes = set(_type_axes(x, attrs))
        keep = bool(attrs["keepdims"])
        shape: list[Dim] = []
        for i, d in enumerate(x.shape):
            if i not in axes:
                shape.append(d)
            elif keep:
                shape.append(1)
        return TensorType(tuple(shape), out_dtype or x.dtype)

    return rel


def _kernel_axes(x: np.ndarray, attrs: Attrs, opname: str) -> tuple[int, ...]:
    """Reduction axes from `axis` (None = all) and `exclude` (reduce the axes NOT listed)."""
    axis = attr(attrs, opname, "axis")
    exclude = bool(attr(attrs, opname, "exclude"))
    if axis is None or len(K.ints(axis)) == 0:
        return tuple(range(x.ndim))  # GetReduceAxes: undefined or empty -> all, exclude ignored
    listed = sorted({K.axis(a, x.ndim) for a in K.ints(axis)})
    if exclude:
        return tuple(i for i in range(x.ndim) if i not in listed)
    return tuple(listed)


def _reduce_kernel(opname: str, fn: Callable[..., Any]) -> Kernel:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = K.tensor(args[0])
        axes = _kernel_axes(x, attrs, opname)
        keep = bool(attr(attrs, opname, "keepdims"))
        if opname in ("max", "min") and any(x.shape[a] == 0 for a in axes):
            raise OpError(f"{opname} over an empty axis of shape {x.shape}")
        return np.asarray(fn(x, axis=axes, keepdims=keep)).astype(x.dtype, copy=False)

    return run


def _reduction(name: str, fn: Callable[..., Any], gradient: GradRule | None = None) -> None:
    """Declare a reduction with `ReduceAttrs`, computed by the numpy reduction `fn`."""
    register(OpDef(name, 1, "relay.attrs.ReduceAttrs", _REDUCE_FIELDS, relation=_reduce_type(),
                   kernel=_reduce_kernel(name, fn), gradient=gradient))


def _sum_grad(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    axis = reduce_axis(orig, x)
    if not attrs_of(orig)["keepdims"]:
        if axis is None:
            axis = list(range(len(shape(x))))
        g = unreduce_expand(g, axis)
    return [op("broadcast_to_like", g, x)]


_reduction("sum", np.sum, _sum_grad)


def _max_grad(orig: Call, g: Expr) -> list[Expr]:
    """v0.19: the max repeated back over the reduced axes (full_like for axis=None), an
    indicator of the maxima, and the gradient spread evenly over them."""
    (x,) = orig.args
    axis = reduce_axis(orig, x)
    shp = shape(x)
    repeated: Expr = orig
    if axis is None:
        repeated = op("full_like", x, repeated)
    else:
        if not attrs_of(orig)["keepdims"]:
            repeated = unreduce_expand(repeated, axis)
            g = unreduce_expand(g, axis)
        for ax in axis:
            repeated = op("repeat", repeated, repeats=shp[ax], axis=ax)
    indicators = op("cast_like", op("equal", repeated, x), g)
    num_selected = rsum(indicators, axis, keepdims=True)
    return [div(mul(indicators, g), num_selected)]


_reduction("max", np.max, _max_grad)
_reduction("min", np.min)


def _mean_grad(orig: Call, g: Expr) -> list[Expr]:
    """v0.19: `broadcast_to_like(grad * const(1 / count), data)`."""
    (x,) = orig.args
    axis = reduce_axis(orig, x)
    shp = shape(x)
    if axis is None:
        axis = list(range(len(shp)))
    if not attrs_of(orig)["keepdims"]:
        g = unreduce_expand(g, axis)
    mult = 1.0
    for a in axis:
        mult /= shp[a]
    return [op("broadcast_to_like", mul(g, scalar(mult, x)), x)]


_reduction("mean", np.mean, _mean_grad)
_reduction("prod", np.prod)


def _arg_kernel(opname: str, fn: Callable[..., Any]) -> Kernel:
    """argmax / argmin over the (flattened) reduced axes, first or last index of a tie."""
    def run(args: list[Any], attrs: Attrs) -> Any:
        return _arg_reduce(args, attrs, opname, fn)

    return run


def _arg_reduce(args: list[Any], attrs: Attrs, opname: str, fn: Callable[..., Any]) -> Any:
    x = K.tensor(args[0])
    axes = _kernel_axes(x, attrs, opname)
    keep = bool(attr(attrs, opname, "keepdims"))
    last = bool(attr(attrs, opname, "select_last_index"))
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, rest + list(axes))
    flat = moved.reshape([x.shape[i] for i in rest] + [-1])
    if flat.shape[-1] == 0:
        raise OpError(f"{opname} over an empty axis of shape {x.shape}")
    if last:
        idx = flat.shape[-1] - 1 - fn(flat[..., ::-1], axis=-1)
    else:
        idx = fn(flat, axis=-1)
    if keep:
        idx = idx.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return np.asarray(idx, dtype=np.int32)


# ArgReduceAttrs declares select_last_index before exclude (reduce.h)
_ARG_REDUCE_FIELDS = (F("axis", None), F("keepdims", False), F("select_last_index", False),
                      F("exclude", False))
register(OpDef("argmax", 1, "relay.attrs.ArgReduceAttrs", _ARG_REDUCE_FIELDS,
               relation=_reduce_type("int32"), kernel=_arg_kernel("argmax", np.argmax)))
register(OpDef("argmin", 1, "relay.attrs.ArgReduceAttrs", _ARG_REDUCE_FIELDS,
               relation=_reduce_type("int32"), kernel=_arg_kernel("argmin", np.argmin)))


_reduction("all", np.all)
_reduction("any", np.any)


def _variance_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    R.tensor(args, 1)
    return _reduce_type()(args, attrs)  # type: ignore[return-value]


def _variance_kernel(args: list[Any], attrs: Attrs) -> Any:
    x, mean = K.tensor(args[0]), K.tensor(args[1], "mean")
    axes = _kernel_axes(x, attrs, "variance")
    keep = bool(attr(attrs, "variance", "keepdims"))
    unbiased = bool(attr(attrs, "variance", "unbiased"))
    n = math.prod(x.shape[a] for a in axes)
    d = x - mean
    s = np.sum(d * d, axis=axes, keepdims=keep)
    return np.asarray(s / (n - 1 if unbiased else n)).astype(x.dtype)


def _variance_grad(orig: Call, g: Expr) -> list[Expr]:
    """TVM's rule: d/dx = 2x/n, d/dmean = -2 mean; correct when mean is mean(x) upstream."""
    data, data_mean = orig.args
    attrs = attrs_of(orig)
    axis = reduce_axis(orig, data)
    shp = shape(data)
    if axis is None:
        axis = list(range(len(shp)))
    if not attrs["keepdims"]:
        g = unreduce_expand(g, axis)
    mult1, mult2, count = 2.0, -2.0, 1
    for a in axis:
        count *= shp[a]
    if attrs["unbiased"]:
        mult2 = mult2 * count / (count - 1)
        count -= 1
    mult1 /= count
    return [
        mul(mul(g, scalar(mult1, data)), data),
        mul(mul(scalar(mult2, data), g), data_mean),
    ]


register(OpDef("variance", 2, "relay.attrs.VarianceAttrs",
               (*_REDUCE_FIELDS, F("unbiased", False)),
               relation=_variance_type, kernel=_variance_kernel, gradient=_variance_grad))
