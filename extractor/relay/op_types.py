"""Operator type relations as data: op name -> function from argument types and attrs to a type.

A relation sees argument types with every still-unknown part shown as `IncompleteType`. It
returns the result type (or a `Result` that also fixes some argument types, the way TVM's
`reporter->Assign` infers weight shapes), raises `Defer` when an input it needs is not known
yet, and raises `RelError` / `ArgMismatch` for an ill-typed call. Shapes follow TVM v0.19's
relations (`src/relay/op/**`), read from relay-notes §2.1, §5 and §7; `None` is a `?` dim.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any

from . import ops
from .ast import (
    UNIT,
    Attrs,
    FuncType,
    IncompleteType,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
    type_str,
)

Dim = int | None
Shape = tuple[Dim, ...]

def has_incomplete(t: Type) -> bool:
    """Whether any part of t is still unknown."""
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TensorType | TypeVar):
            continue
        if isinstance(u, TupleType):
            stack.extend(u.fields)
        elif isinstance(u, FuncType):
            stack.extend(u.arg_types)
            stack.append(u.ret_type)
        elif isinstance(u, RefType):
            stack.append(u.value)
        elif isinstance(u, TypeCall):
            stack.extend(u.args)
        else:
            return True
    return False


# ------------------------------------------------------------------------------ the protocol


class Defer(Exception):
    """An input type the relation needs is not known yet; the solver retries later."""


class RelError(Exception):
    """An ill-typed call; `arg` is the 0-based argument the message is about, if one."""

    def __init__(self, message: str, arg: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.arg = arg


class ArgMismatch(RelError):
    """Argument `arg` should have type `expected` but has `found`."""

    def __init__(self, arg: int, expected: Type, found: Type) -> None:
        super().__init__(f"expected {type_str(expected)} but found {type_str(found)}", arg)
        self.expected = expected
        self.found = found


@dataclass(frozen=True)
class Result:
    """A relation's answer that also determines argument types (unified by the solver)."""

    out: Type
    args: Mapping[int, Type] = field(default_factory=dict)


class OpAttrs:
    """A call's attrs with the operator's declared defaults filled in (NO_DEFAULT reads None)."""

    def __init__(self, attrs: Attrs, opdef: ops.OpDef | None) -> None:
        self.attrs = attrs
        self.opdef = opdef

    def __getitem__(self, key: str) -> Any:
        if key in self.attrs:
            return self.attrs[key]
        f = self.opdef.field(key) if self.opdef is not None else None
        if f is None or f.default is ops.NO_DEFAULT:
            return None
        return f.default


Relation = Callable[[Sequence[Type], OpAttrs], "Type | Result"]

# ----------------------------------------------------------------------------------- helpers


def tensor(args: Sequence[Type], i: int) -> TensorType:
    """Argument i as a tensor type; Defer while unknown, error if it is something else."""
    t = args[i]
    if isinstance(t, TensorType):
        return t
    if isinstance(t, IncompleteType):
        raise Defer
    raise RelError(f"expected a tensor but found {type_str(t)}", i)


def tensor_fields(args: Sequence[Type], i: int) -> list[TensorType]:
    """Argument i as a tuple of tensors (concatenate, stack)."""
    t = args[i]
    if isinstance(t, IncompleteType):
        raise Defer
    if not isinstance(t, TupleType):
        raise RelError(f"expected a tuple of tensors but found {type_str(t)}", i)
    out = []
    for f in t.fields:
        if isinstance(f, IncompleteType):
            raise Defer
        if not isinstance(f, TensorType):
            raise RelError(f"expected a tuple of tensors but found {type_str(t)}", i)
        out.append(f)
    if not out:
        raise RelError("expected a non-empty tuple of tensors but found ()", i)
    return out


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RelError(f"attribute {what} must be an integer, not {v!r}")
    return v


def _ints(v: Any, what: str) -> tuple[int, ...]:
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, tuple | list):
        return tuple(_int(x, what) for x in v)
    raise RelError(f"attribute {what} must be an integer or a list of integers, not {v!r}")


def _pair(v: Any, what: str) -> tuple[int, int]:
    xs = _ints(v, what)
    if len(xs) == 1:
        return xs[0], xs[0]
    if len(xs) != 2:
        raise RelError(f"attribute {what} must have 1 or 2 elements, not {len(xs)}")
    return xs[0], xs[1]


def _pad4(v: Any) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from TVM's 1-, 2- or 4-element padding."""
    xs = _ints(v, "padding")
    if len(xs) == 1:
        return xs[0], xs[0], xs[0], xs[0]
    if len(xs) == 2:
        return xs[0], xs[1], xs[0], xs[1]
    if len(xs) == 4:
        return xs[0], xs[1], xs[2], xs[3]
    raise RelError(f"attribute padding must have 1, 2 or 4 elements, not {len(xs)}")


