"""Soufflé's TSV fact and output files: number and record cells, and whole files read and written
(a symbol cell's escapes are `extractor.tsv`'s)."""

from __future__ import annotations

import gzip
from pathlib import Path

from aliaslog.engines.base import EngineError, RecordKind
from extractor.diagnostics import Span
from extractor.tsv import Row

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def parse_number(text: str) -> int:
    """Parse a number cell the way Soufflé's `std::stoi` does (leading blanks, sign, 32 bits)."""
    s = text.lstrip(" \t\n\r\v\f")
    body = s[1:] if s[:1] in "+-" else s
    if not body or not body.isdigit() or not body.isascii():
        raise ValueError(f"not a number: {text!r}")
    v = int(s)
    if not INT_MIN <= v <= INT_MAX:
        raise ValueError(f"number out of 32-bit range: {text!r}")
    return v


def format_value(value: object, kind: object, records: dict[str, list[object]]) -> str:
    """Render a value as Soufflé writes it in a TSV cell (symbols raw, records `[a, b]`, `nil`)."""
    if kind == "i" or kind == "s":
        return str(value)
    if value is None:
        return "nil"
    assert isinstance(kind, RecordKind) and isinstance(value, tuple)
    fields = records[kind.name]
    parts = [format_value(v, k, records) for v, k in zip(value, fields, strict=False)]
    return "[" + ", ".join(parts) + "]"


def _skip_ws(s: str, pos: int) -> int:
    while pos < len(s) and s[pos] in " \t\n\r\v\f":
        pos += 1
    return pos


def parse_value(text: str, kind: object, records: dict[str, list[object]]) -> object:
    """Parse one TSV cell of the given kind (Soufflé's reader: symbols raw, records bracketed)."""
    if kind == "s":
        return text
    if kind == "i":
        return parse_number(text)
    value, pos = _parse_record(text, 0, kind, records)
    if _skip_ws(text, pos) != len(text):
        raise ValueError(f"trailing text after record: {text!r}")
    return value


def _parse_record(s: str, pos: int, kind: object, records: dict[str, list[object]]):
    """Read a record value at pos (iterative over nesting depth via an explicit stack)."""
    # frames: [fields, values, index]
    pos = _skip_ws(s, pos)
    stack: list[list] = []
    cur_kind = kind
    while True:
        # read a value of cur_kind at pos, pushing frames for records
        pos = _skip_ws(s, pos)
        if isinstance(cur_kind, RecordKind):
            if s.startswith("nil", pos):
                value: object = None
                pos += 3
            else:
                if pos >= len(s) or s[pos] != "[":
                    raise ValueError(f"expected '[' at {pos} in {s!r}")
                pos += 1
                fields = records[cur_kind.name]
                if not fields:
                    pos = _skip_ws(s, pos)
                    if pos >= len(s) or s[pos] != "]":
                        raise ValueError(f"expected ']' in {s!r}")
                    pos += 1
                    value = ()
                else:
                    stack.append([fields, [], 0])
                    cur_kind = fields[0]
                    continue
        elif cur_kind == "i":
            end = pos
            while end < len(s) and s[end] not in ",]":
                end += 1
            value = parse_number(s[pos:end])
            pos = end
        else:
            if pos < len(s) and s[pos] == '"':
                end = pos + 1
                buf = []
                while end < len(s) and s[end] != '"':
                    if s[end] == "\\" and end + 1 < len(s):
                        end += 1
                    buf.append(s[end])
                    end += 1
                value = "".join(buf)
                pos = end + 1
            else:
                end = pos
                while end < len(s) and s[end] not in ",]":
                    end += 1
                value = s[pos:end]
                pos = end
        # deliver value to the enclosing frame(s)
        while True:
            if not stack:
                return value, pos
            frame = stack[-1]
            frame[1].append(value)
            frame[2] += 1
            pos = _skip_ws(s, pos)
            if frame[2] < len(frame[0]):
                if pos >= len(s) or s[pos] != ",":
                    raise ValueError(f"expected ',' in record {s!r}")
                pos += 1
                cur_kind = frame[0][frame[2]]
                break
            if pos >= len(s) or s[pos] != "]":
                raise ValueError(f"expected ']' in record {s!r}")
            pos += 1
            stack.pop()
            value = tuple(frame[1])


def fact_bytes(path: Path) -> bytes:
    """A fact file's bytes; gzip-compressed files are read through zlib, as Soufflé reads them."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise EngineError(f"cannot decompress fact file {path}: {exc}") from None
    return data


def read_tsv(
    path: Path,
    kinds: list[object],
    records: dict[str, list[object]],
    *,
    delimiter: str = "\t",
    headers: bool = False,
    what: str = "fact file",
    span: Span | None = None,
    strict: bool = False,
    memo: dict[str, str] | None = None,
) -> list[Row]:
    """Read a Soufflé TSV file into typed rows; a bad cell is a located EngineError.

    A relation of symbols keeps one string object per distinct symbol in `memo`, shared by
    every row read with it (output relations repeat the same node ids many times).
    """
    try:
        data = fact_bytes(path).decode("utf-8", errors="surrogateescape")
    except FileNotFoundError:
        raise EngineError(f"cannot open {what} {path}", span) from None
    except OSError as exc:
        raise EngineError(f"cannot read {what} {path}: {exc}", span) from None
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if headers and lines:
        lines.pop(0)
    arity = len(kinds)
    rows: list[Row] = []
    fast = all(k == "s" for k in kinds)
    share = (memo if memo is not None else {}).setdefault
    for lineno, line in enumerate(lines, 1 + (1 if headers else 0)):
        if line.endswith("\r"):
            line = line[:-1]
        if arity == 0:
            rows.append(())
            continue
        cells = line.split(delimiter)
        if len(cells) < arity:
            raise EngineError(
                f"{path}:{lineno}: expected {arity} columns, found {len(cells)}"
                f" (values missing)", span)
        if strict and len(cells) != arity:
            raise EngineError(
                f"{path}:{lineno}: expected {arity} columns, found {len(cells)} (a symbol holding"
                " a tab or a newline cannot be represented in Soufflé's TSV output)", span)
        if fast:
            rows.append(tuple(map(share, cells[:arity], cells[:arity])))
            continue
        try:
            rows.append(tuple(parse_value(c, k, records)
                              for c, k in zip(cells, kinds, strict=False)))
        except ValueError as exc:
            raise EngineError(f"{path}:{lineno}: cannot parse {what}: {exc}", span) from None
    return rows


def tsv_text(rows: list[Row], kinds: list[object], records: dict[str, list[object]],
             delimiter: str = "\t", header: list[str] | None = None) -> str:
    """Rows as Soufflé writes them (a nullary true relation is a `()` line), header first."""
    out: list[str] = [delimiter.join(header)] if header is not None else []
    for row in rows:
        if not kinds:
            out.append("()")
        else:
            out.append(delimiter.join(format_value(v, k, records)
                                      for v, k in zip(row, kinds, strict=False)))
    return "".join(line + "\n" for line in out)


def write_tsv(path: Path, rows: list[Row], kinds: list[object], records: dict[str, list[object]],
              delimiter: str = "\t", header: list[str] | None = None) -> None:
    """Write rows to a file the way Soufflé does (see tsv_text)."""
    text = tsv_text(rows, kinds, records, delimiter, header)
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
