"""Results cached by content hash: a rerun skips models whose inputs and analysis are unchanged.

The key covers the model file's bytes, the task options (the user's effect tables by their
bytes, not their names, so an edited table is never answered from the cache) and a fingerprint
of aliaslog itself (its Python sources, rule files and effect tables), so editing a rule
invalidates every entry.
A row is cached as soon as its model finishes, which is what makes an interrupted batch
resumable. Timeouts and dead workers are not cached: a rerun (perhaps with a larger limit)
tries them again.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from ..loading import write_text_atomically
from .task import Task

CACHED_STATUSES = ("ok", "error")


# Code that cannot change a row: the batch machinery (but task.py), zoo writers, report drawing.
NOT_IN_FINGERPRINT = ("aliaslog/batch/", "aliaslog/zoo/", "aliaslog/plots.py", "aliaslog/cli.py")


@cache
def analysis_fingerprint() -> str:
    """A digest of the code and rules that compute a row."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for pkg in ("aliaslog", "extractor", "datalog_rules"):
        for f in sorted((root / pkg).rglob("*")):
            rel = f.relative_to(root).as_posix()
            if (f.suffix in (".py", ".dl", ".tsv") and f.is_file()
                    and (rel == "aliaslog/batch/task.py"
                         or not rel.startswith(NOT_IN_FINGERPRINT))):
                h.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def file_digest(path: str | Path) -> str:
    """SHA-256 of a model file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class ResultCache:
    """One JSON file per key under `dir`."""

    def __init__(self, dir: Path) -> None:
        self.dir = dir

    def key(self, task: Task, digest: str) -> str:
        options = task.options()
        for name, paths in task.effect_tables().items():
            options[name] = [file_digest(p) for p in paths]
        spec = json.dumps({"file": digest, "options": options,
                           "aliaslog": analysis_fingerprint()}, sort_keys=True)
        return hashlib.sha256(spec.encode()).hexdigest()

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached row, or None (a missing or unreadable entry is a miss)."""
        try:
            row = json.loads((self.dir / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return row if isinstance(row, dict) and row.get("status") in CACHED_STATUSES else None

    def put(self, key: str, row: dict[str, Any]) -> None:
        if row.get("status") in CACHED_STATUSES:
            self.dir.mkdir(parents=True, exist_ok=True)
            write_text_atomically(self.dir / f"{key}.json", json.dumps(row, sort_keys=True))
