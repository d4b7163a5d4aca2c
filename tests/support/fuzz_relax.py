"""Relax alias-safety fuzzing (`make fuzz-relax`): random modules on TVM's VM, then `check`.

`python -m tests.support.fuzz_relax --n N [--start SEED] [--jobs J]`: each seed gives a module
(randmod_relax.py). For every variant — the module as written, and after TVM's
DataflowUseInplaceCalls, DeadCodeElimination, EliminateCommonSubexpr, FoldConstant,
CanonicalizeBindings, or DataflowUseInplaceCalls then FoldConstant; LegalizeOps then aliaslog's
VerifiedInplace (without its memory condition, so every rewrite the analysis allows is made),
alone or after DataflowUseInplaceCalls; local functions then lambda-lifted, which relax.build
needs — the oracle (relax_oracle.py) builds the module with `relax.build(mod, "llvm")`, runs
it on the VM five times (two fresh random inputs, the first again, then inputs with infinities
and NaNs, then inputs all infinite, on one VM) and compares what every VM call reads, every
result and every input tensor after the call with the reference semantics
(`randmod_relax.run_function`). Then
`aliaslog check` (all three extraction points, the fuzzer's packed functions described by
tests/data/relax/fuzz_packed_effects.tsv) runs on the same module, on the module given to
FoldConstant, which runs kernels at compile time (a write there leaves no trace), and on the
module before LambdaLift. Per variant:

  missed hazard  the VM differs from the reference and check reports no error — a failure
  caught         it differs and check reports an error
  false alarm    it agrees on every run and check reports an error: class (b) when the error
                 goes once the undescribed packed functions the module calls are described as
                 what they do (tests/data/relax/fuzz_packed_true_effects.tsv) — a hazard only
                 an opaque call could cause — or when every error is about a packed function's
                 write and the VM shows the hazard once those functions store other values
                 (the same effects: only what they compute hid it); class (u) when every
                 error is a write-overlap of a kernel the VM does give memory overlapping an
                 argument it stores into (a true finding: the kernel is marked noalias, what
                 it reads is undefined, only this build's order read the right values);
                 else class (a), imprecision
  clean          it agrees and check reports no error
  broken         (the VerifiedInplace variants) it differs, and the module VerifiedInplace was
                 given runs clean: a rewrite aliaslog proved safe is not — a failure

An internal error of check (an exception) is a failure too, and so is a VM run the oracle
cannot follow (`oracle`). Modules TVM cannot transform or build are counted, not judged. A
failing module is shrunk (statements of any function, outputs, parameters and functions
deleted while the same variant still fails) and saved under tests/data/relax/regressions/,
which tests/relax/test_relax_fuzz.py replays on every test run. Exits 1 if any module failed.
The summary counts verdicts (false alarms per class) per variant and per feature (features()
names every construct, e.g. closure:local, helper-writes-param, view_off:offset,
permute:unit, lowered, alloc:overlap, opaque-call).
With `--jobs J`, J worker processes (`--worker`) check seeds; a worker that dies, or says
nothing for TASK_SECONDS, takes only its current seed with it (counted as `tvm-crashed` when it
was in a TVM pass or on the VM, `internal` when it was in check).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import selectors
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import paths
from . import randmod_relax as rm
from .options import EMBEDDED
from .own_spec import own_spec
from .regressions import RELAX_TEST, reproduce_command, spec_hash
from .relax_oracle import OracleError, noalias_overlaps, observe

EFFECTS = paths.DATA / "relax" / "fuzz_packed_effects.tsv"
TRUE_EFFECTS = paths.DATA / "relax" / "fuzz_packed_true_effects.tsv"
REGRESSIONS = paths.DATA / "relax" / "regressions"


VERIFIED = "aliaslog.VerifiedInplace"  # aliaslog's own pass, without its memory condition
VARIANTS: dict[str, tuple[str, ...]] = {  # relax.transform passes, in order
    "as-written": (),
    "inplace": ("DataflowUseInplaceCalls",),
    "dce": ("DeadCodeElimination",),
    "cse": ("EliminateCommonSubexpr",),
    "fold": ("FoldConstant",),
    "canon": ("CanonicalizeBindings",),
    "inplace+fold": ("DataflowUseInplaceCalls", "FoldConstant"),
    "verified": ("LegalizeOps", VERIFIED),
    "inplace+verified": ("DataflowUseInplaceCalls", "LegalizeOps", VERIFIED),
}
# Passes that run kernels at compile time: a write they make happens inside the pass and
# leaves no trace in its output. When the pass made a constant another value than value
# semantics give (it changed one the module had, or folded a binding into a wrong one), a
# kernel it ran wrote memory, and the module given to it is checked too, for what those
# kernels do: findings at the input point whose write is a call the pass runs. (A run-time
# hazard of that module is the built module's to show, if the pass kept it.)
COMPILE_TIME = frozenset({"FoldConstant"})
# what a packed function that writes memory stores more than it says, to see a hazard its
# values hid: a finite offset (a put-back by coincidence), and inf (a NaN it may make)
SKEWS = (0.5, float("inf"))


@dataclass
class Verdict:
    """One variant of one module: what TVM, the VM and `aliaslog check` did."""

    # missed / caught / false-alarm / clean; broken (VerifiedInplace made a hazard the
    # module before it did not have); pass-failed / build-failed / tvm-crashed (TVM's);
    # pass-changed (a TVM pass changed what the module computes, and the module it made
    # agrees with its own value semantics: own_spec);
    # internal (aliaslog's exception or crash), unloadable (the generator's TVMScript),
    # oracle (a VM run the oracle could not follow)
    status: str
    hazard: str | None = None  # how the VM differed from the reference
    errors: list[str] = field(default_factory=list)  # kinds of error findings
    warnings: list[str] = field(default_factory=list)
    detail: str = ""  # an exception's first line
    alarm: str | None = None  # a false alarm's class: "a" imprecision, "b" opaque call,
    # "u" a kernel given memory overlapping what it stores (undefined; no read differed)


FAILURES = ("missed", "broken", "internal", "unloadable", "oracle")


def load(text: str) -> Any:
    """The IRModule class of a rendered spec, parsed from source (no frame inspection: 3x
    faster than running the file, which only adds the SPEC literal)."""
    import tvm
    from tvm.script import ir, relax, tirx

    cls = text[text.index("@I.ir_module"):]
    return tvm.script.from_source(cls, extra_vars={"np": np, "I": ir, "R": relax, "T": tirx})


_PARSED: dict[str, tuple[Any, list[tuple[Any, bytes]]]] = {}  # the last text, parsed


def _load_once(text: str) -> Any:
    """load(text), parsed once for all the variants of a module (parsing is half a campaign's
    time): passes build new modules, but a kernel run at compile time or on the VM may write a
    constant's tensor in place, so the module is parsed again when a constant's bytes changed."""
    hit = _PARSED.get(text)
    if hit is not None and all(c.numpy().tobytes() == b for c, b in hit[1]):
        return hit[0]
    mod = load(text)
    _PARSED.clear()
    _PARSED[text] = (mod, [(c, v.tobytes()) for c, v in _constant_values(mod)])
    return mod


def _first_line(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:300]


def judge(spec: dict[str, Any], variant: str, seed: int,
          phase: Callable[[str], None] = lambda _: None) -> Verdict:
    """One variant of a spec through TVM, the VM and `aliaslog check`; `phase` is told which
    of `pass`, `check`, `vm` runs, so a process that dies there can be blamed correctly."""
    import tvm
    import tvm_ffi
    from tvm import relax

    from extractor.relax_load import has_local_function, well_formed

    rm.register_packed()
    try:
        mod = _load_once(rm.render(spec))
    except Exception as exc:  # noqa: BLE001 - the generator printed something TVM rejects
        return Verdict("unloadable", detail=_first_line(exc))
    phase("pass")
    checked = []  # the modules `check` judges: the one built, and any a pass ran kernels of
    compile_time = []  # (module given to a pass whose kernels wrote memory, its result,
    # the variables it folded, those whose calls wrote)
    before_verified = None  # the module VerifiedInplace was given, lifted as relax.build needs
    try:
        for name in VARIANTS[variant]:
            before = _constant_values(mod) if name in COMPILE_TIME else []
            if name == VERIFIED:
                before_verified = mod
                mod = _verified_inplace(mod)
                continue
            given = mod
            with tvm.target.Target("llvm"), contextlib.redirect_stderr(io.StringIO()):
                mod = getattr(relax.transform, name)()(mod)
            if not well_formed(mod):  # TVM's pass broke it (3100222: CSE, a local closure)
                return Verdict("pass-failed", detail=f"{name} made an ill-formed module")
            folded, writers = _folded_writes(given) if name in COMPILE_TIME else (set(), set())
            changed = [(c, v) for c, v in before if not np.array_equal(c.numpy(), v)]
            if writers or changed:  # a kernel it ran wrote memory: judge what it was given
                compile_time.append((_as_given(given, changed), mod, folded, writers))
    except Exception as exc:  # noqa: BLE001 - TVM refusing a module is counted, not judged
        if before_verified is not None and mod is before_verified:
            return Verdict("internal", detail=_first_line(exc))  # aliaslog's pass failed
        return Verdict("pass-failed", detail=_first_line(exc))
    try:
        compile_time = [(_live(_ran(given, after, folded)), writers)  # what the pass ran
                        for given, after, folded, writers in compile_time]
    except Exception as exc:  # noqa: BLE001 - aliaslog's DCE failing is a finding
        return Verdict("internal", detail=_first_line(exc))
    if has_local_function(mod):  # relax.build needs them lifted
        checked.append(mod)
        try:
            mod = _lifted(mod)
            if before_verified is not None:
                before_verified = _lifted(before_verified)
        except Exception as exc:  # noqa: BLE001
            return Verdict("pass-failed", detail=_first_line(exc))
    checked.append(mod)
    key = (tuple(tvm_ffi.structural_hash(m) for m in [*(m for m, _ in compile_time), None,
                                                      *checked]
                 if m is not None), json.dumps(spec, sort_keys=True),
           seed, before_verified is not None)
    if key in _SEEN:  # passes that changed nothing: the same modules, the same verdict
        return _SEEN[key]
    _SEEN[key] = verdict = _judge_modules(Judged(checked, compile_time), spec, seed, phase,
                                          before_verified)
    return verdict


def _as_given(mod: Any, changed: list[tuple[Any, np.ndarray]]) -> Any:
    """mod as a pass was given it: each bound constant a kernel the pass ran wrote (it shares
    the tensor) holding again the bytes it had then."""
    import tvm
    from tvm import relax

    from aliaslog.relax.rebind import rebind

    back = {}
    for fn in mod.functions.values():
        if not isinstance(fn, relax.Function):
            continue
        for blk in fn.body.blocks:
            for b in blk.bindings:
                if isinstance(b.value, tvm.ir.GenericConst):
                    for tensor, value in changed:
                        if b.value.value.same_as(tensor):
                            back[b] = relax.const(value)
    return rebind(mod, back) if back else mod


def _ran(given: Any, after: Any, folded: set[str]) -> Any:
    """The module given to FoldConstant without the bindings of main the pass neither ran at
    compile time (folded) nor left in its result: it drops unused ones it deems pure (a
    `call_inplace_packed` too), so no read of theirs ever happens. In each block the folded
    bindings come first: they ran once, at compile time, before any call of the rest (which
    is why `check` is told main runs once: `_findings`)."""
    import tvm
    from tvm import relax

    from aliaslog.relax.rebind import rebind

    left = {b.var.name: b.value for blk in after["main"].body.blocks for b in blk.bindings}
    dropped = {b: None for blk in given["main"].body.blocks for b in blk.bindings
               if b.var.name not in left and b.var.name not in folded}
    mod = rebind(given, dropped) if dropped else given
    fn = mod["main"]
    bound = {b.var.name for blk in fn.body.blocks for b in blk.bindings}
    ran: set[str] = set()  # (what it left a call runs on the VM: `_folded_writes` guesses;
    # and one that uses a binding not run at compile time cannot have run then)
    for blk in fn.body.blocks:
        for b in blk.bindings:
            n = b.var.name
            if n in folded and (n not in left or isinstance(left[n], tvm.ir.GenericConst)) \
                    and all(v.name in ran for v in relax.analysis.free_vars(b.value)
                            if v.name in bound):
                ran.add(n)
    blocks = [type(blk)([*(b for b in blk.bindings if b.var.name in ran),
                         *(b for b in blk.bindings if b.var.name not in ran)])
              for blk in fn.body.blocks]
    out = mod.clone()
    out[mod.get_global_var("main")] = relax.Function(
        fn.params, relax.SeqExpr(blocks, fn.body.body), fn.ret_ty, fn.is_pure, fn.attrs, fn.span)
    return relax.transform.Normalize()(out)


def _live(mod: Any) -> Any:
    """The module given to FoldConstant, as the pass leaves what it does not fold: without
    the bindings it drops as unused. aliaslog's effect-aware DCE drops only bindings whose
    value and effects nobody can observe, so it keeps every call whose compile-time write a
    later read could see, and no read the folded module does not make."""
    from aliaslog.relax.dce import effect_aware_dce

    return effect_aware_dce(mod, engine=EMBEDDED, op_effects=[str(EFFECTS)])[0]


def _verified_inplace(mod: Any) -> Any:
    """aliaslog's VerifiedInplace, with the fuzzer's packed functions described, and without
    the memory condition (which only refuses more): every rewrite the analysis allows."""
    from aliaslog.relax import verified_inplace

    return verified_inplace(mod, check_memory=False, engine=EMBEDDED,
                            op_effects=[str(EFFECTS)]).module


def _constant_values(mod: Any) -> list[tuple[Any, np.ndarray]]:
    """Every tensor constant of mod's Relax functions (its tensor), with a copy of its value
    now (a pass that runs kernels at compile time may write one)."""
    import tvm
    from tvm import relax

    found: dict[int, tuple[Any, np.ndarray]] = {}  # by the tensor's address (a node's Python
    # object is made anew at each visit, and its id() reused once it is freed)

    def walk(e: Any) -> None:
        if isinstance(e, tvm.ir.GenericConst):
            if hasattr(e.value, "numpy"):  # a tensor constant
                found.setdefault(e.value.data_ptr(),
                                 (e.value, np.array(e.value.numpy(), copy=True)))
        elif isinstance(e, relax.Call):
            for a in e.args:
                walk(a)
        elif isinstance(e, relax.Tuple):
            for a in e.fields:
                walk(a)
        elif isinstance(e, relax.Function):
            walk(e.body)
        elif isinstance(e, relax.SeqExpr):
            for blk in e.blocks:
                for b in blk.bindings:
                    walk(b.value)
            walk(e.body)
        elif isinstance(e, relax.If):
            for part in (e.cond, e.true_branch, e.false_branch):
                walk(part)

    for f in mod.functions.values():
        if isinstance(f, relax.Function):
            walk(f)
    return list(found.values())


def _folded_writes(mod: Any) -> tuple[set[str], set[str]]:
    """The variables of mod's main FoldConstant may make constants (a call_tir or an operator
    whose tensor arguments are computed from constants alone: it runs its kernel at compile
    time), and those of them whose kernel stores into an argument. A call_tir_inplace stays,
    and runs on the VM (fold_constant.cc); so may an operator it does not fold (a flatten):
    `_ran` asks the pass's result which ran."""
    import tvm
    from tvm import relax

    from extractor.kernel_access import written_params

    folded: set[str] = set()  # variables FoldConstant makes constants
    writers: set[str] = set()

    def constant(e: Any) -> bool:  # (and shapes, prim values, strings, dtypes: attributes)
        if isinstance(e, relax.Tuple):
            return all(constant(f) for f in e.fields)
        return isinstance(e, tvm.ir.Constant | relax.ShapeExpr) or (isinstance(e, relax.Var)
                                                                    and e.name in folded)

    for blk in mod["main"].body.blocks:
        for b in blk.bindings:
            v = b.value
            if not (isinstance(v, relax.Call) and isinstance(v.op, tvm.ir.Op)):
                if constant(v):
                    folded.add(b.var.name)
                continue
            if v.op.name == "relax.call_tir_inplace":
                continue
            tir = v.op.name == "relax.call_tir"
            args = list(v.args[1].fields) if tir and isinstance(v.args[1], relax.Tuple) \
                else list(v.args)
            if "packed" in v.op.name or not all(constant(a) for a in args):
                continue
            folded.add(b.var.name)
            if tir and any(i < len(args) for i in written_params(mod[v.args[0]])[0]):
                writers.add(b.var.name)
    return folded, writers


