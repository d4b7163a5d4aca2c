"""Indexing and joining: take, concatenate, stack, split, strided_slice / strided_set, one_hot,
gather / gather_nd, scatter_elements / scatter_nd.

Deviation from v0.19's gradients: `take` uses a one-hot formulation (TVM builds a `while_loop`
of `strided_slice` / `strided_set` calls on dynamic begin/end tensors, i.e. `dyn.strided_slice`,
which this op set lacks), so its rule is marked `GRAD_V019_VARIANT`. `split` has no rule in
v0.19; its rule here (concatenate the fields' gradients) is an aliaslog extension.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import (
    Attrs,
    Call,
    Constant,
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
from .grad import RuleError, attrs_of, dtype, int_tuple, mul, rsum, shape, type_of, zeros_like
from .registry import GRAD_EXTENSION, GRAD_V019_VARIANT, F, OpAttrs, OpDef, OpError, attr, register
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
    """v0.19: `strided_set(zeros_like(x), grad, begin, end, strides)` with int32 constants; in
    size mode the sizes become ends and the strides `[1]`."""
    (x,) = orig.args
    attrs = attrs_of(orig)
    if attrs["axes"] is not None:
        raise RuleError("grad for strided_slice with axes is not yet supported")
    if attrs["begin"] is None or attrs["end"] is None or attrs["strides"] is None:
        raise RuleError("grad for strided_slice needs constant begin, end and strides")
    begin = list(int_tuple(attrs["begin"], "begin"))
    end = list(int_tuple(attrs["end"], "end"))
    strides: list[int] | None = list(int_tuple(attrs["strides"], "strides"))
    if attrs["slice_mode"] == "size":
        x_shape = shape(x)
        for i, (start, size) in enumerate(zip(begin, end, strict=False)):
            end[i] = x_shape[i] if size == -1 else start + size
        strides = None
    elif attrs["slice_mode"] != "end":
        raise RuleError(f"unknown slice_mode {attrs['slice_mode']!r}")
    strides = strides or [1]  # `strides or const([1], dtype="int32")`

    def ints32(v: list[int]) -> Constant:
        return const(np.array(v, dtype="int32"))

    return [op("strided_set", zeros_like(x), g, ints32(begin), ints32(end), ints32(strides))]


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


def _split_grad(orig: Call, g: Expr) -> list[Expr]:
    """aliaslog extension (v0.19 has no split rule): the output gradients, concatenated.

    `g` is the tuple of the fields' gradients (a field nobody used keeps its zeros), so the
    input's gradient is `concatenate(g, axis)`, the inverse of the split.
    """
    return [op("concatenate", g, axis=int(attrs_of(orig)["axis"]))]  # type: ignore[call-overload]


register(OpDef("split", 1, "relay.attrs.SplitAttrs",
               (F("indices_or_sections"), F("axis", 0, pod_int=True)),
               relation=_split_type, kernel=_split_kernel, gradient=_split_grad,
               grad_origin=GRAD_EXTENSION))

# ------------------------------------------------------------------------- gather, scatter


def _int_indices(args: Sequence[Type], i: int) -> TensorType:
    t = R.tensor(args, i)
    if not _is_int_dtype(t.dtype):
        raise ArgMismatch(i, TensorType(t.shape, "int32"), t)
    return t


def _gather_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """GatherRel: indices of data's rank, equal to data off `axis`; the result has their shape."""
    x, idx = R.tensor(args, 0), _int_indices(args, 1)
    if attrs["axis"] is None:
        raise RelError("attribute axis is required by gather")
    if len(idx.shape) != len(x.shape):
        raise RelError(f"indices {type_str(idx)} must have the rank of the data "
                       f"{type_str(x)}", 1)
    ax = R.axis(attrs["axis"], len(x.shape), x)
    for i, (a, b) in enumerate(zip(idx.shape, x.shape, strict=True)):
        if i == ax:
            if a is not None and a < 1:
                raise RelError(f"indices {type_str(idx)} are empty on the gathered axis", 1)
        elif not R.dim_eq(a, b):
            raise ArgMismatch(1, TensorType(tuple(d if j != ax else idx.shape[j]
                                                  for j, d in enumerate(x.shape)), idx.dtype),
                              idx)
    return TensorType(idx.shape, x.dtype)


