"""SimplifyInference of TVM v0.19 (src/relay/transforms/simplify_inference.cc).

Inference-mode rewrites the debug executor applies before running a program, built call for
call as v0.19's `*ToInferUnpack` functions build them:

- the result `.0` of `nn.batch_norm` becomes `data * scale + shift` with
  `scale = 1 / sqrt(var + eps) [* gamma]` and `shift = -mean * scale [+ beta]`, each broadcast
  along the channel axis as `ExpandBiasToMatchAxis` does; the result `.0` of `nn.dropout`
  becomes its input. A batch_norm or dropout whose tuple is used otherwise is left alone.
- `nn.layer_norm`, `nn.instance_norm` and `nn.group_norm` (every call) become
  `(x - mean) / sqrt(variance + eps)` over their normalised axes (`mean` and `variance` with
  keepdims, biased), then `* gamma` and `+ beta` broadcast along `axis` when `scale` /
  `center`; group_norm first reshapes C into (num_groups, C / num_groups) and reshapes back
  before gamma.
- `nn.l2_normalize` becomes `x / sqrt(maximum(sum(x * x, axis, keepdims), eps))`, eps a float32
  scalar whatever the data's dtype (as in v0.19, so float64 data does not type-check after it).

Every epsilon is `MakeConstantScalar(dtype, float(eps))`: the float32 value of the attribute,
in the data's dtype.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...runtime import run_deep
from ..ast import (
    Call,
    Constant,
    Expr,
    ExprMutator,
    Module,
    Op,
    TensorType,
    TupleGetItem,
    post_order,
)
from ..ops import OpAttrs, lookup, make_call
from ..typeinfer import infer_types

REWRITTEN = frozenset({"nn.batch_norm", "nn.dropout", "nn.layer_norm", "nn.instance_norm",
                       "nn.group_norm", "nn.l2_normalize"})


def scalar(dtype: str, value: float) -> Constant:
    """MakeConstantScalar: a rank-0 constant of dtype holding float32(value)."""
    return Constant(np.asarray(np.float32(value)).astype(dtype))


def expand_bias_to_match_axis(bias: Expr, ndim: int, axis: int) -> Expr:
    """Give a per-channel vector trailing unit axes so it broadcasts along `axis`."""
    pad = ndim - axis - 1
    return make_call("expand_dims", bias, axis=1, num_newaxis=pad) if pad > 0 else bias


def _axis(attrs: OpAttrs, ndim: int) -> int:
    axis = int(attrs["axis"])  # type: ignore[call-overload]
    return axis + ndim if axis < 0 else axis


def batch_norm_to_infer_unpack(call: Call, tdata: TensorType) -> Expr:
    """BatchNormToInferUnpack: `nn.batch_norm(...).0` with the moving statistics."""
    data, gamma, beta, mean, var = call.args
    attrs = OpAttrs(call.attrs, lookup("nn.batch_norm"))
    dt = tdata.dtype
    scale: Expr = make_call("divide", scalar(dt, 1.0),
                            make_call("sqrt", make_call("add", var, scalar(dt, attrs["epsilon"]))))
    if attrs["scale"]:
        scale = make_call("multiply", scale, gamma)
    shift: Expr = make_call("multiply", make_call("negative", mean), scale)
    if attrs["center"]:
        shift = make_call("add", shift, beta)
    ndim = len(tdata.shape)
    axis = _axis(attrs, ndim)
    scale = expand_bias_to_match_axis(scale, ndim, axis)
    shift = expand_bias_to_match_axis(shift, ndim, axis)
    return make_call("add", make_call("multiply", data, scale), shift)


def _normalise(data: Expr, axes: list[int], eps: float, dtype: str) -> Expr:
    """`(data - mean) / sqrt(variance + eps)` over axes, as the three norm unpacks build it."""
    mean = make_call("mean", data, axis=axes, keepdims=True, exclude=False)
    var = make_call("variance", data, mean, axis=axes, keepdims=True, exclude=False,
                    unbiased=False)
    denom = make_call("sqrt", make_call("add", var, scalar(dtype, eps)))
    return make_call("divide", make_call("subtract", data, mean), denom)


def _scale_center(out: Expr, call: Call, attrs: OpAttrs, ndim: int, axis: int) -> Expr:
    _, gamma, beta = call.args
    if attrs["scale"]:
        out = make_call("multiply", out, expand_bias_to_match_axis(gamma, ndim, axis))
    if attrs["center"]:
        out = make_call("add", out, expand_bias_to_match_axis(beta, ndim, axis))
    return out


def layer_norm_to_infer_unpack(call: Call, tdata: TensorType) -> Expr:
    """LayerNormToInferUnpack: normalise over `axis` (as written, possibly negative)."""
    attrs = OpAttrs(call.attrs, lookup("nn.layer_norm"))
    ndim = len(tdata.shape)
    out = _normalise(call.args[0], [int(attrs["axis"])],  # type: ignore[call-overload]
                     float(attrs["epsilon"]), tdata.dtype)  # type: ignore[arg-type]
    return _scale_center(out, call, attrs, ndim, _axis(attrs, ndim))


def instance_norm_to_infer_unpack(call: Call, tdata: TensorType) -> Expr:
    """InstanceNormToInferUnpack: normalise over every axis but the batch and the channel."""
    attrs = OpAttrs(call.attrs, lookup("nn.instance_norm"))
    ndim = len(tdata.shape)
    axis = _axis(attrs, ndim)
    reduced = [i for i in range(1, ndim) if i != axis]
    out = _normalise(call.args[0], reduced, float(attrs["epsilon"]),  # type: ignore[arg-type]
                     tdata.dtype)
    return _scale_center(out, call, attrs, ndim, axis)


def group_norm_to_infer_unpack(call: Call, tdata: TensorType) -> Expr:
    """GroupNormToInferUnpack: C split into (num_groups, C / num_groups), normalised over the
    group's channels and every later axis, reshaped back."""
    attrs = OpAttrs(call.attrs, lookup("nn.group_norm"))
    ndim = len(tdata.shape)
    axis = _axis(attrs, ndim)
    groups = int(attrs["num_groups"])  # type: ignore[call-overload]
    dims = [int(d) for d in tdata.shape]  # type: ignore[arg-type]
    channel = dims[axis]
    new_shape: list[int] = []
    reduced: list[int] = []
    for i, d in enumerate(dims):
        if i == axis:
            new_shape.extend([groups, channel // groups])
            reduced.append(i + 1)
            continue
        if i >= axis:
            reduced.append(i + 1)
        new_shape.append(d)
    data = make_call("reshape", call.args[0], newshape=new_shape)
    out = _normalise(data, reduced, float(attrs["epsilon"]), tdata.dtype)  # type: ignore[arg-type]
    out = make_call("reshape", out, newshape=dims)
    return _scale_center(out, call, attrs, ndim, axis)


def l2_norm_to_infer_unpack(call: Call, tdata: TensorType) -> Expr:
    """L2NormToInferUnpack: data / sqrt(maximum(sum(data * data, axis, keepdims), eps))."""
    attrs = OpAttrs(call.attrs, lookup("nn.l2_normalize"))
    (data,) = call.args
    sqr = make_call("multiply", data, data)
    total = make_call("maximum",
                      make_call("sum", sqr, axis=attrs["axis"], keepdims=True, exclude=False),
                      scalar("float32", float(attrs["eps"])))  # type: ignore[arg-type]
    return make_call("divide", data, make_call("sqrt", total))


_CALL_REWRITES: dict[str, Callable[[Call, TensorType], Expr]] = {
    "nn.layer_norm": layer_norm_to_infer_unpack,
    "nn.instance_norm": instance_norm_to_infer_unpack,
    "nn.group_norm": group_norm_to_infer_unpack,
    "nn.l2_normalize": l2_norm_to_infer_unpack,
}


class _Simplifier(ExprMutator):
    def __init__(self, types: dict[int, object]) -> None:
        super().__init__()
        self.types = types

    def _data_type(self, orig: Call) -> TensorType:
        """The checked type of the original call's data (TVM: n->args[0]->checked_type())."""
        t = self.types[id(orig.args[0])]
        assert isinstance(t, TensorType)
        return t

    def visit_Call(self, e: Call) -> Expr:
        new = super().visit_Call(e)
        if isinstance(e.op, Op) and e.op.name in _CALL_REWRITES:
            assert isinstance(new, Call)
            return _CALL_REWRITES[e.op.name](new, self._data_type(e))
        return new

    def visit_TupleGetItem(self, e: TupleGetItem) -> Expr:
        new = super().visit_TupleGetItem(e)
        assert isinstance(new, TupleGetItem)
        call = new.tuple_value
        if new.index != 0 or not isinstance(call, Call) or not isinstance(call.op, Op):
            return new
        if call.op.name == "nn.dropout":
            return call.args[0]
        if call.op.name == "nn.batch_norm":
            orig = e.tuple_value
            assert isinstance(orig, Call)
            return batch_norm_to_infer_unpack(call, self._data_type(orig))
        return new


def simplify_inference(mod: Module) -> Module:
    """mod with batch_norm, dropout and the four norms in inference form (types first)."""
    if not any(isinstance(n, Call) and isinstance(n.op, Op) and n.op.name in REWRITTEN
               for fn in mod.functions.values() for n in post_order(fn)):
        return mod
    typed = infer_types(mod)
    simp = _Simplifier(typed.types)
    fns = {name: run_deep(lambda fn=fn: simp.visit(fn))
           for name, fn in typed.module.functions.items()}
    return Module(fns, mod.type_defs, mod.source_name)  # type: ignore[arg-type]
