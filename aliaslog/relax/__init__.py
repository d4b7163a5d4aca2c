"""Relax (apache-tvm) front of aliaslog: analysis, checks and the effect-aware DCE pass."""

from .analysis import RelaxResult, Violation, analyze_relax
from .checks import EffectChange, check_module, compare_modules
from .dce_pass import EffectAwareDCE, remove_relax_bindings

__all__ = ["EffectAwareDCE", "EffectChange", "RelaxResult", "Violation", "analyze_relax",
           "check_module", "compare_modules", "remove_relax_bindings"]
