"""What every saved fuzz counterexample says about itself: the hash of what it holds (its first
name, kept once the file is renamed after what it pins) and the command that replays it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

RELAY_TEST = "tests/analysis/test_fuzz.py::test_regression"
RELAX_TEST = "tests/relax/test_relax_fuzz.py::test_regression_is_fixed"


def reproduce_command(test: str, path: Path) -> str:
    """The pytest command that replays one regression file (its test is parametrized by stem)."""
    return f"python -m pytest '{test}[{path.stem}]'"


def spec_hash(spec: dict[str, Any]) -> str:
    """A Relax counterexample's hash: the first 10 hex digits of the SHA-1 of its SPEC."""
    return hashlib.sha1(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:10]
