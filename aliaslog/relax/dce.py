"""EffectAwareDCE: a TVM module pass that deletes the bindings aliaslog proves dead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tvm
from tvm import relax

from extractor.relax_load import well_formed

from ..options import DEFAULT_ENGINE, EngineOptions
from .analysis import analyze_relax


class DCEError(RuntimeError):
    """The rewritten module is not well-formed: a bug in aliaslog, never the user's."""


def remove_relax_bindings(mod: tvm.IRModule, dead: set[Any]) -> tvm.IRModule:
    """A copy of mod without the given Binding objects (in every Relax function and branch)."""
    out = mod.clone()
    for gv, fn in list(mod.functions.items()):
        if isinstance(fn, relax.Function):
            out[gv] = _function(fn, dead)
    return relax.transform.Normalize()(out)  # rebuilt SeqExprs carry no type until normalized


def _function(fn: relax.Function, dead: set[Any]) -> relax.Function:
    return relax.Function(fn.params, _seq(fn.body, dead), fn.ret_ty, fn.is_pure, fn.attrs,
                          fn.span)


def _seq(seq: relax.SeqExpr, dead: set[Any]) -> relax.SeqExpr:
    blocks = []
    for blk in seq.blocks:
        kept = [_binding(b, dead) for b in blk.bindings if b not in dead]
        if kept:
            cls = relax.DataflowBlock if isinstance(blk, relax.DataflowBlock) else \
                relax.BindingBlock
            blocks.append(cls(kept))
    return relax.SeqExpr(blocks, seq.body, seq.span)


def _binding(b: Any, dead: set[Any]) -> Any:
    v = b.value
    if isinstance(v, relax.If):
        new = relax.If(v.cond, _seq(v.true_branch, dead), _seq(v.false_branch, dead), v.span)
    elif isinstance(v, relax.Function):
        new = _function(v, dead)
    else:
        return b
    if isinstance(b, relax.MatchCast):
        return relax.MatchCast(b.var, new, b.ty, b.span)
    return relax.VarBinding(b.var, new, b.span)


def EffectAwareDCE(*, engine: EngineOptions = DEFAULT_ENGINE,  # noqa: N802
                   op_effects: Sequence[str] = (), tir_effects: Sequence[str] = (),
                   entries: list[str] | None = None) -> tvm.transform.Pass:
    """Dead-code elimination that keeps every needed effect and write, and nothing else.

    Usable in `tvm.transform.Sequential`. Bindings are removed only when aliaslog's analysis
    proves them dead: their value is not needed and evaluating them has no effect anyone can
    observe (TVM's purity flags are neither trusted nor required). Works before and after
    lowering, where dead allocation / kernel / kill chains go too.
    """

    @tvm.transform.module_pass(opt_level=0, name="aliaslog.EffectAwareDCE")
    def _pass(mod: tvm.IRModule, _ctx: Any) -> tvm.IRModule:
        res = analyze_relax(mod, point="input", engine=engine, op_effects=op_effects,
                            tir_effects=tir_effects, entries=entries)
        if not res.removable_ids:
            return mod
        out = remove_relax_bindings(mod, set(res.removable()))
        if not well_formed(out) and well_formed(mod):  # ill-formed in, ill-formed out
            raise DCEError("EffectAwareDCE produced an ill-formed module; please report it")
        return out

    return _pass
