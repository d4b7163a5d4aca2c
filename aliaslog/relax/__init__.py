"""Relax (apache-tvm) front of aliaslog: analysis, checks, the pass-by-pass audit, the
effect-aware DCE pass, the verified in-place pass and the memory report."""

from .analysis import RelaxResult, Violation, analyze_relax
from .audit import AuditInstrument, AuditReport, audit_module
from .checks import EffectChange, check_module, compare_modules
from .dce import EffectAwareDCE, remove_relax_bindings
from .effects import packed_effects
from .memory_report import MemoryReport, memory_report
from .verified_inplace import InplaceReport, VerifiedInplace, inplace_pipeline, verified_inplace

__all__ = ["AuditInstrument", "AuditReport", "EffectAwareDCE", "EffectChange", "InplaceReport",
           "MemoryReport", "RelaxResult", "VerifiedInplace", "Violation", "analyze_relax",
           "audit_module", "check_module", "compare_modules", "inplace_pipeline",
           "memory_report", "packed_effects", "remove_relax_bindings", "verified_inplace"]
