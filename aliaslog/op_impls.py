"""Numpy implementations of Relay operators with TVM v0.19 semantics, as a name -> impl registry.

Each implementation takes the evaluated arguments (tensors, or tuples for `concatenate`/`stack`)
and the call's `Attrs`, and returns a value (a tensor, or a tuple for multi-output ops). Attribute
defaults come from the operator table in `extractor.relay.ops`, so the interpreter, printer and
type checker agree on them. Problems are reported as `OpError`; the interpreter adds the location.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from extractor.relay.ast import Attrs
from extractor.relay.ops import NO_DEFAULT, OPS, OpDef

OpImpl = Callable[[list[Any], Attrs], Any]

OP_IMPLS: dict[str, OpImpl] = {}


class OpError(Exception):
    """An operator was applied to arguments or attributes it does not accept."""


# ------------------------------------------------------------------------------------ helpers

_DTYPES = {"bool": np.bool_, "uint1": np.bool_, "int": np.int32, "float": np.float32}


def np_dtype(dtype: str) -> np.dtype:
    """The numpy dtype of a Relay dtype string (`float32`, `int64`, `bool`, `uint1`, ...)."""
    try:
        return np.dtype(_DTYPES.get(dtype, dtype))
    except TypeError as exc:
        raise OpError(f"unknown dtype {dtype!r}") from exc


# Fields TVM declares without a default whose null value has a meaning (reverse axes, infer units).
NULLABLE_FIELDS = frozenset({"axes", "units"})


def attr(attrs: Mapping[str, Any], opdef: OpDef | str, name: str) -> Any:
    """The attribute `name` as given at the call, else the operator's TVM default."""
    if name in attrs:
        return attrs[name]
    od = OPS[opdef] if isinstance(opdef, str) else opdef
    f = od.field(name)
    if f is None:
        raise OpError(f"{od.name} has no attribute {name!r}")
    if f.default is NO_DEFAULT:
        if name in NULLABLE_FIELDS:
            return None
        raise OpError(f"{od.name} requires the attribute {name!r}")
    return f.default


def register(name: str) -> Callable[[OpImpl], OpImpl]:
    """Decorator: add an implementation to OP_IMPLS under the Relay op name."""

    def deco(fn: OpImpl) -> OpImpl:
        OP_IMPLS[name] = fn
        return fn

    return deco


def _tensor(x: Any, what: str = "argument") -> np.ndarray:
    if not isinstance(x, np.ndarray):
        raise OpError(f"expected a tensor {what}, got {type(x).__name__}")
    return x


def _ints(v: Any) -> tuple[int, ...]:
    """An attribute holding an int or an array of ints, as a tuple."""
    if v is None:
        return ()
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(int(x) for x in v)


def _axis(a: int, ndim: int) -> int:
    if not -ndim <= a < max(ndim, 1):
        raise OpError(f"axis {a} is out of range for a tensor of rank {ndim}")
    return a + ndim if a < 0 else a


def _reduce_axes(x: np.ndarray, attrs: Attrs, opname: str) -> tuple[int, ...]:
    """Reduction axes from `axis` (None = all) and `exclude` (reduce the axes NOT listed)."""
    axis = attr(attrs, opname, "axis")
    exclude = bool(attr(attrs, opname, "exclude"))
    if axis is None or len(_ints(axis)) == 0:
        return tuple(range(x.ndim))  # GetReduceAxes: undefined or empty -> all, exclude ignored
    listed = sorted({_axis(a, x.ndim) for a in _ints(axis)})
    if exclude:
        return tuple(i for i in range(x.ndim) if i not in listed)
    return tuple(listed)


def _out_dtype(attrs: Attrs, opname: str, default: np.dtype) -> np.dtype:
    od = attr(attrs, opname, "out_dtype")
    return np_dtype(od) if od else default


