"""Shape, layout and dtype transforms: reshape (and `_like`, and contrib_reverse_reshape),
transpose, expand_dims, squeeze, batch_flatten, broadcast_to (and `_like`), collapse_sum_like /
collapse_sum_to, shape_of, cast (and `_like`), layout_transform, tile, repeat, reverse, and the
tensors made from a shape or a fill value: zeros, ones, full, full_like.

`reshape_shape` is the one reading of reshape's special values (0, -1, -2, -3, -4), used by the
type relation on shapes with unknown dims and by the kernel on concrete ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import Attrs, Call, Expr, TensorType, Type, type_str
from . import kernel as K
from . import relation as R
from .grad import attrs_of, zeros_like
from .registry import F, Kernel, OpAttrs, OpDef, OpError, attr, register
from .registry import make_call as op
from .relation import Dim, RelError, Shape

# -------------------------------------------------------------------------------- reshaping


def reshape_shape(ishape: Shape, newshape: Sequence[int], allowzero: bool, t: Type) -> Shape:
    """TVM's reshape: 0 copies a dim, -1 infers one, -2 copies the rest, -3 merges, -4 splits.

    `?` dims (None) stay unknown where they are used; `t` names the input in messages.
    """
    out: list[Dim] = []
    src = 0
    infer_at = -1
    i = 0

    def in_dim(j: int) -> Dim:
        if j >= len(ishape):
            raise RelError(f"newshape {list(newshape)} refers past the last dim of "
                           f"{type_str(t)}", 0)
        return ishape[j]

    while i < len(newshape):
        s = newshape[i]
        if s > 0:
            out.append(s)
            src += 1
        elif s == 0:
            out.append(0 if allowzero else in_dim(src))
            src += 1
        elif s == -1:
            if infer_at >= 0:
                raise RelError(f"newshape {list(newshape)} has more than one -1")
            infer_at = len(out)
            out.append(None)
            src += 1
        elif s == -2:
            out.extend(ishape[src:])
            src = len(ishape)
        elif s == -3:
            a, b = in_dim(src), in_dim(src + 1)
            out.append(None if a is None or b is None else a * b)
            src += 2
        elif s == -4:
            if i + 2 >= len(newshape):
                raise RelError(f"newshape {list(newshape)}: -4 needs two following values")
            d = in_dim(src)
            a, b = newshape[i + 1], newshape[i + 2]
            if a == -1 and b == -1:
                raise RelError(f"newshape {list(newshape)}: -4 cannot split into two -1s")
            if a == -1 and d is not None and b > 0:
                a = d // b
            if b == -1 and d is not None and a > 0:
                b = d // a
            if d is not None and a > 0 and b > 0 and a * b != d:
                raise RelError(f"newshape {list(newshape)}: -4 splits dim {src} of "
                               f"{type_str(t)} into {a} x {b}", 0)
            out.extend([a if a > 0 else None, b if b > 0 else None])
            src += 1
            i += 2
        else:
            raise RelError(f"invalid value {s} in newshape {list(newshape)}")
        i += 1
    total = R.numel(ishape)
    if infer_at >= 0:
        rest = R.numel(tuple(d for j, d in enumerate(out) if j != infer_at))
        if total is not None and rest is not None:
            if rest == 0 or total % rest:
                raise RelError(f"cannot reshape {type_str(t)} to {list(newshape)}", 0)
            out[infer_at] = total // rest
    n_out = R.numel(tuple(out))
    if total is not None and n_out is not None and total != n_out:
        raise RelError(f"cannot reshape {type_str(t)} ({total} elements) to "
                       f"{list(newshape)} ({n_out} elements)", 0)
    return tuple(out)


def _reshape_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    newshape = R.ints(attrs["newshape"], "newshape")
    return TensorType(reshape_shape(x.shape, newshape, bool(attrs["allowzero"]), x), x.dtype)


def _reshape_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    ns = K.ints(attr(attrs, "reshape", "newshape"))
    allowzero = bool(attr(attrs, "reshape", "allowzero"))
    try:
        shape = reshape_shape(x.shape, ns, allowzero, TensorType(x.shape, str(x.dtype)))
    except RelError as err:
        raise OpError(err.message) from None
    return x.reshape(shape)


def _reshape_grad(orig: Call, g: Expr) -> list[Expr]:
    return [op("reshape_like", g, orig.args[0])]


register(OpDef("reshape", 1, "relay.attrs.ReshapeAttrs", (F("newshape"), F("allowzero", False)),
               relation=_reshape_type, kernel=_reshape_kernel, gradient=_reshape_grad))


def _reverse_reshape_shape(ishape: Shape, newshape: Sequence[int], allowzero: bool,
                           t: Type) -> Shape:
    """InferNewShape(reverse=true): both shapes reversed, read as reshape, reversed back."""
    out = reshape_shape(tuple(reversed(ishape)), tuple(reversed(newshape)), allowzero, t)
    return tuple(reversed(out))


def _reverse_reshape_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """ReverseReshapeRel: reshape's special values inferred from right to left."""
    x = R.tensor(args, 0)
    newshape = R.ints(attrs["newshape"], "newshape")
    return TensorType(_reverse_reshape_shape(x.shape, newshape, bool(attrs["allowzero"]), x),
                      x.dtype)


