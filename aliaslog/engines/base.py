"""Shared types of the Datalog engine layer: the error, the result, column kinds, row order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter

from extractor.diagnostics import LocatedError, Span
from extractor.tsv import Row

Value = object  # int | str | tuple (record) | None (nil record)
# called when an engine reads its outputs: a symbol equal to a key is read as its value, so
# that a caller's rows share its own strings (see `solve`)
Symbols = Callable[[], dict[str, str]]


class EngineError(LocatedError):
    """A Datalog program, its facts or an engine run failed; located when the place is known."""

    kind = "engine error"


_PYTHON_TYPE = {"s": str, "i": int}


def check_rows(name: str, kinds: Sequence[object], rows: Sequence[Row],
               span: Span | None) -> None:
    """In-memory rows of input relation `name` must have its arity and column types (symbols
    str, numbers int; records are checked as they are formatted)."""
    if not rows:
        return
    if set(map(len, rows)) != {len(kinds)}:
        bad = next(r for r in rows if len(r) != len(kinds))
        raise EngineError(f"in-memory facts of `{name}`: a row of {len(bad)} columns, the "
                          f"relation has {len(kinds)}: {bad!r}", span)
    for i, k in enumerate(kinds):
        want = _PYTHON_TYPE.get(k)  # type: ignore[call-overload]
        if want is not None and set(map(type, map(itemgetter(i), rows))) != {want}:
            raise EngineError(f"in-memory facts of `{name}`: column {i + 1} must hold "
                              f"{'symbols' if k == 's' else 'numbers'}", span)


@dataclass
class SolveResult:
    """Output relations as sorted typed rows, the engine that produced them, and the time taken.

    `printed` is what Soufflé prints on standard output: `.printsize` lines and `IO=stdout`
    outputs.
    """

    relations: dict[str, list[Row]]
    engine: str
    seconds: float
    warnings: list[str] = field(default_factory=list)
    printed: str = ""


# --- column kinds -------------------------------------------------------------------------------
# A column kind is "i" (number), "s" (symbol) or ("r", field_kinds_getter_name) for records; the
# record field kinds are looked up in a RecordTable because record types may be recursive.


@dataclass(frozen=True)
class RecordKind:
    """A record type by name; its field kinds live in the owning program's `records` table."""

    name: str


def sort_key(value: object) -> tuple:
    """Total order over int, str, None (nil) and nested record tuples, for sorting rows."""
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, int):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if value is None:
        return (2,)
    if isinstance(value, tuple):
        return (3, tuple(sort_key(v) for v in value))
    return (4, repr(value))


def sort_rows(rows: list[Row]) -> list[Row]:
    """Rows sorted deterministically and de-duplicated (relations are sets).

    Sorted as tuples, duplicates dropped as neighbours: the largest outputs are sorted while
    the rest of the run is held, and a set of the rows plus a joined sort key a row (faster
    by half) took ~90 MB more at 700,000 rows, the peak of a long program's analysis.
    """
    try:
        out = sorted(rows)  # homogeneous int/str columns (the common case) compare natively
    except TypeError:
        out = sorted(rows, key=lambda r: tuple(sort_key(v) for v in r))
    return [row for row, _ in groupby(out)]
