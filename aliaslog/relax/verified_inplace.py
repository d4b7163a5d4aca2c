"""VerifiedInplace: `call_tir` into `call_tir_inplace` wherever aliaslog proves it safe.

For each (call, output, input) of a legalized (and perhaps fused) module, three levels decide:
  - the program (relax_inplace.dl, on aliaslog's whole-program may-alias and liveness): nothing
    may read the input's memory after the call — no later use of any name or view of it, no
    closure or opaque packed call holding it, no other function reaching it, not a module
    constant, not an entry parameter unless the caller donates it, not passed twice;
  - the kernel (kernel_access.py): every element of the input is last read no later than the
    output element that overwrites it is written; same shape and dtype;
  - the memory plan: a rewrite is kept only where the storage StaticPlanBlockMemory plans for
    the function does not grow (an alias keeps a storage token alive longer).
The rewritten module is analysed again: a rewrite behind any new finding of `check` is undone.
Every refusal says why.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import tvm
import tvm_ffi
from tvm import relax, tirx

from datalog_rules import RELAX_INPLACE
from extractor.kernel_access import inplace_refusal
from extractor.relax_load import PipelineError, well_formed
from extractor.relax_pipeline import DEFAULT_PIPELINE, make_pass

from .analysis import READ_BACK, Violation, analyze_relax
from .inplace_rewrite import CallTir, inplace_call, inplace_kernel
from .memory_plan import Bytes, bytes_text, not_more, plan, planned_sizes
from .rebind import rebind


class InplaceError(RuntimeError):
    """The rewritten module is not well-formed: a bug in aliaslog, never the user's."""


@dataclass(frozen=True)
class Rewrite:
    """One call made in-place: output k writes into argument inplace[k] (-1: fresh)."""

    function: str
    binding: str  # the variable the call is bound to
    kernel: str
    inplace: tuple[int, ...]
    inputs: tuple[str, ...]  # the argument each in-place output writes, in words

    def as_json(self) -> dict[str, Any]:
        return {"function": self.function, "binding": self.binding, "kernel": self.kernel,
                "inplace_indices": list(self.inplace), "writes": list(self.inputs)}


@dataclass(frozen=True)
class Refusal:
    """A call left as it is, and why."""

    function: str
    binding: str
    kernel: str
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {"function": self.function, "binding": self.binding, "kernel": self.kernel,
                "reason": self.reason}


@dataclass
class InplaceReport:
    """What VerifiedInplace did to a module."""

    module: tvm.IRModule
    rewrites: list[Rewrite] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    planned_before: dict[str, Bytes] = field(default_factory=dict)
    planned_after: dict[str, Bytes] = field(default_factory=dict)
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {"inplace_calls": len(self.rewrites),
                "rewrites": [r.as_json() for r in self.rewrites],
                "refused": [r.as_json() for r in self.refused],
                "planned_bytes": {f: {"before": bytes_text(b),
                                      "after": bytes_text(self.planned_after.get(f, b))}
                                  for f, b in sorted(self.planned_before.items())},
                "seconds": round(self.seconds, 3)}


@dataclass
class _Candidate:
    function: str
    binding: Any  # the relax Binding
    ct: CallTir
    inplace: list[int]

    @property
    def name(self) -> str:
        return str(self.binding.var.name)


def _arg_text(e: Any) -> str:
    return f"`{e.name}`" if isinstance(e, relax.Var) else type(e).__name__


def _same_tensor_type(a: Any, b: Any) -> bool:
    return (isinstance(a, relax.TensorType) and isinstance(b, relax.TensorType)
            and a.shape is not None and b.shape is not None
            and str(a.dtype) == str(b.dtype) and bool(tvm_ffi.structural_equal(a.shape, b.shape)))


def _choose(ct: CallTir, pf: tirx.PrimFunc, refused: dict[int, str]) -> tuple[list[int], str]:
    """For each output, the first input the program and the kernel let it write (-1: none);
    and, when no output found one, why not (a reason per input tried)."""
    inplace: list[int] = []
    reasons: list[str] = []
    for k, out_ty in enumerate(ct.outputs):
        pick = -1
        for j, arg in enumerate(ct.args):
            if j in inplace:
                continue
            if not _same_tensor_type(getattr(arg, "ty", None), out_ty):
                continue
            why = refused.get(j) or inplace_refusal(pf, ct.out_param(k), j)
            if why is None:
                pick = j
                break
            reasons.append(f"{_arg_text(arg)}: {why}")
        inplace.append(pick)
    if all(j < 0 for j in inplace) and not reasons:
        reasons.append("no input has the output's shape and dtype")
    return inplace, "; ".join(dict.fromkeys(reasons))


