"""What TVM v0.19's debug executor runs: a module after `Prepare` (backend/interpreter.cc).

Prepare runs SimplifyInference, PlanDevices, FuseOps(0), ToANormalForm, EtaExpand, InferType and
LowerTE. Of those, three change what a program means here: SimplifyInference (inference-mode
batch_norm / dropout), ToANormalForm (a shared graph node is evaluated once, in the innermost
scope common to its uses) and EtaExpand (a constructor used as a value is a function). Devices,
fusion into primitive functions and lowering do not change a result on one CPU, so they are
left out. EtaExpand runs before ToANormalForm here, so the functions it makes are let-bound
like every other value; evaluation is the same either way.

The analysis runs on `prepare_for_analysis(mod)`: the same evaluation order and sharing, with
batch_norm and dropout still calls (the effect table describes them), and without the
bindings of constants and of let bodies' aliases that TVM's normal form adds, which are pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ...runtime import gc_paused
from ..ast import Constructor, Expr, Module
from .anf import ANFModule, expr_to_a_normal_form, to_a_normal_form
from .eta_expand import eta_expand, eta_expand_expr
from .simplify_inference import simplify_inference


@dataclass(frozen=True, eq=False)
class Prepared:
    """A prepared module, the A-normal form's provenance, and the eta-expanded constructors."""

    module: Module
    anf: ANFModule
    eta: dict[int, Constructor]  # id(Function made by EtaExpand) -> the constructor


@lru_cache(maxsize=32)
@gc_paused()  # big acyclic ASTs: a collection would rescan them and free nothing
def prepare(mod: Module) -> Prepared:
    """mod as the debug executor runs it (cached: modules are immutable and hash by identity)."""
    m, eta = eta_expand(simplify_inference(mod))
    anf = to_a_normal_form(m)
    return Prepared(anf.module, anf, eta)


@lru_cache(maxsize=32)
@gc_paused()  # big acyclic ASTs: a collection would rescan them and free nothing
def prepare_for_analysis(mod: Module) -> Prepared:
    """mod as the analysis sees it: evaluated as the debug executor evaluates it."""
    m, eta = eta_expand(mod)
    anf = to_a_normal_form(m, minimal=True)
    return Prepared(anf.module, anf, eta)


def prepare_expr(e: Expr, mod: Module) -> Expr:
    """An expression prepared like a module's functions (mod: for constructors' types)."""
    return expr_to_a_normal_form(eta_expand_expr(e, mod), mod)