def _same_dtype(x: np.ndarray, like: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(like.dtype, copy=False)


# ------------------------------------------------------------------------ elementwise (unary)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


_UNARY_FUNCS: dict[str, Callable[[np.ndarray], Any]] = {
    "negative": np.negative,
    "exp": np.exp,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "sigmoid": _sigmoid,
    "abs": np.abs,
    "erf": _erf,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": np.round,
    "sign": np.sign,
    "copy": np.copy,
    "zeros_like": np.zeros_like,
    "ones_like": np.ones_like,
    "logical_not": np.logical_not,
    "nn.relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
    "annotation.checkpoint": lambda x: x,
}


def _unary(fn: Callable[[np.ndarray], Any], keep_dtype: bool) -> OpImpl:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = _tensor(args[0])
        with np.errstate(all="ignore"):
            out = fn(x)
        return _same_dtype(out, x) if keep_dtype else np.asarray(out)

    return run


for _name, _fn in _UNARY_FUNCS.items():
    OP_IMPLS[_name] = _unary(_fn, keep_dtype=_name != "logical_not")


# ----------------------------------------------------------------------- elementwise (binary)


def _trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`divide`: true division on floats, C-style truncation toward zero on integers."""
    if np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer):
        if np.any(b == 0):
            raise OpError("integer division by zero")
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -q, q).astype(np.result_type(a, b))
    return np.true_divide(a, b)


def _int_checked(fn: Callable[[np.ndarray, np.ndarray], Any]) -> Callable[..., Any]:
    def run(a: np.ndarray, b: np.ndarray) -> Any:
        if np.issubdtype(b.dtype, np.integer) and np.any(b == 0):
            raise OpError("integer division by zero")
        return fn(a, b)

    return run


_BINARY_FUNCS: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": _trunc_divide,
    "power": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "mod": _int_checked(np.fmod),  # truncated modulo (sign of the dividend), as C's %
    "floor_divide": _int_checked(np.floor_divide),
    "floor_mod": _int_checked(np.mod),
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
}
_COMPARE_FUNCS: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}


def _binary(fn: Callable[[np.ndarray, np.ndarray], Any], compare: bool) -> OpImpl:
    def run(args: list[Any], attrs: Attrs) -> Any:
        a, b = _tensor(args[0], "lhs"), _tensor(args[1], "rhs")
        np.broadcast_shapes(a.shape, b.shape)
        with np.errstate(all="ignore"):
            out = np.asarray(fn(a, b))
        if compare or out.dtype == np.bool_:
            return out
        return out.astype(np.result_type(a.dtype, b.dtype), copy=False)

    return run


for _name, _fn in _BINARY_FUNCS.items():
    OP_IMPLS[_name] = _binary(_fn, compare=False)
for _name, _fn in _COMPARE_FUNCS.items():
    OP_IMPLS[_name] = _binary(_fn, compare=True)


@register("nn.leaky_relu")
def _leaky_relu(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    alpha = attr(attrs, "nn.leaky_relu", "alpha")
    return np.where(x > 0, x, x * alpha).astype(x.dtype)


@register("where")
def _where(args: list[Any], attrs: Attrs) -> Any:
    c, x, y = (_tensor(a) for a in args)
    return np.where(c.astype(bool), x, y).astype(np.result_type(x.dtype, y.dtype))


@register("clip")
def _clip(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    lo, hi = attr(attrs, "clip", "a_min"), attr(attrs, "clip", "a_max")
    return np.clip(x, lo, hi).astype(x.dtype)


# -------------------------------------------------------------------- broadcasting and shapes


def collapse_to(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
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


@register("collapse_sum_like")
def _collapse_sum_like(args: list[Any], attrs: Attrs) -> Any:
    a, b = _tensor(args[0]), _tensor(args[1])
    return collapse_to(a, b.shape)


def _broadcast(a: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    try:
        return np.array(np.broadcast_to(a, tuple(shape)))
    except ValueError as exc:
        raise OpError(f"cannot broadcast shape {a.shape} to {tuple(shape)}") from exc


@register("broadcast_to_like")
def _broadcast_to_like(args: list[Any], attrs: Attrs) -> Any:
    return _broadcast(_tensor(args[0]), _tensor(args[1]).shape)


@register("broadcast_to")
def _broadcast_to(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    out = _broadcast(x, _ints(attr(attrs, "broadcast_to", "shape")))
    dt = attr(attrs, "broadcast_to", "dtype")
    return out.astype(np_dtype(dt)) if dt else out


@register("reshape_like")
def _reshape_like(args: list[Any], attrs: Attrs) -> Any:
    a, b = _tensor(args[0]), _tensor(args[1])
    if a.size != b.size:
        raise OpError(f"cannot reshape {a.shape} like {b.shape}")
    return a.reshape(b.shape)


def relay_reshape_shape(
    ishape: Sequence[int], newshape: Sequence[int], allowzero: bool
) -> list[int]:
    """The output shape of Relay `reshape`: 0 copies, -1 infers, -2 copies the rest,
    -3 merges two dims, -4 splits one dim into the next two values."""
    out: list[int] = []
    src = 0
    infer = -1
    i = 0
    ns = list(newshape)
    while i < len(ns):
        s = ns[i]
        if s > 0:
            out.append(s)
            src += 1
        elif s == 0:
            if allowzero:
                out.append(0)
            else:
                if src >= len(ishape):
                    raise OpError(f"newshape {tuple(ns)}: 0 refers past the input rank")
                out.append(ishape[src])
            src += 1
        elif s == -1:
            if infer >= 0:
                raise OpError(f"newshape {tuple(ns)} has more than one -1")
            infer = len(out)
            out.append(1)
            src += 1
        elif s == -2:
            out.extend(ishape[src:])
            src = len(ishape)
        elif s == -3:
            if src + 1 >= len(ishape):
                raise OpError(f"newshape {tuple(ns)}: -3 needs two input dims")
            out.append(ishape[src] * ishape[src + 1])
            src += 2
        elif s == -4:
            if i + 2 >= len(ns) or src >= len(ishape):
                raise OpError(f"newshape {tuple(ns)}: -4 needs two following values")
            d0, d1 = ns[i + 1], ns[i + 2]
            whole = ishape[src]
            if d0 == -1 and d1 > 0:
                d0 = whole // d1
            elif d1 == -1 and d0 > 0:
                d1 = whole // d0
            if d0 * d1 != whole:
                raise OpError(f"newshape {tuple(ns)}: -4 split {d0}x{d1} != {whole}")
            out.extend([d0, d1])
            src += 1
            i += 2
        else:
            raise OpError(f"invalid value {s} in newshape {tuple(ns)}")
        i += 1
    total = math.prod(ishape)
    if infer >= 0:
        rest = math.prod(d for j, d in enumerate(out) if j != infer)
        if rest == 0 or total % rest:
            raise OpError(f"cannot infer -1 in newshape {tuple(ns)} for input {tuple(ishape)}")
        out[infer] = total // rest
    if math.prod(out) != total:
        raise OpError(f"cannot reshape {tuple(ishape)} to {tuple(out)}")
    return out


@register("reshape")
def _reshape(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    ns = _ints(attr(attrs, "reshape", "newshape"))
    allowzero = bool(attr(attrs, "reshape", "allowzero"))
    return x.reshape(relay_reshape_shape(x.shape, ns, allowzero))


@register("nn.batch_flatten")
def _batch_flatten(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    if x.ndim < 1:
        raise OpError("batch_flatten needs a tensor of rank >= 1")
    return x.reshape(x.shape[0], -1) if x.shape[0] else x.reshape(0, math.prod(x.shape[1:]))


@register("transpose")
def _transpose(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    axes = attr(attrs, "transpose", "axes")
    if axes is None or len(_ints(axes)) == 0:
        return np.transpose(x)
    perm = [_axis(a, x.ndim) for a in _ints(axes)]
    if sorted(perm) != list(range(x.ndim)):
        raise OpError(f"axes {tuple(_ints(axes))} are not a permutation of rank {x.ndim}")
    return np.transpose(x, perm)


@register("expand_dims")
def _expand_dims(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    axis = int(attr(attrs, "expand_dims", "axis"))
    num = int(attr(attrs, "expand_dims", "num_newaxis"))
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise OpError(f"axis {axis} is out of range for expand_dims of rank {x.ndim}")
    if axis < 0:
        axis += x.ndim + 1
    return x.reshape(x.shape[:axis] + (1,) * num + x.shape[axis:])


@register("squeeze")
def _squeeze(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    axis = attr(attrs, "squeeze", "axis")
    if axis is None:
        return x.reshape(tuple(d for d in x.shape if d != 1))
    axes = {_axis(a, x.ndim) for a in _ints(axis)}
    for a in axes:
        if x.shape[a] != 1:
            raise OpError(f"cannot squeeze axis {a} of size {x.shape[a]}")
    return x.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes))


@register("shape_of")
def _shape_of(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    return np.array(x.shape, dtype=np_dtype(attr(attrs, "shape_of", "dtype")))


@register("cast")
def _cast(args: list[Any], attrs: Attrs) -> Any:
    return _tensor(args[0]).astype(np_dtype(attr(attrs, "cast", "dtype")))


@register("cast_like")
def _cast_like(args: list[Any], attrs: Attrs) -> Any:
    return _tensor(args[0]).astype(_tensor(args[1]).dtype)


def _init(opname: str, fill: int) -> OpImpl:
    def run(args: list[Any], attrs: Attrs) -> Any:
        shape = _ints(attr(attrs, opname, "shape"))
        return np.full(shape, fill, dtype=np_dtype(attr(attrs, opname, "dtype")))

    return run


OP_IMPLS["zeros"] = _init("zeros", 0)
OP_IMPLS["ones"] = _init("ones", 1)


@register("full")
def _full(args: list[Any], attrs: Attrs) -> Any:
    v = _tensor(args[0], "fill value")
    if v.ndim != 0:
        raise OpError(f"fill value must be a scalar, got shape {v.shape}")
    dt = attr(attrs, "full", "dtype")
    return np.full(_ints(attr(attrs, "full", "shape")), v, dtype=np_dtype(dt) if dt else v.dtype)


# ---------------------------------------------------------------------------------- reductions


def _reduction(opname: str, fn: Callable[..., Any]) -> OpImpl:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = _tensor(args[0])
        axes = _reduce_axes(x, attrs, opname)
        keep = bool(attr(attrs, opname, "keepdims"))
        if opname in ("max", "min") and any(x.shape[a] == 0 for a in axes):
            raise OpError(f"{opname} over an empty axis of shape {x.shape}")
        return np.asarray(fn(x, axis=axes, keepdims=keep)).astype(x.dtype, copy=False)

    return run


for _name, _fn in {"sum": np.sum, "max": np.max, "min": np.min, "mean": np.mean,
                   "prod": np.prod}.items():
    OP_IMPLS[_name] = _reduction(_name, _fn)


@register("argmax")
def _argmax(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    axes = _reduce_axes(x, attrs, "argmax")
    keep = bool(attr(attrs, "argmax", "keepdims"))
    last = bool(attr(attrs, "argmax", "select_last_index"))
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, rest + list(axes))
    flat = moved.reshape([x.shape[i] for i in rest] + [-1])
    if flat.shape[-1] == 0:
        raise OpError(f"argmax over an empty axis of shape {x.shape}")
    if last:
        idx = flat.shape[-1] - 1 - np.argmax(flat[..., ::-1], axis=-1)
    else:
        idx = np.argmax(flat, axis=-1)
    if keep:
        idx = idx.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return np.asarray(idx, dtype=np.int32)


@register("variance")
def _variance(args: list[Any], attrs: Attrs) -> Any:
    x, mean = _tensor(args[0]), _tensor(args[1], "mean")
    axes = _reduce_axes(x, attrs, "variance")
    keep = bool(attr(attrs, "variance", "keepdims"))
    unbiased = bool(attr(attrs, "variance", "unbiased"))
    n = math.prod(x.shape[a] for a in axes)
    d = x - mean
    s = np.sum(d * d, axis=axes, keepdims=keep)
    return np.asarray(s / (n - 1 if unbiased else n)).astype(x.dtype)


# ------------------------------------------------------------------------------ dense algebra


@register("nn.dense")
def _dense(args: list[Any], attrs: Attrs) -> Any:
    x, w = _tensor(args[0], "data"), _tensor(args[1], "weight")
    units = attr(attrs, "nn.dense", "units")
    if w.ndim != 2 or x.ndim < 1 or x.shape[-1] != w.shape[1]:
        raise OpError(f"data {x.shape} and weight {w.shape} do not match (weight is units x K)")
    if units is not None and int(units) != w.shape[0]:
        raise OpError(f"units={units} but the weight has {w.shape[0]} rows")
    dt = _out_dtype(attrs, "nn.dense", x.dtype)
    return np.matmul(x.astype(dt), w.astype(dt).T)


@register("nn.matmul")
def _matmul(args: list[Any], attrs: Attrs) -> Any:
    a, b = _tensor(args[0], "data"), _tensor(args[1], "weight")
    if attr(attrs, "nn.matmul", "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if attr(attrs, "nn.matmul", "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    dt = _out_dtype(attrs, "nn.matmul", a.dtype)
    if b.ndim != 2 or a.ndim < 1 or a.shape[-1] != b.shape[0]:
        raise OpError(f"matmul of {a.shape} and {b.shape} (after transposes) does not match")
    return np.matmul(a.astype(dt), b.astype(dt))


@register("nn.batch_matmul")
def _batch_matmul(args: list[Any], attrs: Attrs) -> Any:
    a, b = _tensor(args[0], "x"), _tensor(args[1], "y")
    if a.ndim != 3 or b.ndim != 3:
        raise OpError(f"batch_matmul needs rank-3 inputs, got {a.shape} and {b.shape}")
    if attr(attrs, "nn.batch_matmul", "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if attr(attrs, "nn.batch_matmul", "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise OpError(f"batch_matmul inner dims differ: {a.shape} x {b.shape}")
    dt = _out_dtype(attrs, "nn.batch_matmul", a.dtype)
    return np.matmul(a.astype(dt), b.astype(dt))


@register("nn.bias_add")
def _bias_add(args: list[Any], attrs: Attrs) -> Any:
    x, b = _tensor(args[0], "data"), _tensor(args[1], "bias")
    axis = _axis(int(attr(attrs, "nn.bias_add", "axis")), x.ndim)
    if b.ndim != 1 or b.shape[0] != x.shape[axis]:
        raise OpError(f"bias {b.shape} does not match axis {axis} of data {x.shape}")
    shape = [1] * x.ndim
    shape[axis] = b.shape[0]
    return (x + b.reshape(shape)).astype(x.dtype)


def _softmax_impl(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True) if x.shape[axis] else 0
    z = x - m
    with np.errstate(divide="ignore"):
        lse = np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
    out = z - lse if log else np.exp(z - lse)
    return out.astype(x.dtype)


@register("nn.softmax")
def _softmax(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    return _softmax_impl(x, _axis(int(attr(attrs, "nn.softmax", "axis")), x.ndim), log=False)


@register("nn.log_softmax")
def _log_softmax(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    return _softmax_impl(x, _axis(int(attr(attrs, "nn.log_softmax", "axis")), x.ndim), log=True)


def _xent(log: bool) -> OpImpl:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x, y = _tensor(args[0], "predictions"), _tensor(args[1], "targets")
        if x.ndim != 2 or x.shape != y.shape:
            raise OpError(f"inputs must be 2-D with equal shapes, got {x.shape} and {y.shape}")
        with np.errstate(divide="ignore"):
            lx = np.log(x) if log else x
        return np.asarray(-np.sum(lx * y) / x.shape[0]).astype(x.dtype)

    return run


OP_IMPLS["nn.cross_entropy_with_logits"] = _xent(log=False)
OP_IMPLS["nn.cross_entropy"] = _xent(log=True)


# ------------------------------------------------------------------------- indexing, joining


@register("take")
def _take(args: list[Any], attrs: Attrs) -> Any:
    x, idx = _tensor(args[0], "data"), _tensor(args[1], "indices")
    if int(attr(attrs, "take", "batch_dims")) != 0:
        raise OpError("take with batch_dims != 0 is not supported by the interpreter")
    if not np.issubdtype(idx.dtype, np.integer):
        raise OpError(f"indices must be integers, got {idx.dtype}")
    axis = attr(attrs, "take", "axis")
    mode = attr(attrs, "take", "mode")
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = _axis(int(axis), x.ndim)
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


def _tuple_arg(v: Any) -> list[np.ndarray]:
    if not isinstance(v, tuple):
        raise OpError(f"expected a tuple of tensors, got {type(v).__name__}")
    return [_tensor(t, "tuple field") for t in v]


@register("concatenate")
def _concatenate(args: list[Any], attrs: Attrs) -> Any:
    ts = _tuple_arg(args[0])
    if not ts:
        raise OpError("concatenate of an empty tuple")
    axis = _axis(int(attr(attrs, "concatenate", "axis")), ts[0].ndim)
    return np.concatenate(ts, axis=axis)


@register("stack")
def _stack(args: list[Any], attrs: Attrs) -> Any:
    ts = _tuple_arg(args[0])
    if not ts:
        raise OpError("stack of an empty tuple")
    axis = int(attr(attrs, "stack", "axis"))
    if not -ts[0].ndim - 1 <= axis <= ts[0].ndim:
        raise OpError(f"axis {axis} is out of range for stack of rank {ts[0].ndim}")
    return np.stack(ts, axis=axis)


@register("split")
def _split(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    ios = attr(attrs, "split", "indices_or_sections")
    axis = _axis(int(attr(attrs, "split", "axis")), x.ndim)
    if isinstance(ios, (int, np.integer)):
        if ios <= 0 or x.shape[axis] % int(ios):
            raise OpError(f"cannot split axis of size {x.shape[axis]} into {ios} equal sections")
        parts = np.split(x, int(ios), axis=axis)
    else:
        parts = np.split(x, list(_ints(ios)), axis=axis)
    return tuple(parts)


@register("strided_slice")
def _strided_slice(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    begin = list(_ints(attr(attrs, "strided_slice", "begin")))
    end_attr = attr(attrs, "strided_slice", "end")
    end = [None if e is None else int(e) for e in (end_attr or ())]
    strides = list(_ints(attr(attrs, "strided_slice", "strides")))
    axes_attr = attr(attrs, "strided_slice", "axes")
    mode = attr(attrs, "strided_slice", "slice_mode")
    axes = [_axis(a, x.ndim) for a in _ints(axes_attr)] if axes_attr is not None else list(
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


@register("one_hot")
def _one_hot(args: list[Any], attrs: Attrs) -> Any:
    idx, on, off = _tensor(args[0], "indices"), _tensor(args[1], "on_value"), _tensor(args[2])
    depth = int(attr(attrs, "one_hot", "depth"))
    axis = int(attr(attrs, "one_hot", "axis"))
    dt = np_dtype(attr(attrs, "one_hot", "dtype"))
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(dt)
    if axis != -1:
        out = np.moveaxis(out, -1, _axis(axis, out.ndim))
    return out


# -------------------------------------------------------------------------------- convolution


def _pad4(padding: Any, opname: str) -> tuple[int, int, int, int]:
    """TVM 2-D padding: 1 value (all sides), 2 (top/bottom, left/right) or 4 (t, l, b, r)."""
    p = _ints(padding)
    if len(p) == 1:
        return (p[0],) * 4  # type: ignore[return-value]
    if len(p) == 2:
        return (p[0], p[1], p[0], p[1])
    if len(p) == 4:
        return (p[0], p[1], p[2], p[3])
    raise OpError(f"{opname}: padding must have 1, 2 or 4 elements, got {p}")


def _pair(v: Any, what: str) -> tuple[int, int]:
    p = _ints(v)
    if len(p) == 1:
        return (p[0], p[0])
    if len(p) != 2:
        raise OpError(f"{what} must have 1 or 2 elements, got {p}")
    return (p[0], p[1])


def _check_layouts(attrs: Attrs, opname: str, kernel: str) -> None:
    dl = attr(attrs, opname, "data_layout")
    kl = attr(attrs, opname, "kernel_layout")
    ol = attr(attrs, opname, "out_layout")
    if dl != "NCHW" or kl != kernel or ol not in ("", "NCHW"):
        raise OpError(f"only data_layout NCHW and kernel_layout {kernel} are supported, "
                      f"got {dl}/{kl}/{ol or dl}")


@register("nn.conv2d")
def _conv2d(args: list[Any], attrs: Attrs) -> Any:
    op = "nn.conv2d"
    x, w = _tensor(args[0], "data"), _tensor(args[1], "weight")
    _check_layouts(attrs, op, "OIHW")
    sh, sw = _pair(attr(attrs, op, "strides"), "strides")
    dh, dw = _pair(attr(attrs, op, "dilation"), "dilation")
    pt, pl, pb, pr = _pad4(attr(attrs, op, "padding"), op)
    g = int(attr(attrs, op, "groups"))
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(f"data {x.shape} and weight {w.shape} must be 4-D")
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    if g <= 0 or c % g or o % g or ci != c // g:
        raise OpError(f"data {x.shape} and weight {w.shape} do not match with groups={g}")
    dt = _out_dtype(attrs, op, x.dtype)
    xp = np.pad(x.astype(dt), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    oh, ow = (h + pt + pb - eh) // sh + 1, (wd + pl + pr - ew) // sw + 1
    if oh <= 0 or ow <= 0:
        raise OpError(f"kernel {w.shape[2:]} (dilation {dh},{dw}) is larger than the padded "
                      f"input {xp.shape[2:]}")
    xg = xp.reshape(n, g, ci, xp.shape[2], xp.shape[3])
    wg = w.astype(dt).reshape(g, o // g, ci, kh, kw)
    out = np.zeros((n, g, o // g, oh, ow), dtype=dt)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            patch = xg[:, :, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw]
            out += np.einsum("ngchw,goc->ngohw", patch, wg[:, :, :, i, j])
    return out.reshape(n, o, oh, ow)


@register("nn.conv2d_transpose")
def _conv2d_transpose(args: list[Any], attrs: Attrs) -> Any:
    op = "nn.conv2d_transpose"
    x, w = _tensor(args[0], "data"), _tensor(args[1], "weight")
    _check_layouts(attrs, op, "IOHW")
    sh, sw = _pair(attr(attrs, op, "strides"), "strides")
    dh, dw = _pair(attr(attrs, op, "dilation"), "dilation")
    pt, pl, pb, pr = _pad4(attr(attrs, op, "padding"), op)
    oph, opw = _pair(attr(attrs, op, "output_padding"), "output_padding")
    g = int(attr(attrs, op, "groups"))
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(f"data {x.shape} and weight {w.shape} must be 4-D")
    n, c, h, wd = x.shape
    ci, og, kh, kw = w.shape
    if g <= 0 or ci != c or c % g:
        raise OpError(f"data {x.shape} and weight {w.shape} (IOHW) do not match with groups={g}")
    dt = _out_dtype(attrs, op, x.dtype)
    full_h = (h - 1) * sh + (kh - 1) * dh + 1
    full_w = (wd - 1) * sw + (kw - 1) * dw + 1
    oh, ow = full_h - pt - pb + oph, full_w - pl - pr + opw
    if oh <= 0 or ow <= 0:
        raise OpError(f"output size {oh}x{ow} is not positive")
    xg = x.astype(dt).reshape(n, g, c // g, h, wd)
    wg = w.astype(dt).reshape(g, c // g, og, kh, kw)
    full = np.zeros((n, g, og, max(full_h, pt + oh), max(full_w, pl + ow)), dtype=dt)
    for i in range(kh):
        for j in range(kw):
            contrib = np.einsum("ngchw,gco->ngohw", xg, wg[:, :, :, i, j])
            full[:, :, :, i * dh:i * dh + sh * (h - 1) + 1:sh,
                 j * dw:j * dw + sw * (wd - 1) + 1:sw] += contrib
    return full[:, :, :, pt:pt + oh, pl:pl + ow].reshape(n, g * og, oh, ow)


def _conv_nd(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dils: Sequence[int],
             pad_lo: Sequence[int], pad_hi: Sequence[int], g: int, dt: np.dtype) -> np.ndarray:
    """Grouped convolution over any number of spatial dims (data NC..., weight OI...)."""
    n, c = x.shape[:2]
    o, ci = w.shape[:2]
    ks = w.shape[2:]
    if g <= 0 or c % g or o % g or ci != c // g:
        raise OpError(f"data {x.shape} and weight {w.shape} do not match with groups={g}")
    xp = np.pad(x.astype(dt), ((0, 0), (0, 0), *zip(pad_lo, pad_hi, strict=True)))
    outs = [(xp.shape[2 + i] - ((k - 1) * dils[i] + 1)) // strides[i] + 1
            for i, k in enumerate(ks)]
    if any(v <= 0 for v in outs):
        raise OpError(f"kernel {ks} (dilation {tuple(dils)}) is larger than the padded input "
                      f"{xp.shape[2:]}")
    xg = xp.reshape(n, g, ci, *xp.shape[2:])
    wg = w.astype(dt).reshape(g, o // g, ci, *ks)
    out = np.zeros((n, g, o // g, *outs), dtype=dt)
    lead = (slice(None),) * 3
    for kpos in itertools.product(*(range(k) for k in ks)):
        window = tuple(slice(p * d, p * d + s * (m - 1) + 1, s)
                       for p, d, s, m in zip(kpos, dils, strides, outs, strict=True))
        out += np.einsum("ngc...,goc->ngo...", xg[lead + window], wg[lead + kpos])
    return out.reshape(n, o, *outs)


def _triple(v: Any, what: str) -> tuple[int, int, int]:
    p = _ints(v)
    if len(p) == 1:
        return (p[0], p[0], p[0])
    if len(p) != 3:
        raise OpError(f"{what} must have 1 or 3 elements, got {p}")
    return (p[0], p[1], p[2])


def _pad6(padding: Any, opname: str) -> tuple[int, ...]:
    """TVM 3-D padding: 1 value, 3 (front/top/left = back/bottom/right) or 6 (all six sides)."""
    p = _ints(padding)
    if len(p) == 1:
        return (p[0],) * 6
    if len(p) == 3:
        return (*p, *p)
    if len(p) == 6:
        return p
    raise OpError(f"{opname}: padding must have 1, 3 or 6 elements, got {p}")


@register("nn.conv3d")
def _conv3d(args: list[Any], attrs: Attrs) -> Any:
    op = "nn.conv3d"
    x, w = _tensor(args[0], "data"), _tensor(args[1], "weight")
    dl, kl = attr(attrs, op, "data_layout"), attr(attrs, op, "kernel_layout")
    ol = attr(attrs, op, "out_layout")
    if dl != "NCDHW" or kl != "OIDHW" or ol not in ("", "NCDHW"):
        raise OpError(f"only data_layout NCDHW and kernel_layout OIDHW are supported, "
                      f"got {dl}/{kl}/{ol or dl}")
    if x.ndim != 5 or w.ndim != 5:
        raise OpError(f"data {x.shape} and weight {w.shape} must be 5-D")
    pads = _pad6(attr(attrs, op, "padding"), op)
    return _conv_nd(x, w, _triple(attr(attrs, op, "strides"), "strides"),
                    _triple(attr(attrs, op, "dilation"), "dilation"), pads[:3], pads[3:],
                    int(attr(attrs, op, "groups")), _out_dtype(attrs, op, x.dtype))


@register("nn.conv2d_backward_weight")
def _conv2d_backward_weight(args: list[Any], attrs: Attrs) -> Any:
    """dW of nn.conv2d from the output gradient and the data (layouts: grad, data, weight)."""
    op = "nn.conv2d_backward_weight"
    g, x = _tensor(args[0], "grad"), _tensor(args[1], "data")
    layouts = (attr(attrs, op, "data_layout"), attr(attrs, op, "kernel_layout"),
               attr(attrs, op, "out_layout"))
    if layouts != ("NCHW", "NCHW", "OIHW"):
        raise OpError("only grad layout NCHW (data_layout), data layout NCHW (kernel_layout) "
                      f"and weight layout OIHW (out_layout) are supported, got {layouts}")
    if g.ndim != 4 or x.ndim != 4:
        raise OpError(f"grad {g.shape} and data {x.shape} must be 4-D")
    ksize = attr(attrs, op, "kernel_size")
    if ksize is None:
        raise OpError(f"{op} requires the attribute 'kernel_size'")
    kh, kw = _pair(ksize, "kernel_size")
    sh, sw = _pair(attr(attrs, op, "strides"), "strides")
    dh, dw = _pair(attr(attrs, op, "dilation"), "dilation")
    pt, pl, pb, pr = _pad4(attr(attrs, op, "padding"), op)
    groups = int(attr(attrs, op, "groups"))
    n, c, h, wd = x.shape
    _, o, oh, ow = g.shape
    if groups <= 0 or g.shape[0] != n or c % groups or o % groups:
        raise OpError(f"grad {g.shape} and data {x.shape} do not match with groups={groups}")
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    if (oh - 1) * sh + (kh - 1) * dh + 1 > xp.shape[2] or \
            (ow - 1) * sw + (kw - 1) * dw + 1 > xp.shape[3]:
        raise OpError(f"grad {g.shape} does not fit data {x.shape} with kernel ({kh}, {kw})")
    dt = _out_dtype(attrs, op, g.dtype)
    cg = c // groups
    xg = xp.astype(dt).reshape(n, groups, cg, *xp.shape[2:])
    gg = g.astype(dt).reshape(n, groups, o // groups, oh, ow)
    out = np.zeros((groups, o // groups, cg, kh, kw), dtype=dt)
    for i in range(kh):
        for j in range(kw):
            patch = xg[:, :, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                       j * dw:j * dw + sw * (ow - 1) + 1:sw]
            out[:, :, :, i, j] = np.einsum("ngchw,ngohw->goc", patch, gg)
    return out.reshape(o, cg, kh, kw)


@register("nn.batch_norm")
def _batch_norm(args: list[Any], attrs: Attrs) -> Any:
    op = "nn.batch_norm"
    x, gamma, beta, mean, var = (_tensor(a) for a in args)
    axis = _axis(int(attr(attrs, op, "axis")), x.ndim)
    eps = float(attr(attrs, op, "epsilon"))
    for name, v in (("gamma", gamma), ("beta", beta), ("moving_mean", mean), ("moving_var", var)):
        if v.shape != (x.shape[axis],):
            raise OpError(f"{name} {v.shape} does not match axis {axis} of data {x.shape}")
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]

    def r(v: np.ndarray) -> np.ndarray:
        return v.reshape(shape)

    out = (x - r(mean)) / np.sqrt(r(var) + np.asarray(eps, dtype=var.dtype))
    if attr(attrs, op, "scale"):
        out = out * r(gamma)
    if attr(attrs, op, "center"):
        out = out + r(beta)
    return (out.astype(x.dtype), mean, var)


# ------------------------------------------------------------------------------------ pooling


def _pool2d(opname: str, kind: str) -> OpImpl:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = _tensor(args[0])
        if attr(attrs, opname, "layout") != "NCHW" or x.ndim != 4:
            raise OpError(f"only 4-D NCHW input is supported, got {x.shape} "
                          f"{attr(attrs, opname, 'layout')}")
        kh, kw = _pair(attr(attrs, opname, "pool_size"), "pool_size")
        sh, sw = _pair(attr(attrs, opname, "strides"), "strides")
        dh, dw = _pair(attr(attrs, opname, "dilation"), "dilation")
        pt, pl, pb, pr = _pad4(attr(attrs, opname, "padding"), opname)
        ceil = bool(attr(attrs, opname, "ceil_mode"))
        n, c, h, w = x.shape
        eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
        # ceil_mode: TVM pads the tail by stride-1 more so that the division rounds up
        xb, xr = (sh - 1 if ceil else 0), (sw - 1 if ceil else 0)
        oh, ow = (h + pt + pb + xb - eh) // sh + 1, (w + pl + pr + xr - ew) // sw + 1
        if oh <= 0 or ow <= 0:
            raise OpError(f"pool window {kh}x{kw} is larger than the padded input {h}x{w}")
        if kind == "max":
            low = -np.inf if np.issubdtype(x.dtype, np.floating) else np.iinfo(x.dtype).min
            fill = np.asarray(low).astype(x.dtype)
        else:
            fill = np.zeros((), x.dtype)
        xp = np.full((n, c, h + pt + pb + xb, w + pl + pr + xr), fill, dtype=x.dtype)
        xp[:, :, pt:pt + h, pl:pl + w] = x
        acc = None
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dh, j * dw
                patch = xp[:, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw]
                if acc is None:
                    acc = patch.astype(np.float64 if kind == "avg" else x.dtype)
                elif kind == "max":
                    acc = np.maximum(acc, patch)
                else:
                    acc = acc + patch
        assert acc is not None
        if kind == "max":
            return acc
        include = bool(attr(attrs, opname, "count_include_pad"))
        counts = np.outer(_window_counts(oh, sh, dh, kh, pt, h, pb, include),
                          _window_counts(ow, sw, dw, kw, pl, w, pr, include))
        with np.errstate(invalid="ignore", divide="ignore"):
            return (acc / np.maximum(counts, 1)).astype(x.dtype)

    return run


def _window_counts(o: int, s: int, d: int, k: int, head: int, size: int, tail: int,
                   include_pad: bool) -> np.ndarray:
    """Elements averaged per output position along one axis, as TVM's pool counts them."""
    out = np.zeros(o, dtype=np.float64)
    for i in range(o):
        start = i * s - head
        taps = [start + t * d for t in range(k)]
        if include_pad:
            # the declared padding counts, the extra ceil_mode tail does not
            out[i] = sum(1 for p in taps if p < size + tail)
        else:
            out[i] = sum(1 for p in taps if 0 <= p < size)
    return out


OP_IMPLS["nn.max_pool2d"] = _pool2d("nn.max_pool2d", "max")
OP_IMPLS["nn.avg_pool2d"] = _pool2d("nn.avg_pool2d", "avg")


def _global_pool(opname: str, fn: Callable[..., Any]) -> OpImpl:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = _tensor(args[0])
        if attr(attrs, opname, "layout") != "NCHW" or x.ndim != 4:
            raise OpError(f"only 4-D NCHW input is supported, got {x.shape}")
        return np.asarray(fn(x, axis=(2, 3), keepdims=True)).astype(x.dtype)

    return run


OP_IMPLS["nn.global_avg_pool2d"] = _global_pool("nn.global_avg_pool2d", np.mean)
OP_IMPLS["nn.global_max_pool2d"] = _global_pool("nn.global_max_pool2d", np.max)


def _pool2d_grad(opname: str, kind: str) -> OpImpl:
    """topi's pool_grad: scatter each output window's gradient back onto the data.

    As in v0.19's compute, the `dilation` and `out_layout` attributes are not used; max sends a
    window's gradient to its first maximum in row-major order (padding never wins a real value).
    """

    def run(args: list[Any], attrs: Attrs) -> Any:
        g, x = _tensor(args[0], "out_grad"), _tensor(args[1], "data")
        if attr(attrs, opname, "layout") != "NCHW" or x.ndim != 4 or g.ndim != 4:
            raise OpError(f"only 4-D NCHW out_grad and data are supported, got {g.shape}, "
                          f"{x.shape} {attr(attrs, opname, 'layout')}")
        kh, kw = _pair(attr(attrs, opname, "pool_size"), "pool_size")
        sh, sw = _pair(attr(attrs, opname, "strides"), "strides")
        pt, pl, pb, pr = _pad4(attr(attrs, opname, "padding"), opname)
        if attr(attrs, opname, "ceil_mode"):
            pb, pr = pb + sh - 1, pr + sw - 1
        n, c, h, w = x.shape
        oh, ow = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
        if g.shape != (n, c, oh, ow):
            raise OpError(f"out_grad {g.shape} does not match the pooled shape {(n, c, oh, ow)} "
                          f"of data {x.shape}")
        gp = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=g.dtype)
        if kind == "max":
            low = -np.inf if np.issubdtype(x.dtype, np.floating) else np.iinfo(x.dtype).min
            xp = np.full(gp.shape, np.asarray(low).astype(x.dtype), dtype=x.dtype)
            xp[:, :, pt:pt + h, pl:pl + w] = x
            ni, ci = np.indices((n, c))
            for i in range(oh):
                for j in range(ow):
                    win = xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw].reshape(n, c, -1)
                    arg = np.argmax(win, axis=-1)
                    gp[ni, ci, i * sh + arg // kw, j * sw + arg % kw] += g[:, :, i, j]
        else:
            include = bool(attr(attrs, opname, "count_include_pad"))
            for i in range(oh):
                for j in range(ow):
                    if include:
                        count = kh * kw
                    else:
                        hs, ws = i * sh - pt, j * sw - pl
                        count = max((min(hs + kh, h) - max(hs, 0))
                                    * (min(ws + kw, w) - max(ws, 0)), 1)
                    share = g[:, :, i, j] / np.asarray(count, dtype=g.dtype)
                    gp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw] += share[:, :, None, None]
        return gp[:, :, pt:pt + h, pl:pl + w].astype(x.dtype)

    return run


