"""Input relations as clingo facts (rule text: clingo's parser reads it faster than its API)."""

from __future__ import annotations

from pathlib import Path

from aliaslog.engines.base import EngineError, RecordKind
from aliaslog.engines.dialect.program import Program
from aliaslog.engines.embedded.translate import clingo_name, quote
from aliaslog.engines.tsv import read_tsv


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


def facts_text(program: Program, facts_dir: Path) -> tuple[str, int]:
    """Every input relation's facts file as clingo facts; returns (text, number of facts)."""
    chunks: list[str] = []
    count = 0
    for rel in program.relations.values():
        if rel.input is None:
            continue
        params = rel.input
        fname = params.get("filename", rel.name + ".facts")
        path = Path(fname) if Path(fname).is_absolute() else Path(facts_dir) / fname
        delim = params.get("delimiter", "\t")
        headers = params.get("headers", "false") == "true"
        name = clingo_name(rel.name)
        arity = len(rel.kinds)
        fast = (arity > 0 and all(k == "s" for k in rel.kinds) and not headers
                and delim == "\t")
        if fast:
            try:
                data = path.read_bytes().decode("utf-8")
            except FileNotFoundError:
                raise EngineError(f"cannot open fact file {path}", rel.input_span) from None
            except UnicodeDecodeError as exc:
                raise EngineError(f"fact file {path} is not UTF-8: {exc}",
                                  rel.input_span) from None
            lines = data.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if "\r" in data:
                lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
            if '"' not in data and "\\" not in data and "\0" not in data and all(
                    ln.count("\t") == arity - 1 for ln in lines):
                prefix = name + '("'
                chunks.append("\n".join(prefix + ln.replace("\t", '","') + '").'
                                        for ln in lines))
                count += len(lines)
                continue
        rows = read_tsv(path, rel.kinds, program.records, delimiter=delim, headers=headers,
                        span=rel.input_span)
        if arity == 0:
            if rows:
                chunks.append(name + ".")
                count += 1
            continue
        recs = program.records
        chunks.append("\n".join(
            name + "(" + ",".join(_value_text(v, k, recs)
                                  for v, k in zip(row, rel.kinds, strict=False)) + ")."
            for row in rows))
        count += len(rows)
    return "\n".join(c for c in chunks if c) + "\n", count
