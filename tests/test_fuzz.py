"""Property tests of the analysis on random well-typed programs (tests/randprog.py).

For each generated program and each analysis variant in VARIANTS:
- dce: analysis-guided DCE changes no observation (outputs, cell contents, results of calling
  returned closures; the observation of tests/test_analysis_soundness.py) on two input seeds,
  and the pruned module still type-checks;
- oracle: every ref access, alias and write->read flow the interpreter observes (in @main and in
  the calls of returned closures) is one the static result allows (tests/test_dynamic_oracle.py);
- engines: with `souffle` on PATH, the embedded engine and Soufflé give the same kept and
  removable bindings.

Hypothesis drives the generator here (derandomized, so CI is deterministic, and shrinking);
`python -m tests.fuzz_main` runs the same checks on seeded programs in bulk. A failing program is
saved under tests/data/regressions/ (named by content hash), and every file there is replayed on
every run.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.control import current_build_context

from aliaslog.analysis import AnalysisResult, analyze
from aliaslog.analysis_dce import remove_relay_bindings
from aliaslog.dce import relay_dce as dce
from aliaslog.engines.souffle_backend import souffle_executable
from aliaslog.options import AnalysisOptions
from aliaslog.oracle import run_observed
from extractor.relay.ast import Module
from extractor.relay.parser import parse
from extractor.relay.typeinfer import infer_types

from .conftest import EMBEDDED, SOUFFLE
from .randprog import FEATURES, generate, generate_program, programs, recorded, replay
from .test_analysis_soundness import (
    SEEDS,
    Observation,
    assert_same_observation,
    run,
)
from .test_dynamic_oracle import access_recorder, check_accesses

# The analysis variants every property is checked under.
VARIANTS: list[AnalysisOptions] = [
    AnalysisOptions(),
    AnalysisOptions(liveness="flow-sensitive"),
    AnalysisOptions("1-call"),
    AnalysisOptions("2-call"),
    AnalysisOptions("1-closure", "flow-sensitive"),
]
CHECKS = ("dce", "oracle", "engines")
REGRESSIONS = Path(__file__).parent / "data" / "regressions"

FUZZ_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


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
    """Analysis-guided DCE type-checks and changes no observation."""
    pruned = remove_relay_bindings(result or analysis(mod, opts))
    infer_types(pruned)
    for seed in SEEDS:
        assert_same_observation(run(pruned, seed), base[seed],
                                f"analysis DCE ({opts.name}), input seed {seed}")


def observe_accesses(mod: Module, seed: int) -> list[tuple]:
    """Ref accesses of running an analysed program's @main and then calling every returned
    closure as the result observation does (same arguments, same depth), all seen by one
    recorder."""
    observer, accesses = access_recorder()
    run_observed(mod, seed, hooks={"observer": observer}, prepared=True)
    return accesses


def check_oracle(mod: Module, opts: AnalysisOptions, result: AnalysisResult | None = None
                 ) -> None:
    """Observed cells, aliases and write->read flows are allowed by the static result."""
    result = result or analysis(mod, opts)
    for seed in SEEDS:
        check_accesses(result, observe_accesses(result.extraction.module, seed),
                       f"oracle ({opts.name}), input seed {seed}")


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


def save_regression(text: str, failure: Failure, found_by: str) -> Path:
    """Save a failing program under tests/data/regressions/<content hash>.relay (idempotent)."""
    REGRESSIONS.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = REGRESSIONS / f"{digest}.relay"
    if not path.exists():
        first = " ".join(failure.message.split())[:300]
        header = (f"// fuzz counterexample: {failure.check} ({failure.variant}) failed\n"
                  f"// found by: {found_by}\n// {first}\n")
        path.write_text(header + text)
    return path


@contextlib.contextmanager
def saved_on_failure(text: str, check: str, opts: AnalysisOptions, test: str) -> Iterator[None]:
    """Inside a hypothesis test: save the (final, shrunk) failing program, then re-raise."""
    try:
        yield
    except Exception as exc:
        if current_build_context().is_final:
            kind = "generator" if isinstance(exc, GeneratorBug) else check
            save_regression(text, Failure(kind, opts.name, f"{type(exc).__name__}: {exc}"),
                            f"hypothesis {test}")
        raise


def regression_files() -> list[Path]:
    return sorted(REGRESSIONS.glob("*.relay"))


# ------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: o.name)
@FUZZ_SETTINGS
@given(text=programs())
def test_analysis_dce_preserves_outputs(opts, text):
    """Analysis-guided DCE is sound: no observation of a generated program changes."""
    with saved_on_failure(text, "dce", opts, "test_analysis_dce_preserves_outputs"):
        mod = build_program(text)
        check_dce(mod, baseline(mod), opts)


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: o.name)
@FUZZ_SETTINGS
@given(text=programs())
def test_observed_accesses_are_statically_allowed(opts, text):
    """Points-to, may-alias and demanded writes over-approximate what a run does."""
    with saved_on_failure(text, "oracle", opts, "test_observed_accesses_are_statically_allowed"):
        mod = build_program(text)
        baseline(mod)
        check_oracle(mod, opts)


@pytest.mark.skipif(not have_souffle(), reason="souffle is not on PATH "
                    "(put /opt/souffle/bin on PATH to compare both engines)")
@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: o.name)
@settings(FUZZ_SETTINGS, max_examples=10)
@given(text=programs())
def test_engines_agree(opts, text):
    """The embedded engine evaluates the rules as Soufflé does (same verdicts)."""
    with saved_on_failure(text, "engines", opts, "test_engines_agree"):
        check_engines(build_program(text), opts)


@pytest.mark.parametrize("path", regression_files(), ids=lambda p: p.stem)
def test_regression(path):
    """Every saved counterexample passes every check (under every variant) from now on."""
    failures = check_program(path.read_text(), name=str(path))
    assert not failures, "\n".join(f"{f.check} ({f.variant}): {f.message}" for f in failures)


# ---------------------------------------------------------------- the generator itself


def test_seeded_generator_is_deterministic_and_valid():
    """generate(seed) is a function of the seed, and its programs parse, type and run."""
    for seed in range(20):
        text = generate(seed)
        assert generate(seed) == text
        baseline(build_program(text, f"seed {seed}"))


def test_replay_reproduces_and_any_choice_list_is_valid():
    """The shrinker's replay gives back a recorded program; edited choice lists stay valid."""
    text, choices = recorded(3)
    assert replay(choices) == text
    for edited in ([], choices[: len(choices) // 2], [c // 2 for c in choices], [99] * 50):
        baseline(build_program(replay(edited)))


def test_generator_covers_every_construct():
    """Over 300 seeds every construct occurs, each in a fair share of programs."""
    counts = {f: 0 for f in FEATURES}
    for seed in range(300):
        for f in generate_program(seed).features:
            counts[f] += 1
    rare = {f: n for f, n in counts.items() if n < 15}
    assert not rare, f"constructs the generator rarely makes: {rare}"


def test_properties_detect_the_unsound_dce():
    """The output property is not vacuous: on generated programs, TVM's pre-#9542 DCE (every
    binding assumed pure) changes some observation."""
    caught = 0
    for seed in range(40):
        mod = build_program(generate(seed))
        base = baseline(mod)
        pruned = dce(mod, mode="assume-pure")
        try:
            for s in SEEDS:
                assert_same_observation(run(pruned, s), base[s], "assume-pure")
        except AssertionError:
            caught += 1
    assert caught >= 3, f"assume-pure DCE was caught on only {caught} of 40 programs"


def test_check_program_reports_a_wrong_observation(monkeypatch):
    """check_program turns a property violation into a Failure (it does not swallow it)."""
    import tests.test_fuzz as me

    def broken_dce(mod, base, opts, result=None):
        got = [*base[SEEDS[0]], ("tensor", np.zeros(2, "float32"))]
        assert_same_observation(got, base[SEEDS[0]], "perturbed")

    monkeypatch.setattr(me, "check_dce", broken_dce)
    failures = me.check_program(generate(0), checks=("dce",))
    assert {f.check for f in failures} == {"dce"} and len(failures) == len(VARIANTS)
    assert me.check_program("def @main( {", checks=("dce",))[0].check == "generator"


def test_shrinker_keeps_the_failure_and_shrinks():
    """fuzz_main's shrinker returns a smaller program on which the predicate still holds."""
    from .fuzz_main import shrink

    text, choices = recorded(5)
    assert "ref_write" in text
    small = shrink(choices, lambda t: "ref_write" in t, budget=150)
    assert "ref_write" in small and len(small) < len(text) // 2
    baseline(build_program(small))


def test_fuzz_main_runs_and_reports(capsys):
    """The bulk runner checks a few seeds and ends with the summary line, exit status 0."""
    from .fuzz_main import main

    assert main(["--n", "2", "--start", "7", "--no-save", "--progress", "0"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"fuzz: 2 programs, {len(VARIANTS)} variants, 1 jobs, 0 failures (")


def test_fuzz_main_with_two_jobs_reports_the_same(capsys):
    """--jobs 2 checks the same seeds in a process pool and reports like one job."""
    from .fuzz_main import main

    assert main(["--n", "3", "--start", "7", "--jobs", "2", "--no-save", "--progress", "0",
                 "--variants", "0"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("fuzz: 3 programs, 1 variants, 2 jobs, 0 failures (")
    constructs = [ln for ln in out if ln.startswith("fuzz: constructs:")]
    assert main(["--n", "3", "--start", "7", "--no-save", "--progress", "0",
                 "--variants", "0"]) == 0
    assert constructs == [ln for ln in capsys.readouterr().out.splitlines()
                          if ln.startswith("fuzz: constructs:")]
