"""One model of a batch: load, analyse and DCE it, and describe it as one result row.

This runs inside a worker process (`python -m aliaslog.batch.task`, see worker.py), so a
crash, a runaway memory use or a time limit hit by one model cannot take the batch down.
The row schema is in `aliaslog/batch/__init__.py`'s docstring; the report reads these keys.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from extractor.runtime import recursion_limit, survivors_frozen

from ..options import DEFAULT_ANALYSIS, DEFAULT_ENGINE, AnalysisOptions, EngineOptions
from ..workloads import ir_of, is_lowered, model_name, variant_of

BEGIN = '{"event": "begin"}'  # the worker protocol's line before a row: imports are done


@dataclass(frozen=True)
class Task:
    """What a worker needs to analyse one model; plain data (the options as their JSON), so it
    crosses process boundaries."""

    path: str
    analysis: dict[str, Any] = field(default_factory=DEFAULT_ANALYSIS.as_json)
    engine: dict[str, Any] = field(default_factory=DEFAULT_ENGINE.as_json)
    relax_point: str = "input"
    check_outputs: bool = False  # Relay: run before and after analysis DCE, compare results
    audit: bool = False  # Relax: audit the model through relax.build's default llvm pipeline
    module: str | None = None  # Relax: the IRModule to take from a file that defines several
    op_effects: list[str] = field(default_factory=list)  # effect tables (paths), in order
    tir_effects: list[str] = field(default_factory=list)  # Relax: TIR packed-call tables

    def options(self) -> dict[str, Any]:
        """Everything but the path: what the cache key must cover besides the file's bytes."""
        out = asdict(self)
        del out["path"]
        return out

    def analysis_options(self) -> AnalysisOptions:
        return AnalysisOptions(**self.analysis)

    def engine_options(self) -> EngineOptions:
        return EngineOptions(**self.engine)

    def effect_tables(self) -> dict[str, list[str]]:
        """The analyses' keyword arguments for the user's effect tables."""
        return {"op_effects": self.op_effects, "tir_effects": self.tir_effects}


