"""Gradient rules: the protocol of TVM's `FPrimalGradient`, and the builders rules share.

A rule (`OpDef.gradient`, from `python/tvm/relay/op/_tensor_grad.py`) is `rule(orig, grad) ->
list[Expr]`, one gradient per argument of `orig`. `orig` is the op applied to *annotated*
variables (the higher-order transform binds every primal argument to a typed var), so a rule
reads argument types from their annotations, as TVM's rules read `checked_type`, and attributes
through `attrs_of`, as TVM's read `orig.attrs`. Rules build plain Relay calls with `make_call`;
the transform adds them into the gradient cells. Where a rule deviates from v0.19, its family
module says so.
"""

from __future__ import annotations

from ..ast import Call, Constant, Expr, Op, TensorType, Type, Var, const
from .registry import OpAttrs, lookup, make_call
from .relation import Defer, RelError, Result, Same


class RuleError(Exception):
    """A rule cannot apply to this call (unsupported attribute or unknown argument type)."""


def type_of(e: Expr) -> Type:
    """The type of a rule input: the annotation of a var, or a constant's tensor type."""
    if isinstance(e, Var) and e.type_annotation is not None:
        return e.type_annotation
    if isinstance(e, Constant):
        return TensorType(tuple(int(d) for d in e.data.shape), str(e.data.dtype))
    raise RuleError(f"gradient rule needs the type of {type(e).__name__}, which is not annotated")


def tensor_type(e: Expr) -> TensorType:
    """The tensor type of e with a fully known shape."""
    t = type_of(e)
    if not isinstance(t, TensorType) or any(d is None for d in t.shape):
        raise RuleError(f"gradient rule needs a static tensor type, got {t}")
    return t


def shape(e: Expr) -> tuple[int, ...]:
    return tuple(int(d) for d in tensor_type(e).shape)  # type: ignore[arg-type]


def dtype(e: Expr) -> str:
    return tensor_type(e).dtype


def scalar(value: float, like: Expr) -> Constant:
    """A scalar constant of `like`'s dtype (TVM: `const(v, dtype=x.checked_type.dtype)`)."""
    return const(value, dtype(like))


def add(a: Expr, b: Expr) -> Call:
    return make_call("add", a, b)


def sub(a: Expr, b: Expr) -> Call:
    return make_call("subtract", a, b)


def mul(a: Expr, b: Expr) -> Call:
    return make_call("multiply", a, b)


def div(a: Expr, b: Expr) -> Call:
    return make_call("divide", a, b)


def neg(a: Expr) -> Call:
    return make_call("negative", a)


def csl(a: Expr, b: Expr) -> Call:
    return make_call("collapse_sum_like", a, b)


def zeros_like(a: Expr) -> Call:
    return make_call("zeros_like", a)


def ones_like(a: Expr) -> Call:
    return make_call("ones_like", a)


def rsum(a: Expr, axis: object = None, keepdims: bool = False, exclude: bool = False) -> Call:
    """`sum` as the Python API builds it: an int axis becomes a one-element list."""
    if isinstance(axis, int):
        axis = [axis]
    return make_call("sum", a, axis=axis, keepdims=keepdims, exclude=exclude)


def matmul(a: Expr, b: Expr, transpose_a: bool = False, transpose_b: bool = False) -> Call:
    """`nn.matmul` as v0.19's Python API builds it: (False, True) is emitted as nn.dense."""
    if not transpose_a and transpose_b:
        return make_call("nn.dense", a, b, units=None)
    return make_call("nn.matmul", a, b, units=None, transpose_a=transpose_a,
                     transpose_b=transpose_b)


def attrs_of(call: Call) -> OpAttrs:
    """The call's attributes, defaults filled in (TVM's `orig.attrs`)."""
    return OpAttrs(call.attrs, lookup(call.op.name) if isinstance(call.op, Op) else None)


def out_type(call: Call) -> TensorType:
    """The static tensor type of an op call (TVM's `orig.checked_type`), from its relation."""
    name = call.op.name if isinstance(call.op, Op) else ""
    opdef = lookup(name)
    if opdef is None or opdef.relation is None:
        raise RuleError(f"{name} has no type relation")
    arg_types = [type_of(a) for a in call.args]
    try:
        t = opdef.relation(arg_types, OpAttrs(call.attrs, opdef))
    except (Defer, RelError) as err:
        why = getattr(err, "message", "an input type is unknown")
        raise RuleError(f"cannot type {name}: {why}") from None
    if isinstance(t, Result):
        t = t.out
    elif isinstance(t, Same):
        t = arg_types[t.arg]
    if not isinstance(t, TensorType) or any(d is None for d in t.shape):
        raise RuleError(f"gradient rule needs a static tensor type, got {t}")
    return t


def shape_of_type(t: TensorType) -> tuple[int, ...]:
    return tuple(int(d) for d in t.shape)  # type: ignore[arg-type]


def int_tuple(v: object, what: str) -> tuple[int, ...]:
    """An int-array attribute as a tuple (TVM's `get_const_tuple`)."""
    if isinstance(v, int) and not isinstance(v, bool):
        raise RuleError(f"attribute {what} must be an array, not {v!r}")
    if not isinstance(v, tuple | list) or not all(isinstance(x, int) for x in v):
        raise RuleError(f"attribute {what} must be an array of integers, not {v!r}")
    return tuple(int(x) for x in v)


def pad_tuple2d(padding: object) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) as TVM's `get_pad_tuple`/`get_pad_tuple2d` give it: 2 or 4."""
    p = int_tuple(padding, "padding")
    if len(p) == 4:
        return p[0], p[1], p[2], p[3]
    if len(p) != 2:
        raise RuleError(f"size of padding can only be 2 or 4, not {len(p)}")
    pad_h, pad_w = p[0] * 2, p[1] * 2
    top, left = (pad_h + 1) // 2, (pad_w + 1) // 2
    return top, left, pad_h - top, pad_w - left


def reduce_axis(orig: Call, x: Expr) -> list[int] | None:
    """The reduced axes as sorted non-negative ints (exclude resolved); None means all axes."""
    rank = len(shape(x))
    attrs = attrs_of(orig)
    axis = attrs["axis"]
    exclude = bool(attrs["exclude"])
    if axis is None:
        if exclude:
            raise RuleError("a reduction with axis=None cannot exclude")
        return None
    axes = [axis] if isinstance(axis, int) else list(axis)  # type: ignore[arg-type]
    norm = sorted(a if a >= 0 else rank + a for a in map(int, axes))
    if exclude:
        norm = [a for a in range(rank) if a not in norm]
    return norm


def unreduce_expand(e: Expr, axis: list[int]) -> Expr:
    """Re-insert the reduced (sorted, non-negative) axes as size-1 dims."""
    for ax in axis:
        e = make_call("expand_dims", e, axis=ax, num_newaxis=1)
    return e

