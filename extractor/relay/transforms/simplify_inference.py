"""SimplifyInference of TVM v0.19 (src/relay/transforms/simplify_inference.cc).

Inference-mode rewrites the debug executor applies before running a program: the result `.0`
of `nn.batch_norm` becomes `data * scale + shift` with `scale = 1 / sqrt(var + eps) [* gamma]`
and `shift = -mean * scale [+ beta]`, each broadcast along the channel axis as
`ExpandBiasToMatchAxis` does; the result `.0` of `nn.dropout` becomes its input. A batch_norm
or dropout whose tuple is used otherwise is left alone, as in TVM.
"""

from __future__ import annotations

import numpy as np

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
from ..printer import run_deep
from ..typeinfer import infer_types

REWRITTEN = frozenset({"nn.batch_norm", "nn.dropout"})


def scalar(dtype: str, value: float) -> Constant:
    """MakeConstantScalar: a rank-0 constant of dtype holding float32(value)."""
    return Constant(np.asarray(np.float32(value)).astype(dtype))


def expand_bias_to_match_axis(bias: Expr, ndim: int, axis: int) -> Expr:
    """Give a per-channel vector trailing unit axes so it broadcasts along `axis`."""
    pad = ndim - axis - 1
    return make_call("expand_dims", bias, axis=1, num_newaxis=pad) if pad > 0 else bias


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
    axis = attrs["axis"] + ndim if attrs["axis"] < 0 else attrs["axis"]
    scale = expand_bias_to_match_axis(scale, ndim, axis)
    shift = expand_bias_to_match_axis(shift, ndim, axis)
    return make_call("add", make_call("multiply", data, scale), shift)


class _Simplifier(ExprMutator):
    def __init__(self, types: dict[int, object]) -> None:
        super().__init__()
        self.types = types

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
            tdata = self.types[id(orig.args[0])]
            assert isinstance(tdata, TensorType)
            return batch_norm_to_infer_unpack(call, tdata)
        return new


def simplify_inference(mod: Module) -> Module:
    """mod with batch_norm and dropout in inference form (type inference runs first)."""
    if not any(isinstance(n, Call) and isinstance(n.op, Op) and n.op.name in REWRITTEN
               for fn in mod.functions.values() for n in post_order(fn)):
        return mod
    typed = infer_types(mod)
    simp = _Simplifier(typed.types)
    fns = {name: run_deep(lambda fn=fn: simp.visit(fn))
           for name, fn in typed.module.functions.items()}
    return Module(fns, mod.type_defs, mod.source_name)  # type: ignore[arg-type]
