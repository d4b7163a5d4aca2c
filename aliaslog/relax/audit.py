"""Translation validation pass by pass: which TVM pass first made a module unsafe.

`AuditInstrument` is a `tvm.ir.instrument` PassInstrument: inside
`tvm.transform.PassContext(instruments=[AuditInstrument()])` it checks the module after every
pass that changes it (the `check` machinery on the module as that pass left it) and records
each finding with the pass after which it first appears. `audit_module` drives TVM's own
pipeline under it, the way `relax.build` runs it; `aliaslog audit` prints its report.
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import tvm
import tvm_ffi
from tvm import relax
from tvm.ir.instrument import pass_instrument

from extractor.relax_facts import default_entries, relax_functions

from ..loading import UsageError
from .analysis import Place, RelaxResult, Violation, analyze_relax
from .checks import EffectChange, effect_changes

INPUT = "input"  # introduced_by of a finding the module already has as given
OUTSIDE = "(outside any pass)"  # the module changed between two passes


@dataclass
class PassStep:
    """One pass the instrument saw change, or leave alone, a module with Relax functions."""

    index: int  # 1-based, in the order the passes ran (a finding's pass_index 0: as given)
    name: str  # the pass as its user knows it: the outermost one that is not a pipeline
    ordinal: int  # which PassContext pass invocation `name` was (the skip hook counts the same)
    within: tuple[str, ...] = ()  # the pipelines and Sequentials around it, outermost first
    leaf: str = ""  # the pass inside `name` that made the change, when not `name` itself
    changed: bool = False
    findings: int = 0
    error: str = ""  # aliaslog could not analyse the module this pass left


@dataclass
class AuditFinding:
    """A check that fails from a pass on: the finding, and the pass that introduced it."""

    finding: Violation | EffectChange
    introduced_by: str
    pass_index: int
    ordinal: int  # of the introducing pass, 0 for the input (see PassStep.ordinal)
    within: tuple[str, ...]
    leaf: str
    prior: tuple[Place | None, ...]  # see _prior
    scripts: tuple[str, str] = ("", "")  # the module's TVMScript before and after the pass

    @property
    def check(self) -> str:
        return self.finding.kind

    @property
    def severity(self) -> str:
        return self.finding.severity

    def describe(self) -> str:
        where = "the module as given" if self.pass_index == 0 else (
            f"pass {self.pass_index}, {self.introduced_by}"
            + (f" (its {self.leaf})" if self.leaf else ""))
        return f"{self.finding.describe()}\n  introduced by {where}"

    def as_json(self) -> dict[str, Any]:
        """`check --json`'s finding, plus the pass and, for each binding after the pass, the
        same binding before it (`before`, None when the pass made it)."""
        out: dict[str, Any] = dict(self.finding.as_json())
        for b, p in zip(out["bindings"], self.prior, strict=False):
            b["before"] = None if p is None else p.as_json(b["role"])
        out.update(introduced_by=self.introduced_by, pass_index=self.pass_index,
                   within=list(self.within), leaf=self.leaf)
        return out


def _by_name(res: RelaxResult | None) -> dict[tuple[str, str], Place]:
    """The first binding of each (function, variable name) of an analysed module."""
    if res is None:
        return {}
    out: dict[tuple[str, str], Place] = {}
    for bid in res.binding_ids():
        p = res.place(bid)
        out.setdefault((p.function, p.name), p)
    return out


def _prior(f: Violation | EffectChange, before: RelaxResult | None) -> tuple[Place | None, ...]:
    """For each binding of a violation (site, value), the binding of the same function and
    name in the module before the pass; an effect change names its own before and after."""
    if isinstance(f, EffectChange):
        return ()
    names = _by_name(before)
    return tuple(names.get((p.function, p.name)) for p in (f.site, f.var) if p is not None)


def _new_violations(prev: list[Violation], now: list[Violation]) -> list[Violation]:
    """Findings of `now` that `prev` does not have. A finding keyed on a name the pass renamed
    (one of the same kind in the same function disappeared) is the old one, not a new one."""
    old = Counter(v.key() for v in prev)
    fresh = []
    for v in now:
        if old[v.key()] > 0:
            old[v.key()] -= 1
        else:
            fresh.append(v)
    gone: Counter[tuple[str, str]] = Counter()  # the unmatched old ones, by kind and function
    for v in prev:
        if old[v.key()] > 0:
            old[v.key()] -= 1
            gone[(v.kind, v.site.function)] += 1
    out = []
    for v in fresh:
        if gone[(v.kind, v.site.function)] > 0:
            gone[(v.kind, v.site.function)] -= 1
        else:
            out.append(v)
    return out


def has_relax(mod: tvm.IRModule) -> bool:
    """The module has a Relax function (not only the TIR relax.build compiles at the end)."""
    return any(isinstance(f, relax.Function) for f in mod.functions.values())


@dataclass
class _Frame:
    """A pass that is running: its name and which invocation of the context it is."""

    name: str
    ordinal: int
    nested: bool = False  # another pass ran inside this one


@pass_instrument
class AuditInstrument:
    """Checks the module after every pass, and names the pass that introduced each finding.

    Use it as `with tvm.transform.PassContext(instruments=[AuditInstrument()]): ...`; then
    `findings` and `steps` say what each pass did. Passes nested in others (a Sequential, a
    pipeline) are audited one by one; a module without Relax functions (the TIR half of
    `relax.build`) is not looked at. `options` are analyze_relax's (engine, op_effects, ...).
    """

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.steps: list[PassStep] = []
        self.findings: list[AuditFinding] = []
        self.failed: tuple[str, str] | None = None  # (pass, TVM's error) when a pass raised
        self.internal: BaseException | None = None  # aliaslog's own error inside a hook
        self._stack: list[_Frame] = []
        self._ordinal = 0
        self._busy = False
        self._mod: tvm.IRModule | None = None
        self._res: RelaxResult | None = None
        self._violations: list[Violation] = []
        # the entry functions of the module as given: a pass that makes a private function
        # public (AttachGlobalSymbol) gives the outside world no new way in
        self._entries: list[str] | None = options.get("entries")
        self._after: frozenset[str] = frozenset()  # the passes that have run (the extractor's)

    # ------------------------------------------------------------------ PassInstrument hooks
    def should_run(self, mod: tvm.IRModule, info: Any) -> bool:
        if not self._busy:
            self._ordinal += 1
        return True

    def run_before_pass(self, mod: tvm.IRModule, info: Any) -> None:
        if self._busy:
            return
        parent = self._stack[-1] if self._stack else None
        if parent is not None:
            parent.nested = True
        self._guarded(mod, parent)  # the module as given, or what the parent did in between
        self._stack.append(_Frame(str(info.name), self._ordinal))

    def run_after_pass(self, mod: tvm.IRModule, info: Any) -> None:
        if self._busy or not self._stack:
            return
        frame = self._stack.pop()
        self._guarded(mod, frame, leaf=not frame.nested)

    def exit_pass_ctx(self) -> None:
        if self._stack:  # a pass raised: the innermost open one
            self.failed = (self._stack[-1].name, "")
            self._stack.clear()

    # ------------------------------------------------------------------------- the audit
    def _guarded(self, mod: tvm.IRModule, frame: _Frame | None, leaf: bool = False) -> None:
        """_observe, remembering an error of aliaslog's own (TVM reports it as the pass's)."""
        try:
            self._observe(mod, frame, leaf)
        except BaseException as exc:
            self.internal = exc
            raise

    def _step(self, frame: _Frame, changed: bool) -> PassStep:
        """The step of `frame`, named after the outermost pass around it that is not a
        pipeline or a Sequential (DataflowUseInplaceCalls, not its inner pass)."""
        path = [*self._stack, frame]
        k = next((i for i, f in enumerate(path) if f.name not in _containers()), len(path) - 1)
        named = path[k]
        return PassStep(len(self.steps) + 1, named.name, named.ordinal,
                        tuple(f.name for f in path[:k] if f.name != "sequential"),
                        leaf="" if named is frame else frame.name, changed=changed)

    def _observe(self, mod: tvm.IRModule, frame: _Frame | None, leaf: bool = False) -> None:
        """Check `mod` if it differs from the last module checked; `frame` is the pass that
        made it (None: the module as given). A leaf pass gets a step even when unchanged."""
        if not has_relax(mod):
            return
        first = self._mod is None
        changed = first or not (mod.same_as(self._mod)
                                or tvm_ffi.structural_equal(mod, self._mod))
        if frame is None and not first and not changed:
            return
        step = None
        if frame is not None and (leaf or changed):
            step = self._step(frame, changed)
        elif frame is None and not first:  # code between two passes changed the module
            step = PassStep(len(self.steps) + 1, OUTSIDE, self._ordinal, changed=changed)
        if step is not None:
            self.steps.append(step)
        if not changed:
            return
        self._busy = True
        try:
            if self._entries is None:
                self._entries = default_entries(mod)
            funcs = set(relax_functions(mod))
            entries = [e for e in self._entries if e in funcs] or None
            self._after = self._after | {
                f.name for f in [*self._stack, *([frame] if frame else [])]}
            res = analyze_relax(mod, **{**self.options, "entries": entries,
                                        "after": self._after})
            now = res.violations()
            prev_res = self._res
            now = [replace(v, point=f"after {step.name}" if step else INPUT) for v in now]
            new: list[Violation | EffectChange] = list(
                now if first else _new_violations(self._violations, now))
            if prev_res is not None:
                new += effect_changes(prev_res, res)
        except Exception as exc:  # noqa: BLE001 - reported on the step, never breaks a build
            if step is None:
                raise  # the module as given: the user's input (ill-formed, say) is refused
            step.error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0]}"[:300]
            return
        finally:
            self._busy = False
        scripts = ("", "")
        if new:
            scripts = (_script(self._mod) if self._mod is not None else "", _script(mod))
        for f in new:
            self.findings.append(AuditFinding(
                f, step.name if step else INPUT, step.index if step else 0,
                step.ordinal if step else 0, step.within if step else (),
                step.leaf if step else "", _prior(f, prev_res), scripts))
        if step is not None:
            step.findings = len(new)
        self._mod, self._res, self._violations = mod, res, now


@functools.cache
def _containers() -> frozenset[str]:
    """Names of passes that only run others: Sequential and relax.get_pipeline's pipelines."""
    return frozenset({"sequential", *(relax.get_pipeline(n).info.name for n in PIPELINES
                                      if n != "none")})


