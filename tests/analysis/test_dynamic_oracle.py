"""Soundness against a dynamic oracle: every alias and write->read flow the interpreter observes
must be one the static analysis allows.

For each corpus program (and its gradient transforms) the interpreter reports every ref cell it
creates, reads and writes. Checked on every run:
- each read and write touches a cell whose allocation site is in the static points-to set of
  the reference expression (observed aliases are a subset of the static ones);
- two variables observed holding the same cell are a static may-alias pair;
- when a read's value is demanded, the write it actually observed is a demanded write, or
  the cell's initial value was read (observed write->read flows are a subset of the static ones).
"""

from __future__ import annotations

import pytest

from aliaslog.relay.analysis import analyze
from extractor.relay import ast as A
from extractor.relay.interpreter import evaluate, random_inputs
from tests.support.corpus import IDS, PROGRAMS, SEEDS, build
from tests.support.options import EMBEDDED
from tests.support.ref_accesses import access_recorder, check_accesses


def _observe(mod: A.Module, seed: int):
    """The accesses of one run of an analysed program (its nodes are the analysis' own)."""
    observer, accesses = access_recorder()
    evaluate(mod, random_inputs(mod.functions["main"], seed), observer=observer, prepared=True)
    return accesses


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_observed_accesses_are_statically_possible(path):
    _, mod = build(path)
    result = analyze(mod, engine=EMBEDDED)
    for seed in SEEDS:
        check_accesses(result, _observe(result.extraction.module, seed), path.name)
