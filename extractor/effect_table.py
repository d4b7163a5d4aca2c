"""Effect tables: what calling an operator or packed function may do, as data users extend.

One entry per line, `name<TAB>effect`; later files override earlier ones, so a user's
`--op-effects FILE` refines the shipped defaults without touching Python. Packed functions
that TIR kernels call (`T.call_packed`) have a table of their own, `name<TAB>reads<TAB>writes`
(argument positions), extended with `--tir-effects FILE`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import LocatedError, Span
from .schema import EFFECTS


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


@dataclass(frozen=True)
class TirCallEffect:
    """The arguments (0-based, after the function name) a TIR-level packed call reads / writes."""

    reads: frozenset[int]
    writes: frozenset[int]


def _positions(field: str) -> frozenset[int] | None:
    """`0,2` -> {0, 2}; `-` -> {}; anything else -> None."""
    field = field.strip()
    if field == "-":
        return frozenset()
    try:
        out = frozenset(int(x) for x in field.split(","))
    except ValueError:
        return None
    return out if all(i >= 0 for i in out) else None


def load_tir_effect_table(*paths: str | os.PathLike[str]) -> dict[str, TirCallEffect]:
    """Read TIR packed-call tables (later files override earlier ones); errors name the line."""
    table: dict[str, TirCallEffect] = {}
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ExtractError(f"{path}: cannot read TIR effect table: {exc}") from None
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t") if "\t" in line else line.split()
            got = [_positions(x) for x in parts[1:]] if len(parts) == 3 else []
            if len(got) != 2 or got[0] is None or got[1] is None:
                raise ExtractError(
                    "expected `function<TAB>reads<TAB>writes`, each a comma-separated list of "
                    "argument positions or `-`",
                    Span(str(path), lineno, 1),
                    text,
                )
            table[parts[0].strip()] = TirCallEffect(got[0], got[1])
    return table