def _script(mod: tvm.IRModule) -> str:
    with contextlib.redirect_stderr(io.StringIO()):
        return mod.script()


# -------------------------------------------------------------------------- driving TVM


def make_passes(names: Sequence[str]) -> list[tvm.transform.Pass]:
    """TVM passes by name, looked up in relax.transform, then relax.backend (no arguments);
    a pipeline name of relax.get_pipeline (e.g. `zero`) stands for that pipeline."""
    from tvm.relax import backend

    out = []
    for name in names:
        if name in relax.pipeline.PIPELINE_MAP and name not in ("default", "default_build"):
            out.append(relax.get_pipeline(name))  # e.g. "zero": a pipeline, audited pass by pass
            continue
        factory = getattr(relax.transform, name, None) or getattr(backend, name, None)
        if not callable(factory):
            raise UsageError(f"--passes: unknown pass `{name}`: expected a pass of "
                             "relax.transform or relax.backend, e.g. DataflowUseInplaceCalls, "
                             "EliminateCommonSubexpr, FoldConstant")
        try:
            p = factory()
        except TypeError as exc:
            raise UsageError(f"--passes: pass `{name}` needs arguments ({exc}); aliaslog "
                             "audit runs passes that take none") from None
        if not isinstance(p, tvm.transform.Pass):
            raise UsageError(f"--passes: `{name}` is not a pass (relax.transform.{name}() gives a "
                             f"{type(p).__name__})")
        # the name the user gave, around TVM's own (DataflowUseInplaceCalls runs as
        # DataflowInsertInPlaceCalls)
        out.append(p if str(p.info.name) == name else tvm.transform.Sequential([p], name=name))
    return out


