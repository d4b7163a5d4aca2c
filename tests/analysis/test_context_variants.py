"""Context-sensitive points-to (--context 1-call / 2-call / 1-closure / combined, with or
without --heap-context): sound on the whole corpus, never less precise than the insensitive
analysis, the same on both engines, and more precise exactly where each variant should be
(tests/data/precision)."""

from __future__ import annotations

import pytest

from aliaslog.cli import main
from aliaslog.engines.souffle_backend import souffle_executable
from aliaslog.options import AnalysisOptions
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

SENSITIVE = [v for v in AnalysisOptions.variants()
             if v.context != "insensitive" and v.liveness == "flow-insensitive"]
NAMES = [v.name for v in SENSITIVE]


@pytest.mark.parametrize("variant", SENSITIVE, ids=NAMES)
@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_context_sensitive_dce_is_sound_and_at_least_as_precise(path, variant):
    b = built(path)
    ci = analyze(b.module, engine=EMBEDDED, explain=False)
    cs = analyze(b.module, variant, engine=EMBEDDED, explain=False)
    assert set(cs.relations["pts"]) <= set(ci.relations["pts"])
    assert set(cs.relations["call_target"]) <= set(ci.relations["call_target"])
    assert cs.kept_ids <= ci.kept_ids
    pruned = dce(b.module, mode="analysis", engine=EMBEDDED, options=variant)
    check_dce_result(b, pruned, f"analysis {variant.name}")


@pytest.mark.skipif(souffle_executable() is None,
                    reason="souffle is not on PATH (put /opt/souffle/bin on PATH to compare)")
@pytest.mark.parametrize("variant", SENSITIVE, ids=NAMES)
def test_engines_agree_on_context_variants(variant):
    for path in PROGRAMS:
        mod = built(path).module
        a = analyze(mod, variant, engine=EMBEDDED, explain=False)
        s = analyze(mod, variant, engine=SOUFFLE, explain=False)
        for rel in ("pts", "call_target", "kept", "removable", "may_alias"):
            assert sorted(a.relations[rel]) == sorted(s.relations[rel]), (path.name, rel)


def test_context_is_a_cli_option(seed_path, capsys):
    assert main(["analyze", str(seed_path), "--context", "2-call", "--json",
                 "--engine", "embedded"]) == 0
    assert '"kept"' in capsys.readouterr().out
    with pytest.raises(ValueError, match="unknown context"):
        analyze(built(PROGRAMS[0]).module, AnalysisOptions("3-call"))


PRECISION = sorted((DATA / "precision").glob("*.relay"))


def _removed_by(path) -> tuple[list[str], set[str]]:
    """The `// removed-by (%a %b):` header and the variant names on the comment lines below it:
    the dead bindings a shape is about, and exactly the variants that remove them."""
    lines = path.read_text().splitlines()
    for k, line in enumerate(lines):
        if line.startswith("// removed-by ("):
            names = line.split("(", 1)[1].split(")", 1)[0].split()
            variants = set()
            for more in lines[k + 1:]:
                if not more.startswith("//   "):
                    break
                variants.update(more[2:].split())
            return [n.lstrip("%") for n in names], variants
    raise AssertionError(f"{path.name} has no removed-by header")


def _removed(mod, variant: AnalysisOptions) -> set[str]:
    return {let.var.name_hint for let in analyze(mod, variant, engine=EMBEDDED).removable()}


@pytest.mark.parametrize("path", PRECISION, ids=[p.stem for p in PRECISION])
def test_each_shape_is_removed_by_exactly_the_variants_its_header_names(path):
    """What each variant removes on the lab's shapes (factories, shared setters, let-bound
    factories, recursion through one call site, writes after the last reader...): the
    dynamic oracle shows the bindings removable, the header's variants remove them and the
    others keep them, and DCE under each of those variants keeps every run's observation."""
    mod = infer_types(parse_file(path)).module
    names, by = _removed_by(path)
    assert by <= {v.name for v in AnalysisOptions.variants()}, "unknown variant in the header"
    program = analysis_program(mod)
    dead = oracle_removable(program, (0, 1))
    assert set(names) <= {let.var.name_hint for f in program.functions.values()
                          for let in A.post_order(f) if isinstance(let, A.Let)
                          and id(let) in dead}, "the oracle should show them removable"
    removing = {v.name for v in AnalysisOptions.variants() if set(names) <= _removed(mod, v)}
    assert removing == by, f"variants that remove {names}: {sorted(removing)}"
    for name in sorted(by):
        pruned = dce(mod, mode="analysis", engine=EMBEDDED, options=AnalysisOptions.parse(name))
        for seed in (0, 1):
            assert_same_observation(run(pruned, seed), run(mod, seed), f"{path.name} {name}")


@pytest.mark.parametrize("path", PRECISION, ids=[p.stem for p in PRECISION])
def test_the_combined_variant_removes_what_every_variant_removes(path):
    """combined+heap+fs subsumes the others on every shape of the lab."""
    mod = infer_types(parse_file(path)).module
    best = _removed(mod, AnalysisOptions.parse("combined+heap+fs"))
    for v in AnalysisOptions.variants():
        assert _removed(mod, v) <= best, v.name


@pytest.mark.parametrize("variant", [AnalysisOptions(), *SENSITIVE],
                         ids=["insensitive", *NAMES])
def test_dynamic_oracle_allows_nothing_the_variant_rules_out(variant):
    """Observed accesses, aliases and write->read flows are static ones, under every variant."""
    for path in PROGRAMS:
        mod = built(path).module
        res = analyze(mod, variant, engine=EMBEDDED)
        assert unsound_findings(res, observe(res.extraction.module, SEEDS)) == [], path.name
