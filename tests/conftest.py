"""Shared fixtures: paths to test data and to the read-only shared folder beside the repo."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
SHARED = REPO.parent / "shared"


@pytest.fixture
def seed_path() -> Path:
    """The program from apache/tvm #6803, copied verbatim."""
    return DATA / "seed_issue_program.relay"