OP_IMPLS["nn.max_pool2d_grad"] = _pool2d_grad("nn.max_pool2d_grad", "max")
OP_IMPLS["nn.avg_pool2d_grad"] = _pool2d_grad("nn.avg_pool2d_grad", "avg")


@register("nn.adaptive_avg_pool3d")
def _adaptive_avg_pool3d(args: list[Any], attrs: Attrs) -> Any:
    """Window i of an axis spans [floor(i*in/out), ceil((i+1)*in/out)), as topi's adaptive pool."""
    op = "nn.adaptive_avg_pool3d"
    x = _tensor(args[0])
    lay = attr(attrs, op, "layout")
    if not isinstance(lay, str) or sorted(lay) != sorted("NCDHW") or x.ndim != 5:
        raise OpError(f"only 5-D input in a layout of N, C, D, H, W is supported, got {x.shape} "
                      f"{lay!r}")
    axes = [lay.index(ch) for ch in "DHW"]
    ins = [x.shape[a] for a in axes]
    size = _ints(attr(attrs, op, "output_size") or ())
    if len(size) == 0:
        size = tuple(ins)
    elif len(size) == 1:
        size = size * 3
    elif len(size) != 3:
        raise OpError(f"output_size must have 0, 1 or 3 elements, got {size}")
    if any(v <= 0 for v in size):
        raise OpError(f"output_size {size} must be positive")
    xm = np.moveaxis(x, axes, [2, 3, 4])
    out = np.zeros((*xm.shape[:2], *size), dtype=np.float64)
    for pos in itertools.product(*(range(v) for v in size)):
        window = tuple(slice(p * i // o, -((-(p + 1) * i) // o))
                       for p, i, o in zip(pos, ins, size, strict=True))
        out[(slice(None), slice(None), *pos)] = xm[(slice(None), slice(None), *window)].mean(
            axis=(2, 3, 4))
    return np.moveaxis(out, [2, 3, 4], axes).astype(x.dtype)


@register("nn.dropout")
def _dropout(args: list[Any], attrs: Attrs) -> Any:
    x = _tensor(args[0])
    return (x, np.ones_like(x))
