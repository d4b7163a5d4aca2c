"""Context-sensitive points-to (--context 1-call / 2-call / 1-closure): sound on the whole
corpus, never less precise than the insensitive analysis, the same on both engines, and more
precise exactly where each variant should be (tests/data/precision)."""

from __future__ import annotations

import pytest

from aliaslog.cli import main
from aliaslog.engines.souffle_backend import souffle_executable
from aliaslog.options import POINTS_TO, AnalysisOptions
from aliaslog.relay.analysis import analysis_program, analyze
from aliaslog.relay.dce import relay_dce as dce
from aliaslog.relay.oracle import observe, oracle_removable, unsound_findings
from extractor.relay import ast as A
from extractor.relay.parser import parse_file
from extractor.relay.typeinfer import infer_types
from tests.support.corpus import (
    IDS,
    PROGRAMS,
    SEEDS,
    assert_same_observation,
    built,
    check_dce_result,
    run,
)
from tests.support.options import EMBEDDED, SOUFFLE
from tests.support.paths import DATA

SENSITIVE = [c for c in POINTS_TO if c != "insensitive"]


@pytest.mark.parametrize("context", SENSITIVE)
@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_context_sensitive_dce_is_sound_and_at_least_as_precise(path, context):
    b = built(path)
    ci = analyze(b.module, engine=EMBEDDED, explain=False)
    cs = analyze(b.module, AnalysisOptions(context), engine=EMBEDDED, explain=False)
    assert set(cs.relations["pts"]) <= set(ci.relations["pts"])
    assert set(cs.relations["call_target"]) <= set(ci.relations["call_target"])
    assert cs.kept_ids <= ci.kept_ids
    pruned = dce(b.module, mode="analysis", engine=EMBEDDED, options=AnalysisOptions(context))
    check_dce_result(b, pruned, f"analysis --context {context}")


@pytest.mark.skipif(souffle_executable() is None,
                    reason="souffle is not on PATH (put /opt/souffle/bin on PATH to compare)")
@pytest.mark.parametrize("context", SENSITIVE)
def test_engines_agree_on_context_variants(context):
    for path in PROGRAMS:
        mod = built(path).module
        a = analyze(mod, AnalysisOptions(context), engine=EMBEDDED, explain=False)
        s = analyze(mod, AnalysisOptions(context), engine=SOUFFLE, explain=False)
        for rel in ("pts", "call_target", "kept", "removable", "may_alias"):
            assert sorted(a.relations[rel]) == sorted(s.relations[rel]), (path.name, rel)


def test_context_is_a_cli_option(seed_path, capsys):
    assert main(["analyze", str(seed_path), "--context", "2-call", "--json",
                 "--engine", "embedded"]) == 0
    assert '"kept"' in capsys.readouterr().out
    with pytest.raises(ValueError, match="unknown context"):
        analyze(built(PROGRAMS[0]).module, AnalysisOptions("3-call"))


PRECISION = sorted((DATA / "precision").glob("*.relay"))


def _dead_from(path) -> tuple[str, list[str]]:
    """The `// dead-from: VARIANT %a %b` header: the least precise variant that removes them."""
    for line in path.read_text().splitlines():
        if line.startswith("// dead-from:"):
            variant, *names = line.split(":", 1)[1].split()
            return variant, [n.lstrip("%") for n in names]
    raise AssertionError(f"{path.name} has no dead-from header")


LADDER = [p for p in PRECISION if _dead_from(p)[0] != "none"]
OPEN = [p for p in PRECISION if _dead_from(p)[0] == "none"]


@pytest.mark.parametrize("path", LADDER, ids=[p.stem for p in LADDER])
def test_each_variant_removes_what_less_precise_ones_must_keep(path):
    """Variants form a ladder on these programs: the named writes are dead from one variant on."""
    mod = infer_types(parse_file(path)).module
    variant, names = _dead_from(path)
    for context in POINTS_TO:
        removed = {let.var.name_hint for let in
                   analyze(mod, AnalysisOptions(context), engine=EMBEDDED).removable()}
        if context == variant:
            assert set(names) <= removed, context
        if context == "insensitive":
            assert not set(names) & removed, "the insensitive analysis should keep them"
        pruned = dce(mod, mode="analysis", engine=EMBEDDED, options=AnalysisOptions(context))
        for seed in (0, 1):
            assert_same_observation(run(pruned, seed), run(mod, seed), f"{path.name} {context}")


@pytest.mark.parametrize("path", OPEN, ids=[p.stem for p in OPEN])
def test_the_shapes_no_variant_reaches_yet(path):
    """`dead-from: none`: bindings the runs show removable that every variant keeps (heap
    cloning, demand per context, let-bound factories, recursion through one call site, a write
    after the last reader call); when a variant learns one, its header moves up the ladder."""
    mod = infer_types(parse_file(path)).module
    _, names = _dead_from(path)
    program = analysis_program(mod)
    dead = oracle_removable(program, (0, 1))
    assert set(names) <= {let.var.name_hint for f in program.functions.values()
                          for let in A.post_order(f) if isinstance(let, A.Let)
                          and id(let) in dead}, "the oracle should show them removable"
    for opts in AnalysisOptions.variants():
        removed = {let.var.name_hint for let in analyze(mod, opts, engine=EMBEDDED).removable()}
        assert not set(names) & removed, f"{opts.name} removes {names}: update the header"


@pytest.mark.parametrize("context", list(POINTS_TO))
def test_dynamic_oracle_allows_nothing_the_variant_rules_out(context):
    """Observed accesses, aliases and write->read flows are static ones, under every variant."""
    for path in PROGRAMS:
        mod = built(path).module
        res = analyze(mod, AnalysisOptions(context), engine=EMBEDDED)
        assert unsound_findings(res, observe(res.extraction.module, SEEDS)) == [], path.name
