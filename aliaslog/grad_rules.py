"""Primal gradient rules (TVM's `FPrimalGradient`, `python/tvm/relay/op/_tensor_grad.py`) as data.

`RULES` maps an op name to `rule(orig, grad) -> list[Expr]`, one gradient per argument of `orig`.
`orig` is the op applied to *annotated* variables (the higher-order transform binds every primal
argument to a typed var), so a rule reads argument types from their annotations, as TVM's rules
read `checked_type`. Rules build plain Relay calls; the transform adds them into the gradient cells.

Deviations from v0.19, by design of this project: `take` and `strided_slice` use a one-hot /
selection-matrix formulation (TVM builds a `while_loop` / calls `strided_set`, which our op set
lacks). Not provided: `gather_nd`, `arange`, `dyn.*`, `contrib_reverse_reshape`, which the
registry does not define at all.

`nn.conv2d`, `nn.max_pool2d`, `nn.avg_pool2d` and `nn.global_avg_pool2d` emit the same helper
calls as v0.19 (`nn.conv2d_transpose` + `nn.conv2d_backward_weight`, `nn.max_pool2d_grad`,
`nn.avg_pool2d_grad`) with the same attributes, including v0.19's limits: the conv2d rule's
`output_padding` ignores dilation, and the pool rules drop the pool's `dilation`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from extractor.relay.ast import (
    Call,
    Constant,
    Expr,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
    const,
)
from extractor.relay.op_types import Defer, OpAttrs, RelError, Result, relation
from extractor.relay.ops import NO_DEFAULT, lookup
from extractor.relay.ops import make_call as op

GradRule = Callable[[Call, Expr], list[Expr]]

RULES: dict[str, GradRule] = {}


class RuleError(Exception):
    """A rule cannot apply to this call (unsupported attribute or unknown argument type)."""


def register_gradient(name: str) -> Callable[[GradRule], GradRule]:
    """Register `rule` as the gradient of op `name` (one rule per op, like TVM's level-10 attr)."""

    def deco(rule: GradRule) -> GradRule:
        if lookup(name) is None:
            raise KeyError(f"gradient registered for unknown op {name!r}")
        RULES[name] = rule
        return rule

    return deco


def get_rule(name: str) -> GradRule | None:
    """The gradient rule of op `name`, or None when the op has no gradient."""
    return RULES.get(name)


# ------------------------------------------------------------------------------------- builders


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
    return op("add", a, b)


def sub(a: Expr, b: Expr) -> Call:
    return op("subtract", a, b)


def mul(a: Expr, b: Expr) -> Call:
    return op("multiply", a, b)


def div(a: Expr, b: Expr) -> Call:
    return op("divide", a, b)


def neg(a: Expr) -> Call:
    return op("negative", a)


def csl(a: Expr, b: Expr) -> Call:
    return op("collapse_sum_like", a, b)


def zeros_like(a: Expr) -> Call:
    return op("zeros_like", a)


def ones_like(a: Expr) -> Call:
    return op("ones_like", a)


def rsum(a: Expr, axis: object = None, keepdims: bool = False, exclude: bool = False) -> Call:
    """`sum` as the Python API builds it: an int axis becomes a one-element list."""
    if isinstance(axis, int):
        axis = [axis]
    return op("sum", a, axis=axis, keepdims=keepdims, exclude=exclude)


def matmul(a: Expr, b: Expr, transpose_a: bool = False, transpose_b: bool = False) -> Call:
    """`nn.matmul` as v0.19's Python API builds it: (False, True) is emitted as nn.dense."""
    if not transpose_a and transpose_b:
        return op("nn.dense", a, b, units=None)
    return op("nn.matmul", a, b, units=None, transpose_a=transpose_a, transpose_b=transpose_b)


def attr_of(call: Call, name: str) -> object:
    """The call's attribute `name`, or the op's declared default (TVM's `orig.attrs.name`)."""
    if name in call.attrs:
        return call.attrs[name]
    d = lookup(call.op.name) if isinstance(call.op, Op) else None
    f = d.field(name) if d is not None else None
    return None if f is None or f.default is NO_DEFAULT else f.default


def out_type(call: Call) -> TensorType:
    """The static tensor type of an op call (TVM's `orig.checked_type`), from its relation."""
    name = call.op.name if isinstance(call.op, Op) else ""
    rel = relation(name)
    if rel is None:
        raise RuleError(f"{name} has no type relation")
    try:
        t = rel([type_of(a) for a in call.args], OpAttrs(call.attrs, lookup(name)))
    except (Defer, RelError) as err:
        why = getattr(err, "message", "an input type is unknown")
        raise RuleError(f"cannot type {name}: {why}") from None
    if isinstance(t, Result):
        t = t.out
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
    axis = orig.attrs.get("axis")
    exclude = bool(orig.attrs.get("exclude", False))
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
        e = op("expand_dims", e, axis=ax, num_newaxis=1)
    return e


# --------------------------------------------------------------------------- elementwise, unary


@register_gradient("log")
def _log(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [div(mul(g, ones_like(x)), x)]


@register_gradient("log2")
def _log2(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [div(mul(g, ones_like(x)), mul(op("log", scalar(2.0, x)), x))]


@register_gradient("log10")
def _log10(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [div(mul(g, ones_like(x)), mul(op("log", scalar(10.0, x)), x))]


@register_gradient("cos")
def _cos(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [mul(g, mul(neg(ones_like(x)), op("sin", x)))]


@register_gradient("cosh")
def _cosh(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [mul(g, op("sinh", x))]


@register_gradient("sin")
def _sin(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [mul(g, op("cos", x))]


@register_gradient("sinh")
def _sinh(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [mul(g, op("cosh", x))]


@register_gradient("tan")
def _tan(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [div(g, mul(op("cos", x), op("cos", x)))]


@register_gradient("acos")
def _acos(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    ones = ones_like(x)
    return [mul(g, div(neg(ones), op("sqrt", sub(ones, mul(x, x)))))]


@register_gradient("acosh")
def _acosh(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    ones = ones_like(x)
    return [div(mul(g, ones), op("sqrt", sub(mul(x, x), ones)))]


@register_gradient("asin")
def _asin(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    ones = ones_like(x)
    return [div(mul(g, ones), op("sqrt", sub(ones, mul(x, x))))]


@register_gradient("asinh")
def _asinh(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    ones = ones_like(x)
    return [div(mul(g, ones), op("sqrt", add(ones, mul(x, x))))]


@register_gradient("atan")
def _atan(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    ones = ones_like(x)
    return [div(mul(g, ones), add(ones, mul(x, x)))]


@register_gradient("atanh")
def _atanh(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    ones = ones_like(x)
    return [div(mul(g, ones), sub(ones, mul(x, x)))]


@register_gradient("exp")
def _exp(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    return [mul(g, op("exp", x))]


@register_gradient("sqrt")
def _sqrt(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    a = scalar(0.5, x)
    return [mul(mul(g, a), op("power", x, neg(a)))]


@register_gradient("sigmoid")
def _sigmoid(orig: Call, g: Expr) -> list[Expr]:
    return [mul(mul(g, orig), sub(ones_like(orig), orig))]


@register_gradient("tanh")
def _tanh(orig: Call, g: Expr) -> list[Expr]:
    return [mul(g, sub(ones_like(orig), mul(orig, orig)))]


@register_gradient("negative")
def _negative(orig: Call, g: Expr) -> list[Expr]:
    return [neg(g)]


@register_gradient("nn.relu")
def _relu(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    zeros = zeros_like(x)
    ones = ones_like(x)
    return [op("where", op("less", x, zeros), zeros, mul(ones, g))]


@register_gradient("abs")
def _abs(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    zeros = zeros_like(x)
    ones = ones_like(x)
    return [op("where", op("less", x, zeros), mul(neg(ones), g), mul(ones, g))]


@register_gradient("erf")
def _erf(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    c = scalar(2.0 / math.sqrt(math.pi), x)
    return [mul(mul(c, op("exp", mul(neg(x), x))), g)]


@register_gradient("clip")
def _clip(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    a_mins = op("broadcast_to_like", scalar(float(orig.attrs["a_min"]), x), x)  # type: ignore[arg-type]
    a_maxs = op("broadcast_to_like", scalar(float(orig.attrs["a_max"]), x), x)  # type: ignore[arg-type]
    zeros = zeros_like(x)
    ones = ones_like(x)
    inner = op("where", op("less", a_maxs, x), zeros, mul(ones, g))
    return [op("where", op("less", x, a_mins), zeros, inner)]


@register_gradient("copy")
def _copy(orig: Call, g: Expr) -> list[Expr]:
    return [g]


@register_gradient("zeros_like")
def _zeros_like(orig: Call, g: Expr) -> list[Expr]:
    return [orig]


@register_gradient("ones_like")
def _ones_like(orig: Call, g: Expr) -> list[Expr]:
    return [zeros_like(orig.args[0])]


@register_gradient("zeros")
def _zeros(orig: Call, g: Expr) -> list[Expr]:
    return []


@register_gradient("ones")
def _ones(orig: Call, g: Expr) -> list[Expr]:
    return []


@register_gradient("shape_of")
def _shape_of(orig: Call, g: Expr) -> list[Expr]:
    return [zeros_like(orig.args[0])]


@register_gradient("cast")
def _cast(orig: Call, g: Expr) -> list[Expr]:
    return [op("cast_like", g, orig.args[0])]


@register_gradient("cast_like")
def _cast_like(orig: Call, g: Expr) -> list[Expr]:
    x, like = orig.args
    return [op("cast_like", g, x), zeros_like(like)]


def _no_grad(orig: Call, g: Expr) -> list[Expr]:
    return [zeros_like(a) for a in orig.args]


for _name in ("less_equal", "not_equal"):
    register_gradient(_name)(_no_grad)


# --------------------------------------------------------------------------------- binary, bcast


@register_gradient("add")
def _add(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    return [csl(g, x), csl(g, y)]


@register_gradient("subtract")
def _subtract(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    return [csl(g, x), csl(neg(g), y)]


@register_gradient("multiply")
def _multiply(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    return [csl(mul(g, y), x), csl(mul(g, x), y)]


@register_gradient("divide")
def _divide(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    return [csl(div(g, y), x), csl(neg(div(mul(g, orig), y)), y)]


@register_gradient("collapse_sum_like")
def _collapse_sum_like(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    return [op("broadcast_to_like", g, x), zeros_like(y)]


@register_gradient("where")
def _where(orig: Call, g: Expr) -> list[Expr]:
    cond, x, y = orig.args
    g_zeros = zeros_like(g)
    grad_x = csl(op("where", cond, g, g_zeros), x)
    grad_y = csl(op("where", cond, g_zeros, g), y)
    return [zeros_like(cond), grad_x, grad_y]


# ------------------------------------------------------------------------------------ reductions


@register_gradient("sum")
def _sum(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    axis = reduce_axis(orig, x)
    if not orig.attrs.get("keepdims", False):
        if axis is None:
            axis = list(range(len(shape(x))))
        g = unreduce_expand(g, axis)
    return [op("broadcast_to_like", g, x)]


@register_gradient("max")
def _max(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    axis = reduce_axis(orig, x)
    o: Expr = orig
    if not orig.attrs.get("keepdims", False):
        if axis is None:
            axis = list(range(len(shape(x))))
        o = unreduce_expand(o, axis)
        g = unreduce_expand(g, axis)
    o = op("broadcast_to_like", o, x)
    g = op("broadcast_to_like", g, x)
    indicators = op("cast_like", op("equal", o, x), g)
    count = rsum(indicators, axis, True)
    return [div(mul(g, indicators), count)]


@register_gradient("mean")
def _mean(orig: Call, g: Expr) -> list[Expr]:
    (x,) = orig.args
    axis = reduce_axis(orig, x)
    shp = shape(x)
    if axis is None:
        axis = list(range(len(shp)))
    if not orig.attrs.get("keepdims", False):
        g = unreduce_expand(g, axis)
    mult = 1.0
    for a in axis:
        mult *= shp[a]
    return [op("broadcast_to_like", div(g, scalar(mult, x)), x)]


@register_gradient("variance")
def _variance(orig: Call, g: Expr) -> list[Expr]:
    """TVM's rule: d/dx = 2x/n, d/dmean = -2 mean; correct when mean is mean(x) upstream."""
    data, data_mean = orig.args
    axis = reduce_axis(orig, data)
    shp = shape(data)
    if axis is None:
        axis = list(range(len(shp)))
    if not orig.attrs.get("keepdims", False):
        g = unreduce_expand(g, axis)
    mult1, mult2, count = 2.0, -2.0, 1
    for a in axis:
        count *= shp[a]
    if orig.attrs.get("unbiased", False):
        mult2 = mult2 * count / (count - 1)
        count -= 1
    mult1 /= count
    return [
        mul(mul(g, scalar(mult1, data)), data),
        mul(mul(scalar(mult2, data), g), data_mean),
    ]


# ------------------------------------------------------------------------------------------- nn


@register_gradient("nn.softmax")
def _softmax(orig: Call, g: Expr) -> list[Expr]:
    axis = orig.attrs.get("axis", -1)
    return [mul(sub(g, rsum(mul(g, orig), axis, True)), orig)]


@register_gradient("nn.log_softmax")
def _log_softmax(orig: Call, g: Expr) -> list[Expr]:
    axis = orig.attrs.get("axis", -1)
    return [sub(g, mul(rsum(g, axis, keepdims=True), op("exp", orig)))]


@register_gradient("nn.bias_add")
def _bias_add(orig: Call, g: Expr) -> list[Expr]:
    data, _bias = orig.args
    axis = orig.attrs.get("axis", 1)
    return [csl(g, data), rsum(g, axis, keepdims=False, exclude=True)]


@register_gradient("nn.dense")
def _dense(orig: Call, g: Expr) -> list[Expr]:
    data, weight = orig.args
    units_w, units_x = shape(weight)[1], shape(data)[1]
    return [
        csl(op("nn.dense", g, op("transpose", weight, axes=None), units=units_w), data),
        csl(
            op("nn.dense", op("transpose", g, axes=None), op("transpose", data, axes=None),
               units=units_x),
            weight,
        ),
    ]


@register_gradient("nn.conv2d")
def _conv2d(orig: Call, g: Expr) -> list[Expr]:
    """dX by nn.conv2d_transpose, dW by nn.conv2d_backward_weight (v0.19's rule)."""
    data, weight = orig.args
    _, _, in_h, in_w = _dims4(shape(data), "data")
    _, _, filter_h, filter_w = _dims4(shape(weight), "weight")
    _, _, grad_h, grad_w = _dims4(shape_of_type(out_type(orig)), "output")
    fpad_top, fpad_left, fpad_bottom, fpad_right = pad_tuple2d(attr_of(orig, "padding"))
    strides = int_tuple(attr_of(orig, "strides"), "strides")
    if len(strides) != 2:
        raise RuleError(f"conv2d gradient needs 2 strides, not {len(strides)}")
    stride_h, stride_w = strides
    # v0.19 infers output_padding without the dilation, so dilated kernels get a wrong size
    out_h = (grad_h - 1) * stride_h - fpad_top - fpad_bottom + filter_h
    out_w = (grad_w - 1) * stride_w - fpad_left - fpad_right + filter_w
    output_padding = (in_h - out_h, in_w - out_w)
    data_layout, kernel_layout = attr_of(orig, "data_layout"), attr_of(orig, "kernel_layout")
    out_layout = attr_of(orig, "out_layout")
    if data_layout != "NCHW":
        raise RuleError("only support NCHW data layout")
    if kernel_layout != "OIHW":
        raise RuleError("only support OIHW kernel layout")
    if out_layout not in ("", "NCHW"):
        raise RuleError("only support NCHW output layout")
    out_dtype = attr_of(orig, "out_dtype") or dtype(data)
    common = dict(strides=attr_of(orig, "strides"), padding=pad_tuple2d(attr_of(orig, "padding")),
                  dilation=attr_of(orig, "dilation"), groups=attr_of(orig, "groups"))
    backward_data = op("nn.conv2d_transpose", g, weight, **common,
                       output_padding=output_padding, out_dtype=out_dtype)
    backward_weight = op("nn.conv2d_backward_weight", g, data, **common,
                         channels=attr_of(orig, "channels"), kernel_size=(filter_h, filter_w),
                         data_layout=out_layout or data_layout,  # the grad's layout
                         kernel_layout=data_layout,  # the data's layout
                         out_layout=kernel_layout,  # the weight's layout
                         out_dtype=out_dtype)
    return [backward_data, backward_weight]


def _dims4(s: tuple[int, ...], what: str) -> tuple[int, int, int, int]:
    if len(s) != 4:
        raise RuleError(f"conv2d gradient needs a 4-D {what}, got shape {s}")
    return s[0], s[1], s[2], s[3]


@register_gradient("nn.max_pool2d")
def _max_pool2d(orig: Call, g: Expr) -> list[Expr]:
    """nn.max_pool2d_grad with the pool's size, strides, padding, layout and ceil_mode."""
    return [op("nn.max_pool2d_grad", g, orig.args[0],
               **{k: attr_of(orig, k)
                  for k in ("pool_size", "strides", "padding", "layout", "ceil_mode")})]


@register_gradient("nn.avg_pool2d")
def _avg_pool2d(orig: Call, g: Expr) -> list[Expr]:
    """nn.avg_pool2d_grad with the pool's attributes (not its dilation), as v0.19 passes them."""
    keys = ("pool_size", "strides", "padding", "layout", "ceil_mode", "count_include_pad")
    return [op("nn.avg_pool2d_grad", g, orig.args[0], **{k: attr_of(orig, k) for k in keys})]


@register_gradient("nn.global_avg_pool2d")
def _global_avg_pool2d(orig: Call, g: Expr) -> list[Expr]:
    """An average pool over the whole H x W plane: nn.avg_pool2d_grad with pool_size (H, W)."""
    (data,) = orig.args
    shp = shape(data)
    layout = attr_of(orig, "layout")
    if layout == "NCHW":
        pool_size = (shp[2], shp[3])
    elif layout == "NHWC":
        pool_size = (shp[1], shp[2])
    else:
        raise RuleError(f"global_avg_pool2d gradient supports layouts NCHW and NHWC, "
                        f"not {layout!r}")
    return [op("nn.avg_pool2d_grad", g, data, pool_size=pool_size, strides=(1, 1),
               padding=(0, 0), layout=layout)]


@register_gradient("nn.matmul")
def _matmul(orig: Call, g: Expr) -> list[Expr]:
    a, b = orig.args
    ta, tb = bool(orig.attrs.get("transpose_a", False)), bool(orig.attrs.get("transpose_b", False))
    if ta and tb:
        return [csl(matmul(b, g, True, True), a), csl(matmul(g, a, True, True), b)]
    if ta:
        return [csl(matmul(b, g, transpose_b=True), a), csl(matmul(a, g), b)]
    if tb:
        return [csl(matmul(g, b), a), csl(matmul(g, a, transpose_a=True), b)]
    return [csl(matmul(g, b, transpose_b=True), a), csl(matmul(a, g, transpose_a=True), b)]


def _bmm(a: Expr, b: Expr, ta: bool, tb: bool) -> Call:
    return op("nn.batch_matmul", a, b, transpose_a=ta, transpose_b=tb)


@register_gradient("nn.batch_matmul")
def _batch_matmul(orig: Call, g: Expr) -> list[Expr]:
    lhs, rhs = orig.args
    ta = bool(orig.attrs.get("transpose_a", False))
    tb = bool(orig.attrs.get("transpose_b", True))
    if ta and tb:
        return [csl(_bmm(rhs, g, True, True), lhs), csl(_bmm(g, lhs, True, True), rhs)]
    if ta:
        return [csl(_bmm(rhs, g, False, True), lhs), csl(_bmm(lhs, g, False, False), rhs)]
    if tb:
        perm = (0, 2, 1)
        return [
            csl(_bmm(g, op("transpose", rhs, axes=perm), False, True), lhs),
            csl(_bmm(op("transpose", g, axes=perm), op("transpose", lhs, axes=perm), False, True),
                rhs),
        ]
    return [csl(_bmm(g, rhs, False, True), lhs), csl(_bmm(lhs, g, True, False), rhs)]


@register_gradient("nn.batch_flatten")
def _batch_flatten(orig: Call, g: Expr) -> list[Expr]:
    return [op("reshape_like", g, orig.args[0])]


def _batch_size(x: Expr) -> Call:
    """`cast(take(shape_of(x), 0, axis=0), x.dtype)`: the batch size as a scalar of x's dtype."""
    b = op("take", op("shape_of", x, dtype="int32"), const(0, "int32"), axis=0)
    return op("cast", b, dtype=dtype(x))


@register_gradient("nn.cross_entropy")
def _cross_entropy(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    g = div(g, _batch_size(x))
    return [div(mul(neg(g), y), x), mul(neg(g), op("log", x))]


@register_gradient("nn.cross_entropy_with_logits")
def _cross_entropy_with_logits(orig: Call, g: Expr) -> list[Expr]:
    x, y = orig.args
    g = div(g, _batch_size(x))
    return [mul(neg(g), y), mul(neg(g), x)]


# ------------------------------------------------------------------------------------- transform


@register_gradient("transpose")
def _transpose(orig: Call, g: Expr) -> list[Expr]:
    axes = orig.attrs.get("axes")
    new_axes: list[int] | None = None
    if axes:
        dims = len(axes)  # type: ignore[arg-type]
        new_axes = [0] * dims
        for i in range(dims):
            new_axes[int(axes[i])] = i  # type: ignore[index]
    return [op("transpose", g, axes=new_axes)]


@register_gradient("reshape")
def _reshape(orig: Call, g: Expr) -> list[Expr]:
    return [op("reshape_like", g, orig.args[0])]


@register_gradient("reshape_like")
def _reshape_like(orig: Call, g: Expr) -> list[Expr]:
    data, like = orig.args
    return [op("reshape_like", g, data), zeros_like(like)]


@register_gradient("squeeze")
def _squeeze(orig: Call, g: Expr) -> list[Expr]:
    return [op("reshape_like", g, orig.args[0])]


@register_gradient("expand_dims")
def _expand_dims(orig: Call, g: Expr) -> list[Expr]:
    return [op("reshape_like", g, orig.args[0])]


def _split_points(sizes: list[int]) -> list[int]:
    out, acc = [], 0
    for s in sizes[:-1]:
        acc += s
        out.append(acc)
    return out


@register_gradient("concatenate")
def _concatenate(orig: Call, g: Expr) -> list[Expr]:
    (t,) = orig.args
    tt = type_of(t)
    if not isinstance(tt, TupleType):
        raise RuleError("concatenate expects a tuple argument")
    axis = int(orig.attrs.get("axis", 0))  # type: ignore[arg-type]
    dims = []
    for f in tt.fields:
        if not isinstance(f, TensorType) or f.shape[axis] is None:
            raise RuleError("concatenate gradient needs static field shapes")
        dims.append(int(f.shape[axis]))  # type: ignore[arg-type]
    return [op("split", g, indices_or_sections=tuple(_split_points(dims)), axis=axis)]


@register_gradient("stack")
def _stack(orig: Call, g: Expr) -> list[Expr]:
    (t,) = orig.args
    tt = type_of(t)
    if not isinstance(tt, TupleType):
        raise RuleError("stack expects a tuple argument")
    axis = int(orig.attrs.get("axis", 0))  # type: ignore[arg-type]
    splits = op("split", g, indices_or_sections=len(tt.fields), axis=axis)
    return [Tuple(tuple(op("squeeze", TupleGetItem(splits, i), axis=[axis])
                        for i in range(len(tt.fields))))]


@register_gradient("one_hot")
def _one_hot(orig: Call, g: Expr) -> list[Expr]:
    indices, on_value, off_value = orig.args
    g_zeros = zeros_like(g)
    on_mask = op("equal", orig, on_value)
    grad_on = rsum(op("where", on_mask, g, g_zeros))
    grad_off = rsum(op("where", on_mask, g_zeros, g))
    return [zeros_like(indices), op("cast_like", grad_on, on_value),
            op("cast_like", grad_off, off_value)]


@register_gradient("take")
def _take(orig: Call, g: Expr) -> list[Expr]:
    """Scatter-add of g into a, as a one-hot contraction (TVM v0.19 builds a while loop)."""
    a, indices = orig.args
    if int(orig.attrs.get("batch_dims", 0) or 0) != 0:  # type: ignore[arg-type]
        raise RuleError("take with batch_dims != 0 has no gradient")
    a_shape = shape(a)
    axis = orig.attrs.get("axis")
    if axis is None:
        pre, n, post = 1, int(np.prod(a_shape, dtype=np.int64)), 1
    else:
        k = int(axis) if int(axis) >= 0 else len(a_shape) + int(axis)  # type: ignore[arg-type]
        pre = int(np.prod(a_shape[:k], dtype=np.int64))
        n = a_shape[k]
        post = int(np.prod(a_shape[k + 1:], dtype=np.int64))
    m = int(np.prod(shape(indices), dtype=np.int64))
    idx: Expr = op("reshape", indices, newshape=(m,))
    mode = orig.attrs.get("mode", "clip")
    if mode == "clip":
        idx = op("clip", idx, a_min=0.0, a_max=float(n - 1))
    elif mode == "wrap":
        idx = op("floor_mod", idx, const(np.asarray(n, dtype=dtype(indices))))
    dt = dtype(a)
    hot = op("one_hot", idx, const(1.0, dt), const(0.0, dt), depth=n, axis=-1, dtype=dt)
    g3 = op("expand_dims", op("reshape", g, newshape=(pre, m, post)), axis=2, num_newaxis=1)
    contrib = mul(g3, op("reshape", hot, newshape=(1, m, n, 1)))
    return [op("reshape_like", rsum(contrib, 1), a), zeros_like(indices)]


@register_gradient("strided_slice")
def _strided_slice(orig: Call, g: Expr) -> list[Expr]:
    """Scatter of g into zeros, one selection matrix per sliced axis (TVM: strided_set)."""
    (x,) = orig.args
    if orig.attrs.get("axes") is not None:
        raise RuleError("grad for strided_slice with axes is not supported")
    x_shape = shape(x)
    begin = list(orig.attrs["begin"])  # type: ignore[arg-type]
    end = list(orig.attrs["end"])  # type: ignore[arg-type]
    strides_attr = orig.attrs.get("strides")
    strides = list(strides_attr) if strides_attr else []  # type: ignore[arg-type]
    size_mode = orig.attrs.get("slice_mode", "end") == "size"
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
