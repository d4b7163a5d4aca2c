"""Relax alias-safety fuzzing (`make fuzz-relax`): random modules on TVM's VM, then `check`.

`python -m tests.support.fuzz_relax --n N [--start SEED] [--jobs J]`: each seed gives a module
(randmod_relax.py). For every variant — the module as written, and after TVM's
DataflowUseInplaceCalls, DeadCodeElimination, EliminateCommonSubexpr, FoldConstant,
CanonicalizeBindings, or DataflowUseInplaceCalls then FoldConstant — the oracle
builds the module with `relax.build(mod, "llvm")`, runs it on the VM three times (two fresh
random inputs, then the first again, on one VM) and compares every result and every input
tensor after the call with the reference semantics (`randmod_relax.evaluate`). Then `aliaslog
check` (all three extraction points, the fuzzer's packed functions described by
tests/data/relax/fuzz_packed_effects.tsv) runs on the same module, and on the module given to
FoldConstant, which runs kernels at compile time (a write there leaves no trace). Per variant:

  missed hazard  the VM differs from the reference and check reports no error — a failure
  caught         it differs and check reports an error
  false alarm    it agrees on every run and check reports an error
  clean          it agrees and check reports no error

An internal error of check (an exception) is a failure too. Modules TVM cannot transform or
build are counted, not judged. A failing module is shrunk (statements, outputs and parameters
deleted while the same variant still fails) and saved under tests/data/relax/regressions/,
which tests/relax/test_relax_fuzz.py replays on every test run. Exits 1 if any module failed.
With `--jobs J`, J worker processes (`--worker`) check seeds; a worker that dies takes only
its current seed with it (counted as `crashed`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
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
from .regressions import RELAX_TEST, reproduce_command, spec_hash

EFFECTS = paths.DATA / "relax" / "fuzz_packed_effects.tsv"
REGRESSIONS = paths.DATA / "relax" / "regressions"


VARIANTS: dict[str, tuple[str, ...]] = {  # relax.transform passes, in order
    "as-written": (),
    "inplace": ("DataflowUseInplaceCalls",),
    "dce": ("DeadCodeElimination",),
    "cse": ("EliminateCommonSubexpr",),
    "fold": ("FoldConstant",),
    "canon": ("CanonicalizeBindings",),
    "inplace+fold": ("DataflowUseInplaceCalls", "FoldConstant"),
}
# Passes that run kernels at compile time: a write they make happens inside the pass and
# leaves no trace in its output, so the module given to them is checked too.
COMPILE_TIME = frozenset({"FoldConstant"})


@dataclass
class Verdict:
    """One variant of one module: what TVM, the VM and `aliaslog check` did."""

    # missed / caught / false-alarm / clean; pass-failed / build-failed / tvm-crashed (TVM's);
    # internal (aliaslog's exception or crash), unloadable (the generator's TVMScript)
    status: str
    hazard: str | None = None  # how the VM differed from the reference
    errors: list[str] = field(default_factory=list)  # kinds of error findings
    warnings: list[str] = field(default_factory=list)
    detail: str = ""  # an exception's first line


FAILURES = ("missed", "internal", "unloadable")


def load(text: str) -> Any:
    """The IRModule class of a rendered spec, parsed from source (no frame inspection: 3x
    faster than running the file, which only adds the SPEC literal)."""
    import tvm
    from tvm.script import ir, relax, tirx

    cls = text[text.index("@I.ir_module"):]
    return tvm.script.from_source(cls, extra_vars={"np": np, "I": ir, "R": relax, "T": tirx})


def _first_line(exc: BaseException) -> str:
    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}"[:300]


def observe(mod: Any, spec: dict[str, Any], seed: int) -> str | None:
    """Build and run `mod` three times; how it differs from the reference, or None."""
    import tvm
    from tvm import relax

    with contextlib.redirect_stderr(io.StringIO()):
        ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(seed)
    a, b = rm.random_inputs(spec, rng), rm.random_inputs(spec, rng)
    for run, inputs in enumerate((a, b, a), 1):
        args = [tvm.runtime.tensor(x.copy()) for x in inputs]
        got = vm["main"](*args)
        got_flat = [g.numpy() for g in _flat_vm(got)]
        want = rm.evaluate(spec, inputs)
        for i, (g, w) in enumerate(zip(got_flat, want, strict=True)):
            if g.shape != w.shape or not np.array_equal(g, w):
                return f"run {run}: output {i} is {g.tolist()}, expected {w.tolist()}"
        for p, arg, x in zip(spec["params"], args, inputs, strict=True):
            if not np.array_equal(arg.numpy(), x):
                return f"run {run}: the call changed parameter {p['name']}"
    return None


def _flat_vm(v: Any) -> list[Any]:
    import tvm_ffi

    if isinstance(v, (tvm_ffi.Array, list, tuple)):
        return [x for item in v for x in _flat_vm(item)]
    return [v]


def judge(spec: dict[str, Any], variant: str, seed: int,
          phase: Callable[[str], None] = lambda _: None) -> Verdict:
    """One variant of a spec through TVM, the VM and `aliaslog check`; `phase` is told which
    of `pass`, `check`, `vm` runs, so a process that dies there can be blamed correctly."""
    import tvm
    import tvm_ffi
    from tvm import relax

    rm.register_packed()
    try:
        mod = load(rm.render(spec))
    except Exception as exc:  # noqa: BLE001 - the generator printed something TVM rejects
        return Verdict("unloadable", detail=_first_line(exc))
    phase("pass")
    checked = []  # the modules `check` judges: the one built, and any a pass ran kernels of
    try:
        for name in VARIANTS[variant]:
            if name in COMPILE_TIME:
                checked.append(mod)
            with tvm.target.Target("llvm"), contextlib.redirect_stderr(io.StringIO()):
                mod = getattr(relax.transform, name)()(mod)
    except Exception as exc:  # noqa: BLE001 - TVM refusing a module is counted, not judged
        return Verdict("pass-failed", detail=_first_line(exc))
    checked.append(mod)
    key = (tuple(tvm_ffi.structural_hash(m) for m in checked), json.dumps(spec, sort_keys=True),
           seed)
    if key in _SEEN:  # passes that changed nothing: the same modules, the same verdict
        return _SEEN[key]
    _SEEN[key] = verdict = _judge_modules(checked, spec, seed, phase)
    return verdict


_SEEN: dict[tuple[tuple[int, ...], str, int], Verdict] = {}


def _judge_modules(checked: list[Any], spec: dict[str, Any], seed: int,
                   phase: Callable[[str], None]) -> Verdict:
    """`aliaslog check` on each module, and the VM on the last (the one built)."""
    from aliaslog.relax import check_module

    phase("check")
    found = []
    try:
        for m in checked:
            found += check_module(m, engine=EMBEDDED, op_effects=[str(EFFECTS)]).violations
    except Exception as exc:  # noqa: BLE001 - aliaslog failing is what the fuzzer looks for
        return Verdict("internal", detail=_first_line(exc))
    errors = sorted({v.kind for v in found if v.severity == "error"})
    warnings = sorted({v.kind for v in found if v.severity != "error"})
    phase("vm")
    try:
        hazard = observe(checked[-1], spec, seed)
    except Exception as exc:  # noqa: BLE001 - a module TVM cannot build or run
        return Verdict("build-failed", None, errors, warnings, _first_line(exc))
    if hazard is not None:
        return Verdict("caught" if errors else "missed", hazard, errors, warnings)
    return Verdict("false-alarm" if errors else "clean", None, errors, warnings)


def features(spec: dict[str, Any]) -> list[str]:
    """The constructs a spec uses (op names, packed functions, kernels), for the summary."""
    out = set()
    for s in spec["stmts"]:
        a = s.get("attr", {})
        out.add({"packed": f"packed:{a.get('fn')}", "call_tir": f"call_tir:{a.get('kernel')}",
                 "inplace": f"inplace:{a.get('kernel')}"}.get(s["op"], s["op"]))
        if a.get("plain"):
            out.add("plain-primfunc")
    out.add("dataflow" if spec["dataflow"] else "binding-block")
    return sorted(out)


def check_seed(seed: int, variants: list[str]) -> dict[str, Any]:
    """Every variant of one seed's module, as a JSON-able row (in this process)."""
    spec = rm.generate(seed)
    return {"seed": seed, "stmts": len(spec["stmts"]), "features": features(spec),
            "variants": {v: asdict(judge(spec, v, seed)) for v in variants}}


