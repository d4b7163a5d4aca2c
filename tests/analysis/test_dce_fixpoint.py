"""`aliaslog dce --mode analysis` is a fixpoint in one run (issue 31): a second run removes
nothing, under every variant, and the program still computes what it computed."""

from __future__ import annotations

import pytest

from aliaslog.options import AnalysisOptions
from aliaslog.relay.cli_commands import removal_summary
from aliaslog.relay.dce import relay_dce
from extractor.relay.printer import astext
from tests.support import paths
from tests.support.corpus import PROGRAMS, SEEDS, assert_same_observation, build, run
from tests.support.options import EMBEDDED

PRECISION = sorted((paths.DATA / "precision").glob("*.relay"))
CORPUS = [p for p in PROGRAMS if "expect-dead" in p.read_text()]  # programs with dead code
VARIANTS = list(AnalysisOptions.variants())
CASES = ([(p, o) for p in PRECISION for o in VARIANTS]
         + [(p, o) for p in CORPUS for o in (VARIANTS[0], VARIANTS[-1])])


def _dce(mod, opts):
    return relay_dce(mod, "analysis", options=opts, engine=EMBEDDED)


@pytest.mark.parametrize(("path", "opts"), CASES,
                         ids=[f"{p.stem}-{o.name}" for p, o in CASES])
def test_a_second_dce_removes_nothing(path, opts) -> None:
    _, mod = build(path) if path.parent.name == "analysis" else (None, _parse(path))
    once = _dce(mod, opts)
    twice = _dce(once, opts)
    assert removal_summary(once, twice, "analysis").startswith("dce (analysis): removed 0 ")
    assert astext(twice) == astext(once)
    for seed in SEEDS:
        assert_same_observation(run(once, seed), run(mod, seed), f"{path.name} seed {seed}")


def test_the_leftover_cells_go_in_the_same_run() -> None:
    """Removing the dead write `%wb` leaves its cell `%b` dead; one run removes both (the cell
    went only in a second run before)."""
    mod = _parse(paths.DATA / "precision" / "two_call_wrapper.relay")
    text = removal_summary(mod, _dce(mod, AnalysisOptions("2-call")), "analysis")
    assert {"%wb", "%b"} <= set(text.rsplit(": ", 1)[1].split(", ")), text


def _parse(path):
    from extractor.relay.parser import parse_file
    from extractor.relay.typeinfer import infer_types

    return infer_types(parse_file(path)).module
