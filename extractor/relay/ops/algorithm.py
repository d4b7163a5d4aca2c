"""Sorting, scans and contractions: sort, argsort, topk, unique, cumsum, cumprod, einsum.

Sources: src/relay/op/algorithm/{sort,argsort,topk}.cc, src/relay/op/tensor/transform.cc
(ScanopRel, UniqueRel), src/relay/op/tensor/math.cc (EinsumRel) and topi's computes at v0.19.
The CPU sorts of v0.19 (`tvm.contrib.sort.*`) are `std::stable_sort` with `<` or `>`: equal
elements keep their order in both directions, which the kernels reproduce. None of these ops has
a gradient rule in v0.19. v0.19 registers cumsum, cumprod and unique without an attrs type (its
parser then rejects their keyword attributes, which the Make functions do set); the attrs types
their Make functions build are used here.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import Attrs, TensorType, TupleType, Type, type_str
from . import kernel as K
from . import relation as R
from .registry import F, OpAttrs, OpDef, OpError, attr, register
from .relation import Dim, RelError

# --------------------------------------------------------------------------- sort, argsort


def stable_argsort(x: np.ndarray, axis: int, ascend: bool) -> np.ndarray:
    """Indices that sort x along axis, equal elements in their original order either way."""
    if ascend:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.flip(x, axis=axis)
    idx = np.flip(np.argsort(rev, axis=axis, kind="stable"), axis=axis)
    return (n - 1) - idx


def _sort_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    R.axis(attrs["axis"], len(x.shape), x)
    return x


def _sort_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    ax = K.axis(int(attr(attrs, "sort", "axis")), x.ndim)
    idx = stable_argsort(x, ax, bool(attr(attrs, "sort", "is_ascend")))
    return np.take_along_axis(x, idx, axis=ax)


_ARGSORT = (F("axis", -1, pod_int=True), F("is_ascend", True), F("dtype", ""))
register(OpDef("sort", 1, "relay.attrs.ArgsortAttrs", _ARGSORT,
               relation=_sort_type, kernel=_sort_kernel))


def _argsort_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """ArgsortRel: data's shape in `dtype` (null, which the Python API never leaves it, reads
    as the API's int32)."""
    x = R.tensor(args, 0)
    R.axis(attrs["axis"], len(x.shape), x)
    return TensorType(x.shape, attrs["dtype"] or "int32")


def _argsort_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    ax = K.axis(int(attr(attrs, "argsort", "axis")), x.ndim)
    idx = stable_argsort(x, ax, bool(attr(attrs, "argsort", "is_ascend")))
    return idx.astype(K.np_dtype(attr(attrs, "argsort", "dtype") or "int32"))


register(OpDef("argsort", 1, "relay.attrs.ArgsortAttrs", _ARGSORT,
               relation=_argsort_type, kernel=_argsort_kernel))

# ------------------------------------------------------------------------------------ topk


def _topk_parts(x: TensorType, attrs: Any) -> tuple[TensorType, TensorType, str]:
    ax = R.axis(attrs["axis"], len(x.shape), x)
    if attrs["k"] is None:
        raise RelError("attribute k is required by topk")
    k = R.integer(attrs["k"], "k")
    shape = list(x.shape)
    if k >= 1:
        shape[ax] = k
    ret = attrs["ret_type"]
    if ret not in ("both", "values", "indices"):
        raise RelError(f"Unsupported ret type: {ret}")
    return (TensorType(tuple(shape), x.dtype),
            TensorType(tuple(shape), attrs["dtype"] or "int32"), ret)


def _topk_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """TopKRel: k elements along axis (all of them when k < 1), values and/or indices."""
    values, indices, ret = _topk_parts(R.tensor(args, 0), attrs)
    if ret == "both":
        return TupleType((values, indices))
    return values if ret == "values" else indices


