"""Opt-in: Soufflé 2.5's own test suite through the embedded engine (conformance/souffle_suite.py).

Set ALIASLOG_SOUFFLE_CLONE to a clone of souffle-lang/souffle (tag 2.5) to run it; it takes
minutes. Every category must have no wrong answer, no crash, no program Soufflé accepts
rejected as invalid, and every rejection located; at least 120 evaluation tests pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CLONE = os.environ.get("ALIASLOG_SOUFFLE_CLONE")


@pytest.mark.skipif(not CLONE, reason="set ALIASLOG_SOUFFLE_CLONE to a souffle-lang/souffle "
                                      "clone to run Soufflé's test suite")
def test_souffle_suite_has_no_wrong_answers_and_locates_every_rejection() -> None:
    from conformance.souffle_suite import run_suite

    totals = run_suite(Path(CLONE), timeout=120)  # type: ignore[arg-type]
    for category, counts in totals.items():
        bad = {c: counts[c] for c in ("wrong answer", "crash", "rejected-valid", "unlocated")
               if counts[c]}
        assert not bad, f"{category}: {bad}"
    assert totals["evaluation"]["pass"] >= 120