def _reverse_reshape_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    name = "contrib_reverse_reshape"
    try:
        shape = _reverse_reshape_shape(x.shape, K.ints(attr(attrs, name, "newshape")),
                                       bool(attr(attrs, name, "allowzero")),
                                       TensorType(x.shape, str(x.dtype)))
    except RelError as err:
        raise OpError(err.message) from None
    return x.reshape(shape)


# v0.19's reverse_reshape_grad is reshape's: reshape_like(grad, data)
register(OpDef("contrib_reverse_reshape", 1, "relay.attrs.ReshapeAttrs",
               (F("newshape"), F("allowzero", False)), relation=_reverse_reshape_type,
               kernel=_reverse_reshape_kernel, gradient=_reshape_grad))


def _reshape_like_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, like = R.tensor(args, 0), R.tensor(args, 1)
    a, b = R.numel(x.shape), R.numel(like.shape)
    if a is not None and b is not None and a != b:
        raise RelError(f"cannot reshape {type_str(x)} like {type_str(like)}", 1)
    return TensorType(like.shape, x.dtype)


def _reshape_like_kernel(args: list[Any], attrs: Attrs) -> Any:
    a, b = K.tensor(args[0]), K.tensor(args[1])
    if a.size != b.size:
        raise OpError(f"cannot reshape {a.shape} like {b.shape}")
    return a.reshape(b.shape)


def _reshape_like_grad(orig: Call, g: Expr) -> list[Expr]:
    data, like = orig.args
    return [op("reshape_like", g, data), zeros_like(like)]


register(OpDef("reshape_like", 2, relation=_reshape_like_type, kernel=_reshape_like_kernel,
               gradient=_reshape_like_grad))


def _batch_flatten_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    if not x.shape:
        raise RelError(f"expected a tensor of rank >= 1 but found {type_str(x)}", 0)
    return TensorType((x.shape[0], R.numel(x.shape[1:])), x.dtype)


def _batch_flatten_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    if x.ndim < 1:
        raise OpError("batch_flatten needs a tensor of rank >= 1")
    return x.reshape(x.shape[0], -1) if x.shape[0] else x.reshape(0, math.prod(x.shape[1:]))


def _batch_flatten_grad(orig: Call, g: Expr) -> list[Expr]:
    return [op("reshape_like", g, orig.args[0])]


register(OpDef("nn.batch_flatten", 1, relation=_batch_flatten_type, kernel=_batch_flatten_kernel,
               gradient=_batch_flatten_grad))


def _expand_dims_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    n = R.integer(attrs["num_newaxis"], "num_newaxis")
    if n < 0:
        raise RelError(f"num_newaxis must be >= 0, not {n}")
    ax = R.axis(attrs["axis"], len(x.shape), x, extra=1)
    return TensorType((*x.shape[:ax], *(1,) * n, *x.shape[ax:]), x.dtype)


def _expand_dims_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    axis = int(attr(attrs, "expand_dims", "axis"))
    num = int(attr(attrs, "expand_dims", "num_newaxis"))
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise OpError(f"axis {axis} is out of range for expand_dims of rank {x.ndim}")
    if axis < 0:
        axis += x.ndim + 1
    return x.reshape(x.shape[:axis] + (1,) * num + x.shape[axis:])