def _topk_kernel(args: list[Any], attrs: Attrs) -> Any:
    x = K.tensor(args[0])
    ax = K.axis(int(attr(attrs, "topk", "axis")), x.ndim)
    k = int(attr(attrs, "topk", "k"))
    idx = stable_argsort(x, ax, bool(attr(attrs, "topk", "is_ascend")))
    if k >= 1:
        idx = np.take(idx, np.arange(min(k, x.shape[ax])), axis=ax)
    values = np.take_along_axis(x, idx, axis=ax)
    indices = idx.astype(K.np_dtype(attr(attrs, "topk", "dtype") or "int32"))
    ret = attr(attrs, "topk", "ret_type")
    if ret == "both":
        return (values, indices)
    if ret == "values":
        return values
    if ret == "indices":
        return indices
    raise OpError(f"unsupported ret_type {ret!r}")


# TopKAttrs' key is spelt `TopkAttrs`; `k` has no default; ret_type precedes is_ascend
register(OpDef("topk", 1, "relay.attrs.TopkAttrs",
               (F("k", nullable=True), F("axis", -1, pod_int=True), F("ret_type", "both"),
                F("is_ascend", False), F("dtype", "")),
               relation=_topk_type, kernel=_topk_kernel))

# ---------------------------------------------------------------------------------- unique


def _unique_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """UniqueRel: (unique, indices, inverse_indices, num_unique[, counts]) for 1-D data."""
    x = R.tensor(args, 0)
    if len(x.shape) != 1:
        raise RelError(f"unique: input must be 1-D tensor, not {type_str(x)}", 0)
    idx = TensorType(x.shape, "int32")
    fields: list[Type] = [x, idx, idx, TensorType((1,), "int32")]
    if attrs["return_counts"]:
        fields.append(idx)
    return TupleType(tuple(fields))


def _unique_kernel(args: list[Any], attrs: Attrs) -> Any:
    """topi.unique; past num_unique, unique and counts (undefined in v0.19) are zeros and
    indices hold len(data), as its first-occurrence buffer is initialised."""
    x = K.tensor(args[0])
    if x.ndim != 1:
        raise OpError(f"unique: input must be 1-D, got shape {x.shape}")
    n = x.shape[0]
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True)
    m = len(values)
    if not attr(attrs, "unique", "sorted"):
        order = np.argsort(first, kind="stable")  # by first occurrence
        rank = np.empty(m, dtype=np.int64)
        rank[order] = np.arange(m)
        values, counts, inverse = values[order], counts[order], rank[inverse]
        first = np.sort(first)

    def padded(v: np.ndarray, fill: int, dtype: Any) -> np.ndarray:
        out = np.full(n, fill, dtype=dtype)
        out[:m] = v
        return out

    out = [padded(values, 0, x.dtype), padded(first, n, np.int32),
           np.asarray(inverse, dtype=np.int32).reshape(n), np.array([m], dtype=np.int32)]
    if attr(attrs, "unique", "return_counts"):
        out.append(padded(counts, 0, np.int32))
    return tuple(out)


register(OpDef("unique", 1, "relay.attrs.UniqueAttrs",
               (F("sorted", True), F("return_counts", False)),
               relation=_unique_type, kernel=_unique_kernel))

# --------------------------------------------------------------------------- cumsum, cumprod

_SCANOP = (F("axis", None), F("dtype", ""), F("exclusive", False))


def _scan_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """ScanopRel: data's shape along `axis`, or the flattened length without one."""
    x = R.tensor(args, 0)
    dtype = attrs["dtype"] or x.dtype
    if attrs["axis"] is not None:
        R.axis(attrs["axis"], len(x.shape), x)
        return TensorType(x.shape, dtype)
    return TensorType((R.numel(x.shape),), dtype)


def _scan_kernel(opname: str, fn: Any, identity: int) -> Any:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = K.tensor(args[0])
        dt = attr(attrs, opname, "dtype")
        dtype = K.np_dtype(dt) if dt else x.dtype
        axis = attr(attrs, opname, "axis")
        if axis is None:
            x, ax = x.reshape(-1), 0
        else:
            ax = K.axis(int(axis), x.ndim)
        xd = x.astype(dtype)  # topi's scanop casts the input to the output dtype first
        with np.errstate(all="ignore"):
            out = fn(xd, axis=ax, dtype=dtype)
        if attr(attrs, opname, "exclusive") and x.shape[ax]:
            out = np.concatenate([np.full_like(np.take(out, [0], axis=ax), identity),
                                  np.take(out, np.arange(x.shape[ax] - 1), axis=ax)], axis=ax)
        return np.asarray(out, dtype=dtype)

    return run