def _check_range(idx: np.ndarray, n: int, what: str) -> None:
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise OpError(f"{what} index out of range for an axis of size {n}: "
                      f"{int(idx.min())}..{int(idx.max())}")


def _gather_kernel(args: list[Any], attrs: Attrs) -> Any:
    """topi::gather: out[i][j][k] = data[indices[i][j][k]][j][k] (axis 0); no index wrapping."""
    x, idx = K.tensor(args[0], "data"), K.tensor(args[1], "indices")
    if idx.ndim != x.ndim:
        raise OpError(f"indices {idx.shape} must have the rank of data {x.shape}")
    ax = K.axis(int(attr(attrs, "gather", "axis")), x.ndim)
    _check_range(idx, x.shape[ax], "gather")
    return np.take_along_axis(x, idx.astype(np.int64), axis=ax)


register(OpDef("gather", 2, "relay.attrs.GatherAttrs", (F("axis", None),),
               relation=_gather_type, kernel=_gather_kernel))


def _gather_nd_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """GatherNDRel: indices (M, Y...) pick data's first M (after batch_dims) axes."""
    x, idx = R.tensor(args, 0), R.tensor(args, 1)
    if not idx.shape or idx.shape[0] is None:
        raise RelError(f"gather_nd needs a static first axis of indices, got {type_str(idx)}", 1)
    m = idx.shape[0]
    bd = R.integer(attrs["batch_dims"], "batch_dims")
    if m + bd > len(x.shape):
        raise RelError(f"indices {type_str(idx)} index more axes than data {type_str(x)} has",
                       1)
    for i in range(bd):
        if i + 1 >= len(idx.shape) or not R.dim_eq(x.shape[i], idx.shape[i + 1]):
            raise RelError(f"batch axis {i} of data {type_str(x)} and indices "
                           f"{type_str(idx)} differ", 1)
    return TensorType((*idx.shape[1:], *x.shape[m + bd:]), x.dtype)


def _gather_nd_kernel(args: list[Any], attrs: Attrs) -> Any:
    """topi::gather_nd: out[b.., y.., x..] = data[b.., indices[:, b.., y..], x..]."""
    x, idx = K.tensor(args[0], "data"), K.tensor(args[1], "indices")
    bd = int(attr(attrs, "gather_nd", "batch_dims"))
    if idx.ndim < 1 or idx.shape[0] + bd > x.ndim:
        raise OpError(f"indices {idx.shape} do not fit data {x.shape} (batch_dims {bd})")
    m = idx.shape[0]
    ii = idx.astype(np.int64)
    for k in range(m):
        _check_range(ii[k], x.shape[bd + k], "gather_nd")
    lead = idx.shape[1:]
    batch = [np.arange(lead[i]).reshape((-1,) + (1,) * (len(lead) - i - 1))
             for i in range(bd)]
    return x[(*batch, *(ii[k] for k in range(m)))]


def _gather_nd_grad(orig: Call, g: Expr) -> list[Expr]:
    """v0.19: scatter_nd(zeros_like(data), indices, grad, mode="add")."""
    data, indices = orig.args
    return [op("scatter_nd", zeros_like(data), indices, g, mode="add"), zeros_like(indices)]


register(OpDef("gather_nd", 2, "relay.attrs.GatherNDAttrs",
               (F("batch_dims", 0), F("index_rank", None)),
               relation=_gather_nd_type, kernel=_gather_nd_kernel, gradient=_gather_nd_grad))


def _scatter_types(args: Sequence[Type]) -> tuple[TensorType, TensorType, TensorType]:
    return R.tensor(args, 0), _int_indices(args, 1), R.tensor(args, 2)