# ------------------------------------------------------------------------------ shrinking


def _uses(spec: dict[str, Any], name: str) -> bool:
    return name in spec["outputs"] or any(name in s["args"] for s in spec["stmts"])


def _candidates(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Smaller specs: a statement deleted (its uses replaced by an argument of the same
    type), an output dropped, an unused parameter dropped."""
    out = []
    env = rm.types(spec)
    for i, s in enumerate(spec["stmts"]):
        subs = [None] + [a for a in s["args"] if env[a] == env[s["var"]]]
        for sub in subs:
            if sub is None and _uses(spec, s["var"]):
                continue
            cand = json.loads(json.dumps(spec))
            del cand["stmts"][i]
            if sub is not None:
                for t in cand["stmts"]:
                    t["args"] = [sub if a == s["var"] else a for a in t["args"]]
                cand["outputs"] = list(dict.fromkeys(sub if o == s["var"] else o
                                                     for o in cand["outputs"]))
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
            spec = rm.generate(seed)
            say(seed=seed, stmts=len(spec["stmts"]), features=features(spec))
            verdict = judge(spec, variant, seed,
                            lambda ph, s=seed, v=variant: say(seed=s, variant=v, phase=ph))
            say(seed=seed, variant=variant, verdict=asdict(verdict))


# A worker that dies: in check it is aliaslog's failure; in a TVM pass or the VM, TVM's.
CRASH = {"check": "internal", "pass": "tvm-crashed", "vm": "tvm-crashed"}


def _run_jobs(seeds: list[int], variants: list[str], jobs: int,
              chunk: int = 40) -> list[dict[str, Any]]:
    """Rows for every seed from `jobs` worker processes, each given `chunk` tasks at a time;
    a variant that kills its worker is recorded as crashed and the rest of its chunk requeued."""
    rows: dict[int, dict[str, Any]] = {}
    queue = [(s, v) for s in seeds for v in variants]
    queue = [queue[i:i + chunk] for i in range(0, len(queue), chunk)]
    running: dict[Any, tuple[subprocess.Popen[str], set[tuple[int, str]], list]] = {}
    sel = selectors.DefaultSelector()
    done = 0

    def start(tasks: list[tuple[int, str]]) -> None:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.fuzz_relax", "--worker", "--tasks",
             ",".join(f"{s}:{v}" for s, v in tasks)],
            cwd=paths.REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        running[proc.stdout] = (proc, set(tasks), [None])
        sel.register(proc.stdout, selectors.EVENT_READ)

    while queue or running:
        while queue and len(running) < jobs:
            start(queue.pop(0))
        for key, _ in sel.select():
            proc, wanted, last = running[key.fileobj]
            line = key.fileobj.readline()  # type: ignore[union-attr]
            if line:
                msg = json.loads(line)
                if "features" in msg:
                    rows.setdefault(msg["seed"], {**msg, "variants": {}})
                elif "phase" in msg:
                    last[0] = (msg["seed"], msg["variant"], msg["phase"])
                else:
                    rows[msg["seed"]]["variants"][msg["variant"]] = msg["verdict"]
                    wanted.discard((msg["seed"], msg["variant"]))
                    last[0] = None
                    done += 1
                    if done % 200 == 0:
                        print(f"[{done}/{len(seeds) * len(variants)}]", file=sys.stderr)
                continue
            sel.unregister(key.fileobj)
            del running[key.fileobj]
            proc.wait()
            if last[0] is not None and last[0][:2] in wanted:
                seed, variant, phase = last[0]
                rows[seed]["variants"][variant] = asdict(Verdict(
                    CRASH[phase], detail=f"the process died in {phase} (exit {proc.returncode})"))
                wanted.discard((seed, variant))
                done += 1
            if wanted:
                queue.insert(0, sorted(wanted))
    return [rows[s] for s in sorted(rows)]


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts per verdict, per variant, and of the features the modules used."""
    total: Counter[str] = Counter()
    per: dict[str, Counter[str]] = {}
    feats: Counter[str] = Counter()
    for r in rows:
        feats.update(r["features"])
        for v, verdict in r["variants"].items():
            total[verdict["status"]] += 1
            per.setdefault(v, Counter())[verdict["status"]] += 1
    return {"modules": len(rows), "verdicts": dict(sorted(total.items())),
            "per_variant": {v: dict(sorted(c.items())) for v, c in per.items()},
            "features": dict(sorted(feats.items()))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--out", type=Path, help="write rows.jsonl and summary.json here")
    ap.add_argument("--no-save", action="store_true", help="do not shrink and save failures")
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
    t0 = time.time()
    rows = _run_jobs(list(range(args.start, args.start + args.n)), variants, args.jobs)
    summary = summarize(rows)
    summary["seconds"] = round(time.time() - t0, 1)
    failures = [(r, v, Verdict(**d)) for r in rows for v, d in r["variants"].items()
                if d["status"] in FAILURES]
    for r, v, verdict in failures:
        print(f"FAIL seed {r['seed']} [{v}] {verdict.status}: {verdict.hazard or verdict.detail}"
              f" (errors: {', '.join(verdict.errors) or 'none'})")
        if args.no_save or "died" in verdict.detail:
            continue
        seed = r["seed"]
        small = shrink(rm.generate(seed),
                       lambda s, v=v, st=verdict.status, seed=seed: judge(s, v, seed).status == st)
        print(f"  saved {save_regression(small, v, seed, judge(small, v, seed))}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
