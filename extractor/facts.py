"""Fact sets checked against the schema, written as Soufflé TSV (one file per relation)."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path

from .schema import EFFECT_KINDS, SCHEMA, SCHEMA_BY_NAME

_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


_NEEDS_ESCAPE = re.compile(r"[\\\t\n\r]")
_ESCAPE_TABLE = str.maketrans(_ESCAPES)


def escape_symbol(s: str) -> str:
    """Make a symbol safe for a TSV cell: backslash, tab, newline and CR become escapes."""
    return s.translate(_ESCAPE_TABLE) if _NEEDS_ESCAPE.search(s) else s


def unescape_symbol(s: str) -> str:
    """Inverse of escape_symbol."""
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in _UNESCAPES:
            out.append(_UNESCAPES[s[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class FactSet:
    """Rows for each schema relation, in insertion order, checked against the schema once.

    `add` only appends (an extractor adds millions of rows) and `seal` says no more will come.
    The rows are checked where they leave: an engine checks what it is given against the
    program's declarations (`schema.dl`, written from the same schema) as it formats it, and
    `unique` checks a relation before it is written or counted. A row added twice is a set
    element once: the engines read relations as sets, and writing and counting drop the later
    copies (hashing every row as it is added would cost the extractor a third of its time).
    """

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[str | int, ...]]] = {r.name: [] for r in SCHEMA}
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

    def appender(self, relation: str) -> Callable[[tuple[str | int, ...]], None]:
        """`add` for an extractor's hot loop: appends one row given as a tuple, without a call
        of its own per row."""
        if self._sealed:
            raise ValueError(f"rows added to {relation} after the fact set was sealed")
        return self.rows[relation].append

    def seal(self) -> None:
        """No more rows will be added."""
        self._sealed = True

    def check(self, relation: str) -> None:
        """A row off the relation's columns (wrong arity or type) is a bug, raised here."""
        if relation in self._checked:
            return
        rows, want = self.rows[relation], self._types[relation]
        # column by column in C; a row off the schema makes one of these sets differ
        if rows and (set(map(len, rows)) != {len(want)} or any(
                set(map(type, map(itemgetter(i), rows))) != {t} for i, t in enumerate(want))):
            _reject(relation, next(r for r in rows if tuple(map(type, r)) != want))
        self._checked.add(relation)

    def unique(self, relation: str) -> list[tuple[str | int, ...]]:
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
