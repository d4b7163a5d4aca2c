"""Property tests of the analysis on random well-typed programs (tests/support/randprog.py).

For each generated program and each analysis variant in VARIANTS, the checks of
tests/support/fuzz_checks.py:
- dce: analysis-guided DCE changes no observation (outputs, cell contents, results of calling
  returned closures; the observation of the corpus tests, tests/support/corpus.py) on two input
  seeds, and the pruned module still type-checks;
- oracle: every ref access, alias and write->read flow the interpreter observes (in @main and in
  the calls of returned closures) is one the static result allows (aliaslog/relay/oracle.py);
- engines: with `souffle` on PATH, the embedded engine and Soufflé give the same kept and
  removable bindings.

Hypothesis drives the generator here (derandomized, so CI is deterministic, and shrinking);
`python -m tests.support.fuzz_main` runs the same checks on seeded programs in bulk. A failing
program is saved under tests/data/regressions/ (its content hash and the command that replays it
in its header), and every file there is replayed on every run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.control import current_build_context

from aliaslog.options import AnalysisOptions
from aliaslog.relay.dce import relay_dce as dce
from tests.support.corpus import SEEDS, assert_same_observation, run
from tests.support.fuzz_checks import (
    VARIANTS,
    Failure,
    GeneratorBug,
    baseline,
    build_program,
    check_dce,
    check_engines,
    check_oracle,
    check_program,
    have_souffle,
    program_hash,
    regression_files,
    save_regression,
    split_header,
)
from tests.support.randprog import FEATURES, generate, generate_program, programs, recorded, replay
from tests.support.regressions import RELAY_TEST, reproduce_command

FUZZ_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


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


@pytest.mark.parametrize("path", regression_files(), ids=lambda p: p.stem)
def test_regression_names_its_hash_and_how_to_replay_it(path):
    """A regression is named after what it pins; its header keeps the hash of its program (its
    first name) and the command that replays it, which names the file as it is now."""
    header, text = split_header(path.read_text())
    assert header[0].startswith(f"// fuzz counterexample {program_hash(text)}: ")
    assert f"// reproduce: {reproduce_command(RELAY_TEST, path)}" in header


def test_save_regression_writes_a_replayable_file(tmp_path, monkeypatch):
    import tests.support.fuzz_checks as fc

    monkeypatch.setattr(fc, "REGRESSIONS", tmp_path)
    text = generate(3)
    path = save_regression(text, Failure("oracle", "1-closure+fs", "AssertionError: x"),
                           "python -m tests.support.fuzz_main --start 3 --n 1")
    assert path.name == f"oracle_1_closure_fs_{program_hash(text)}.relay"
    test_regression_names_its_hash_and_how_to_replay_it(path)
    assert split_header(path.read_text())[1] == text
    again = save_regression(text, Failure("dce", "insensitive", "AssertionError: y"), "-")
    assert again == path and len(list(tmp_path.iterdir())) == 1  # saved once


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
    import tests.support.fuzz_checks as me

    def broken_dce(mod, base, opts, result=None):
        got = [*base[SEEDS[0]], ("tensor", np.zeros(2, "float32"))]
        assert_same_observation(got, base[SEEDS[0]], "perturbed")

    monkeypatch.setattr(me, "check_dce", broken_dce)
    failures = me.check_program(generate(0), checks=("dce",))
    assert {f.check for f in failures} == {"dce"} and len(failures) == len(VARIANTS)
    assert me.check_program("def @main( {", checks=("dce",))[0].check == "generator"


def test_shrinker_keeps_the_failure_and_shrinks():
    """fuzz_main's shrinker returns a smaller program on which the predicate still holds."""
    from tests.support.fuzz_main import shrink

    text, choices = recorded(5)
    assert "ref_write" in text
    small = shrink(choices, lambda t: "ref_write" in t, budget=150)
    assert "ref_write" in small and len(small) < len(text) // 2
    baseline(build_program(small))


def test_fuzz_main_runs_and_reports(capsys):
    """The bulk runner checks a few seeds and ends with the summary line, exit status 0."""
    from tests.support.fuzz_main import main

    assert main(["--n", "2", "--start", "7", "--no-save", "--progress", "0"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"fuzz: 2 programs, {len(VARIANTS)} variants, 1 jobs, 0 failures (")


def test_fuzz_main_with_two_jobs_reports_the_same(capsys):
    """--jobs 2 checks the same seeds in a process pool and reports like one job."""
    from tests.support.fuzz_main import main

    assert main(["--n", "3", "--start", "7", "--jobs", "2", "--no-save", "--progress", "0",
                 "--variants", "0"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("fuzz: 3 programs, 1 variants, 2 jobs, 0 failures (")
    constructs = [ln for ln in out if ln.startswith("fuzz: constructs:")]
    assert main(["--n", "3", "--start", "7", "--no-save", "--progress", "0",
                 "--variants", "0"]) == 0
    assert constructs == [ln for ln in capsys.readouterr().out.splitlines()
                          if ln.startswith("fuzz: constructs:")]