def _lifted(mod: Any) -> Any:
    """mod with its local functions lambda-lifted (relax.build needs them lifted)."""
    from tvm import relax

    from extractor.relax_load import has_local_function

    if not has_local_function(mod):
        return mod
    with contextlib.redirect_stderr(io.StringIO()):
        return relax.transform.LambdaLift()(mod)


_SEEN: dict[tuple[tuple[int, ...], str, int, bool], Verdict] = {}


@dataclass
class Judged:
    """The modules `check` judges for one variant: every error of `run` (the last is built),
    and those of `compile_time` (given to a pass whose kernels wrote memory, with the variables
    of the calls that did: their writes' findings at the input point; all, when none is
    known)."""

    run: list[Any]
    compile_time: list[tuple[Any, set[str]]] = field(default_factory=list)


def _judge_modules(checked: Judged, spec: dict[str, Any], seed: int,
                   phase: Callable[[str], None], before_verified: Any = None) -> Verdict:
    """`aliaslog check` on each module, and the VM on the last (the one built); a hazard after
    VerifiedInplace is the pass's fault ("broken") when the module before it runs clean."""
    phase("check")
    try:
        found = _findings(checked, [EFFECTS])
    except Exception as exc:  # noqa: BLE001 - aliaslog failing is what the fuzzer looks for
        return Verdict("internal", detail=_first_line(exc))
    errors = sorted({v.kind for v in found if v.severity == "error"})
    warnings = sorted({v.kind for v in found if v.severity != "error"})
    phase("vm")
    try:
        hazard = observe(checked.run[-1], spec, seed)
    except OracleError as exc:
        return Verdict("oracle", None, errors, warnings, str(exc)[:300])
    except Exception as exc:  # noqa: BLE001 - a module TVM cannot build or run
        return Verdict("build-failed", None, errors, warnings, _first_line(exc))
    if hazard is not None and before_verified is not None:
        try:
            was = observe(before_verified, spec, seed)
        except Exception as exc:  # noqa: BLE001
            return Verdict("oracle", hazard, errors, warnings, _first_line(exc))
        if was is None:
            return Verdict("broken", hazard, errors, warnings, "VerifiedInplace made it")
    if hazard is not None and not errors:
        own = own_spec(spec, checked.run[-1])  # a pass that only dropped and renamed
        if own is not None and observe(checked.run[-1], own, seed) is None:
            return Verdict("pass-changed", hazard, errors, warnings,
                           "the pass changed what the module computes; the module it made "
                           "runs as its own value semantics say")
    if hazard is not None:
        return Verdict("caught" if errors else "missed", hazard, errors, warnings)
    if not errors:
        return Verdict("clean", None, errors, warnings)
    phase("check")
    return Verdict("false-alarm", None, errors, warnings,
                   alarm=alarm_class(checked, spec, seed, found))