register(OpDef("cumsum", 1, "relay.attrs.ScanopAttrs", _SCANOP,
               relation=_scan_type, kernel=_scan_kernel("cumsum", np.cumsum, 0)))
register(OpDef("cumprod", 1, "relay.attrs.ScanopAttrs", _SCANOP,
               relation=_scan_type, kernel=_scan_kernel("cumprod", np.cumprod, 1)))

# ----------------------------------------------------------------------------------- einsum


def einsum_shape(equation: str, shapes: Sequence[Sequence[Dim]]) -> tuple[Dim, ...]:
    """InferEinsumShape: numpy's einsum rules (explicit or implicit output, `...`)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise RelError(f"einsum equation {equation!r} has {len(terms)} operands but "
                       f"{len(shapes)} tensors are given")
    letters = set(string.ascii_letters)
    seen: dict[str, list[Dim]] = {}
    ell: tuple[Dim, ...] = ()
    for term, shape in zip(terms, shapes, strict=True):
        if term.count("...") > 1 or set(term.replace("...", "")) - letters:
            raise RelError(f"invalid einsum term {term!r} in {equation!r}")
        head, dots, tail = term.partition("...")
        n_ell = len(shape) - len(head) - len(tail)
        if (n_ell != 0 and not dots) or n_ell < 0:
            raise RelError(f"einsum term {term!r} does not match a tensor of rank {len(shape)}")
        named = list(zip(head, shape[:len(head)], strict=True)) + list(
            zip(tail, shape[len(shape) - len(tail):], strict=True))
        for c, d in named:
            seen.setdefault(c, []).append(d)
        if dots:
            b = R.broadcast_shapes(ell, tuple(shape[len(head):len(shape) - len(tail)]))
            if b is None:
                raise RelError(f"einsum broadcast dims do not match in {equation!r}")
            ell = b
    sizes: dict[str, Dim] = {}
    for c, ds in seen.items():
        known = {d for d in ds if d is not None and d != 1}
        if len(known) > 1:
            raise RelError(f"einsum index {c} has sizes {sorted(known)} in {equation!r}")
        sizes[c] = known.pop() if known else (None if None in ds else 1)
    if arrow:
        out_terms = rhs
        if set(out_terms.replace("...", "")) - set(sizes):
            raise RelError(f"einsum output {rhs!r} names an index no operand has")
    else:
        counts = {c: lhs.count(c) for c in sizes}
        out_terms = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c, k in counts.items() if k == 1))
    head, dots, tail = out_terms.partition("...")
    return (*(sizes[c] for c in head), *(ell if dots else ()), *(sizes[c] for c in tail))


def _einsum_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    fs = R.tensor_fields(args, 0)
    for f in fs:
        if f.dtype != fs[0].dtype:
            raise RelError("relay.einsum requires all tensors have the same dtype", 0)
    eq = attrs["equation"]
    if not isinstance(eq, str):
        raise RelError(f"attribute equation must be a string, not {eq!r}")
    return TensorType(einsum_shape(eq, [f.shape for f in fs]), fs[0].dtype)


def _einsum_kernel(args: list[Any], attrs: Attrs) -> Any:
    if not isinstance(args[0], tuple):
        raise OpError("einsum takes a tuple of tensors")
    ts = [K.tensor(t, "tuple field") for t in args[0]]
    eq = attr(attrs, "einsum", "equation")
    return np.asarray(np.einsum(eq, *ts)).astype(ts[0].dtype, copy=False)


register(OpDef("einsum", 1, "relay.attrs.EinsumAttrs", (F("equation"),),
               relation=_einsum_type, kernel=_einsum_kernel))
