"""EffectAwareDCE: a TVM module pass that deletes the bindings aliaslog proves dead."""

from __future__ import annotations

from typing import Any

import tvm

from extractor.relax_load import well_formed

from ..options import DEFAULT_ENGINE, EngineOptions
from .analysis import Place, analyze_relax
from .rebind import rebind


class DCEError(RuntimeError):
    """The rewritten module is not well-formed: a bug in aliaslog, never the user's."""


def remove_relax_bindings(mod: tvm.IRModule, dead: set[Any]) -> tvm.IRModule:
    """A copy of mod without the given Binding objects (in every Relax function and branch)."""
    return rebind(mod, dict.fromkeys(dead))


def effect_aware_dce(mod: tvm.IRModule, **options: Any) -> tuple[tvm.IRModule, list[Place]]:
    """The module without the bindings aliaslog proves dead, and where they were
    (`options`: analyze_relax's engine, op_effects, tir_effects, entries)."""
    res = analyze_relax(mod, point="input", **options)
    if not res.removable_ids:
        return mod, []
    gone = [res.place(b) for b in res.binding_ids() if b in res.removable_ids]
    out = remove_relax_bindings(mod, set(res.removable()))
    if not well_formed(out) and well_formed(mod):  # ill-formed in, ill-formed out
        raise DCEError("EffectAwareDCE produced an ill-formed module; please report it")
    return out, gone


def EffectAwareDCE(*, engine: EngineOptions = DEFAULT_ENGINE,  # noqa: N802
                   op_effects: Any = (), tir_effects: Any = (),
                   entries: list[str] | None = None) -> tvm.transform.Pass:
    """Dead-code elimination that keeps every needed effect and write, and nothing else.

    Usable in `tvm.transform.Sequential`. Bindings are removed only when aliaslog's analysis
    proves them dead: their value is not needed and evaluating them has no effect anyone can
    observe (TVM's purity flags are neither trusted nor required). Works before and after
    lowering, where dead allocation / kernel / kill chains go too.
    """

    @tvm.transform.module_pass(opt_level=0, name="aliaslog.EffectAwareDCE")
    def _pass(mod: tvm.IRModule, _ctx: Any) -> tvm.IRModule:
        return effect_aware_dce(mod, engine=engine, op_effects=op_effects,
                                tir_effects=tir_effects, entries=entries)[0]

    return _pass