def _expand_dims_grad(orig: Call, g: Expr) -> list[Expr]:
    """`squeeze(g, axis=[axis])` once per new axis, as v0.19."""
    attrs = attrs_of(orig)
    for _ in range(int(attrs["num_newaxis"])):  # type: ignore[call-overload]
        g = op("squeeze", g, axis=[attrs["axis"]])
    return [g]


register(OpDef("expand_dims", 1, "relay.attrs.ExpandDimsAttrs",
               (F("axis", pod_int=True), F("num_newaxis", 1, pod_int=True)),
               relation=_expand_dims_type, kernel=_expand_dims_kernel, gradient=_expand_dims_grad))


def _squeeze_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    axis = attrs["axis"]
    if axis is None:
        return TensorType(tuple(d for d in x.shape if d != 1), x.dtype)
    axes = {R.axis(a, len(x.shape), x) for a in R.ints(axis, "axis")}
    for a in sorted(axes):
        if not R.dim_eq(x.shape[a], 1):
            raise RelError(f"cannot squeeze axis {a} of size {x.shape[a]} in {type_str(x)}", 0)
    return TensorType(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)


def _squeeze_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    axis = attr(attrs, "squeeze", "axis")
    if axis is None:
        return x.reshape(tuple(d for d in x.shape if d != 1))
    axes = {K.axis(a, x.ndim) for a in K.ints(axis)}
    for a in axes:
        if x.shape[a] != 1:
            raise OpError(f"cannot squeeze axis {a} of size {x.shape[a]}")
    return x.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _squeeze_grad(orig: Call, g: Expr) -> list[Expr]:
    return [op("reshape_like", g, orig.args[0])]


register(OpDef("squeeze", 1, "relay.attrs.SqueezeAttrs", (F("axis", None),),
               relation=_squeeze_type, kernel=_squeeze_kernel, gradient=_squeeze_grad))


def _transpose_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    rank = len(x.shape)
    axes = attrs["axes"]
    if axes is None:
        perm = list(reversed(range(rank)))
    else:
        perm = [R.axis(a, rank, x) for a in R.ints(axes, "axes")]
        if sorted(perm) != list(range(rank)):
            raise RelError(f"axes {list(R.ints(axes, 'axes'))} is not a permutation of the "
                           f"axes of {type_str(x)}", 0)
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


def _transpose_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    axes = attr(attrs, "transpose", "axes")
    if axes is None or len(K.ints(axes)) == 0:
        return np.transpose(x)
    perm = [K.axis(a, x.ndim) for a in K.ints(axes)]
    if sorted(perm) != list(range(x.ndim)):
        raise OpError(f"axes {tuple(K.ints(axes))} are not a permutation of rank {x.ndim}")
    return np.transpose(x, perm)


def _transpose_grad(orig: Call, g: Expr) -> list[Expr]:
    axes = attrs_of(orig)["axes"]
    new_axes: list[int] | None = None
    if axes:
        dims = len(axes)  # type: ignore[arg-type]
        new_axes = [0] * dims
        for i in range(dims):
            new_axes[int(axes[i])] = i  # type: ignore[index]
    return [op("transpose", g, axes=new_axes)]


register(OpDef("transpose", 1, "relay.attrs.TransposeAttrs", (F("axes", nullable=True),),
               relation=_transpose_type, kernel=_transpose_kernel, gradient=_transpose_grad))

# ----------------------------------------------------------------------------- broadcasting


def _check_broadcast_to(x: TensorType, shape: Shape, arg: int, like: Type) -> None:
    if R.broadcast_shapes(x.shape, shape) is None or len(x.shape) > len(shape):
        raise RelError(f"cannot broadcast {type_str(x)} to {type_str(like)}", arg)


