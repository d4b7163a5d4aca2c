"""A whole Soufflé program after elaboration: relations by full name, flat clauses, records."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aliaslog.engines.dialect.ast import Clause
from extractor.diagnostics import Span


@dataclass
class Relation:
    """A declared relation after component expansion (name is the full dotted Soufflé name)."""

    name: str
    attrs: list[str]
    type_names: list[str]
    kinds: list[object]
    span: Span
    input: dict[str, str] | None = None
    input_span: Span | None = None
    output: dict[str, str] | None = None
    printsize: bool = False


@dataclass
class Program:
    """A whole program: relations by name, flattened rules (resolved names), record field kinds."""

    relations: dict[str, Relation]
    clauses: list[Clause]
    records: dict[str, list[object]]
    files: list[Path]
    texts: dict[str, str]
    warnings: list[str] = field(default_factory=list)
    tsv_unsafe: list[Span] = field(default_factory=list)

    def outputs(self) -> list[str]:
        return [r.name for r in self.relations.values() if r.output is not None]
