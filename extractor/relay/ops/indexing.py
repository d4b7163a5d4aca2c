"""Indexing and joining: take, concatenate, stack, split, strided_slice, one_hot.

Deviations from v0.19's gradients, by design of this project: `take` and `strided_slice` use a
one-hot / selection-matrix formulation (TVM builds a `while_loop` / calls `strided_set`, which
our op set lacks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import (
    Attrs,
    Call,
    Expr,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    const,
    type_str,
)
from . import kernel as K
from . import relation as R
from .grad import RuleError, attrs_of, dtype, mul, rsum, shape, type_of, zeros_like
from .registry import GRAD_V019_VARIANT, F, OpAttrs, OpDef, OpError, attr, register
from .registry import make_call as op
from .relation import ArgMismatch, Dim, RelError


def _is_int_dtype(dtype: str) -> bool:
    return dtype.startswith("int") or dtype.startswith("uint")


def _take_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """Gather along `axis` (None: of the flattened data); a scalar index drops the axis."""
    x, idx = R.tensor(args, 0), R.tensor(args, 1)
    if not _is_int_dtype(idx.dtype):
        raise ArgMismatch(1, TensorType(idx.shape, "int32"), idx)
    axis = attrs["axis"]
    if axis is None:
        return TensorType(idx.shape, x.dtype)
    ax = R.axis(axis, len(x.shape), x)
    bd = R.integer(attrs["batch_dims"] or 0, "batch_dims")
    if bd < 0:
        bd += len(idx.shape)
    if not 0 <= bd <= min(ax, len(idx.shape)):
        raise RelError(f"batch_dims {attrs['batch_dims']} is out of range for {type_str(idx)}", 1)
    return TensorType((*x.shape[:ax], *idx.shape[bd:], *x.shape[ax + 1:]), x.dtype)


def _take_kernel(args: list[Any], attrs: Attrs) -> Any:
    x, idx = K.tensor(args[0], "data"), K.tensor(args[1], "indices")
    if int(attr(attrs, "take", "batch_dims")) != 0:
        raise OpError("take with batch_dims != 0 is not supported by the interpreter")
    if not np.issubdtype(idx.dtype, np.integer):
        raise OpError(f"indices must be integers, got {idx.dtype}")
    axis = attr(attrs, "take", "axis")
    mode = attr(attrs, "take", "mode")
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = K.axis(int(axis), x.ndim)
    n = x.shape[axis]
    if n == 0:
        raise OpError(f"take from an empty axis of shape {x.shape}")
    if mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    elif mode == "wrap":
        idx = np.mod(idx, n)
    elif mode == "fast":
        if np.any((idx < -n) | (idx >= n)):
            raise OpError(f"index out of range for axis of size {n} (mode fast)")
    else:
        raise OpError(f"unknown take mode {mode!r}")
    return np.take(x, idx, axis=axis)


def _take_grad(orig: Call, g: Expr) -> list[Expr]:
    """Scatter-add of g into a, as a one-hot contraction (TVM v0.19 builds a while loop)."""
    a, indices = orig.args
    attrs = attrs_of(orig)
    if int(attrs["batch_dims"] or 0) != 0:  # type: ignore[arg-type]
        raise RuleError("take with batch_dims != 0 has no gradient")
    a_shape = shape(a)
    axis = attrs["axis"]
    if axis is None:
        pre, n, post = 1, int(np.prod(a_shape, dtype=np.int64)), 1
    else:
        k = int(axis) if int(axis) >= 0 else len(a_shape) + int(axis)  # type: ignore[arg-type]
        pre = int(np.prod(a_shape[:k], dtype=np.int64))
        n = a_shape[k]
        post = int(np.prod(a_shape[k + 1:], dtype=np.int64))
    m = int(np.prod(shape(indices), dtype=np.int64))
    idx: Expr = op("reshape", indices, newshape=(m,))
    mode = attrs["mode"]
    if mode == "clip":
        idx = op("clip", idx, a_min=0.0, a_max=float(n - 1))
    elif mode == "wrap":
        idx = op("floor_mod", idx, const(np.asarray(n, dtype=dtype(indices))))
    dt = dtype(a)
    hot = op("one_hot", idx, const(1.0, dt), const(0.0, dt), depth=n, axis=-1, dtype=dt)
    g3 = op("expand_dims", op("reshape", g, newshape=(pre, m, post)), axis=2, num_newaxis=1)
    contrib = mul(g3, op("reshape", hot, newshape=(1, m, n, 1)))
    return [op("reshape_like", rsum(contrib, 1), a), zeros_like(indices)]


register(OpDef("take", 2, "relay.attrs.TakeAttrs",
               (F("batch_dims", 0), F("axis", None), F("mode", "clip")),
               relation=_take_type, kernel=_take_kernel, gradient=_take_grad,
               grad_origin=GRAD_V019_VARIANT))


def _tuple_arg(v: Any) -> list[np.ndarray]:
    if not isinstance(v, tuple):
        raise OpError(f"expected a tuple of tensors, got {type(v).__name__}")
    return [K.tensor(t, "tuple field") for t in v]


def _concatenate_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    fs = R.tensor_fields(args, 0)
    f0 = fs[0]
    ax = R.axis(attrs["axis"], len(f0.shape), f0)
    total: Dim = 0
    for j, f in enumerate(fs):
        same = len(f.shape) == len(f0.shape) and f.dtype == f0.dtype and all(
            R.dim_eq(a, b) for i, (a, b) in enumerate(zip(f.shape, f0.shape, strict=True))
            if i != ax)
        if not same:
            raise RelError(f"field {j} has type {type_str(f)}, which cannot be concatenated with "
                           f"{type_str(f0)} on axis {ax}", 0)
        total = R.add_dims(total, f.shape[ax])
    shape = list(f0.shape)
    shape[ax] = total
    for i in range(len(shape)):
        if i != ax and shape[i] is None:
            shape[i] = next((f.shape[i] for f in fs if f.shape[i] is not None), None)
    return TensorType(tuple(shape), f0.dtype)


def _concatenate_kernel(args: list[Any], attrs: Attrs) -> Any:
    ts = _tuple_arg(args[0])
    if not ts:
        raise OpError("concatenate of an empty tuple")
    axis = K.axis(int(attr(attrs, "concatenate", "axis")), ts[0].ndim)
    return np.concatenate(ts, axis=axis)


def _split_points(sizes: list[int]) -> list[int]:
    out, acc = [], 0
    for s in sizes[:-1]:
        acc += s
        out.append(acc)
    return out


def _concatenate_grad(orig: Call, g: Expr) -> list[Expr]:
    (t,) = orig.args
    tt = type_of(t)
    if not isinstance(tt, TupleType):
        raise RuleError("concatenate expects a tuple argument")
    axis = int(attrs_of(orig)["axis"])  # type: ignore[arg-type]
    dims = []
    for f in tt.fields:
        if not isinstance(f, TensorType) or f.shape[axis] is None:
            raise RuleError("concatenate gradient needs static field shapes")
        dims.append(int(f.shape[axis]))  # type: ignore[arg-type]
    return [op("split", g, indices_or_sections=tuple(_split_points(dims)), axis=axis)]


register(OpDef("concatenate", 1, "relay.attrs.ConcatenateAttrs", (F("axis", 0, pod_int=True),),
               relation=_concatenate_type, kernel=_concatenate_kernel,
               gradient=_concatenate_grad))


def _stack_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    fs = R.tensor_fields(args, 0)
    f0 = fs[0]
    for j, f in enumerate(fs):
        if not R.shape_eq(f.shape, f0.shape) or f.dtype != f0.dtype:
            raise RelError(f"field {j} has type {type_str(f)}, which cannot be stacked with "
                           f"{type_str(f0)}", 0)
    ax = R.axis(attrs["axis"], len(f0.shape), f0, extra=1)
    return TensorType((*f0.shape[:ax], len(fs), *f0.shape[ax:]), f0.dtype)


def _stack_kernel(args: list[Any], attrs: Attrs) -> Any:
    ts = _tuple_arg(args[0])
    if not ts:
        raise OpError("stack of an empty tuple")
    axis = int(attr(attrs, "stack", "axis"))
    if not -ts[0].ndim - 1 <= axis <= ts[0].ndim:
        raise OpError(f"axis {axis} is out of range for stack of rank {ts[0].ndim}")
    return np.stack(ts, axis=axis)


def _stack_grad(orig: Call, g: Expr) -> list[Expr]:
    (t,) = orig.args
    tt = type_of(t)
    if not isinstance(tt, TupleType):
        raise RuleError("stack expects a tuple argument")
    axis = int(attrs_of(orig)["axis"])  # type: ignore[arg-type]
    splits = op("split", g, indices_or_sections=len(tt.fields), axis=axis)
    return [Tuple(tuple(op("squeeze", TupleGetItem(splits, i), axis=[axis])
                        for i in range(len(tt.fields))))]


register(OpDef("stack", 1, "relay.attrs.StackAttrs", (F("axis", 0),),
               relation=_stack_type, kernel=_stack_kernel, gradient=_stack_grad))


def _split_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    ax = R.axis(attrs["axis"], len(x.shape), x)
    d = x.shape[ax]
    ios = attrs["indices_or_sections"]
    sizes: list[Dim]
    if isinstance(ios, int) and not isinstance(ios, bool):
        if ios <= 0:
            raise RelError(f"indices_or_sections must be positive, not {ios}")
        if d is not None and d % ios:
            raise RelError(f"cannot split axis {ax} of {type_str(x)} into {ios} equal parts", 0)
        sizes = [None if d is None else d // ios] * ios
    else:
        idx = R.ints(ios, "indices_or_sections")
        bounds: list[Dim] = [0, *idx, d]
        sizes = []
        for a, b in zip(bounds, bounds[1:], strict=False):
            if a is None or b is None:
                sizes.append(None)
            elif b < a:
                raise RelError(f"split indices {list(idx)} are not increasing within "
                               f"{type_str(x)}", 0)
            else:
                sizes.append(b - a)
    return TupleType(tuple(
        TensorType((*x.shape[:ax], s, *x.shape[ax + 1:]), x.dtype) for s in sizes))


def _split_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    ios = attr(attrs, "split", "indices_or_sections")
    axis = K.axis(int(attr(attrs, "split", "axis")), x.ndim)
    if isinstance(ios, (int, np.integer)):
        if ios <= 0 or x.shape[axis] % int(ios):
            raise OpError(f"cannot split axis of size {x.shape[axis]} into {ios} equal sections")
        parts = np.split(x, int(ios), axis=axis)
    else:
        parts = np.split(x, list(K.ints(ios)), axis=axis)
    return tuple(parts)


register(OpDef("split", 1, "relay.attrs.SplitAttrs",
               (F("indices_or_sections"), F("axis", 0, pod_int=True)),
               relation=_split_type, kernel=_split_kernel))


def _strided_slice_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    rank = len(x.shape)
    begin = R.ints(attrs["begin"], "begin")
    end = R.ints(attrs["end"], "end") if attrs["end"] is not None else ()
    strides = R.ints(attrs["strides"], "strides") if attrs["strides"] is not None else ()
    axes_v = attrs["axes"]
    axes = ([R.axis(a, rank, x) for a in R.ints(axes_v, "axes")] if axes_v is not None
            else list(range(min(len(begin), rank))))
    if len(begin) < len(axes):
        raise RelError(f"begin {list(begin)} is shorter than the sliced axes {axes}")
    mode = attrs["slice_mode"]
    shape = list(x.shape)
    for k, ax in enumerate(axes):
        dim = x.shape[ax]
        s = strides[k] if k < len(strides) else (strides[-1] if len(strides) == 1 else 1)
        if s == 0:
            raise RelError("strided_slice stride must not be 0")
        if dim is None:
            shape[ax] = None
            continue
        b = begin[k]
        e = end[k] if k < len(end) else (dim if s > 0 else -dim - 1)
        if mode == "size":
            s = 1
            e = dim if e < 0 else b + e
        shape[ax] = len(range(*slice(b, e, s).indices(dim)))
    return TensorType(tuple(shape), x.dtype)


def _strided_slice_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    begin = list(K.ints(attr(attrs, "strided_slice", "begin")))
    end_attr = attr(attrs, "strided_slice", "end")
    end = [None if e is None else int(e) for e in (end_attr or ())]
    strides = list(K.ints(attr(attrs, "strided_slice", "strides")))
    axes_attr = attr(attrs, "strided_slice", "axes")
    mode = attr(attrs, "strided_slice", "slice_mode")
    axes = [K.axis(a, x.ndim) for a in K.ints(axes_attr)] if axes_attr is not None else list(
        range(len(begin)))
    if len(axes) > x.ndim:
        raise OpError(f"{len(axes)} slice axes for a tensor of rank {x.ndim}")
    out = x
    for k, ax in enumerate(axes):
        dim = x.shape[ax]
        s = strides[k] if k < len(strides) else (strides[0] if len(strides) == 1 else 1)
        b = begin[k] if k < len(begin) else 0
        e = end[k] if k < len(end) else None
        if mode == "size":
            s = 1
            b = b + dim if b < 0 else b
            e = dim if e is None or e < 0 else b + e
        elif mode != "end":
            raise OpError(f"unknown slice_mode {mode!r}")
        if s == 0:
            raise OpError("strided_slice stride must not be 0")
        if s > 0:
            b = min(max(b + dim if b < 0 else b, 0), dim)
            e = dim if e is None else min(max(e + dim if e < 0 else e, 0), dim)
        else:
            b = min(max(b + dim if b < 0 else b, -1), dim - 1)
            e = -1 if e is None else min(max(e + dim if e < 0 else e, -1), dim - 1)
        out = np.take(out, np.arange(b, e, s, dtype=np.int64), axis=ax)
    return out


def _strided_slice_grad(orig: Call, g: Expr) -> list[Expr]:
    """Scatter of g into zeros, one selection matrix per sliced axis (TVM: strided_set)."""
    (x,) = orig.args
    attrs = attrs_of(orig)
    if attrs["axes"] is not None:
        raise RuleError("grad for strided_slice with axes is not supported")
    x_shape = shape(x)
    begin = list(orig.attrs["begin"])  # type: ignore[arg-type]
    end = list(orig.attrs["end"])  # type: ignore[arg-type]
    strides_attr = attrs["strides"]
    strides = list(strides_attr) if strides_attr else []  # type: ignore[arg-type]
    size_mode = attrs["slice_mode"] == "size"
    rank = len(x_shape)
    out = g
    for i in range(min(len(begin), rank)):
        n = x_shape[i]
        b = int(begin[i])
        if size_mode:
            size = int(end[i]) if i < len(end) else -1
            b = b + n if b < 0 else b
            sel = np.arange(n)[b: (n if size == -1 else b + size)]
        else:
            e = int(end[i]) if i < len(end) and end[i] is not None else n
            s = int(strides[i]) if i < len(strides) else (int(strides[-1]) if strides else 1)
            sel = np.arange(n)[slice(b, e, s)]
        if len(sel) == n and np.array_equal(sel, np.arange(n)):
            continue
        mat = np.zeros((len(sel), n), dtype=dtype(x))
        mat[np.arange(len(sel)), sel] = 1
        mat = mat.reshape((1,) * i + mat.shape + (1,) * (rank - i - 1))
        out = rsum(mul(op("expand_dims", out, axis=i + 1, num_newaxis=1), const(mat)), i)
    return [out]


# StridedSliceAttrs: begin, end, strides, slice_mode, axes; only slice_mode has a default, so
# `strides=[1], axes=None` print (transform.h)
register(OpDef("strided_slice", 1, "relay.attrs.StridedSliceAttrs",
               (F("begin"), F("end"), F("strides", nullable=True), F("slice_mode", "end"),
                F("axes", nullable=True)),
               relation=_strided_slice_type, kernel=_strided_slice_kernel,
               gradient=_strided_slice_grad))


def _one_hot_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    idx = R.tensor(args, 0)
    depth = R.integer(attrs["depth"], "depth")
    axis = R.integer(attrs["axis"], "axis")
    rank = len(idx.shape)
    ax = rank if axis == -1 else R.axis(axis, rank, idx, extra=1)
    return TensorType((*idx.shape[:ax], depth, *idx.shape[ax:]), R.dtype_attr(attrs))


def _one_hot_kernel(args: list[Any], attrs: Attrs) -> Any:
    idx, on, off = K.tensor(args[0], "indices"), K.tensor(args[1], "on_value"), K.tensor(args[2])
    depth = int(attr(attrs, "one_hot", "depth"))
    axis = int(attr(attrs, "one_hot", "axis"))
    dt = K.np_dtype(attr(attrs, "one_hot", "dtype"))
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(dt)
    if axis != -1:
        out = np.moveaxis(out, -1, K.axis(axis, out.ndim))
    return out


def _one_hot_grad(orig: Call, g: Expr) -> list[Expr]:
    indices, on_value, off_value = orig.args
    g_zeros = zeros_like(g)
    on_mask = op("equal", orig, on_value)
    grad_on = rsum(op("where", on_mask, g, g_zeros))
    grad_off = rsum(op("where", on_mask, g_zeros, g))
    return [zeros_like(indices), op("cast_like", grad_on, on_value),
            op("cast_like", grad_off, off_value)]


register(OpDef("one_hot", 3, "relay.attrs.OneHotAttrs",
               (F("depth", 1, pod_int=True), F("axis", -1, pod_int=True), F("dtype", "")),
               relation=_one_hot_type, kernel=_one_hot_kernel, gradient=_one_hot_grad))