def _triple(v: Any, what: str) -> tuple[int, int, int]:
    xs = _ints(v, what)
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    if len(xs) != 3:
        raise RelError(f"attribute {what} must have 1 or 3 elements, not {len(xs)}")
    return xs[0], xs[1], xs[2]


def _pad6(v: Any) -> tuple[int, int, int, int, int, int]:
    """(front, top, left, back, bottom, right) from TVM's 1-, 3- or 6-element padding."""
    xs = _ints(v, "padding")
    if len(xs) == 1:
        return (xs[0],) * 6  # type: ignore[return-value]
    if len(xs) == 3:
        return xs[0], xs[1], xs[2], xs[0], xs[1], xs[2]
    if len(xs) == 6:
        return xs[0], xs[1], xs[2], xs[3], xs[4], xs[5]
    raise RelError(f"attribute padding must have 1, 3 or 6 elements, not {len(xs)}")


def _axis(axis: Any, rank: int, t: TensorType, arg: int = 0, extra: int = 0) -> int:
    """Normalise a possibly negative axis into [0, rank + extra)."""
    a = _int(axis, "axis")
    n = rank + extra
    if not -n <= a < n:
        raise RelError(f"axis {a} is out of range for {type_str(t)}", arg)
    return a + n if a < 0 else a


def _dim_eq(a: Dim, b: Dim) -> bool:
    return a is None or b is None or a == b


def _shape_eq(a: Shape, b: Shape) -> bool:
    return len(a) == len(b) and all(_dim_eq(x, y) for x, y in zip(a, b, strict=False))


def _add(*ds: Dim) -> Dim:
    return None if any(d is None for d in ds) else sum(d for d in ds if d is not None)


def _numel(shape: Shape) -> int | None:
    return None if any(d is None for d in shape) else prod(d for d in shape if d is not None)


def broadcast_shapes(a: Shape, b: Shape) -> Shape | None:
    """Numpy broadcasting; `?` against d gives d (against `?` or 1, `?`); None if invalid."""
    out: list[Dim] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        else:
            return None
    return tuple(reversed(out))


def _layout(v: Any, letters: str, what: str) -> str:
    if not isinstance(v, str) or sorted(v) != sorted(letters):
        raise RelError(f"unsupported {what} {v!r} (a permutation of {letters} is expected)")
    return v


# --------------------------------------------------------------------------------- relations