PIPELINES = ("default", "zero", "none")


def build_pipeline(name: str, target: tvm.target.Target) -> tvm.transform.Pass | None:
    """The Relax pipeline `relax.build(mod, target, relax_pipeline=name)` would run."""
    if name not in PIPELINES:
        raise UsageError(f"--pipeline: unknown pipeline `{name}` (choose from "
                         f"{', '.join(PIPELINES)})")
    if name == "none":
        return None
    if name == "default" and "gpu" in target.keys:  # relax.build's own choice (vm_build.py)
        with contextlib.suppress(ValueError, AttributeError):
            return relax.get_default_pipeline(target)
    return relax.get_pipeline(name)


def lower(mod: tvm.IRModule, passes: Sequence[str], pipeline: str, target: tvm.target.Target,
          instruments: Sequence[Any]) -> tvm.IRModule:
    """The user's passes, then the pipeline, under `instruments`, as relax.build runs them."""
    seq = make_passes(passes)  # fresh pass objects: a run never shares them with another
    pipe = build_pipeline(pipeline, target)
    with tvm.transform.PassContext(instruments=list(instruments)), target, \
            contextlib.redirect_stderr(io.StringIO()):
        if seq:
            mod = tvm.transform.Sequential(seq)(mod)
        if pipe is not None:
            mod = pipe(mod)
    return mod


