"""Type relations: the protocol every operator's relation follows, and what relations share.

A relation (`OpDef.relation`) sees argument types with every still-unknown part shown as
`IncompleteType`. It returns the result type (or a `Result` that also fixes some argument
types, the way TVM's `reporter->Assign` infers weight shapes), raises `Defer` when an input it
needs is not known yet, and raises `RelError` / `ArgMismatch` for an ill-typed call. Shapes
follow TVM v0.19's relations (`src/relay/op/**`), read from relay-notes §2.1, §5 and §7; `None`
is a `?` dim. Attributes are read through `OpAttrs`, so a field the call leaves out reads its
v0.19 default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from math import prod
from typing import Any

from ..ast import (
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
from .registry import OpAttrs

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


@dataclass(frozen=True)
class Same:
    """A relation's answer that the result has argument `arg`'s type, known or not yet: TVM's
    IdentityRel assigns it at once, so a type may flow from the result back into the argument
    (`on_device(if (%c) { %f } else { %g })(%z)` types %f's parameter)."""

    arg: int = 0


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


def integer(v: Any, what: str) -> int:
    """The attribute `what` as an int (a bool is not one)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise RelError(f"attribute {what} must be an integer, not {v!r}")
    return v


def ints(v: Any, what: str) -> tuple[int, ...]:
    """The attribute `what`, an int or a list of ints, as a tuple."""
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, tuple | list):
        return tuple(integer(x, what) for x in v)
    raise RelError(f"attribute {what} must be an integer or a list of integers, not {v!r}")


def pair(v: Any, what: str) -> tuple[int, int]:
    """A 2-D attribute (strides, dilation, ...) from 1 or 2 values."""
    xs = ints(v, what)
    if len(xs) == 1:
        return xs[0], xs[0]
    if len(xs) != 2:
        raise RelError(f"attribute {what} must have 1 or 2 elements, not {len(xs)}")
    return xs[0], xs[1]


def pad4(v: Any) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from TVM's 1-, 2- or 4-element padding."""
    xs = ints(v, "padding")
    if len(xs) == 1:
        return xs[0], xs[0], xs[0], xs[0]
    if len(xs) == 2:
        return xs[0], xs[1], xs[0], xs[1]
    if len(xs) == 4:
        return xs[0], xs[1], xs[2], xs[3]
    raise RelError(f"attribute padding must have 1, 2 or 4 elements, not {len(xs)}")


def triple(v: Any, what: str) -> tuple[int, int, int]:
    """A 3-D attribute (strides, dilation, ...) from 1 or 3 values."""
    xs = ints(v, what)
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    if len(xs) != 3:
        raise RelError(f"attribute {what} must have 1 or 3 elements, not {len(xs)}")
    return xs[0], xs[1], xs[2]


def pad6(v: Any) -> tuple[int, int, int, int, int, int]:
    """(front, top, left, back, bottom, right) from TVM's 1-, 3- or 6-element padding."""
    xs = ints(v, "padding")
    if len(xs) == 1:
        return (xs[0],) * 6  # type: ignore[return-value]
    if len(xs) == 3:
        return xs[0], xs[1], xs[2], xs[0], xs[1], xs[2]
    if len(xs) == 6:
        return xs[0], xs[1], xs[2], xs[3], xs[4], xs[5]
    raise RelError(f"attribute padding must have 1, 3 or 6 elements, not {len(xs)}")


def axis(axis: Any, rank: int, t: TensorType, arg: int = 0, extra: int = 0) -> int:
    """Normalise a possibly negative axis into [0, rank + extra)."""
    a = integer(axis, "axis")
    n = rank + extra
    if not -n <= a < n:
        raise RelError(f"axis {a} is out of range for {type_str(t)}", arg)
    return a + n if a < 0 else a


def dim_eq(a: Dim, b: Dim) -> bool:
    """Whether two dims may be equal (`?` matches any)."""
    return a is None or b is None or a == b


def shape_eq(a: Shape, b: Shape) -> bool:
    """Whether two shapes may be equal, dim by dim."""
    return len(a) == len(b) and all(dim_eq(x, y) for x, y in zip(a, b, strict=False))


def add_dims(*ds: Dim) -> Dim:
    """The sum of dims, `?` if any is."""
    return None if any(d is None for d in ds) else sum(d for d in ds if d is not None)


def numel(shape: Shape) -> int | None:
    """The number of elements, None if a dim is `?`."""
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


def layout(v: Any, letters: str, what: str) -> str:
    """A layout attribute, which must be a permutation of `letters` (e.g. NCHW)."""
    if not isinstance(v, str) or sorted(v) != sorted(letters):
        raise RelError(f"unsupported {what} {v!r} (a permutation of {letters} is expected)")
    return v


def dtype_attr(attrs: OpAttrs, key: str = "dtype") -> str:
    """A dtype attribute, which must be a non-empty string."""
    d = attrs[key]
    if not isinstance(d, str) or not d:
        raise RelError(f"attribute {key} must be a dtype string, not {d!r}")
    return d


def conv_out(size: Dim, k: Dim, stride: int, dil: int, pad: int, ceil: bool = False) -> Dim:
    """The output size of a window of size k sliding over `size` (convolutions and pools)."""
    if size is None or k is None:
        return None
    if stride <= 0 or dil <= 0:
        raise RelError("strides and dilation must be positive")
    dk = (k - 1) * dil + 1
    span = size + pad - dk
    if span < 0:
        raise RelError(f"window of size {dk} does not fit an input of size {size} (padding {pad})")
    return (span + (stride - 1 if ceil else 0)) // stride + 1


def identity(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """The relation of an op whose result has its (tensor) argument's type."""
    return tensor(args, 0)

