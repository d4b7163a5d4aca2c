"""Kernels: how an operator is computed on numpy values, and what kernels share.

A kernel (`OpDef.kernel`) follows TVM v0.19's semantics: it takes the evaluated arguments
(tensors, or tuples for `concatenate` / `stack`) and the call's `Attrs`, and returns a value (a
tensor, or a tuple for multi-output ops). It reads attributes with `registry.attr`, so a field
the call leaves out reads its v0.19 default, as in the printer and the type checker. Problems
are reported as `OpError`; the interpreter adds the location.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ast import Attrs
from .registry import OpError, attr

_DTYPES = {"bool": np.bool_, "uint1": np.bool_, "int": np.int32, "float": np.float32}


def np_dtype(dtype: str) -> np.dtype:
    """The numpy dtype of a Relay dtype string (`float32`, `int64`, `bool`, `uint1`, ...)."""
    try:
        return np.dtype(_DTYPES.get(dtype, dtype))
    except TypeError as exc:
        raise OpError(f"unknown dtype {dtype!r}") from exc


def tensor(x: Any, what: str = "argument") -> np.ndarray:
    """x, which must be a tensor (`what` names it in the error)."""
    if not isinstance(x, np.ndarray):
        raise OpError(f"expected a tensor {what}, got {type(x).__name__}")
    return x


def ints(v: Any) -> tuple[int, ...]:
    """An attribute holding an int or an array of ints, as a tuple."""
    if v is None:
        return ()
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(int(x) for x in v)


def axis(a: int, ndim: int) -> int:
    """A possibly negative axis of a rank-`ndim` tensor, normalised into [0, ndim)."""
    if not -ndim <= a < max(ndim, 1):
        raise OpError(f"axis {a} is out of range for a tensor of rank {ndim}")
    return a + ndim if a < 0 else a


def out_dtype(attrs: Attrs, opname: str, default: np.dtype) -> np.dtype:
    """The `out_dtype` attribute as a numpy dtype; `default` when it is unset (empty)."""
    od = attr(attrs, opname, "out_dtype")
    return np_dtype(od) if od else default


def pad4(padding: Any, opname: str) -> tuple[int, int, int, int]:
    """TVM 2-D padding: 1 value (all sides), 2 (top/bottom, left/right) or 4 (t, l, b, r)."""
    p = ints(padding)
    if len(p) == 1:
        return (p[0],) * 4  # type: ignore[return-value]
    if len(p) == 2:
        return (p[0], p[1], p[0], p[1])
    if len(p) == 4:
        return (p[0], p[1], p[2], p[3])
    raise OpError(f"{opname}: padding must have 1, 2 or 4 elements, got {p}")


def pair(v: Any, what: str) -> tuple[int, int]:
    """A 2-D attribute (strides, dilation, ...) from 1 or 2 values."""
    p = ints(v)
    if len(p) == 1:
        return (p[0], p[0])
    if len(p) != 2:
        raise OpError(f"{what} must have 1 or 2 elements, got {p}")
    return (p[0], p[1])


def triple(v: Any, what: str) -> tuple[int, int, int]:
    """A 3-D attribute (strides, dilation, ...) from 1 or 3 values."""
    p = ints(v)
    if len(p) == 1:
        return (p[0], p[0], p[0])
    if len(p) != 3:
        raise OpError(f"{what} must have 1 or 3 elements, got {p}")
    return (p[0], p[1], p[2])


def pad6(padding: Any, opname: str) -> tuple[int, ...]:
    """TVM 3-D padding: 1 value, 3 (front/top/left = back/bottom/right) or 6 (all six sides)."""
    p = ints(padding)
    if len(p) == 1:
        return (p[0],) * 6
    if len(p) == 3:
        return (*p, *p)
    if len(p) == 6:
        return p
    raise OpError(f"{opname}: padding must have 1, 3 or 6 elements, got {p}")