def verified_inplace(mod: tvm.IRModule, *, donate: Sequence[tuple[str, str]] = (),
                     check_memory: bool = True, target: str = "llvm",
                     **options: Any) -> InplaceReport:
    """Rewrite every call_tir of `mod` that is proven safe into call_tir_inplace.

    `donate`: (entry function, parameter) pairs whose tensors the caller gives up, so they may
    be written. `options`: analyze_relax's (engine, op_effects, tir_effects, entries).
    """
    t0 = time.perf_counter()
    # relax.build turns a kernel that only copies (a reshape in disguise) into a view of its
    # input; judged as a copy, writing it in place would write that input. (A module the
    # pass cannot take, with kernels that are not block-structured, relax.build cannot build.)
    with contextlib.suppress(tvm.error.InternalError):
        mod = relax.transform.RewriteDataflowReshape()(mod)
    modes = {(f, p): "donated" for f, p in donate}
    res = analyze_relax(mod, point="input", program=RELAX_INPLACE, param_modes=modes,
                        read_back=READ_BACK | {"inplace_refused"}, **options)
    ids = res.extraction.ids
    refused_args: dict[str, dict[int, str]] = {}
    for c, i, why in sorted(res.relations["inplace_refused"]):
        refused_args.setdefault(c, {}).setdefault(int(i), why)
    report = InplaceReport(mod)
    candidates: list[_Candidate] = []
    for bid in res.binding_ids():
        b = res.binding(bid)
        ct = CallTir.of(b.value)
        if ct is None:
            continue
        fn = ids.binding_func[bid]
        pf = mod[ct.kernel]
        kernel = str(ct.kernel.name_hint)
        if not isinstance(pf, tirx.PrimFunc):
            continue
        if ct.tir_vars is not None:
            report.refused.append(Refusal(fn, str(b.var.name), kernel,
                                          "the kernel takes symbolic shape arguments"))
            continue
        inplace, why = _choose(ct, pf, refused_args.get(ids.node_id[b.value], {}))
        if any(j >= 0 for j in inplace):
            candidates.append(_Candidate(fn, b, ct, inplace))
        else:
            report.refused.append(Refusal(fn, str(b.var.name), kernel, why))
    before = planned_sizes(plan(mod, target)) if check_memory else {}
    report.planned_before = dict(before)
    kept = _within_plan(mod, candidates, before, report, target) if check_memory else candidates
    kept = _verified(mod, kept, report, {**options, "param_modes": modes})
    report.module = _apply(mod, kept)
    if not well_formed(report.module) and well_formed(mod):
        raise InplaceError("VerifiedInplace produced an ill-formed module; please report it")
    report.rewrites = [Rewrite(c.function, c.name, str(c.ct.kernel.name_hint), tuple(c.inplace),
                               tuple(_arg_text(c.ct.args[j]) for j in c.inplace if j >= 0))
                       for c in kept]
    report.planned_after = planned_sizes(plan(report.module, target)) if check_memory else {}
    report.seconds = time.perf_counter() - t0
    return report


def _apply(mod: tvm.IRModule, cands: list[_Candidate]) -> tvm.IRModule:
    """The module with every candidate's call made in-place (each with a kernel of its own)."""
    if not cands:
        return mod
    bb = relax.BlockBuilder(mod)
    changes: dict[Any, Any] = {}
    for c in cands:
        pf = inplace_kernel(mod[c.ct.kernel], len(c.ct.args), c.inplace)
        gv = bb.add_func(pf, f"{c.ct.kernel.name_hint}_inplace")
        changes[c.binding] = inplace_call(c.ct, gv, c.inplace)
    return rebind(bb.get(), changes)