def _scatter_elements_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """ScatterElementsRel: the data's type (indices must be integers)."""
    x, _, _ = _scatter_types(args)
    R.axis(attrs["axis"], len(x.shape), x)
    return x


_REDUCERS = {
    "add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
}


def _scatter_elements_kernel(args: list[Any], attrs: Attrs) -> Any:
    """topi.scatter_elements, on the flat buffers as its IR does (a negative index is shifted by
    the axis' extent; within a row the updates apply in index order)."""
    x, idx, upd = (K.tensor(a, w) for a, w in zip(args, ("data", "indices", "updates"),
                                                  strict=True))
    red = attr(attrs, "scatter_elements", "reduction")
    if red not in ("update", "mean", *_REDUCERS):
        raise OpError(f"scatter_elements reduction not in [update, add, mul, mean, min, max]: "
                      f"{red!r}")
    if idx.shape != upd.shape or idx.ndim != x.ndim:
        raise OpError(f"indices {idx.shape} and updates {upd.shape} must match, with the rank "
                      f"of data {x.shape}")
    ax = K.axis(int(attr(attrs, "scatter_elements", "axis")), x.ndim)
    n = x.shape[ax]
    after = int(np.prod(x.shape[ax + 1:], dtype=np.int64))
    i_after = int(np.prod(idx.shape[ax + 1:], dtype=np.int64))
    i_before = int(np.prod(idx.shape[:ax], dtype=np.int64))
    k = idx.shape[ax]
    flat_i = idx.reshape(i_before, k, i_after).astype(np.int64)
    shifted = flat_i + (flat_i < 0) * n
    _check_range(shifted, n, "scatter_elements")
    pos = (np.arange(i_before)[:, None, None] * (n * after) + np.arange(i_after)[None, None, :]
           + shifted * after)
    out = x.reshape(-1).copy()
    if out.size and pos.size and pos.max() >= out.size:
        raise OpError(f"scatter_elements writes past the data {x.shape}")
    vals = upd.reshape(i_before, k, i_after)
    if red in _REDUCERS:
        _REDUCERS[red].at(out, pos.reshape(-1), vals.reshape(-1))
    else:
        order = np.transpose(pos, (0, 2, 1)).reshape(-1)  # rows in parallel, k in sequence
        seq = np.transpose(vals, (0, 2, 1)).reshape(-1)
        for p, v in zip(order, seq, strict=True):
            out[p] = v if red == "update" else (out[p] + v) / 2
    return out.reshape(x.shape).astype(x.dtype, copy=False)


# v0.19 registers no attrs type for scatter_elements (its parser would then reject the keyword
# attributes); the Make function builds ScatterElementsAttrs, the key used here
register(OpDef("scatter_elements", 3, "relay.attrs.ScatterElementsAttrs",
               (F("axis", 0), F("reduction", "update")),
               relation=_scatter_elements_type, kernel=_scatter_elements_kernel))


def _scatter_nd_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """ScatterNDRel: indices (M, Y...), updates (Y..., X_M...) into data (X_0...)."""
    x, idx, upd = _scatter_types(args)
    if not idx.shape or idx.shape[0] is None:
        raise RelError(f"scatter_nd needs a static first axis of indices, got {type_str(idx)}",
                       1)
    m = idx.shape[0]
    if m > len(x.shape):
        raise RelError(f"indices {type_str(idx)} index more axes than data {type_str(x)} has",
                       1)
    want = (*idx.shape[1:], *x.shape[m:])
    if not R.shape_eq(upd.shape, want) or upd.dtype != x.dtype:
        raise ArgMismatch(2, TensorType(want, x.dtype), upd)
    return x


