"""Shared fixtures (the seed program) and the check that apache-tvm is there when required;
constants and helpers are in tests/support."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.paths import DATA


@pytest.fixture
def seed_path() -> Path:
    """The program from apache/tvm #6803, copied verbatim."""
    return DATA / "seed_issue_program.relay"


def pytest_configure(config: pytest.Config) -> None:
    """`make test` installs apache-tvm: there, the Relax tests must run, never skip quietly."""
    if os.environ.get("ALIASLOG_REQUIRE_TVM"):
        try:
            import tvm  # noqa: F401
        except ImportError as exc:
            raise pytest.UsageError(f"ALIASLOG_REQUIRE_TVM is set but apache-tvm is missing: "
                                    f"{exc}") from None