def _broadcast_array(a: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    try:
        return np.array(np.broadcast_to(a, tuple(shape)))
    except ValueError as exc:
        raise OpError(f"cannot broadcast shape {a.shape} to {tuple(shape)}") from exc


def _broadcast_to_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    shape = R.ints(attrs["shape"], "shape")
    out = TensorType(shape, attrs["dtype"] or x.dtype)
    _check_broadcast_to(x, shape, 0, out)
    return out


def _broadcast_to_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    out = _broadcast_array(x, K.ints(attr(attrs, "broadcast_to", "shape")))
    dt = attr(attrs, "broadcast_to", "dtype")
    return out.astype(K.np_dtype(dt)) if dt else out


# InitOpAttrs is declared here first (its `dtype` defaults to "", as for full)
register(OpDef("broadcast_to", 1, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", "")),
               relation=_broadcast_to_type, kernel=_broadcast_to_kernel))


def _broadcast_to_like_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, like = R.tensor(args, 0), R.tensor(args, 1)
    _check_broadcast_to(x, like.shape, 1, like)
    return TensorType(like.shape, x.dtype)


def _broadcast_to_like_kernel(args: list[Any], attrs: Attrs) -> Any:
    return _broadcast_array(K.tensor(args[0]), K.tensor(args[1]).shape)


register(OpDef("broadcast_to_like", 2, relation=_broadcast_to_like_type,
               kernel=_broadcast_to_like_kernel))


def _collapse_sum_like_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, like = R.tensor(args, 0), R.tensor(args, 1)
    if R.broadcast_shapes(x.shape, like.shape) is None or len(like.shape) > len(x.shape):
        raise RelError(f"cannot collapse {type_str(x)} to {type_str(like)}", 1)
    return like


def _collapse_to(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum `a` down to `shape` (the reverse of broadcasting `shape` up to `a.shape`)."""
    if len(shape) > a.ndim:
        raise OpError(f"cannot collapse shape {a.shape} to the larger rank of {shape}")
    lead = a.ndim - len(shape)
    axes = list(range(lead))
    for i, d in enumerate(shape):
        ad = a.shape[lead + i]
        if d == 1 and ad != 1:
            axes.append(lead + i)
        elif d != ad:
            raise OpError(f"cannot collapse shape {a.shape} to {shape}")
    out = a.sum(axis=tuple(axes), keepdims=True) if axes else a
    return out.reshape(shape).astype(a.dtype, copy=False)


def _collapse_sum_like_kernel(args: list[Any], attrs: Attrs) -> Any:
    a, b = K.tensor(args[0]), K.tensor(args[1])
    return _collapse_to(a, b.shape)


def _collapse_sum_like_grad(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    return [op("broadcast_to_like", g, x), zeros_like(y)]


register(OpDef("collapse_sum_like", 2, relation=_collapse_sum_like_type,
               kernel=_collapse_sum_like_kernel, gradient=_collapse_sum_like_grad))

# ------------------------------------------------------------------------------ shape, dtype


def _shape_of_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    return TensorType((len(x.shape),), attrs["dtype"] or "int32")


def _shape_of_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    return np.array(x.shape, dtype=K.np_dtype(attr(attrs, "shape_of", "dtype") or "int32"))


def _shape_of_grad(orig: Call, g: Expr) -> list[Expr]:
    return [zeros_like(orig.args[0])]


# ShapeOfAttrs' dtype defaults to null (transform.h), so `dtype="int32"` prints; a call
# without one is read as int32, what the Python API passes
register(OpDef("shape_of", 1, "relay.attrs.ShapeOfAttrs", (F("dtype", ""),),
               relation=_shape_of_type, kernel=_shape_of_kernel, gradient=_shape_of_grad))


def _cast_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    return TensorType(x.shape, R.dtype_attr(attrs))


def _cast_kernel(args: list[Any], attrs: Attrs) -> Any:
    return K.tensor(args[0]).astype(K.np_dtype(attr(attrs, "cast", "dtype")))


def _cast_grad(orig: Call, g: Expr) -> list[Expr]:
    return [op("cast_like", g, orig.args[0])]


register(OpDef("cast", 1, "relay.attrs.CastAttrs", (F("dtype"),),
               relation=_cast_type, kernel=_cast_kernel, gradient=_cast_grad))


def _cast_like_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, y = R.tensor(args, 0), R.tensor(args, 1)
    return TensorType(x.shape, y.dtype)


def _cast_like_kernel(args: list[Any], attrs: Attrs) -> Any:
    return K.tensor(args[0]).astype(K.tensor(args[1]).dtype)


def _cast_like_grad(orig: Call, g: Expr) -> list[Expr]:
    x, like = orig.args
    return [op("cast_like", g, x), zeros_like(like)]


register(OpDef("cast_like", 2, relation=_cast_like_type, kernel=_cast_like_kernel,
               gradient=_cast_like_grad))

# --------------------------------------------------------------------- tensors from a shape


def _init_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return TensorType(R.ints(attrs["shape"], "shape"), R.dtype_attr(attrs))


def _init_kernel(opname: str, fill: int) -> Kernel:
    def run(args: list[Any], attrs: Attrs) -> Any:
        shape = K.ints(attr(attrs, opname, "shape"))
        return np.full(shape, fill, dtype=K.np_dtype(attr(attrs, opname, "dtype")))

    return run


def _zeros_grad(orig: Call, g: Expr) -> list[Expr]:
    return []


register(OpDef("zeros", 0, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", "float32")),
               relation=_init_type, kernel=_init_kernel("zeros", 0), gradient=_zeros_grad))


def _ones_grad(orig: Call, g: Expr) -> list[Expr]:
    return []


register(OpDef("ones", 0, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", "float32")),
               relation=_init_type, kernel=_init_kernel("ones", 1), gradient=_ones_grad))


def _full_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    v = R.tensor(args, 0)
    if v.shape:
        raise RelError(f"expected a scalar fill value but found {type_str(v)}", 0)
    return TensorType(R.ints(attrs["shape"], "shape"), attrs["dtype"] or v.dtype)


def _full_kernel(args: list[Any], attrs: Attrs) -> Any:
    v = K.tensor(args[0], "fill value")
    if v.ndim != 0:
        raise OpError(f"fill value must be a scalar, got shape {v.shape}")
    dt = attr(attrs, "full", "dtype")
    return np.full(K.ints(attr(attrs, "full", "shape")), v, dtype=K.np_dtype(dt) if dt else v.dtype)


register(OpDef("full", 1, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", "")),
               relation=_full_type, kernel=_full_kernel))


def _full_like_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """FullLikeRel: data's type; the fill value must be a scalar."""
    x, v = R.tensor(args, 0), R.tensor(args, 1)
    if v.shape:
        raise RelError(f"expected a scalar fill value but found {type_str(v)}", 1)
    return x


def _full_like_kernel(args: list[Any], attrs: Attrs) -> Any:
    x, v = K.tensor(args[0], "data"), K.tensor(args[1], "fill value")
    if v.ndim != 0:
        raise OpError(f"fill value must be a scalar, got shape {v.shape}")
    return np.full(x.shape, v, dtype=x.dtype)


register(OpDef("full_like", 2, relation=_full_like_type, kernel=_full_like_kernel))

# ------------------------------------------------------------------------ collapse_sum_to


def _collapse_sum_to_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """CollapseSumToRel: the `shape` attr (MakeCollapseSumTo copies a constant shape argument
    into it) or `?` dims, one per element of the shape tensor; data must broadcast to it."""
    x, shape_t = R.tensor(args, 0), R.tensor(args, 1)
    if len(shape_t.shape) != 1 or shape_t.shape[0] is None:
        raise RelError(f"the shape must be a 1-D tensor of static length, not "
                       f"{type_str(shape_t)}", 1)
    shp = attrs["shape"]
    out: Shape = (R.ints(shp, "shape") if shp is not None
                  else (None,) * shape_t.shape[0])  # type: ignore[operator]
    if R.broadcast_shapes(x.shape, out) is None or len(out) > len(x.shape):
        raise RelError(f"cannot collapse {type_str(x)} to shape {list(out)}", 0)
    return TensorType(out, x.dtype)


def _collapse_sum_to_kernel(args: list[Any], attrs: Attrs) -> Any:
    x, shape = K.tensor(args[0], "data"), K.tensor(args[1], "shape")
    return _collapse_to(x, tuple(int(d) for d in shape.reshape(-1)))


def _collapse_sum_to_grad(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    return [op("broadcast_to_like", g, x), zeros_like(y)]


register(OpDef("collapse_sum_to", 2, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", "")),
               relation=_collapse_sum_to_type, kernel=_collapse_sum_to_kernel,
               gradient=_collapse_sum_to_grad))

# ----------------------------------------------------------------------- tile, repeat, reverse


def _tile_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """TileRel: the shorter of data shape and reps is padded with leading 1s, then multiplied."""
    x = R.tensor(args, 0)
    if attrs["reps"] is None:
        raise RelError(f"repetition array is not defined, data.ndim = {len(x.shape)}")
    reps = R.ints(attrs["reps"], "reps")
    if any(r <= 0 for r in reps):
        raise RelError(f"tile reps must be positive, not {list(reps)}")
    n = max(len(x.shape), len(reps))
    dims = (1,) * (n - len(x.shape)) + tuple(x.shape)
    reps = (1,) * (n - len(reps)) + reps
    return TensorType(tuple(None if d is None else d * r for d, r in zip(dims, reps,
                                                                         strict=True)), x.dtype)


def _tile_kernel(args: list[Any], attrs: Attrs) -> Any:
    reps = K.ints(attr(attrs, "tile", "reps"))
    if any(r <= 0 for r in reps):
        raise OpError(f"tile reps must be positive, not {list(reps)}")
    return np.tile(K.tensor(args[0]), reps)  # topi::tile: numpy's semantics


register(OpDef("tile", 1, "relay.attrs.TileAttrs", (F("reps"),),
               relation=_tile_type, kernel=_tile_kernel))


def _repeat_axis(axis: Any, rank: int, t: TensorType | None) -> int:
    """RepeatRel's axis check ([-ndim - 1, ndim] is accepted by v0.19, but only the axes of the
    tensor index it: the two extra values would read past the shape, so they are errors)."""
    a = R.integer(axis, "axis")
    if not -rank <= a < rank:
        raise RelError(f"repeat axis {a} is out of range for rank {rank}", 0)
    return a + rank if a < 0 else a


def _repeat_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    reps = R.integer(attrs["repeats"], "repeats")
    if reps < 1:
        raise RelError(f"repeat only accepts repeats >= 1, but got repeats = {reps}")
    if attrs["axis"] is None:
        raise RelError("attribute axis is required by repeat")
    ax = _repeat_axis(attrs["axis"], len(x.shape), x)
    shape = list(x.shape)
    shape[ax] = None if shape[ax] is None else shape[ax] * reps
    return TensorType(tuple(shape), x.dtype)


def _repeat_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    reps = int(attr(attrs, "repeat", "repeats"))
    if reps < 1:
        raise OpError(f"repeats must be >= 1, not {reps}")
    return np.repeat(x, reps, axis=K.axis(int(attr(attrs, "repeat", "axis")), x.ndim))


register(OpDef("repeat", 1, "relay.attrs.RepeatAttrs", (F("repeats"), F("axis", None)),
               relation=_repeat_type, kernel=_repeat_kernel))


def _reverse_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    if attrs["axis"] is None:
        raise RelError("attribute axis is required by reverse")
    R.axis(attrs["axis"], len(x.shape), x)
    return x


def _reverse_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    return np.flip(x, axis=K.axis(int(attr(attrs, "reverse", "axis")), x.ndim)).copy()


register(OpDef("reverse", 1, "relay.attrs.ReverseAttrs", (F("axis", None),),
               relation=_reverse_type, kernel=_reverse_kernel))

# ---------------------------------------------------------------------------- layout_transform


def parse_layout(layout: str) -> list[tuple[str, int | None]]:
    """`NCHW16c` -> [(N, None), (C, None), (H, None), (W, None), (c, 16)] (tir::Layout).

    A primal axis is an upper-case letter; a sub-axis is a factor and its lower-case letter,
    and needs its primal axis in the same layout.
    """
    out: list[tuple[str, int | None]] = []
    i = 0
    while i < len(layout):
        j = i
        while j < len(layout) and layout[j].isdigit():
            j += 1
        if j >= len(layout) or not layout[j].isalpha():
            raise RelError(f"invalid layout {layout!r}")
        ch = layout[j]
        if j > i:
            if not ch.islower():
                raise RelError(f"invalid layout {layout!r}: a factor must precede a lower-case "
                               "sub-axis")
            out.append((ch, int(layout[i:j])))
        elif ch.islower():
            raise RelError(f"invalid layout {layout!r}: sub-axis {ch} needs a factor")
        else:
            out.append((ch, None))
        i = j + 1
    letters = [c for c, _ in out]
    if len(set(letters)) != len(letters):
        raise RelError(f"invalid layout {layout!r}: an axis appears twice")
    for c, f in out:
        if f is not None and c.upper() not in letters:
            raise RelError(f"invalid layout {layout!r}: sub-axis {c} without primal axis "
                           f"{c.upper()}")
    return out


def _layouts(attrs: Any) -> tuple[list[tuple[str, int | None]], list[tuple[str, int | None]]]:
    src, dst = attrs["src_layout"], attrs["dst_layout"]
    if not isinstance(src, str) or not isinstance(dst, str) or not src or not dst:
        raise RelError("cannot convert from/to undefined layout")
    s, d = parse_layout(src), parse_layout(dst)
    if sorted(c for c, f in s if f is None) != sorted(c for c, f in d if f is None):
        raise RelError(f"cannot convert from {src} to {dst}")
    return s, d


def _primal_sizes(layout: list[tuple[str, int | None]], shape: Sequence[Dim]) -> dict[str, Dim]:
    """The full extent of every primal axis (a split axis times its sub-axis' factor)."""
    sizes: dict[str, Dim] = {c: d for (c, f), d in zip(layout, shape, strict=True) if f is None}
    for (c, f), d in zip(layout, shape, strict=True):
        if f is not None:
            if d is not None and d != f:
                raise RelError(f"sub-axis {f}{c} has extent {d}")
            p = sizes[c.upper()]
            sizes[c.upper()] = None if p is None else p * f
    return sizes


def _forward_shape(src: list[tuple[str, int | None]], dst: list[tuple[str, int | None]],
                   shape: Sequence[Dim]) -> Shape:
    """BijectiveLayout::ForwardShape, for factors that divide their axes."""
    sizes = _primal_sizes(src, shape)
    factor = {c.upper(): f for c, f in dst if f is not None}
    out: list[Dim] = []
    for c, f in dst:
        if f is not None:
            out.append(f)
            continue
        size, k = sizes[c], factor.get(c)
        if size is not None and k is not None and size % k:
            raise RelError(f"axis {c} of extent {size} is not divisible by the factor {k}")
        out.append(size if size is None or k is None else size // k)
    return tuple(out)


def _layout_transform_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    src, dst = _layouts(attrs)
    if len(src) != len(x.shape):
        raise RelError(f"layout {attrs['src_layout']} has {len(src)} axes but the data is "
                       f"{type_str(x)}", 0)
    return TensorType(_forward_shape(src, dst, x.shape), x.dtype)


def _layout_transform_kernel(args: list[Any], attrs: Attrs) -> Any:
    """Merge every sub-axis into its primal axis, reorder, and split by the target's factors.

    topi::layout_transform reads data[src index] for each target index, which is this
    permutation when the factors divide their axes (the relation requires it).
    """
    x = K.tensor(args[0])
    fields = {k: attr(attrs, "layout_transform", k) for k in ("src_layout", "dst_layout")}
    try:
        src, dst = _layouts(fields)
        if len(src) != x.ndim:
            raise RelError(f"layout {fields['src_layout']} does not match rank {x.ndim}")
        out_shape = _forward_shape(src, dst, x.shape)
    except RelError as err:
        raise OpError(err.message) from None
    # to primal axes in src's primal order, each sub-axis right after its primal axis
    primal = [c for c, f in src if f is None]
    order = []
    for c in primal:
        order.append(next(i for i, (a, f) in enumerate(src) if a == c and f is None))
        sub = [i for i, (a, f) in enumerate(src) if f is not None and a.upper() == c]
        order.extend(sub)
    y = np.transpose(x, order)
    sizes = _primal_sizes(src, x.shape)
    y = y.reshape([sizes[c] for c in primal])
    # to dst: split each primal axis by dst's factor, then order as dst
    factor = {a.upper(): f for a, f in dst if f is not None}
    split_shape: list[int] = []
    names: list[tuple[str, bool]] = []
    for c in primal:
        k = factor.get(c)
        size = int(sizes[c])  # type: ignore[arg-type]
        if k is None:
            split_shape.append(size)
            names.append((c, False))
        else:
            split_shape.extend([size // k, k])
            names.extend([(c, False), (c, True)])
    y = y.reshape(split_shape)
    perm = [names.index((a.upper(), f is not None)) for a, f in dst]
    out = np.transpose(y, perm)
    assert out.shape == out_shape
    return np.ascontiguousarray(out)


register(OpDef("layout_transform", 1, "relay.attrs.LayoutTransformAttrs",
               (F("src_layout"), F("dst_layout")),
               relation=_layout_transform_type, kernel=_layout_transform_kernel))
