"""The checks (dce, oracle, engines) a random Relay program goes through, and its regressions.

Shared by tests/analysis/test_fuzz.py (hypothesis-driven) and `python -m tests.support.fuzz_main`
(seeded, in bulk); a failing program is saved under tests/data/regressions/, its content hash
and the command that replays it in its header.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aliaslog.engines.souffle_backend import souffle_executable
from aliaslog.options import AnalysisOptions
from aliaslog.relay.analysis import AnalysisResult, analyze
from aliaslog.relay.dce import relay_dce
from aliaslog.relay.oracle import observe, unsound_findings
from extractor.relay.ast import Module
from extractor.relay.parser import parse
from extractor.relay.typeinfer import infer_types

from . import paths
from .corpus import SEEDS, Observation, assert_same_observation, run
from .options import EMBEDDED, SOUFFLE
from .regressions import RELAY_TEST, reproduce_command

# The analysis variants every property is checked under.
VARIANTS: list[AnalysisOptions] = [
    AnalysisOptions(),
    AnalysisOptions(liveness="flow-sensitive"),
    AnalysisOptions("1-call"),
    AnalysisOptions("2-call", heap_context=True),
    AnalysisOptions("1-closure", "flow-sensitive"),
    AnalysisOptions("combined"),
    AnalysisOptions("combined", "flow-sensitive", heap_context=True),
]
CHECKS = ("dce", "oracle", "engines")
REGRESSIONS = paths.DATA / "regressions"


# ------------------------------------------------------------------------------ the checks


class GeneratorBug(Exception):
    """The front end or the interpreter rejected a generated program (the generator is wrong,
    or the front end is)."""


def build_program(text: str, name: str = "<generated>") -> Module:
    """Parse and type-infer a program; any error is a generator (or front-end) bug."""
    try:
        return infer_types(parse(text, name)).module
    except Exception as exc:  # noqa: BLE001 - every rejection is reported the same way
        raise GeneratorBug(f"front end rejected the program: {exc}") from exc


def baseline(mod: Module) -> dict[int, Observation]:
    """The observations every transformed module must reproduce (errors are generator bugs)."""
    try:
        return {seed: run(mod, seed) for seed in SEEDS}
    except Exception as exc:  # noqa: BLE001
        raise GeneratorBug(f"the interpreter failed on the program: {exc}") from exc


def analysis(mod: Module, opts: AnalysisOptions) -> AnalysisResult:
    """The embedded engine's result under one variant (with the demand graph the oracle needs)."""
    return analyze(mod, opts, engine=EMBEDDED)


def check_dce(mod: Module, base: dict[int, Observation], opts: AnalysisOptions,
              result: AnalysisResult | None = None) -> None:
    """Analysis-guided DCE (`aliaslog dce`: rounds to a fixpoint) type-checks and changes no
    observation."""
    pruned = relay_dce(mod, "analysis", result=result or analysis(mod, opts), options=opts,
                       engine=EMBEDDED)
    infer_types(pruned)
    for seed in SEEDS:
        assert_same_observation(run(pruned, seed), base[seed],
                                f"analysis DCE ({opts.name}), input seed {seed}")


def check_oracle(mod: Module, opts: AnalysisOptions, result: AnalysisResult | None = None
                 ) -> None:
    """Observed cells, aliases and write->read flows are allowed by the static result."""
    result = result or analysis(mod, opts)
    for seed in SEEDS:
        findings = unsound_findings(result, observe(result.extraction.module, (seed,)))
        assert not findings, f"oracle ({opts.name}), input seed {seed}: " + "; ".join(findings)


def have_souffle() -> bool:
    return souffle_executable() is not None


def check_engines(mod: Module, opts: AnalysisOptions) -> None:
    """The embedded engine and Soufflé agree on every verdict (needs souffle on PATH)."""
    a = analyze(mod, opts, engine=EMBEDDED, explain=False)
    b = analyze(mod, opts, engine=SOUFFLE, explain=False)
    assert b.engine.startswith("souffle"), b.engine
    for what, x, y in (("kept", a.kept_ids, b.kept_ids),
                       ("removable", a.removable_ids, b.removable_ids)):
        assert x == y, (f"engines disagree on {what} ({opts.name}): embedded only "
                        f"{sorted(x - y)}, souffle only {sorted(y - x)}")


@dataclass(frozen=True)
class Failure:
    """One property that failed on one program under one variant."""

    check: str  # "generator" | "analysis" | "dce" | "oracle" | "engines"
    variant: str
    message: str

    def key(self) -> tuple[str, str]:
        return (self.check, self.variant)


def check_program(text: str, variants: Sequence[AnalysisOptions] = VARIANTS,
                  checks: Sequence[str] = CHECKS, name: str = "<generated>") -> list[Failure]:
    """Every check on one program and every variant; the failures (empty when all hold).
    The engines check is skipped when souffle is not on PATH."""
    try:
        mod = build_program(text, name)
        base = baseline(mod) if "dce" in checks else {}
    except GeneratorBug as exc:
        return [Failure("generator", "-", str(exc))]
    funcs: dict[str, Callable[[dict[str, Any], AnalysisResult | None], None]] = {
        "dce": lambda o, r: check_dce(mod, base, o, r),
        "oracle": lambda o, r: check_oracle(mod, o, r),
        "engines": lambda o, r: check_engines(mod, o),
    }
    out = []
    for opts in variants:
        try:  # one analysis per variant serves the dce and oracle checks
            result: AnalysisResult | None = analysis(mod, opts)
        except Exception as exc:  # noqa: BLE001 - a crash of the analysis is a failure too
            out.append(Failure("analysis", opts.name, f"{type(exc).__name__}: {exc}"))
            continue
        for check in checks:
            if check == "engines" and not have_souffle():
                continue
            try:
                funcs[check](opts, result)
            except Exception as exc:  # noqa: BLE001 - a crash of the analysis is a failure too
                out.append(Failure(check, opts.name, f"{type(exc).__name__}: {exc}"))
    return out


# ---------------------------------------------------------------------- regression files


def program_hash(text: str) -> str:
    """The first 16 hex digits of the program text's SHA-256: a regression's first name."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def split_header(file_text: str) -> tuple[list[str], str]:
    """A regression file's `//` header lines, and the program after them."""
    lines = file_text.split("\n")
    k = next((i for i, line in enumerate(lines) if not line.startswith("//")), len(lines))
    return lines[:k], "\n".join(lines[k:])


def save_regression(text: str, failure: Failure, found_by: str) -> Path:
    """Save a failing program as tests/data/regressions/<check>_<variant>_<hash>.relay, with its
    hash, how it was found and the command that replays it in the header; rename it after what
    it pins (and its reproduce line with it). Idempotent: a program already saved under any
    name is not saved again."""
    REGRESSIONS.mkdir(parents=True, exist_ok=True)
    digest = program_hash(text)
    for known in regression_files():
        if split_header(known.read_text())[1] == text:
            return known
    variant = re.sub(r"[^A-Za-z0-9]+", "_", failure.variant).strip("_")
    path = REGRESSIONS / "_".join(filter(None, (failure.check, variant, digest + ".relay")))
    first = " ".join(failure.message.split())[:300]
    header = (f"// fuzz counterexample {digest}: {failure.check} ({failure.variant}) failed\n"
              f"// found by: {found_by}\n"
              f"// reproduce: {reproduce_command(RELAY_TEST, path)}\n// {first}\n")
    path.write_text(header + text)
    return path


def regression_files() -> list[Path]:
    return sorted(REGRESSIONS.glob("*.relay"))
