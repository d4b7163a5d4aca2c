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
    inputs: list[IO] = field(default_factory=list)  # every `.input` directive, in order
    outputs: list[IO] = field(default_factory=list)  # every `.output` directive, in order
    printsize: bool = False
    eqrel: bool = False  # an equivalence relation: its rows are closed under refl/sym/trans
    inline: bool = False  # Soufflé substitutes its rules into its uses

    @property
    def file_outputs(self) -> list[IO]:
        """The `.output` directives that write a file (not IO=stdout), one per file name."""
        seen: dict[str, IO] = {}
        for o in self.outputs:
            if o.kind == "file":
                seen.setdefault(o.filename(self.name, ".csv"), o)
        return list(seen.values())


@dataclass
class IO:
    """One I/O directive's parameters (IO=file or IO=stdout) and where it was written."""

    kind: str
    params: dict[str, str]
    span: Span

    def filename(self, relation: str, suffix: str) -> str:
        return self.params.get("filename", relation + suffix)

    @property
    def delimiter(self) -> str:
        return self.params.get("delimiter", "\t")

    @property
    def headers(self) -> bool:
        return self.params.get("headers", "false") == "true"


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
        """Relations with an `.output` directive, in declaration order."""
        return [r.name for r in self.relations.values() if r.outputs]

    def printsizes(self) -> list[str]:
        """Relations with a `.printsize` directive, in declaration order."""
        return [r.name for r in self.relations.values() if r.printsize]