def _scatter_nd_kernel(args: list[Any], attrs: Attrs) -> Any:
    """topi.scatter_nd: out = copy(data); out[indices[:, y], x...] f= updates[y, x...]."""
    x, idx, upd = (K.tensor(a, w) for a, w in zip(args, ("data", "indices", "updates"),
                                                  strict=True))
    mode = attr(attrs, "scatter_nd", "mode")
    if mode not in ("update", *_REDUCERS):
        raise OpError(f"scatter_nd mode not in [update, add, mul, min, max]: {mode!r}")
    m = idx.shape[0] if idx.ndim else 0
    if idx.ndim < 1 or m > x.ndim or upd.shape != (*idx.shape[1:], *x.shape[m:]):
        raise OpError(f"indices {idx.shape}, updates {upd.shape} and data {x.shape} do not "
                      "match")
    ii = idx.reshape(m, -1).astype(np.int64)
    for j in range(m):
        _check_range(ii[j], x.shape[j], "scatter_nd")
    rest = int(np.prod(x.shape[m:], dtype=np.int64))
    base = np.ravel_multi_index(tuple(ii), x.shape[:m]) if m else np.zeros(ii.shape[1], np.int64)
    pos = base[:, None] * rest + np.arange(rest)[None, :]
    out = x.reshape(-1).copy()
    vals = upd.reshape(-1)
    if mode == "update":
        for p, v in zip(pos.reshape(-1), vals, strict=True):  # in index order, as the IR
            out[p] = v
    else:
        _REDUCERS[mode].at(out, pos.reshape(-1), vals)
    return out.reshape(x.shape)


# like scatter_elements, declared without an attrs type in v0.19 (ScatterNDAttrs is built)
register(OpDef("scatter_nd", 3, "relay.attrs.ScatterNDAttrs", (F("mode", "update"),),
               relation=_scatter_nd_type, kernel=_scatter_nd_kernel))


def _strided_set_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """StridedSetRel: the data's type (nothing else is checked)."""
    return R.tensor(args, 0)


def _tir_truncmod(a: int, b: int) -> int:
    return int(np.fmod(a, b))


def strided_set_positions(b: int, e: int, s: int, dim: int) -> list[tuple[int, int]]:
    """(array position, position in the slice) pairs topi's within_index / make_idx select."""
    out = []
    for i in range(dim):
        if s < 0:
            outside = i <= e or i > b
            ss = _tir_truncmod((i - e) + _tir_truncmod(e, abs(s)) + 1, abs(s))
        else:
            outside = i < b or i >= e
            ss = _tir_truncmod(i - b, s)
        if outside or ss != 0:
            continue
        bb = dim - 1 if dim < b else b
        out.append((i, (bb - i) // abs(s) if s < 0 else (i - bb) // s))
    return out


def _strided_set_kernel(args: list[Any], attrs: Attrs) -> Any:
    """topi.strided_set: data with the strided slice (begin, end, strides tensors) set to v."""
    x, v = K.tensor(args[0], "data"), K.tensor(args[1], "v")
    begin, end, strides = (K.tensor(a).reshape(-1).astype(np.int64).tolist() for a in args[2:])
    sel: list[list[tuple[int, int]]] = []
    for i, dim in enumerate(x.shape):
        s = strides[i] if i < len(strides) else 1
        if s == 0:
            raise OpError("strided_set stride must not be 0")
        b = begin[i] if i < len(begin) else (0 if s > 0 else dim)
        e = end[i] if i < len(end) else (dim + 1 if s > 0 else -(dim + 1))
        b, e = (b + dim if b < 0 else b), (e + dim if e < 0 else e)
        sel.append(strided_set_positions(b, e, s, dim))
    want = tuple(len(p) for p in sel)
    if v.shape != want:
        raise OpError(f"v {v.shape} does not match the slice {want} of data {x.shape}")
    out = x.copy()
    if all(want):
        dst = np.ix_(*[[a for a, _ in p] for p in sel])
        src = np.ix_(*[[c for _, c in p] for p in sel])
        out[dst] = v[src]
    return out


register(OpDef("strided_set", 5, relation=_strided_set_type, kernel=_strided_set_kernel))