def _identity(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return tensor(args, 0)


def _broadcast(out_dtype: str | None = None) -> Relation:
    def rel(args: Sequence[Type], attrs: OpAttrs) -> Type:
        x, y = tensor(args, 0), tensor(args, 1)
        if x.dtype != y.dtype:
            raise ArgMismatch(1, TensorType(y.shape, x.dtype), y)
        shape = broadcast_shapes(x.shape, y.shape)
        if shape is None:
            raise RelError(f"cannot broadcast {type_str(x)} with {type_str(y)}")
        return TensorType(shape, out_dtype or x.dtype)

    return rel


def _batch_flatten(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    if not x.shape:
        raise RelError(f"expected a tensor of rank >= 1 but found {type_str(x)}", 0)
    return TensorType((x.shape[0], _numel(x.shape[1:])), x.dtype)


def _softmax(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    _axis(attrs["axis"], len(x.shape), x)
    return x


def _cross_entropy(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, y = tensor(args, 0), tensor(args, 1)
    if len(x.shape) != 2:
        raise RelError(f"expected a 2-D tensor but found {type_str(x)}", 0)
    if len(y.shape) != 2 or not _shape_eq(x.shape, y.shape) or x.dtype != y.dtype:
        raise ArgMismatch(1, x, y)
    return TensorType((), x.dtype)


def _dense(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """data (..., K) x weight (units, K) -> (..., units); weight inferred from units if unknown."""
    x = tensor(args, 0)
    if not x.shape:
        raise RelError(f"expected a tensor of rank >= 1 but found {type_str(x)}", 0)
    k = x.shape[-1]
    units = attrs["units"]
    out_dtype = attrs["out_dtype"] or x.dtype
    if isinstance(args[1], IncompleteType):
        if units is None:
            raise Defer
        w = TensorType((_int(units, "units"), k), x.dtype)
        return Result(TensorType((*x.shape[:-1], w.shape[0]), out_dtype), {1: w})
    w = tensor(args, 1)
    n = w.shape[0] if len(w.shape) == 2 else None
    if units is not None:
        n = _int(units, "units")
    if len(w.shape) != 2 or not _dim_eq(w.shape[0], n) or not _dim_eq(w.shape[1], k):
        raise ArgMismatch(1, TensorType((n, k), w.dtype), w)
    units_dim = n if n is not None else w.shape[0]
    return TensorType((*x.shape[:-1], units_dim), out_dtype)


def _matmul(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """nn.matmul: a (..., K) [or (..., K, M) transposed] x b (K, N) [or (N, K) transposed]."""
    a, b = tensor(args, 0), tensor(args, 1)
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
    if units is not None and not _dim_eq(n, _int(units, "units")) or not _dim_eq(k, kb):
        want_n = n if units is None else units
        expected = (want_n, k) if tb else (k, want_n)
        raise ArgMismatch(1, TensorType(expected, b.dtype), b)
    if n is None and units is not None:
        n = units
    return TensorType((*lead, n), attrs["out_dtype"] or a.dtype)


def _batch_matmul(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """x (B, M, K) x y (B, N, K) (transpose_b, the default) -> (B, M, N); B broadcasts from 1."""
    x, y = tensor(args, 0), tensor(args, 1)
    for i, t in ((0, x), (1, y)):
        if len(t.shape) != 3:
            raise RelError(f"expected a 3-D tensor but found {type_str(t)}", i)
    ta, tb = bool(attrs["transpose_a"]), bool(attrs["transpose_b"])
    m, k = (x.shape[2], x.shape[1]) if ta else (x.shape[1], x.shape[2])
    n, ky = (y.shape[1], y.shape[2]) if tb else (y.shape[2], y.shape[1])
    batch = broadcast_shapes(x.shape[:1], y.shape[:1])
    if batch is None or not _dim_eq(k, ky):
        expected = (x.shape[0], n, k) if tb else (x.shape[0], k, n)
        raise ArgMismatch(1, TensorType(expected, y.dtype), y)
    return TensorType((batch[0], m, n), attrs["out_dtype"] or x.dtype)


def _bias_add(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    x = tensor(args, 0)
    ax = _axis(attrs["axis"], len(x.shape), x)
    want = TensorType((x.shape[ax],), x.dtype)
    if isinstance(args[1], IncompleteType):
        return Result(x, {1: want})
    b = tensor(args, 1)
    if len(b.shape) != 1 or not _dim_eq(b.shape[0], x.shape[ax]) or b.dtype != x.dtype:
        raise ArgMismatch(1, want, b)
    return x


def _reduce_axes(x: TensorType, attrs: OpAttrs) -> list[int]:
    rank = len(x.shape)
    axis = attrs["axis"]
    if axis is None:
        return list(range(rank))
    axes = [_axis(a, rank, x) for a in _ints(axis, "axis")]
    if len(set(axes)) != len(axes):
        raise RelError(f"duplicate axes {list(_ints(axis, 'axis'))} for {type_str(x)}", 0)
    if attrs["exclude"]:
        axes = [i for i in range(rank) if i not in axes]
    return sorted(axes)


def _reduce(out_dtype: str | None = None) -> Relation:
    def rel(args: Sequence[Type], attrs: OpAttrs) -> Type:
        x = tensor(args, 0)
        axes = set(_reduce_axes(x, attrs))
        keep = bool(attrs["keepdims"])
        shape: list[Dim] = []
        for i, d in enumerate(x.shape):
            if i not in axes:
                shape.append(d)
            elif keep:
                shape.append(1)
        return TensorType(tuple(shape), out_dtype or x.dtype)

    return rel


def _variance(args: Sequence[Type], attrs: OpAttrs) -> Type:
    tensor(args, 1)
    return _reduce()(args, attrs)  # type: ignore[return-value]


def _transpose(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    rank = len(x.shape)
    axes = attrs["axes"]
    if axes is None:
        perm = list(reversed(range(rank)))
    else:
        perm = [_axis(a, rank, x) for a in _ints(axes, "axes")]
        if sorted(perm) != list(range(rank)):
            raise RelError(f"axes {list(_ints(axes, 'axes'))} is not a permutation of the "
                           f"axes of {type_str(x)}", 0)
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


def _shape_of(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    return TensorType((len(x.shape),), attrs["dtype"] or "int32")


def _is_int_dtype(dtype: str) -> bool:
    return dtype.startswith("int") or dtype.startswith("uint")


def _take(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """Gather along `axis` (None: of the flattened data); a scalar index drops the axis."""
    x, idx = tensor(args, 0), tensor(args, 1)
    if not _is_int_dtype(idx.dtype):
        raise ArgMismatch(1, TensorType(idx.shape, "int32"), idx)
    axis = attrs["axis"]
    if axis is None:
        return TensorType(idx.shape, x.dtype)
    ax = _axis(axis, len(x.shape), x)
    bd = _int(attrs["batch_dims"] or 0, "batch_dims")
    if bd < 0:
        bd += len(idx.shape)
    if not 0 <= bd <= min(ax, len(idx.shape)):
        raise RelError(f"batch_dims {attrs['batch_dims']} is out of range for {type_str(idx)}", 1)
    return TensorType((*x.shape[:ax], *idx.shape[bd:], *x.shape[ax + 1:]), x.dtype)


def _dtype_attr(attrs: OpAttrs, key: str = "dtype") -> str:
    d = attrs[key]
    if not isinstance(d, str) or not d:
        raise RelError(f"attribute {key} must be a dtype string, not {d!r}")
    return d


def _cast(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    return TensorType(x.shape, _dtype_attr(attrs))


def _cast_like(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, y = tensor(args, 0), tensor(args, 1)
    return TensorType(x.shape, y.dtype)


def _expand_dims(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    n = _int(attrs["num_newaxis"], "num_newaxis")
    if n < 0:
        raise RelError(f"num_newaxis must be >= 0, not {n}")
    ax = _axis(attrs["axis"], len(x.shape), x, extra=1)
    return TensorType((*x.shape[:ax], *(1,) * n, *x.shape[ax:]), x.dtype)


def _squeeze(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    axis = attrs["axis"]
    if axis is None:
        return TensorType(tuple(d for d in x.shape if d != 1), x.dtype)
    axes = {_axis(a, len(x.shape), x) for a in _ints(axis, "axis")}
    for a in sorted(axes):
        if not _dim_eq(x.shape[a], 1):
            raise RelError(f"cannot squeeze axis {a} of size {x.shape[a]} in {type_str(x)}", 0)
    return TensorType(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)


def reshape_shape(ishape: Shape, newshape: Sequence[int], allowzero: bool, t: Type) -> Shape:
    """TVM's reshape: 0 copies a dim, -1 infers one, -2 copies the rest, -3 merges, -4 splits."""
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
            if a == -1 and d is not None and b > 0:
                a = d // b
            if b == -1 and d is not None and a > 0:
                b = d // a
            out.extend([a if a > 0 else None, b if b > 0 else None])
            src += 1
            i += 2
        else:
            raise RelError(f"invalid value {s} in newshape {list(newshape)}")
        i += 1
    total = _numel(ishape)
    if infer_at >= 0:
        rest = _numel(tuple(d for j, d in enumerate(out) if j != infer_at))
        if total is not None and rest is not None:
            if rest == 0 or total % rest:
                raise RelError(f"cannot reshape {type_str(t)} to {list(newshape)}", 0)
            out[infer_at] = total // rest
    n_out = _numel(tuple(out))
    if total is not None and n_out is not None and total != n_out:
        raise RelError(f"cannot reshape {type_str(t)} ({total} elements) to "
                       f"{list(newshape)} ({n_out} elements)", 0)
    return tuple(out)


def _reshape(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    newshape = _ints(attrs["newshape"], "newshape")
    return TensorType(reshape_shape(x.shape, newshape, bool(attrs["allowzero"]), x), x.dtype)


def _reshape_like(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, like = tensor(args, 0), tensor(args, 1)
    a, b = _numel(x.shape), _numel(like.shape)
    if a is not None and b is not None and a != b:
        raise RelError(f"cannot reshape {type_str(x)} like {type_str(like)}", 1)
    return TensorType(like.shape, x.dtype)


def _check_broadcast_to(x: TensorType, shape: Shape, arg: int, like: Type) -> None:
    if broadcast_shapes(x.shape, shape) is None or len(x.shape) > len(shape):
        raise RelError(f"cannot broadcast {type_str(x)} to {type_str(like)}", arg)


def _broadcast_to(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    shape = _ints(attrs["shape"], "shape")
    out = TensorType(shape, attrs["dtype"] or x.dtype)
    _check_broadcast_to(x, shape, 0, out)
    return out


def _broadcast_to_like(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, like = tensor(args, 0), tensor(args, 1)
    _check_broadcast_to(x, like.shape, 1, like)
    return TensorType(like.shape, x.dtype)


def _collapse_sum_like(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x, like = tensor(args, 0), tensor(args, 1)
    if broadcast_shapes(x.shape, like.shape) is None or len(like.shape) > len(x.shape):
        raise RelError(f"cannot collapse {type_str(x)} to {type_str(like)}", 1)
    return like


def _init(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return TensorType(_ints(attrs["shape"], "shape"), _dtype_attr(attrs))


def _full(args: Sequence[Type], attrs: OpAttrs) -> Type:
    v = tensor(args, 0)
    if v.shape:
        raise RelError(f"expected a scalar fill value but found {type_str(v)}", 0)
    return TensorType(_ints(attrs["shape"], "shape"), attrs["dtype"] or v.dtype)


def _where(args: Sequence[Type], attrs: OpAttrs) -> Type:
    c, x, y = tensor(args, 0), tensor(args, 1), tensor(args, 2)
    if x.dtype != y.dtype:
        raise ArgMismatch(2, TensorType(y.shape, x.dtype), y)
    shape = broadcast_shapes(x.shape, y.shape)
    shape = None if shape is None else broadcast_shapes(c.shape, shape)
    if shape is None:
        raise RelError(f"cannot broadcast {type_str(c)}, {type_str(x)} and {type_str(y)}")
    return TensorType(shape, x.dtype)


def _concatenate(args: Sequence[Type], attrs: OpAttrs) -> Type:
    fs = tensor_fields(args, 0)
    f0 = fs[0]
    ax = _axis(attrs["axis"], len(f0.shape), f0)
    total: Dim = 0
    for j, f in enumerate(fs):
        same = len(f.shape) == len(f0.shape) and f.dtype == f0.dtype and all(
            _dim_eq(a, b) for i, (a, b) in enumerate(zip(f.shape, f0.shape, strict=True))
            if i != ax)
        if not same:
            raise RelError(f"field {j} has type {type_str(f)}, which cannot be concatenated with "
                           f"{type_str(f0)} on axis {ax}", 0)
        total = _add(total, f.shape[ax])
    shape = list(f0.shape)
    shape[ax] = total
    for i in range(len(shape)):
        if i != ax and shape[i] is None:
            shape[i] = next((f.shape[i] for f in fs if f.shape[i] is not None), None)
    return TensorType(tuple(shape), f0.dtype)


def _stack(args: Sequence[Type], attrs: OpAttrs) -> Type:
    fs = tensor_fields(args, 0)
    f0 = fs[0]
    for j, f in enumerate(fs):
        if not _shape_eq(f.shape, f0.shape) or f.dtype != f0.dtype:
            raise RelError(f"field {j} has type {type_str(f)}, which cannot be stacked with "
                           f"{type_str(f0)}", 0)
    ax = _axis(attrs["axis"], len(f0.shape), f0, extra=1)
    return TensorType((*f0.shape[:ax], len(fs), *f0.shape[ax:]), f0.dtype)


def _split(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    ax = _axis(attrs["axis"], len(x.shape), x)
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
        idx = _ints(ios, "indices_or_sections")
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


def _strided_slice(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    rank = len(x.shape)
    begin = _ints(attrs["begin"], "begin")
    end = _ints(attrs["end"], "end") if attrs["end"] is not None else ()
    strides = _ints(attrs["strides"], "strides") if attrs["strides"] is not None else ()
    axes_v = attrs["axes"]
    axes = ([_axis(a, rank, x) for a in _ints(axes_v, "axes")] if axes_v is not None
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


def _one_hot(args: Sequence[Type], attrs: OpAttrs) -> Type:
    idx = tensor(args, 0)
    depth = _int(attrs["depth"], "depth")
    axis = _int(attrs["axis"], "axis")
    rank = len(idx.shape)
    ax = rank if axis == -1 else _axis(axis, rank, idx, extra=1)
    return TensorType((*idx.shape[:ax], depth, *idx.shape[ax:]), _dtype_attr(attrs))


def _conv_out(size: Dim, k: Dim, stride: int, dil: int, pad: int, ceil: bool = False) -> Dim:
    if size is None or k is None:
        return None
    if stride <= 0 or dil <= 0:
        raise RelError("strides and dilation must be positive")
    dk = (k - 1) * dil + 1
    span = size + pad - dk
    if span < 0:
        raise RelError(f"window of size {dk} does not fit an input of size {size} (padding {pad})")
    return (span + (stride - 1 if ceil else 0)) // stride + 1


def _conv2d(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    x = tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    dl = _layout(attrs["data_layout"], "NCHW", "data_layout")
    kl = _layout(attrs["kernel_layout"], "OIHW", "kernel_layout")
    ol = _layout(attrs["out_layout"] or dl, "NCHW", "out_layout")
    n, c, h, w = (x.shape[dl.index(ch)] for ch in "NCHW")
    sh, sw = _pair(attrs["strides"], "strides")
    dh, dw = _pair(attrs["dilation"], "dilation")
    pt, pl, pb, pr = _pad4(attrs["padding"])
    groups = _int(attrs["groups"], "groups")
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    ks = _pair(ksize, "kernel_size") if ksize is not None else None
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
    in_per_group = None if c is None else c // groups
    assign: dict[int, Type] = {}
    if isinstance(args[1], IncompleteType):
        if channels is None or ks is None:
            raise Defer
        dims = {"O": _int(channels, "channels"), "I": in_per_group, "H": ks[0], "W": ks[1]}
        wt = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        assign[1] = wt
    else:
        wt = tensor(args, 1)
        if len(wt.shape) != 4:
            raise RelError(f"expected a 4-D tensor but found {type_str(wt)}", 1)
    o, i_, kh, kw = (wt.shape[kl.index(ch)] for ch in "OIHW")
    want = {"O": o if channels is None else channels, "I": in_per_group,
            "H": kh if ks is None else ks[0], "W": kw if ks is None else ks[1]}
    if c is not None and c % groups or not all(
            _dim_eq(wt.shape[kl.index(ch)], want[ch]) for ch in "OIHW"):
        raise ArgMismatch(1, TensorType(tuple(want[ch] for ch in kl), wt.dtype), wt)
    oc = o if o is not None else (None if channels is None else channels)
    oh = _conv_out(h, kh, sh, dh, pt + pb)
    ow = _conv_out(w, kw, sw, dw, pl + pr)
    dims = {"N": n, "C": oc, "H": oh, "W": ow}
    out = TensorType(tuple(dims[ch] for ch in ol), attrs["out_dtype"] or x.dtype)
    return Result(out, assign) if assign else out


def _conv3d(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """Conv3DRel: data NCDHW-like, weight (O, C/groups, KD, KH, KW) in OIDHW-like layout."""
    x = tensor(args, 0)
    if len(x.shape) != 5:
        raise RelError(f"expected a 5-D tensor but found {type_str(x)}", 0)
    dl = _layout(attrs["data_layout"], "NCDHW", "data_layout")
    kl = _layout(attrs["kernel_layout"], "OIDHW", "kernel_layout")
    ol = _layout(attrs["out_layout"] or dl, "NCDHW", "out_layout")
    n, c, d, h, w = (x.shape[dl.index(ch)] for ch in "NCDHW")
    strides = _triple(attrs["strides"], "strides")
    dils = _triple(attrs["dilation"], "dilation")
    pf, pt, pl, pk, pb, pr = _pad6(attrs["padding"])
    groups = _int(attrs["groups"], "groups")
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    ks = _triple(ksize, "kernel_size") if ksize is not None else None
    in_per_group = None if c is None else c // groups
    assign: dict[int, Type] = {}
    if isinstance(args[1], IncompleteType):
        if channels is None or ks is None:
            raise Defer
        dims = {"O": _int(channels, "channels"), "I": in_per_group,
                "D": ks[0], "H": ks[1], "W": ks[2]}
        wt = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        assign[1] = wt
    else:
        wt = tensor(args, 1)
        if len(wt.shape) != 5:
            raise RelError(f"expected a 5-D tensor but found {type_str(wt)}", 1)
    o, kd, kh, kw = (wt.shape[kl.index(ch)] for ch in "ODHW")
    want = {"O": o if channels is None else channels, "I": in_per_group,
            "D": kd if ks is None else ks[0], "H": kh if ks is None else ks[1],
            "W": kw if ks is None else ks[2]}
    if c is not None and c % groups or not all(
            _dim_eq(wt.shape[kl.index(ch)], want[ch]) for ch in "OIDHW"):
        raise ArgMismatch(1, TensorType(tuple(want[ch] for ch in kl), wt.dtype), wt)
    oc = o if o is not None else (None if channels is None else channels)
    dims = {"N": n, "C": oc,
            "D": _conv_out(d, kd, strides[0], dils[0], pf + pk),
            "H": _conv_out(h, kh, strides[1], dils[1], pt + pb),
            "W": _conv_out(w, kw, strides[2], dils[2], pl + pr)}
    out = TensorType(tuple(dims[ch] for ch in ol), attrs["out_dtype"] or x.dtype)
    return Result(out, assign) if assign else out


def _conv2d_backward_weight(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """Conv2DBackwardWeightRel: (grad, data) -> weight (O = grad channels, C/groups, kernel)."""
    g, x = tensor(args, 0), tensor(args, 1)
    for i, t in ((0, g), (1, x)):
        if len(t.shape) != 4:
            raise RelError(f"expected a 4-D tensor but found {type_str(t)}", i)
    if attrs["kernel_size"] is None:
        raise RelError("attribute kernel_size is required by nn.conv2d_backward_weight")
    # the Conv2DAttrs fields are repurposed: data_layout = grad's, kernel_layout = data's,
    # out_layout = the weight gradient's
    gl = _layout(attrs["data_layout"], "NCHW", "data_layout (the gradient's layout)")
    dl = _layout(attrs["kernel_layout"], "NCHW", "kernel_layout (the data's layout)")
    wl = _layout(attrs["out_layout"], "OIHW", "out_layout (the weight's layout)")
    in_ch, out_ch = x.shape[dl.index("C")], g.shape[gl.index("C")]
    if in_ch is None or out_ch is None:
        raise RelError("nn.conv2d_backward_weight needs static channel dimensions")
    groups = _int(attrs["groups"], "groups")
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
    if in_ch == out_ch == groups:  # depthwise: TVM takes the per-group width from channels
        if attrs["channels"] is None:
            raise RelError("attribute channels is required for a depthwise "
                           "nn.conv2d_backward_weight")
        per_group = _int(attrs["channels"], "channels") // groups
    else:
        per_group = in_ch // groups
    kh, kw = _pair(attrs["kernel_size"], "kernel_size")
    dims = {"O": out_ch, "I": per_group, "H": kh, "W": kw}
    return TensorType(tuple(dims[ch] for ch in wl), attrs["out_dtype"] or g.dtype)


def _conv2d_transpose(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """Weight (I=C_in, O/groups, KH, KW) in IOHW; out = (H-1)*s - pad + dilated k + out_pad."""
    x = tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    dl = _layout(attrs["data_layout"], "NCHW", "data_layout")
    kl = _layout(attrs["kernel_layout"], "IOHW", "kernel_layout")
    ol = _layout(attrs["out_layout"] or dl, "NCHW", "out_layout")
    n, c, h, w = (x.shape[dl.index(ch)] for ch in "NCHW")
    sh, sw = _pair(attrs["strides"], "strides")
    dh, dw = _pair(attrs["dilation"], "dilation")
    pt, pl, pb, pr = _pad4(attrs["padding"])
    oph, opw = _pair(attrs["output_padding"], "output_padding")
    groups = _int(attrs["groups"], "groups")
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    ks = _pair(ksize, "kernel_size") if ksize is not None else None
    assign: dict[int, Type] = {}
    if isinstance(args[1], IncompleteType):
        if channels is None or ks is None:
            raise Defer
        dims = {"I": c, "O": _int(channels, "channels") // groups, "H": ks[0], "W": ks[1]}
        wt = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        assign[1] = wt
    else:
        wt = tensor(args, 1)
        if len(wt.shape) != 4:
            raise RelError(f"expected a 4-D tensor but found {type_str(wt)}", 1)
    i_, o, kh, kw = (wt.shape[kl.index(ch)] for ch in "IOHW")
    want = {"I": c, "O": o if channels is None else _int(channels, "channels") // groups,
            "H": kh if ks is None else ks[0], "W": kw if ks is None else ks[1]}
    if not all(_dim_eq(wt.shape[kl.index(ch)], want[ch]) for ch in "IOHW"):
        raise ArgMismatch(1, TensorType(tuple(want[ch] for ch in kl), wt.dtype), wt)
    oc = None if o is None else o * groups

    def out_size(size: Dim, k: Dim, s: int, d: int, pad: int, op: int) -> Dim:
        if size is None or k is None:
            return None
        return (size - 1) * s - pad + (k - 1) * d + 1 + op

    dims = {"N": n, "C": oc, "H": out_size(h, kh, sh, dh, pt + pb, oph),
            "W": out_size(w, kw, sw, dw, pl + pr, opw)}
    out = TensorType(tuple(dims[ch] for ch in ol), attrs["out_dtype"] or x.dtype)
    return Result(out, assign) if assign else out


def _batch_norm(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """(data, gamma, beta, mean, var) -> (out, new_mean, new_var); the vectors are (C)."""
    x = tensor(args, 0)
    ax = _axis(attrs["axis"], len(x.shape), x)
    vec = TensorType((x.shape[ax],), x.dtype)
    assign: dict[int, Type] = {}
    for i in range(1, 5):
        if isinstance(args[i], IncompleteType):
            assign[i] = vec
            continue
        t = tensor(args, i)
        if len(t.shape) != 1 or not _dim_eq(t.shape[0], vec.shape[0]) or t.dtype != x.dtype:
            raise ArgMismatch(i, vec, t)
    out = TupleType((x, vec, vec))
    return Result(out, assign) if assign else out


def _pool2d(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    lay = _layout(attrs["layout"], "NCHW", "layout")
    ol = _layout(attrs["out_layout"] or lay, "NCHW", "out_layout")
    if attrs["pool_size"] is None:
        raise RelError("attribute pool_size is required")
    kh, kw = _pair(attrs["pool_size"], "pool_size")
    sh, sw = _pair(attrs["strides"], "strides")
    dh, dw = _pair(attrs["dilation"], "dilation")
    pt, pl, pb, pr = _pad4(attrs["padding"])
    ceil = bool(attrs["ceil_mode"])
    dims = {ch: x.shape[lay.index(ch)] for ch in "NCHW"}
    dims["H"] = _conv_out(dims["H"], kh, sh, dh, pt + pb, ceil)
    dims["W"] = _conv_out(dims["W"], kw, sw, dw, pl + pr, ceil)
    return TensorType(tuple(dims[ch] for ch in ol), x.dtype)


def _global_pool2d(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    lay = _layout(attrs["layout"], "NCHW", "layout")
    ol = _layout(attrs["out_layout"] or lay, "NCHW", "out_layout")
    dims = {ch: x.shape[lay.index(ch)] for ch in "NCHW"}
    dims["H"] = dims["W"] = 1
    return TensorType(tuple(dims[ch] for ch in ol), x.dtype)


def _pool2d_grad(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """Pool2DGradRel: the data gradient has the data's type (out_grad is not checked)."""
    return tensor(args, 1)


def _adaptive_pool3d(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """AdaptivePool3DRel: D, H, W become output_size (empty: unchanged); out_layout unused."""
    x = tensor(args, 0)
    if len(x.shape) != 5:
        raise RelError(f"expected a 5-D tensor but found {type_str(x)}", 0)
    lay = _layout(attrs["layout"], "NCDHW", "layout")
    size = _ints(attrs["output_size"] or (), "output_size")
    if len(size) == 1:
        size = size * 3
    elif len(size) not in (0, 3):
        raise RelError(f"attribute output_size must have 0, 1 or 3 elements, not {len(size)}")
    shape = list(x.shape)
    for ch, v in zip("DHW", size, strict=False):
        shape[lay.index(ch)] = v
    return TensorType(tuple(shape), x.dtype)


def _dropout(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = tensor(args, 0)
    return TupleType((x, x))


def _checkpoint(args: Sequence[Type], attrs: OpAttrs) -> Type:
    if has_incomplete(args[0]):
        raise Defer
    return args[0]


def _alloc_storage(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return TypeCall("Storage", ())


def _alloc_tensor(args: Sequence[Type], attrs: OpAttrs) -> Type:
    dtype = _dtype_attr(attrs)
    for key in ("const_shape", "assert_shape"):
        if attrs[key] is not None:
            return TensorType(_ints(attrs[key], key), dtype)
    shape = tensor(args, 2)
    if len(shape.shape) != 1 or shape.shape[0] is None:
        raise RelError(f"expected a 1-D shape tensor of known length but found "
                       f"{type_str(shape)}", 2)
    return TensorType((None,) * shape.shape[0], dtype)


def _unit(args: Sequence[Type], attrs: OpAttrs) -> Type:
    return UNIT


_ARITH = "add subtract multiply divide power maximum minimum mod floor_divide floor_mod".split()
_COMPARE = "equal not_equal less less_equal greater greater_equal".split()
_ELEMWISE = (
    "negative exp log log2 log10 sqrt rsqrt sin cos tan sinh cosh tanh asin acos atan asinh acosh "
    "atanh sigmoid abs erf floor ceil round sign copy zeros_like ones_like logical_not nn.relu "
    "nn.leaky_relu clip"
).split()

RELATIONS: dict[str, Relation] = {
    **{n: _identity for n in _ELEMWISE},
    **{n: _broadcast() for n in _ARITH},
    **{n: _broadcast("bool") for n in _COMPARE},
    "logical_and": _broadcast(),
    "logical_or": _broadcast(),
    "nn.batch_flatten": _batch_flatten,
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "nn.cross_entropy_with_logits": _cross_entropy,
    "nn.cross_entropy": _cross_entropy,
    "nn.dense": _dense,
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
    "nn.bias_add": _bias_add,
    "sum": _reduce(),
    "max": _reduce(),
    "min": _reduce(),
    "mean": _reduce(),
    "prod": _reduce(),
    "argmax": _reduce("int32"),
    "variance": _variance,
    "transpose": _transpose,
    "shape_of": _shape_of,
    "take": _take,
    "cast": _cast,
    "cast_like": _cast_like,
    "expand_dims": _expand_dims,
    "squeeze": _squeeze,
    "reshape": _reshape,
    "reshape_like": _reshape_like,
    "broadcast_to": _broadcast_to,
    "broadcast_to_like": _broadcast_to_like,
    "collapse_sum_like": _collapse_sum_like,
    "zeros": _init,
    "ones": _init,
    "full": _full,
    "where": _where,
    "concatenate": _concatenate,
    "stack": _stack,
    "split": _split,
    "strided_slice": _strided_slice,
    "one_hot": _one_hot,
    "nn.conv2d": _conv2d,
    "nn.conv2d_transpose": _conv2d_transpose,
    "nn.conv2d_backward_weight": _conv2d_backward_weight,
    "nn.conv3d": _conv3d,
    "nn.batch_norm": _batch_norm,
    "nn.max_pool2d": _pool2d,
    "nn.avg_pool2d": _pool2d,
    "nn.global_avg_pool2d": _global_pool2d,
    "nn.global_max_pool2d": _global_pool2d,
    "nn.max_pool2d_grad": _pool2d_grad,
    "nn.avg_pool2d_grad": _pool2d_grad,
    "nn.adaptive_avg_pool3d": _adaptive_pool3d,
    "nn.dropout": _dropout,
    "annotation.checkpoint": _checkpoint,
    "memory.alloc_storage": _alloc_storage,
    "memory.alloc_tensor": _alloc_tensor,
    "memory.kill": _unit,
    "vm.invoke_tvm_op": _unit,
}


def relation(name: str) -> Relation | None:
    """The type relation of operator `name`, or None when it has none."""
    return RELATIONS.get(name)
