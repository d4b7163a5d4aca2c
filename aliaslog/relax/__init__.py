"""Relax (apache-tvm) front of aliaslog: analysis, checks, the pass-by-pass audit and the
effect-aware DCE pass."""

from .analysis import RelaxResult, Violation, analyze_relax
from .audit import AuditInstrument, AuditReport, audit_module
from .checks import EffectChange, check_module, compare_modules
from .dce import EffectAwareDCE, remove_relax_bindings

__all__ = ["AuditInstrument", "AuditReport", "EffectAwareDCE", "EffectChange", "RelaxResult",
           "Violation", "analyze_relax", "audit_module", "check_module", "compare_modules",
           "remove_relax_bindings"]