def _findings(checked: Judged, tables: list[Path]) -> list[Any]:
    from aliaslog.relax import check_module

    def found(m: Any, once: frozenset[str] = frozenset()) -> list[Any]:
        return check_module(m, engine=EMBEDDED, op_effects=[str(t) for t in tables],
                            once=once).violations

    return [*(v for m in checked.run for v in found(m)),
            *(v for m, writers in checked.compile_time for v in found(m, frozenset({"main"}))
              if not writers or (v.point == "input" and v.site is not None
                                 and v.site.name in writers))]


def alarm_class(checked: Judged, spec: dict[str, Any], seed: int, found: list[Any]) -> str:
    """"b" when the false alarm's errors go once every undescribed packed function the module
    calls is described by what it does (only an opaque call could have caused the hazard the
    analysis feared), or when every error is about a write a packed function makes (or a call
    of a function that may make one) and the VM shows the hazard once those functions store
    other values than they do, with the same effects (only the values a packed function
    computes, which no effect table says, hid it: SKEWS; an error elsewhere about memory such
    a write's error names, or memory computed from such a write's values, is about bytes of
    unknown value too); "u" when every error is a
    `write-overlap` of a kernel the VM does give memory overlapping an argument it stores into
    (the finding is true: the kernel's noalias promise is broken, what it reads is undefined,
    only this build happened to read the values value semantics gives); "b" too when what is
    left once the opaque functions are described is such a `write-overlap` (the rest only an
    opaque call could cause); else "a" (imprecision)."""
    errors = [v for v in found if v.severity == "error"]
    if _true_overlaps(checked, spec, seed, errors):
        return "u"
    if opaque_calls(spec):
        described = [v for v in _findings(checked, [EFFECTS, TRUE_EFFECTS])
                     if v.severity == "error"]
        if not described or _true_overlaps(checked, spec, seed, described):
            return "b"
    sites = _packed_write_sites(spec)
    written = {v.obj for v in errors if v.site is not None and v.site.name in sites}
    fed = _fed_by(spec, sites)
    if not sites or any((v.site is None or v.site.name not in sites) and v.obj not in written
                        and _obj_name(v.obj) not in fed for v in errors):
        return "a"
    for value in SKEWS:
        with rm.skewed(value):
            if observe(checked.run[-1], spec, seed) is not None:
                return "b"
    return "a"


