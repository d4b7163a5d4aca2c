"""Call-site sensitive points-to (--context 1-call / 2-call): sound on the whole corpus, never
less precise than the insensitive analysis, and the same on both engines."""

from __future__ import annotations

import pytest

from aliaslog.analysis import CONTEXTS, analyze
from aliaslog.cli import main
from aliaslog.dce import dce
from aliaslog.engines.souffle_backend import souffle_executable

from .test_analysis_soundness import IDS, PROGRAMS, built, check_dce_result

SENSITIVE = [c for c in CONTEXTS if c != "insensitive"]


@pytest.mark.parametrize("context", SENSITIVE)
@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_context_sensitive_dce_is_sound_and_at_least_as_precise(path, context):
    b = built(path)
    ci = analyze(b.module, engine="embedded", explain=False)
    cs = analyze(b.module, engine="embedded", explain=False, context=context)
    assert set(cs.relations["pts"]) <= set(ci.relations["pts"])
    assert set(cs.relations["call_target"]) <= set(ci.relations["call_target"])
    assert cs.kept_ids <= ci.kept_ids
    check_dce_result(b, dce(b.module, mode="analysis", engine="embedded", context=context),
                     f"analysis --context {context}")


@pytest.mark.skipif(souffle_executable() is None,
                    reason="souffle is not on PATH (put /opt/souffle/bin on PATH to compare)")
@pytest.mark.parametrize("context", SENSITIVE)
def test_engines_agree_on_context_variants(context):
    for path in PROGRAMS:
        mod = built(path).module
        a = analyze(mod, engine="embedded", explain=False, context=context)
        s = analyze(mod, engine="souffle", explain=False, context=context)
        for rel in ("pts", "call_target", "kept", "removable", "may_alias"):
            assert sorted(a.relations[rel]) == sorted(s.relations[rel]), (path.name, rel)


def test_context_is_a_cli_option(seed_path, capsys):
    assert main(["analyze", str(seed_path), "--context", "2-call", "--json",
                 "--engine", "embedded"]) == 0
    assert '"kept"' in capsys.readouterr().out
    with pytest.raises(ValueError, match="unknown context"):
        analyze(built(PROGRAMS[0]).module, context="3-call")
