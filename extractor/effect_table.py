"""Effect tables: what calling an operator or packed function may do, as data users extend.

One entry per line, `name<TAB>effect`; later files override earlier ones, so a user's
`--op-effects FILE` refines the shipped defaults without touching Python.
"""

from __future__ import annotations

import os
from pathlib import Path

from .relay.errors import LocatedError, Span

EFFECTS = ("none", "reads", "writes", "allocates", "view", "io", "random", "unknown")


class ExtractError(LocatedError):
    """The program cannot be turned into facts (bad effect table, unknown entry function)."""

    kind = "extract error"


def load_effect_table(*paths: str | os.PathLike[str]) -> dict[str, str]:
    """Read effect tables (later files override earlier ones); errors name file and line."""
    table: dict[str, str] = {}
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ExtractError(f"{path}: cannot read op effect table: {exc}") from None
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t") if "\t" in line else line.split()
            if len(parts) != 2 or parts[1].strip() not in EFFECTS:
                raise ExtractError(
                    f"expected `operator<TAB>effect` with effect one of {', '.join(EFFECTS)}",
                    Span(str(path), lineno, 1),
                    text,
                )
            table[parts[0].strip()] = parts[1].strip()
    return table