def _obj_name(obj: Any) -> str | None:
    """The variable a finding's memory names ("`v5` in @main (...)")."""
    m = re.match(r"`([^`]+)`", str(obj or ""))
    return m.group(1) if m else None


def _fed_by(spec: dict[str, Any], sites: set[str]) -> set[str]:
    """The variables of `sites`, those a packed function of theirs writes (in place, or the
    destination `writer` fills), and those computed, through any chain of statements, from
    them: bytes of values a packed function chose (`v4 - v4` of its result)."""
    stmts = _all_stmts(spec)
    fed = set(sites) | {a for s in stmts if s["var"] in sites
                        for a in (s["args"][-1:] if s["op"] == "packed" else _written(s))}
    while True:
        more = {s["var"] for s in stmts if s["var"] not in fed and fed & set(s["args"])}
        if not more:
            return fed
        fed |= more


def _true_overlaps(checked: Judged, spec: dict[str, Any], seed: int, errors: list[Any]) -> bool:
    """Every error is a `write-overlap` of a kernel the VM does give memory overlapping an
    argument it stores into."""
    if not errors or any(v.kind != "write-overlap" for v in errors):
        return False
    met = noalias_overlaps(checked.run[-1], spec, seed)
    return all(_kernel_of(v) in met for v in errors)


