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
from aliaslog.relay.oracle import observe, unsound_findings
from tests.support.corpus import IDS, PROGRAMS, SEEDS, build
from tests.support.options import EMBEDDED


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_observed_accesses_are_statically_possible(path):
    _, mod = build(path)
    result = analyze(mod, engine=EMBEDDED)
    for seed in SEEDS:
        assert unsound_findings(result, observe(result.extraction.module, (seed,))) == [], (
            path.name, seed)