class _Stages:
    """Seconds per named stage, in the order they ran."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0

    def add(self, timings: dict[str, float]) -> None:
        for name, s in timings.items():
            self.seconds[name] = self.seconds.get(name, 0.0) + s


def run(task: Task, began: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """Analyse one model and return its row; a user-level failure becomes an `error` row.

    `began` is called once the worker's imports are done, when the model's own work starts
    (the runner's time limit counts from there).
    """
    from extractor.diagnostics import LocatedError

    t0 = time.perf_counter()
    stages = _Stages()
    row: dict[str, Any] = {
        "model": model_name(task.path), "path": task.path, "ir": ir_of(task.path),
        "variant": variant_of(task.path, task.relax_point), "status": "ok", "error": None,
        "worker": f"pid {os.getpid()}",
    }
    analyse: Callable[[Task, _Stages, Callable[[], None]], dict[str, Any]] = (
        _relay if row["ir"] == "relay" else _relax)
    try:
        row.update(analyse(task, stages, began))
    except LocatedError as err:
        row.update(status="error", error=err.render().splitlines()[0])
    except MemoryError:
        row.update(status="error", error="out of memory")
    except Exception as err:  # noqa: BLE001 - a batch reports every failure as a row
        where = traceback.extract_tb(err.__traceback__)[-1]
        row.update(status="error", error=f"{type(err).__name__}: {err} "
                   f"(internal error at {Path(where.filename).name}:{where.lineno})")
    row["stages"] = {k: round(v, 6) for k, v in stages.seconds.items()}
    row["total_seconds"] = round(time.perf_counter() - t0, 6)
    return row


def _relay(task: Task, stage: _Stages, began: Callable[[], None]) -> dict[str, Any]:
    with stage("startup"):
        from extractor.relay.typeinfer import infer_types

        from ..loading import load_relay
        from ..relay.analysis import analyze
        from ..relay.dce import relay_dce
        from ..relay.scenario import count_lets
    began()
    with stage("load"):
        mod = load_relay(task.path)
    with stage("typecheck"):
        typed = infer_types(mod)
    res = analyze(mod, task.analysis_options(), engine=task.engine_options(), explain=False,
                  points_to=False, op_effects=task.op_effects)
    stage.add(res.timings)

    with stage("dce"):
        before = count_lets(mod)
        pruned = relay_dce(mod, "analysis", result=res)  # timed: removes what the view counts
        ours = len(res.removable())
        tvm = before - count_lets(relay_dce(typed.module, "purity", typed=typed))
    row = _analysed(res, ours, tvm, "relay purity DCE (#9542)")
    if task.check_outputs:
        with stage("check"):
            same = _same_outputs(typed.module, pruned)
        row["dce"]["outputs_equal"] = same
        if not same:
            row.update(status="error", error="analysis DCE changed the program's outputs "
                       "(a soundness bug: please report it with this file)")
    return row


def _same_outputs(mod: Any, pruned: Any) -> bool:
    """Both programs on seeded inputs give bit-identical results (NaN equal to NaN)."""
    import numpy as np

    from extractor.relay.interpreter import evaluate, flatten_value, random_inputs

    args = random_inputs(mod.functions["main"], 0)
    with np.errstate(all="ignore"):
        a = flatten_value(evaluate(mod, args))
        b = flatten_value(evaluate(pruned, args))
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
        for x, y in zip(a, b, strict=True))


def _relax(task: Task, stage: _Stages, began: Callable[[], None]) -> dict[str, Any]:
    with stage("startup"):  # importing tvm dominates small models; keep it out of "load"
        from tvm import relax

        from extractor.relax_load import choose_module, load_relax_modules

        from ..relax.analysis import analyze_relax
        from ..relax.dce import remove_relax_bindings
    began()
    with stage("load"):
        mods = load_relax_modules(task.path)
        mod = choose_module(mods, task.path, task.module if len(mods) > 1 else None)
    point = "input" if is_lowered(task.path) else task.relax_point
    res = analyze_relax(mod, point=point, engine=task.engine_options(), **task.effect_tables())
    stage.add(res.timings)

    def in_seq(seq: Any) -> int:
        n = 0
        for block in seq.blocks:
            for b in block.bindings:
                v = b.value
                n += 1 + (in_seq(v.true_branch) + in_seq(v.false_branch)
                          if isinstance(v, relax.If) else
                          in_seq(v.body) if isinstance(v, relax.Function) else 0)
        return n

    def bindings(m: Any) -> int:
        """Bindings in every Relax function, branches and nested functions included."""
        return sum(in_seq(f.body) for f in m.functions.values() if isinstance(f, relax.Function))

    with stage("dce"):
        at = res.module
        before = bindings(at)
        ours = before - bindings(remove_relax_bindings(at, set(res.removable())))
        tvm = before - bindings(relax.transform.DeadCodeElimination()(at))
    row = _analysed(res, ours, tvm, "relax.transform.DeadCodeElimination")
    if task.audit and not is_lowered(task.path):
        with stage("audit"):
            row["audit"] = _audit(mod, task)
        if row["audit"]["analysis_errors"]:
            row.update(status="error", error="aliaslog could not analyse the module after "
                       + row["audit"]["analysis_errors"][0])
    return row


def _audit(mod: Any, task: Task) -> dict[str, Any]:
    """The row's `audit`: each pass of the default llvm pipeline and what it introduced."""
    from ..relax.audit import audit_module

    report = audit_module(mod, (), "default", "llvm", engine=task.engine_options(),
                          **task.effect_tables())
    return {"passes": [{"name": s.name, "changed": s.changed, "findings": s.findings}
                       for s in report.steps],
            "findings": [{"check": f.check, "severity": f.severity,
                          "introduced_by": f.introduced_by, "pass_index": f.pass_index}
                         for f in report.findings],
            "failed": None if report.failed is None else " ".join(report.failed),
            "analysis_errors": [f"{s.name}: {s.error}" for s in report.steps if s.error]}


def _analysed(res: Any, ours: int, tvm: int, tvm_pass: str) -> dict[str, Any]:
    """The row fields of an analysed model (a Relay or a Relax result: same attributes)."""
    return {
        "size": {"bindings": res.metrics.get("bindings", 0),
                 "facts": res.extraction.facts.count(),
                 "nodes": len(res.extraction.ids.nodes)},
        "metrics": res.metrics,
        "dce": {"aliaslog_removed": ours, "tvm_removed": tvm, "tvm_pass": tvm_pass},
        "engine": res.engine,
    }


def main() -> int:
    """Serve tasks: one JSON Task per stdin line, one JSON row per stdout line, until EOF.

    A worker lives for many models, so imports (tvm takes seconds) are paid once per worker.
    Before a row, the line BEGIN says the imports are done and the model's own work starts.
    """
    out = sys.stdout
    sys.stdout = sys.stderr  # anything a library prints must not corrupt the protocol

    def began() -> None:
        out.write(BEGIN + "\n")
        out.flush()

    with recursion_limit(10_000):
        for line in sys.stdin:
            if line.strip():
                with survivors_frozen():  # one model: its cycles are collected once it is done
                    row = run(Task(**json.loads(line)), began)
                out.write(json.dumps(row) + "\n")
                out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
