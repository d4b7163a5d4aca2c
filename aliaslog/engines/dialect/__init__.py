"""The Soufflé dialect as the embedded engine reads it, one module per stage.

`preprocess` (files to tokens) → `parse` (tokens to `ast`) → `elaborate` (components and
types to a flat `program.Program`) → `inline` (inline relations substituted into their
uses) → `scoping` (aggregate-local variables renamed apart) → `types` and `checks` (what
Soufflé rejects). Anything outside the subset is an `EngineError` located at the construct.
"""

from __future__ import annotations

from pathlib import Path

from aliaslog.engines.base import EngineError
from aliaslog.engines.dialect.checks import check_program
from aliaslog.engines.dialect.elaborate import Elaborator
from aliaslog.engines.dialect.inline import inline_relations
from aliaslog.engines.dialect.parse import Parser
from aliaslog.engines.dialect.preprocess import Preprocessor
from aliaslog.engines.dialect.program import Program, Relation
from aliaslog.engines.dialect.scoping import scope_aggregates
from aliaslog.engines.dialect.types import check_types

__all__ = ["Program", "Relation", "load_program"]


def load_program(path: Path, include_dirs: list[Path] | None = None,
                 defines: dict[str, str] | None = None, *, lenient: bool = False,
                 check: bool = True) -> Program:
    """Parse, elaborate and (unless lenient) check a Soufflé program; errors carry source text."""
    pre = Preprocessor(list(include_dirs or []), dict(defines or {}))
    try:
        tokens = pre.run(Path(path))
        parser = Parser(tokens, lenient=lenient)
        items = parser.parse_program()
        elab = Elaborator(lenient)
        elab.run(items)
        program = elab.build(pre.files, pre.texts)
        program.warnings.extend(e.render() for e in parser.skipped)
        program.tsv_unsafe = list(pre.tsv_unsafe)
        if check and not lenient:
            inline_relations(program)
            scope_aggregates(program.clauses)
            check_types(program)
            check_program(program)
        return program
    except EngineError as exc:
        if exc.span is not None and exc.text is None:
            exc.with_text(pre.texts.get(exc.span.source, ""))
        raise