@dataclass
class AuditReport:
    """What `aliaslog audit` found: every pass the module went through, and the findings."""

    passes: list[str]
    pipeline: str
    target: str
    steps: list[PassStep]
    findings: list[AuditFinding]
    failed: tuple[str, str] | None = None  # TVM's pipeline raised in this pass: reason
    confirmations: dict[int, Any] = field(default_factory=dict)  # pass ordinal -> Confirmation

    @property
    def errors(self) -> list[AuditFinding]:
        return [f for f in self.findings if f.severity == "error"]

    def as_json(self, file: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": file, "target": self.target, "pipeline": self.pipeline,
            "user_passes": self.passes,
            "passes": [{"index": s.index, "name": s.name, "within": list(s.within),
                        "changed": s.changed, "findings": s.findings,
                        **({"error": s.error} if s.error else {})} for s in self.steps],
            "findings": [f.as_json() for f in self.findings],
            "failed": None if self.failed is None else {"pass": self.failed[0],
                                                        "reason": self.failed[1]},
        }
        if self.confirmations:
            for f, j in zip(self.findings, out["findings"], strict=True):
                c = self.confirmations.get(f.ordinal)
                if c is not None:
                    j["confirmation"] = c.as_json()
        return out


def parse_target(text: str) -> tvm.target.Target:
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return tvm.target.Target(text)
    except Exception as exc:  # noqa: BLE001 - TVM's reason, as a usage error
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
        raise UsageError(f"--target: TVM does not know target `{text}`: {first}") from None


def audit_module(mod: tvm.IRModule, passes: Sequence[str] = (), pipeline: str = "default",
                 target: str = "llvm", **options: Any) -> AuditReport:
    """Run the user's passes and the pipeline on `mod` under an AuditInstrument."""
    tgt = parse_target(target)
    make_passes(passes)  # bad names are the user's mistake, before TVM runs anything
    build_pipeline(pipeline, tgt)
    inst = AuditInstrument(**options)
    failed = None
    try:
        lower(mod, passes, pipeline, tgt, [inst])
    except Exception as exc:  # noqa: BLE001 - TVM's pipeline failing is the module's problem
        if inst.internal is not None:
            raise inst.internal from None
        last = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
        failed = (inst.failed[0] if inst.failed else "?", f"{type(exc).__name__}: {last}")
    return AuditReport(list(passes), pipeline, target, inst.steps, inst.findings, failed)
