"""Relay dead-code elimination, by mode: TVM's two historical DCEs, or the analysis.

"assume-pure" and "purity" are TVM's DCE before and after apache/tvm PR #9542
(`extractor.relay.transforms.dead_code`); "analysis" removes exactly the bindings aliaslog's
analysis proves dead (`aliaslog.analysis_dce`). The Relax DCE is `aliaslog.relax.EffectAwareDCE`.
"""

from __future__ import annotations

from typing import Any

from extractor.relay.ast import Module
from extractor.relay.transforms.dead_code import assume_pure_dce, purity_dce
from extractor.relay.typeinfer import infer_types

MODES = ("assume-pure", "purity", "analysis")


def relay_dce(
    mod: Module, mode: str = "purity", inline_once: bool = False, **analysis_options: Any
) -> Module:
    """Dead-code-eliminate every global function: TVM before/after #9542, or by the analysis.

    `analysis_options` (options, engine, entry, op_effects) go to
    `aliaslog.analysis.analyze` in mode "analysis".
    """
    if mode == "assume-pure":
        return assume_pure_dce(mod, inline_once)
    if mode == "purity":
        typed = infer_types(mod)
        return purity_dce(typed.module, typed.type_of, inline_once)
    if mode == "analysis":
        from .analysis import analyze
        from .analysis_dce import remove_relay_bindings

        return remove_relay_bindings(analyze(mod, explain=False, points_to=False,
                                             **analysis_options))
    raise ValueError(
        f"unknown DCE mode {mode!r}: valid modes are {', '.join(repr(m) for m in MODES)}"
    )
