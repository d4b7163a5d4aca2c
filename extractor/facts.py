"""Fact sets checked against the schema, written as Soufflé TSV (one file per relation)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import overload

from .schema import EFFECT_KINDS, SCHEMA, SCHEMA_BY_NAME
from .tsv import Row, escape_symbol


class Rows(Sequence[Row]):
    """One relation's rows, stored by column: a row costs a pointer a cell, not a tuple of its
    own (a long program has millions of rows, and their tuples were a third of its memory).

    Rows arrive as tuples (`append`, an extractor's hot loop) and move into the columns at each
    `flush`, where a row of the wrong arity is refused; reading flushes first.
    """

    __slots__ = ("name", "_cols", "_pending", "append")

    def __init__(self, name: str, arity: int) -> None:
        self.name = name
        self._cols: tuple[list, ...] = tuple([] for _ in range(arity))
        self._pending: list[Row] = []
        self.append: Callable[[Row], None] = self._pending.append

    def flush(self) -> None:
        """Move the rows added since the last flush into the columns."""
        pending = self._pending
        if not pending:
            return
        if set(map(len, pending)) != {len(self._cols)}:
            _reject(self.name, next(r for r in pending if len(r) != len(self._cols)))
        for col, values in zip(self._cols, zip(*pending, strict=True), strict=True):
            col.extend(values)
        pending.clear()

    def column(self, j: int) -> list:
        """Column j (not a copy: do not change it)."""
        self.flush()
        return self._cols[j]

    def __len__(self) -> int:
        return len(self._cols[0]) + len(self._pending) if self._cols else len(self._pending)

    def __iter__(self) -> Iterator[Row]:
        self.flush()
        return zip(*self._cols, strict=True)

    @overload
    def __getitem__(self, i: int) -> Row: ...
    @overload
    def __getitem__(self, i: slice) -> list[Row]: ...
    def __getitem__(self, i: int | slice) -> Row | list[Row]:
        self.flush()
        if isinstance(i, slice):
            return list(zip(*(c[i] for c in self._cols), strict=True))
        return tuple(c[i] for c in self._cols)

    def __repr__(self) -> str:
        return f"Rows({self.name}, {list(self)!r})"


class FactSet:
    """Rows for each schema relation, in insertion order, checked against the schema once.

    `add` only appends (an extractor adds millions of rows), `flush` stores what was added by
    column, and `seal` says no more will come. A row's arity is checked as it is stored; its
    types where it leaves: an engine checks what it is given against the program's declarations
    (`schema.dl`, written from the same schema) as it formats it, and `unique` checks a relation
    before it is written or counted. A row added twice is a set element once: the engines read
    relations as sets, and writing and counting drop the later copies (hashing every row as it
    is added would cost the extractor a third of its time).
    """

    def __init__(self) -> None:
        self.rows: dict[str, Rows] = {r.name: Rows(r.name, r.arity) for r in SCHEMA}
        self._sealed = False
        self._checked: set[str] = set()
        self._types = {r.name: tuple(int if t == "number" else str for _, t in r.columns)
                       for r in SCHEMA}
        for kind, classes, _ in EFFECT_KINDS:  # the effect vocabulary the rules join on
            for cls in classes:
                self.add("effect_class", kind, cls)

    def add(self, relation: str, *row: str | int) -> None:
        """Add one row (checked where it leaves)."""
        if self._sealed:
            raise ValueError(f"a row added to {relation} after the fact set was sealed")
        self.rows[relation].append(row)

    def appender(self, relation: str) -> Callable[[Row], None]:
        """`add` for an extractor's hot loop: appends one row given as a tuple, without a call
        of its own per row (the extractor calls `flush` every so often)."""
        if self._sealed:
            raise ValueError(f"rows added to {relation} after the fact set was sealed")
        return self.rows[relation].append

    def flush(self) -> None:
        """Store the rows added so far by column (their tuples are freed)."""
        for rows in self.rows.values():
            rows.flush()

    def seal(self) -> None:
        """No more rows will be added."""
        self.flush()
        self._sealed = True

    def check(self, relation: str) -> None:
        """A row off the relation's columns (wrong arity or type) is a bug, raised here."""
        if relation in self._checked:
            return
        rows, want = self.rows[relation], self._types[relation]
        rows.flush()  # (refuses a row of the wrong arity)
        # column by column in C; a cell of another type makes one of these sets differ
        if rows and any(set(map(type, rows.column(i))) != {t} for i, t in enumerate(want)):
            _reject(relation, next(r for r in rows if tuple(map(type, r)) != want))
        self._checked.add(relation)

    def unique(self, relation: str) -> list[Row]:
        """The relation's rows, checked, each once, in the order first added."""
        self.seal()
        self.check(relation)
        return list(dict.fromkeys(self.rows[relation]))

    def count(self) -> int:
        """Total number of distinct rows."""
        return sum(len(self.unique(r.name)) for r in SCHEMA)

    def tsv(self, relation: str) -> str:
        """The relation as Soufflé TSV text (symbols escaped), each row once."""
        rows = self.unique(relation)
        if not rows:
            return ""
        numeric = [t is int for t in self._types[relation]]
        if not any(numeric):
            text = "\n".join("\t".join(row) for row in rows)  # type: ignore[arg-type]
            clean = (
                text.count("\t") == len(rows) * (len(numeric) - 1)
                and text.count("\n") == len(rows) - 1
                and "\\" not in text
                and "\r" not in text
            )
            if not clean:  # some symbol holds a separator or backslash: escape cell by cell
                text = "\n".join(
                    "\t".join(map(escape_symbol, row)) for row in rows  # type: ignore[arg-type]
                )
            return text + "\n"
        lines = [
            "\t".join(str(v) if num else escape_symbol(v)  # type: ignore[arg-type]
                      for v, num in zip(row, numeric, strict=True))
            for row in rows
        ]
        return "\n".join(lines) + "\n"

    def write(self, directory: str | os.PathLike[str]) -> Path:
        """Write `<relation>.facts` for every schema relation (empty ones too) into directory."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        for rel in SCHEMA:
            (out / f"{rel.name}.facts").write_text(self.tsv(rel.name), encoding="utf-8")
        return out

    def digest(self) -> str:
        """A content hash of all facts (same input program -> same digest)."""
        h = hashlib.sha256()
        for rel in SCHEMA:
            h.update(rel.name.encode())
            h.update(self.tsv(rel.name).encode())
        return h.hexdigest()


def _reject(relation: str, row: tuple) -> None:
    """The error for a row that does not fit its relation's columns."""
    rel = SCHEMA_BY_NAME[relation]
    if len(row) != rel.arity:
        raise ValueError(f"{relation} takes {rel.arity} columns, got {len(row)}: {row!r}")
    raise ValueError(f"{relation} has columns {rel.columns}, got {row!r}")
