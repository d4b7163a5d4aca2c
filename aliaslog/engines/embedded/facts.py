"""Input relations as clingo facts (rule text: clingo's parser reads it faster than its API)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from aliaslog.engines.base import EngineError, RecordKind, check_rows
from aliaslog.engines.dialect.program import IO, Program, Relation
from aliaslog.engines.embedded.relevance import InputShape
from aliaslog.engines.embedded.translate import clingo_name, quote
from aliaslog.engines.tsv_files import fact_bytes, read_tsv
from extractor.tsv import Row, escape_symbol

# rows a chunk of clingo facts holds at most: clingo's parse of a chunk is held until it is
# grounded, and is several times the size of the atoms it makes
CHUNK_ROWS = 1 << 16

# a number cell clingo reads as Soufflé does: plain decimal, |n| < 10^9 (inside 32 bits)
_CELL = r"-?(?:0|[1-9][0-9]{0,8})"


def _value_text(v: object, kind: object, records: dict) -> str:
    if kind == "s":
        return quote(v)  # type: ignore[arg-type]
    if kind == "i":
        return str(v)
    if v is None:
        return "nil"
    assert isinstance(kind, RecordKind)
    items = [_value_text(x, k, records) for x, k in zip(v, records[kind.name], strict=False)]
    return "(" + ",".join(items) + ("," if len(items) == 1 else "") + ")"


def input_path(io: IO, rel: Relation, facts_dir: Path) -> Path:
    """Where an `.input` directive reads from: its filename, relative to the facts directory."""
    fname = Path(io.filename(rel.name, ".facts"))
    return fname if fname.is_absolute() else Path(facts_dir) / fname


def facts_text(program: Program, facts_dir: Path, shapes: dict[str, InputShape]
               ) -> Iterator[str]:
    """The shaped input relations' fact files as clingo facts, one text chunk per file, made
    as they are asked for (clingo parses one while the next is formatted).

    A relation with several `.input` directives holds the rows of all their files.
    """
    for rel in program.relations.values():
        shape = shapes.get(rel.name)
        if shape is None:
            continue
        for io in rel.inputs:
            path = input_path(io, rel, facts_dir)
            if shape.is_whole(len(rel.kinds)):
                text = _relation_facts(program, rel, io, path)
            else:
                rows = read_tsv(path, rel.kinds, program.records, delimiter=io.delimiter,
                                headers=io.headers, span=io.span)
                text = _format(program, rel, shape, rows, encode=False)
            if text:
                yield text


def rows_text(program: Program, facts: Mapping[str, Sequence[Row]],
              shapes: dict[str, InputShape]) -> Iterator[str]:
    """In-memory rows of the shaped input relations as clingo facts, in chunks of at most
    CHUNK_ROWS rows of one relation (see solve's `facts`), made as they are asked for.

    Every row is checked against the relation's declaration: the cells of a relation of
    symbols read whole as they are formatted (joining symbols fails on anything else), any
    other relation beforehand.
    """
    for name in sorted(shapes):
        rows = facts.get(name, ())
        if not rows:
            continue
        rel = program.relations[name]
        shape = shapes[name]
        symbols = shape.is_whole(len(rel.kinds)) and not shape.joins \
            and all(k == "s" for k in rel.kinds)
        if not symbols or set(map(len, rows)) != {len(rel.kinds)}:
            check_rows(name, rel.kinds, rows, rel.span)
        if shape.joins:
            rows = shape.semijoin(rows, facts)
        for lo in range(0, len(rows), CHUNK_ROWS):
            text = _format(program, rel, shape, rows[lo:lo + CHUNK_ROWS] if len(rows) >
                           CHUNK_ROWS else rows, encode=True)
            if text:
                yield text


def _format(program: Program, rel: Relation, shape: InputShape, rows: Sequence[Row],
            encode: bool) -> str:
    """Rows (filtered and projected by shape) as clingo facts; symbols encoded if in memory."""
    cname = clingo_name(rel.name)
    if not rel.kinds:
        return cname + "." if rows else ""
    rows = shape.apply(rows)
    kinds = [rel.kinds[j] for j in shape.columns]
    if not rows:
        return ""
    if not kinds:
        return cname + "."
    if all(k == "s" for k in kinds):
        # one C-level join per row, which fails on a cell that is not a symbol; any quote,
        # escape or line break inside a symbol changes the counts below, and such rows take
        # the cell-by-cell path (the caller checked the rows' arity)
        try:
            text = cname + '("' + ('").\n' + cname + '("').join(map('","'.join, rows)) + '").'
        except TypeError:
            check_rows(rel.name, kinds, rows, rel.span)
            raise
        if _clean(text, len(rows), 2 * len(kinds) * len(rows)):
            return text
    elif all(k in ("s", "i") for k in kinds):
        # one C-level format per row (the caller checked the rows' types)
        form = cname + "(" + ",".join('"%s"' if k == "s" else "%d" for k in kinds) + ")."
        text = "\n".join([form % r for r in rows])
        if _clean(text, len(rows), 2 * sum(k == "s" for k in kinds) * len(rows)):
            return text
    recs = program.records
    return "\n".join(
        cname + "(" + ",".join(_value_text(escape_symbol(v) if encode and k == "s" else v, k,
                                           recs)
                               for v, k in zip(row, kinds, strict=True)) + ")."
        for row in rows)


def _clean(text: str, n_rows: int, quotes: int) -> bool:
    """No symbol of these n_rows facts holds a quote, an escape or a line break."""
    return text.count('"') == quotes and text.count("\n") == n_rows - 1 \
        and not any(c in text for c in "\\\t\r\0")


def _relation_facts(program: Program, rel: Relation, io: IO, path: Path) -> str:
    name = clingo_name(rel.name)
    arity = len(rel.kinds)
    if arity > 0 and all(k == "s" for k in rel.kinds) and not io.headers and io.delimiter == "\t":
        try:
            data = fact_bytes(path).decode("utf-8")
        except FileNotFoundError:
            raise EngineError(f"cannot open fact file {path}", io.span) from None
        except UnicodeDecodeError as exc:
            raise EngineError(f"fact file {path} is not UTF-8: {exc}", io.span) from None
        lines = data.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if "\r" in data:
            lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
        if '"' not in data and "\\" not in data and "\0" not in data and all(
                ln.count("\t") == arity - 1 for ln in lines):
            prefix = name + '("'
            return "\n".join(prefix + ln.replace("\t", '","') + '").' for ln in lines)
    if arity > 0 and all(k == "i" for k in rel.kinds) and not io.headers and io.delimiter == "\t":
        try:
            data = fact_bytes(path).decode("utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            data = ""  # read_tsv below reports it
        if data.endswith("\n") and re.fullmatch(f"(?:{_CELL}(?:\\t{_CELL}){{{arity - 1}}}\\n)+",
                                                 data):
            body = data[:-1].replace("\t", ",").replace("\n", ").\n" + name + "(")
            return name + "(" + body + ")."
    rows = read_tsv(path, rel.kinds, program.records, delimiter=io.delimiter, headers=io.headers,
                    span=io.span)
    if arity == 0:
        return name + "." if rows else ""
    recs = program.records
    return "\n".join(
        name + "(" + ",".join(_value_text(v, k, recs)
                              for v, k in zip(row, rel.kinds, strict=False)) + ")."
        for row in rows)
