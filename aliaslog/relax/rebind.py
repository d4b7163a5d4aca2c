"""A copy of a Relax module with some bindings removed or given new values, in every function,
function literal and `if` branch: what the rewriting passes (EffectAwareDCE, VerifiedInplace)
share."""

from __future__ import annotations

from typing import Any

import tvm
from tvm import relax


def rebind(mod: tvm.IRModule, changes: dict[Any, Any]) -> tvm.IRModule:
    """The module with each Binding object of `changes` removed (value None) or bound to its new
    value instead; normalized, since rebuilt SeqExprs carry no type until they are."""
    out = mod.clone()
    for gv, fn in list(mod.functions.items()):
        if isinstance(fn, relax.Function):
            out[gv] = _function(fn, changes)
    return relax.transform.Normalize()(out)


def _function(fn: relax.Function, changes: dict[Any, Any]) -> relax.Function:
    return relax.Function(fn.params, _seq(fn.body, changes), fn.ret_ty, fn.is_pure, fn.attrs,
                          fn.span)


def _seq(seq: relax.SeqExpr, changes: dict[Any, Any]) -> relax.SeqExpr:
    blocks = []
    for blk in seq.blocks:
        kept = [_binding(b, changes) for b in blk.bindings
                if not (b in changes and changes[b] is None)]
        if kept:
            cls = relax.DataflowBlock if isinstance(blk, relax.DataflowBlock) else \
                relax.BindingBlock
            blocks.append(cls(kept))
    return relax.SeqExpr(blocks, seq.body, seq.span)


def _binding(b: Any, changes: dict[Any, Any]) -> Any:
    v = changes.get(b, b.value)
    if isinstance(v, relax.If):
        new = relax.If(v.cond, _seq(v.true_branch, changes), _seq(v.false_branch, changes),
                       v.span)
    elif isinstance(v, relax.Function):
        new = _function(v, changes)
    elif b in changes:
        new = v
    else:
        return b
    if isinstance(b, relax.MatchCast):
        return relax.MatchCast(b.var, new, b.ty, b.span)
    return relax.VarBinding(b.var, new, b.span)