def _kernel_of(v: Any) -> str | None:
    """The kernel a lowered finding's site calls (`cls.split(...)`), or None."""
    m = re.match(r"cls\.(\w+)\(", v.site.text if v.site is not None else "")
    return m.group(1) if m else None


def _packed_write_sites(spec: dict[str, Any]) -> set[str]:
    """The variables of a spec's packed calls that write memory, and, when there is one, of
    its calls of functions and closures (which may make it); empty when there is none."""
    writes = {s["var"] for s in _all_stmts(spec) if s["op"] == "inplace_packed"
              or (s["op"] == "packed" and s["attr"]["fn"] == "writer")}
    if not writes:
        return set()
    return writes | {s["var"] for s in _all_stmts(spec) if s["op"] in ("call", "invoke")}


def opaque_calls(spec: dict[str, Any]) -> list[str]:
    """The undescribed packed functions a spec calls."""
    return sorted({s["attr"]["fn"] for s in _all_stmts(spec)
                   if s["op"] in ("packed", "inplace_packed") and s["attr"]["fn"] in rm.OPAQUE})


def _all_stmts(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [*spec["stmts"], *(s for f in spec.get("functions", []) for s in f["stmts"])]


def features(spec: dict[str, Any]) -> list[str]:
    """The constructs a spec uses (op names, packed functions, kernels, and the shapes in-place
    bugs come in), for the summary."""
    out = set()
    fns = rm.functions(spec)
    for s in _all_stmts(spec):
        a = s.get("attr", {})
        out.add({"packed": f"packed:{a.get('fn')}", "call_tir": f"call_tir:{a.get('kernel')}",
                 "inplace": f"inplace:{a.get('kernel')}", "dps": f"dps:{a.get('kernel')}",
                 "inplace_packed": f"inplace_packed:{a.get('fn')}"}.get(s["op"], s["op"]))
        if a.get("plain"):
            out.add("plain-primfunc")
        if s["op"] == "view_off":
            out.add("view_off:offset" if a["offset"] else "view_off:0")
        if s["op"] == "closure":
            out.add("closure:local" if a.get("inner") else "closure:make_closure")
        if s["op"] == "invoke" and a.get("direct"):
            out.add("invoke:by-name")
    env = rm.types(spec)
    for s in spec["stmts"]:
        if s["op"] == "permute":
            out.add("permute:unit" if 1 in env[s["args"][0]][1] else "permute:general")
    for s in spec["stmts"]:
        f = fns.get(s.get("attr", {}).get("fn", ""))
        if f is not None and s["op"] in ("call", "closure"):
            out |= _writes_params(f)
    out |= _overlaps(spec) | _split_parts_written(spec)
    if opaque_calls(spec):
        out.add("opaque-call")
    out.add("lowered" if spec.get("lowered") else
            "dataflow" if spec["dataflow"] else "binding-block")
    return sorted(out)


def _writes_params(f: dict[str, Any]) -> set[str]:
    """helper-writes-param / closure-writes-capture / closure-writes-param, from the body."""
    names = [p["name"] for p in f["params"]]
    caps = set(names[len(names) - f.get("ncap", 0):])
    out = set()
    for s in f["stmts"]:
        for w in _written(s):
            if w in names:
                out.add(f"{f['kind']}-writes-{'capture' if w in caps else 'param'}")
                if s["var"] == f["outputs"][0]:
                    out.add(f"{f['kind']}-returns-written")
    return out


def _split_parts_written(spec: dict[str, Any]) -> set[str]:
    """split:part-written: a part an `R.split` made, then written in place (a call's outputs
    are memory of their own that a write destroys)."""
    stmts = _all_stmts(spec)
    parts = {s["var"] for s in stmts if s["op"] == "get"
             and any(t["var"] == s["args"][0] and t["op"] == "split" for t in stmts)}
    written = {w for s in stmts for w in _written(s)}
    return {"split:part-written"} if parts & written else set()


def _written(s: dict[str, Any]) -> list[str]:
    """The argument an in-place statement writes (call_tir_inplace its first, an in-place
    packed call its last), or none."""
    if s["op"] == "inplace":
        return s["args"][:1]
    return s["args"][-1:] if s["op"] == "inplace_packed" else []


def _overlaps(spec: dict[str, Any]) -> set[str]:
    """alloc:overlap / alloc:disjoint: tensors in one storage whose byte ranges meet or not."""
    env = rm.types(spec)
    ranges: dict[str, list[tuple[int, int]]] = {}
    for s in spec["stmts"]:
        if s["op"] == "alloc":
            off = s["attr"]["offset"]
            n = 4 * int(np.prod(env[s["var"]][1]))
            ranges.setdefault(s["args"][0], []).append((off, off + n))
    out = set()
    for rs in ranges.values():
        for i, (a0, a1) in enumerate(rs):
            for b0, b1 in rs[i + 1:]:
                out.add("alloc:overlap" if a0 < b1 and b0 < a1 else "alloc:disjoint")
    return out


def check_seed(seed: int, variants: list[str]) -> dict[str, Any]:
    """Every variant of one seed's module, as a JSON-able row (in this process)."""
    spec = rm.generate(seed)
    return {"seed": seed, "stmts": len(spec["stmts"]), "features": features(spec),
            "variants": {v: asdict(judge(spec, v, seed)) for v in variants}}


# ------------------------------------------------------------------------------ shrinking


def _uses(body: dict[str, Any], name: str) -> bool:
    return name in body["outputs"] or any(name in s["args"] for s in body["stmts"])


def _bodies(spec: dict[str, Any]) -> list[tuple[dict[str, Any], str | None]]:
    """main and every helper and closure body, each with its function's name (None: main)."""
    return [(spec, None), *((f, f["name"]) for f in spec.get("functions", []))]


def _candidates(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Smaller specs: a statement of any function deleted (its uses replaced by an argument of
    the same type; a kernel call's destination by one of its inputs), an output dropped, an
    unused parameter or function dropped."""
    out = []
    for k, (body, fn) in enumerate(_bodies(spec)):
        env = rm.types(spec, fn)
        for i, s in enumerate(body["stmts"]):
            old = s["args"][-1] if s["op"] == "dps" else s["var"]
            subs = [None] + [a for a in s["args"] if env[a] == env[old] and a != old]
            for sub in subs:
                if sub is None and _uses(body, s["var"]):
                    continue
                cand = json.loads(json.dumps(spec))
                b = _bodies(cand)[k][0]
                del b["stmts"][i]
                if sub is not None:
                    for t in b["stmts"][i:]:
                        t["args"] = [sub if a == old else a for a in t["args"]]
                    b["outputs"] = list(dict.fromkeys(sub if o == old else o
                                                      for o in b["outputs"]))
                out.append(cand)
    for o in spec["outputs"]:
        if len(spec["outputs"]) > 1:
            cand = json.loads(json.dumps(spec))
            cand["outputs"].remove(o)
            out.append(cand)
    for p in spec["params"]:
        if len(spec["params"]) > 1 and not _uses(spec, p["name"]):
            cand = json.loads(json.dumps(spec))
            cand["params"] = [q for q in cand["params"] if q["name"] != p["name"]]
            out.append(cand)
    called = {s["attr"]["fn"] for s in _all_stmts(spec) if s["op"] in ("call", "closure")}
    for f in spec.get("functions", []):
        if f["name"] not in called:
            cand = json.loads(json.dumps(spec))
            cand["functions"] = [g for g in cand["functions"] if g["name"] != f["name"]]
            if not cand["functions"]:
                del cand["functions"]
            out.append(cand)
    return out


def shrink(spec: dict[str, Any], fails: Callable[[dict[str, Any]], bool],
           budget: int = 200) -> dict[str, Any]:
    """A smaller spec that still fails: greedy deletion until nothing more can go."""
    improved = True
    while improved and budget > 0:
        improved = False
        for cand in _candidates(spec):
            if budget <= 0:
                break
            try:
                rm.types(cand)
            except rm.SpecError:
                continue
            budget -= 1
            if fails(cand):
                spec, improved = cand, True
                break
    return spec


def save_regression(spec: dict[str, Any], variant: str, seed: int, verdict: Verdict,
                    directory: Path = REGRESSIONS) -> Path:
    """Write a failing spec as a TVMScript file that the regression test replays, its hash and
    the command that replays it in its docstring (rename it after what it pins, with its
    Reproduce line, and say what it pins in its docstring)."""
    digest = spec_hash(spec)
    path = directory / f"{verdict.status}_{variant.replace('+', '_')}_{digest}.py"
    record = textwrap.fill(f"Fuzzer counterexample ({verdict.status}, variant {variant}): "
                           f"{verdict.hazard or verdict.detail}.", 95)
    doc = (f'"""{record}\n\nHash: {digest} (of its SPEC)\n'
           f'Reproduce: {reproduce_command(RELAX_TEST, path)}\n"""\n\n')

    text = doc + rm.render(spec).replace(
        "SPEC = ", f"FAILED_AS = {verdict.status!r}\nVARIANT = {variant!r}\n"
        f"SEED = {seed}  # the oracle's inputs\nSPEC = ", 1)
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------- campaign


def _worker(tasks: list[tuple[int, str]]) -> None:
    """Print a JSON line per phase and per verdict, so a crash names its seed, variant, phase."""
    def say(**msg: Any) -> None:
        sys.__stdout__.write(json.dumps(msg) + "\n")
        sys.__stdout__.flush()

    with contextlib.redirect_stdout(sys.stderr):
        for seed, variant in tasks:
            try:
                spec = rm.generate(seed)
            except Exception as exc:  # noqa: BLE001 - the generator's own bug, a failure
                say(seed=seed, stmts=0, features=["generator-error"])
                say(seed=seed, variant=variant, verdict=asdict(Verdict(
                    "unloadable", detail=f"the generator failed: {_first_line(exc)}")))
                continue
            say(seed=seed, stmts=len(spec["stmts"]), features=features(spec))
            verdict = judge(spec, variant, seed,
                            lambda ph, s=seed, v=variant: say(seed=s, variant=v, phase=ph))
            say(seed=seed, variant=variant, verdict=asdict(verdict))


# A worker that dies or hangs: in check it is aliaslog's failure; in a TVM pass or the VM, TVM's.
CRASH = {"check": "internal", "pass": "tvm-crashed", "vm": "tvm-crashed"}
TASK_SECONDS = 600  # a worker silent this long is killed (one variant takes seconds)


def _load_log(log: Path) -> dict[int, dict[str, Any]]:
    """The rows a stopped campaign's verdict log holds; a torn last line (the campaign was
    stopped while writing it) is cut off, so the verdicts appended next start a line."""
    text = log.read_text()
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
        log.write_text(text)
    rows: dict[int, dict[str, Any]] = {}
    for line in text.splitlines():
        msg = json.loads(line)
        row = rows.setdefault(msg["seed"], {"seed": msg["seed"], "stmts": msg["stmts"],
                                            "features": msg["features"], "variants": {}})
        row["variants"][msg["variant"]] = msg["verdict"]
    return rows


def _run_jobs(seeds: list[int], variants: list[str], jobs: int, log: Path | None = None,
              chunk: int = 40) -> list[dict[str, Any]]:
    """Rows for every seed from `jobs` worker processes, each given `chunk` tasks at a time;
    a variant that kills its worker is recorded as crashed and the rest of its chunk requeued.
    Each verdict is appended to `log` as it comes, and the verdicts already there are kept and
    not judged again, so a stopped campaign resumes where it stopped."""
    rows = _load_log(log) if log is not None and log.exists() else {}
    wanted_seeds = set(seeds)
    rows = {s: r for s, r in rows.items() if s in wanted_seeds}
    queue = [(s, v) for s in seeds for v in variants
             if v not in rows.get(s, {}).get("variants", {})]
    total = len(queue)
    queue = [queue[i:i + chunk] for i in range(0, len(queue), chunk)]
    running: dict[Any, tuple[subprocess.Popen[str], set[tuple[int, str]], list]] = {}
    sel = selectors.DefaultSelector()
    done = 0
    sink = log.open("a") if log is not None else None

    def record(seed: int, variant: str, verdict: dict[str, Any]) -> None:
        nonlocal done
        row = rows[seed]
        row["variants"][variant] = verdict
        if sink is not None:
            sink.write(json.dumps({"seed": seed, "stmts": row["stmts"],
                                   "features": row["features"], "variant": variant,
                                   "verdict": verdict}) + "\n")
            sink.flush()
        done += 1
        if done % 200 == 0:
            print(f"[{done}/{total}]", file=sys.stderr)

    def start(tasks: list[tuple[int, str]]) -> None:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.fuzz_relax", "--worker", "--tasks",
             ",".join(f"{s}:{v}" for s, v in tasks)],
            cwd=paths.REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        running[proc.stdout] = (proc, set(tasks), [None, time.monotonic()])
        sel.register(proc.stdout, selectors.EVENT_READ)

    while queue or running:
        while queue and len(running) < jobs:
            start(queue.pop(0))
        now = time.monotonic()
        for proc, _, last in running.values():
            if now - last[1] > TASK_SECONDS and proc.poll() is None:
                proc.kill()  # its stdout closes: handled below as a death, blamed on its phase
                last[2:] = ["timed out"]
        for key, _ in sel.select(timeout=30):
            proc, wanted, last = running[key.fileobj]
            line = key.fileobj.readline()  # type: ignore[union-attr]
            last[1] = time.monotonic()
            if line:
                msg = json.loads(line)
                if "features" in msg:
                    rows.setdefault(msg["seed"], {**msg, "variants": {}})
                    rows[msg["seed"]].update(stmts=msg["stmts"], features=msg["features"])
                elif "phase" in msg:
                    last[0] = (msg["seed"], msg["variant"], msg["phase"])
                else:
                    record(msg["seed"], msg["variant"], msg["verdict"])
                    wanted.discard((msg["seed"], msg["variant"]))
                    last[0] = None
                continue
            sel.unregister(key.fileobj)
            del running[key.fileobj]
            proc.wait()
            if last[0] is None and wanted and proc.returncode:  # died before any phase:
                last[0] = (*min(wanted), "pass")  # blame its first task, never loop on it
                rows.setdefault(last[0][0], {"seed": last[0][0], "stmts": 0,
                                             "features": [], "variants": {}})
            if last[0] is not None and last[0][:2] in wanted:
                seed, variant, phase = last[0]
                how = last[2] if len(last) > 2 else f"died (exit {proc.returncode})"
                record(seed, variant, asdict(Verdict(
                    CRASH[phase], detail=f"the process {how} in {phase}")))
                wanted.discard((seed, variant))
            if wanted:
                queue.insert(0, sorted(wanted))
    if sink is not None:
        sink.close()
    return [rows[s] for s in sorted(rows)]


def label(verdict: dict[str, Any]) -> str:
    """A verdict's status, false alarms with their class: (a) imprecision, (b) opaque call,
    (u) a broken noalias promise whose reads happened to agree."""
    if verdict["status"] == "false-alarm":
        return f"false-alarm ({verdict.get('alarm') or 'a'})"
    return verdict["status"]


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts per verdict (false alarms per class), per variant, and per feature (the
    modules that use it, and the verdicts of their variants)."""
    total: Counter[str] = Counter()
    per: dict[str, Counter[str]] = {}
    feats: Counter[str] = Counter()
    per_feat: dict[str, Counter[str]] = {}
    for r in rows:
        feats.update(r["features"])
        for v, verdict in r["variants"].items():
            st = label(verdict)
            total[st] += 1
            per.setdefault(v, Counter())[st] += 1
            for f in r["features"]:
                per_feat.setdefault(f, Counter())[st] += 1
    return {"modules": len(rows), "verdicts": dict(sorted(total.items())),
            "per_variant": {v: dict(sorted(c.items())) for v, c in per.items()},
            "features": dict(sorted(feats.items())),
            "per_feature": {f: dict(sorted(c.items())) for f, c in sorted(per_feat.items())}}


def save_alarm(spec: dict[str, Any], variant: str, seed: int, verdict: Verdict,
               directory: Path) -> Path:
    """Write a false alarm as a TVMScript file `aliaslog check` can be run on (with the
    fuzzer's effect table), saying which errors it reports and on which variant."""
    digest = spec_hash(spec)
    path = directory / f"alarm_{'_'.join(verdict.errors)}_{variant.replace('+', '_')}_{digest}.py"
    record = textwrap.fill(
        f"False alarm (class {verdict.alarm}) of the Relax fuzzer on variant {variant} "
        f"(passes: {', '.join(VARIANTS[variant]) or 'none'}; then LambdaLift if the module "
        f"has local functions): check reports {', '.join(verdict.errors)}, but no read in any "
        f"VM run sees another value than value semantics. Check: aliaslog check FILE "
        f"--op-effects tests/data/relax/fuzz_packed_effects.tsv.", 95)
    text = f'"""{record}\n"""\n\n' + rm.render(spec).replace(
        "SPEC = ", f"VARIANT = {variant!r}\nSEED = {seed}  # the oracle's inputs\nSPEC = ", 1)
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def shrink_results(rows: list[dict[str, Any]], save_to: Path | None, alarms: Path | None,
                   alarm_limit: int) -> None:
    """Shrink every failure (saved under save_to) and up to alarm_limit false alarms of class
    (a) per variant and set of error kinds (saved under alarms), each while its variant keeps
    the same verdict (and, for an alarm, the same errors)."""
    groups: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for r in rows:
        seed = r["seed"]
        for v, d in r["variants"].items():
            verdict = Verdict(**d)
            replayable = not verdict.detail.startswith("the process")  # not a death or a hang
            if verdict.status in FAILURES and save_to is not None and replayable:
                small = shrink(rm.generate(seed), lambda s, v=v, st=verdict.status, seed=seed:
                               judge(s, v, seed).status == st)
                print(f"  saved {save_regression(small, v, seed, judge(small, v, seed), save_to)}")
            key = (v, tuple(verdict.errors))
            if verdict.status == "false-alarm" and verdict.alarm == "a" and alarms is not None \
                    and groups[key] < alarm_limit:
                groups[key] += 1

                def same(s: dict[str, Any], v: str = v, seed: int = seed,
                         errors: list[str] = verdict.errors) -> bool:
                    j = judge(s, v, seed)
                    return (j.status, j.alarm, j.errors) == ("false-alarm", "a", errors)

                small = shrink(rm.generate(seed), same, budget=150)
                print(f"  alarm {save_alarm(small, v, seed, judge(small, v, seed), alarms)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--out", type=Path,
                    help="write verdicts.jsonl (as they come), rows.jsonl and summary.json here; "
                         "a campaign run again with the same --out resumes where it stopped")
    ap.add_argument("--no-save", action="store_true", help="do not shrink and save failures")
    ap.add_argument("--save-to", type=Path, default=REGRESSIONS,
                    help="where shrunk failures go (default: the regression directory)")
    ap.add_argument("--alarms", type=Path,
                    help="also shrink false alarms of class (a) and write them here")
    ap.add_argument("--alarm-limit", type=int, default=2,
                    help="false alarms shrunk per variant and set of error kinds")
    ap.add_argument("--shrink-from", type=Path,
                    help="shrink the results of an earlier campaign (its --out) instead")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tasks", help=argparse.SUPPRESS)  # seed:variant,...
    args = ap.parse_args(argv)
    if args.worker:
        _worker([(int(t.split(":")[0]), t.split(":")[1]) for t in args.tasks.split(",")])
        return 0
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variants {', '.join(unknown)} (choose from {', '.join(VARIANTS)})")
    if args.shrink_from:
        rows = [json.loads(line) for line in (args.shrink_from / "rows.jsonl").open()]
        shrink_results(rows, None if args.no_save else args.save_to, args.alarms,
                       args.alarm_limit)
        return 0
    t0 = time.time()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    rows = _run_jobs(list(range(args.start, args.start + args.n)), variants, args.jobs,
                     args.out / "verdicts.jsonl" if args.out else None)
    summary = summarize(rows)
    summary["seconds"] = round(time.time() - t0, 1)
    failures = [(r, v, Verdict(**d)) for r in rows for v, d in r["variants"].items()
                if d["status"] in FAILURES]
    for r, v, verdict in failures:
        print(f"FAIL seed {r['seed']} [{v}] {verdict.status}: {verdict.hazard or verdict.detail}"
              f" (errors: {', '.join(verdict.errors) or 'none'})")
    if args.out:
        (args.out / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    shrink_results(rows, None if args.no_save else args.save_to, args.alarms, args.alarm_limit)
    if args.out:
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