def _within_plan(mod: tvm.IRModule, cands: list[_Candidate], before: dict[str, Bytes],
                 report: InplaceReport, target: str) -> list[_Candidate]:
    """The candidates that keep each function's planned storage from growing: all of a
    function's at once when that does, else one by one in program order."""
    kept: list[_Candidate] = []
    by_fn: dict[str, list[_Candidate]] = {}
    for c in cands:
        by_fn.setdefault(c.function, []).append(c)
    for fn, group in by_fn.items():
        base = before.get(fn, 0)
        size = _planned(mod, kept + group, fn, target)
        if size is not None and not_more(size, base):
            kept += group
            continue
        for c in group:
            size = _planned(mod, [*kept, c], fn, target)
            if size is not None and not_more(size, base):
                kept.append(c)
                base = size
            else:
                grown = "an unknown size" if size is None else f"{bytes_text(size)} bytes"
                report.refused.append(Refusal(
                    fn, c.name, str(c.ct.kernel.name_hint),
                    f"the planned storage of @{fn} would grow from {bytes_text(base)} bytes "
                    f"to {grown}"))
    return kept


def _planned(mod: tvm.IRModule, cands: list[_Candidate], fn: str, target: str) -> Bytes | None:
    try:
        return planned_sizes(plan(_apply(mod, cands), target)).get(fn, 0)
    except Exception:  # noqa: BLE001 - a plan TVM cannot make is a rewrite not to make
        return None


def _verified(mod: tvm.IRModule, cands: list[_Candidate], report: InplaceReport,
              options: dict[str, Any]) -> list[_Candidate]:
    """Check the rewritten module as `check` would (as given and lowered); undo every
    rewrite a new finding is about, until none is. A finding is new by its write site too:
    `check` reports one per memory at stake, and a rewrite may add a second write that
    destroys memory a finding of the module as given already names (the memory planner's
    reuse of a buffer an in-place packed call returned)."""
    points = ("input", "lowered")
    opts = _check_options(options)
    known = set(_findings(mod, points, opts))
    kept = list(cands)
    while kept:
        found = _findings(_apply(mod, kept), points, opts)
        new = [v for k, v in found.items() if k not in known]
        if not new:
            break
        named = {p.name for v in new for p in (v.site, v.var) if p is not None}
        guilty = [c for c in kept if c.name in named] or kept[-1:]
        for c in guilty:
            report.refused.append(Refusal(c.function, c.name, str(c.ct.kernel.name_hint),
                                          f"the rewritten module fails `check`: {new[0].kind}"))
        kept = [c for c in kept if c not in guilty]
    return kept


def _findings(mod: tvm.IRModule, points: tuple[str, ...],
              options: dict[str, Any]) -> dict[tuple, Violation]:
    """Every finding at each point, by point, identity and write site (a point TVM's
    pipeline cannot reach has none)."""
    found: dict[tuple, Violation] = {}
    for point in points:
        try:
            res = analyze_relax(mod, point=point, **options)
        except PipelineError:
            break
        for v in res.violations():
            found.setdefault((point, v.key(), v.site.name, v.site.text), v)
    return found


def _check_options(options: dict[str, Any]) -> dict[str, Any]:
    keys = ("engine", "op_effects", "tir_effects", "param_modes")
    return {k: v for k, v in options.items() if k in keys}


def VerifiedInplace(*, donate: Sequence[tuple[str, str]] = (), check_memory: bool = True,  # noqa: N802
                    on_report: Callable[[InplaceReport], None] | None = None,
                    **options: Any) -> tvm.transform.Pass:
    """A module pass (usable in tvm.transform.Sequential and relax.build pipelines) that runs
    `verified_inplace`; put it after LegalizeOps (and after FuseOps/FuseTIR where the pipeline
    fuses). `on_report` receives each run's InplaceReport."""

    @tvm.transform.module_pass(opt_level=0, name="aliaslog.VerifiedInplace")
    def _pass(mod: tvm.IRModule, ctx: Any) -> tvm.IRModule:
        current = tvm.target.Target.current(allow_none=True)
        rest = {k: v for k, v in options.items() if k != "target"}
        target = options.get("target") or (str(current) if current else "llvm")
        report = verified_inplace(mod, donate=donate, check_memory=check_memory,
                                  target=target, **rest)
        if on_report is not None:
            on_report(report)
        return report.module

    return _pass


def inplace_pipeline(**options: Any) -> tvm.transform.Pass:
    """relax.build's default pipeline with VerifiedInplace right after RewriteDataflowReshape
    (legalized, and views where lowering makes them): `relax.build(mod, target,
    relax_pipeline=inplace_pipeline())`; after the `zero` pipeline it runs on fused kernels."""
    passes = []
    for name in DEFAULT_PIPELINE:
        passes.append(make_pass(name))
        if name == "RewriteDataflowReshape":
            passes.append(VerifiedInplace(**options))
    return tvm.transform.Sequential(passes, name="aliaslog.inplace_pipeline")
