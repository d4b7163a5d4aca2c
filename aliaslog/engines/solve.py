"""`solve()`: pick an engine, evaluate a Soufflé program on facts, publish the outputs.

The embedded engine keeps parsed programs (valid while their files are unchanged) and their
clingo text per set of empty inputs, so repeated solves pay for neither again.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from aliaslog.engines.base import (
    EngineError,
    SolveResult,
    Symbols,
    check_rows,
    sort_rows,
)
from aliaslog.engines.dialect import Program, load_program
from aliaslog.engines.embedded.facts import input_path
from aliaslog.engines.publish import publish_dir
from aliaslog.engines.tsv_files import tsv_text, write_tsv
from extractor.runtime import gc_paused
from extractor.tsv import Row, escape_symbol

log = logging.getLogger("aliaslog.engines")

Facts = Mapping[str, Sequence[Row]]  # in-memory facts: input relation -> rows

ENGINES = ("auto", "souffle", "embedded")


def available_engines() -> list[str]:
    """`embedded` always; `souffle` when a `souffle` executable is on PATH."""
    from aliaslog.engines.souffle_backend import souffle_executable

    return ["embedded"] + (["souffle"] if souffle_executable() else [])


def _select(program: Program, wanted: set[str] | None) -> list[str]:
    outputs = program.outputs()
    if wanted is None:
        return outputs
    missing = sorted(set(wanted) - set(outputs))
    if missing:
        known = ", ".join(outputs) or "none"
        raise EngineError(f"`{missing[0]}` is not an output relation of the program "
                          f"(outputs: {known})")
    return [name for name in outputs if name in wanted]


def _write_outputs(dir_: Path, program: Program, rels: dict[str, list[Row]]) -> None:
    """Every file `.output` directive of the selected relations, as Soufflé writes it."""
    for name, rows in rels.items():
        rel = program.relations[name]
        for io in rel.file_outputs:
            write_tsv(Path(dir_) / io.filename(name, ".csv"), rows, rel.kinds, program.records,
                      io.delimiter, rel.attrs if io.headers else None)


def _printed(program: Program, rels: dict[str, list[Row]]) -> str:
    """What Soufflé prints on stdout: `.printsize` counts and `IO=stdout` outputs."""
    out: list[str] = []
    for name in program.printsizes():
        out.append(f"{name}\t{len(rels[name])}\n")
    for name in program.outputs():
        rel = program.relations[name]
        for io in rel.outputs:
            if io.kind == "stdout" and name in rels:
                out.append(f"---------------\n{name}\n")
                if io.headers:
                    out.append("\t".join(rel.attrs) + "\n")
                out.append("===============\n")
                out.append(tsv_text(rels[name], rel.kinds, program.records))
                out.append("===============\n")
    return "".join(out)


# parsed rule programs, valid while every file they read is unchanged; and their clingo text
# per (empty inputs, requested relations): rules that cannot fire or are not needed are left out
_PARSED: dict[tuple, tuple[tuple[tuple[str, bytes], ...], Program]] = {}
_TRANSLATED: dict[tuple[int, frozenset[str], frozenset[str]], tuple[str, dict]] = {}


def _program(program_path: Path, include_dirs: list[Path], defines: dict[str, str]) -> Program:
    """The checked program, parsed again only when one of its files changed."""
    key = (str(Path(program_path).resolve()), tuple(map(str, include_dirs)),
           tuple(sorted(defines.items())))
    hit = _PARSED.get(key)
    if hit is not None and all(_file_digest(f) == d for f, d in hit[0]):
        return hit[1]
    program = load_program(program_path, include_dirs, defines)
    stamp = tuple((str(f), _file_digest(str(f))) for f in program.files)
    _PARSED[key] = (stamp, program)
    return program


def _translated(program: Program, empty: frozenset[str], wanted: frozenset[str]
                ) -> tuple[str, dict]:
    """Clingo text of the clauses that can fire and are needed, and the inputs' shapes."""
    from aliaslog.engines.embedded.projection import project_wildcards
    from aliaslog.engines.embedded.relevance import relevant
    from aliaslog.engines.embedded.translate import translate_rules

    key = (id(program), empty, wanted)
    if key not in _TRANSLATED:
        clauses, inputs = relevant(program, _firing_clauses(program, empty), set(wanted))
        _TRANSLATED[key] = (translate_rules(program, project_wildcards(clauses)),
                            inputs)
    return _TRANSLATED[key]


def _empty_inputs(program: Program, facts_dir: Path | None, facts: Facts | None) -> list[str]:
    """Input relations with no rows: empty (or, in memory, absent) everywhere they are read."""
    out = []
    for name, rel in program.relations.items():
        if not rel.inputs:
            continue
        if facts is not None:
            if not facts.get(name):
                out.append(name)
            continue
        try:
            if all(input_path(io, rel, facts_dir).stat().st_size == 0 for io in rel.inputs):
                out.append(name)
        except OSError:
            pass  # a missing file is reported when the facts are read
    return out


def _firing_clauses(program: Program, empty: frozenset[str]) -> list:
    """Clauses that may derive something: every positive body atom's relation may be non-empty.

    Exact, not a heuristic: a conjunction with an atom of an empty relation never holds.
    Atoms under negation or inside aggregates do not need rows (a count of nothing is 0).
    """
    from aliaslog.engines.dialect.ast import Atom

    maybe = {n for n, r in program.relations.items() if r.inputs and n not in empty}
    fires = [False] * len(program.clauses)
    changed = True
    while changed:
        changed = False
        for i, clause in enumerate(program.clauses):
            if fires[i]:
                continue
            if clause.body is None or any(
                all(lit.rel in maybe for lit in conj if isinstance(lit, Atom))
                for conj in clause.body
            ):
                fires[i] = True
                changed = True
                maybe.update(h.rel for h in clause.heads)
    return [c for c, f in zip(program.clauses, fires, strict=True) if f]


def _file_digest(path: str) -> bytes:
    try:
        return hashlib.sha256(Path(path).read_bytes()).digest()
    except OSError:
        return b""


@gc_paused()  # millions of long-lived strings and tuples: collections would free nothing
def _solve_embedded(program_path: Path, facts_dir: Path | None, facts: Facts | None,
                    out_dir: Path | None, output_relations: set[str] | None,
                    include_dirs: list[Path], defines: dict[str, str],
                    symbols: Symbols | None = None
                    ) -> tuple[dict[str, list[Row]], list[str], str]:
    from aliaslog.engines.embedded.facts import facts_text, rows_text
    from aliaslog.engines.embedded.run import run_clingo

    program = _program(program_path, include_dirs, defines)
    outputs = _select(program, output_relations)
    wanted = outputs + [n for n in program.printsizes() if n not in outputs]
    empty = frozenset(_empty_inputs(program, facts_dir, facts))
    rules, inputs = _translated(program, empty, frozenset(wanted))
    chunks = _deep_records_located(rows_text(program, facts, inputs) if facts is not None
                                   else facts_text(program, facts_dir, inputs))
    solved = {k: sort_rows(v) for k, v in run_clingo(program, rules, chunks, wanted,
                                                            symbols).items()}
    printed = _printed(program, solved)
    rels = {k: solved[k] for k in outputs}
    if out_dir is not None:
        _publish(out_dir, lambda d: _write_outputs(d, program, rels))
    return rels, list(program.warnings), printed


def _deep_records_located(chunks: Iterator[str]) -> Iterator[str]:
    """The chunks, with a record too deep for Python's stack reported as an engine error."""
    try:
        yield from chunks
    except RecursionError:
        raise EngineError("a record value is nested too deeply to translate") from None


def _publish(out_dir: Path, fill) -> None:
    """Publish output CSVs atomically; a directory holding anything else is not replaced."""
    try:
        publish_dir(out_dir, fill, owned_suffix=".csv")
    except FileExistsError as exc:
        raise EngineError(f"out_dir {exc}") from None


def _write_fact_files(program: Program, facts: Facts, dir_: Path) -> None:
    """In-memory facts as the TSV files Soufflé reads (symbols stored as fact files hold them),
    each row checked against its relation's declaration (see embedded `rows_text`)."""
    for name, rel in program.relations.items():
        rows = facts.get(name, ())
        symbols = bool(rel.kinds) and all(k == "s" for k in rel.kinds)
        joined = symbols and all(io.delimiter == "\t" and not io.headers for io in rel.inputs)
        if rows and rel.inputs and (not joined or set(map(len, rows)) != {len(rel.kinds)}):
            check_rows(name, rel.kinds, rows, rel.span)  # (a join below checks the others)
        for io in rel.inputs:
            path = input_path(io, rel, dir_)
            if rel.kinds and all(k in ("s", "i") for k in rel.kinds) and io.delimiter == "\t" \
                    and not io.headers:
                # one C-level join (symbols; it fails on anything else) or format per row; a
                # symbol holding a tab, line break or backslash changes the counts, and then
                # every cell is encoded
                try:
                    if symbols:
                        text = "\n".join(map("\t".join, rows))
                    else:
                        form = "\t".join("%s" if k == "s" else "%d" for k in rel.kinds)
                        text = "\n".join([form % r for r in rows])
                except TypeError:
                    check_rows(name, rel.kinds, rows, rel.span)
                    raise
                if text.count("\t") == (len(rel.kinds) - 1) * len(rows) and \
                        text.count("\n") == max(len(rows) - 1, 0) and "\\" not in text \
                        and "\r" not in text:
                    path.write_text(text + "\n" if rows else "", encoding="utf-8")
                    continue
            cells = [tuple(escape_symbol(v) if k == "s" else v
                           for v, k in zip(row, rel.kinds, strict=True)) for row in rows]
            write_tsv(path, cells, rel.kinds, program.records, io.delimiter,
                      rel.attrs if io.headers else None)


def _solve_souffle(program_path: Path, facts_dir: Path | None, facts: Facts | None,
                   out_dir: Path | None, timeout: float, compiled: bool,
                   output_relations: set[str] | None, include_dirs: list[Path],
                   defines: dict[str, str], symbols: Symbols | None = None
                   ) -> tuple[dict[str, list[Row]], list[str], str]:
    from aliaslog.engines.souffle_backend import run_souffle

    program = load_program(program_path, include_dirs, defines, lenient=True)
    outputs = _select(program, output_relations)
    result: list = []

    def run(work: Path) -> None:
        with tempfile.TemporaryDirectory(prefix="aliaslog-facts-") as tmp:
            fdir = facts_dir
            if facts is not None:
                fdir = Path(tmp)
                _write_fact_files(program, facts, fdir)
            raw, warnings, printed = run_souffle(
                program_path, program, fdir, work, outputs, timeout=timeout, compiled=compiled,
                include_dirs=include_dirs, defines=defines, symbols=symbols)
        result.extend([{k: sort_rows(v) for k, v in raw.items()}, warnings, printed])
        keep = {io.filename(n, ".csv") for n in outputs
                for io in program.relations[n].file_outputs}
        for p in list(work.iterdir()):
            if p.name not in keep:
                shutil.rmtree(p) if p.is_dir() else p.unlink()

    if out_dir is not None:
        _publish(out_dir, run)
    else:
        with tempfile.TemporaryDirectory(prefix="aliaslog-souffle-") as work:
            run(Path(work))
    rels, warnings, printed = result
    return rels, [*program.warnings, *warnings], printed


def solve(program: Path, facts_dir: Path | None = None, out_dir: Path | None = None, *,
          facts: Facts | None = None, engine: str = "auto", timeout: float = 600,
          compiled: bool = False, output_relations: set[str] | None = None,
          include_dirs: list[Path] | None = None,
          defines: dict[str, str] | None = None,
          symbols: Symbols | None = None) -> SolveResult:
    """Evaluate a Soufflé program on facts; optionally publish the output CSVs to out_dir.

    The facts are a directory of Soufflé TSV files (`facts_dir`), or already in memory
    (`facts`: input relation name -> rows of Python values, symbols as the program should see
    them unescaped; a relation that is absent has no rows). In memory, the embedded engine
    builds its facts without any file; Soufflé gets them written as TSV, each symbol stored
    the way aliaslog's fact files store it, so both give what a run on the written files gives.
    `symbols` is called when an engine reads its outputs: an output symbol equal to one of its
    keys is read as that key's value (a caller's own strings, so that its rows share them).
    """
    start = time.perf_counter()
    program = Path(program)
    out = Path(out_dir) if out_dir is not None else None
    incs = [Path(d) for d in (include_dirs or [])]
    defs = dict(defines or {})
    if engine not in ENGINES:
        raise EngineError(f"unknown engine `{engine}` (choose from {', '.join(ENGINES)})")
    if (facts_dir is None) == (facts is None):
        raise EngineError("give the facts either as a directory or in memory, not both")
    fdir = Path(facts_dir) if facts_dir is not None else None
    if fdir is not None and not fdir.is_dir():
        raise EngineError(f"facts directory {fdir} does not exist")
    choice = engine
    if engine == "auto":
        from aliaslog.engines.souffle_backend import souffle_executable

        choice = "souffle" if souffle_executable() else "embedded"
    if choice == "souffle":
        try:
            rels, warnings, printed = _solve_souffle(program, fdir, facts, out, timeout,
                                                     compiled, output_relations, incs, defs,
                                                     symbols)
            name = "souffle-compiled" if compiled else "souffle"
            return SolveResult(rels, name, time.perf_counter() - start, warnings, printed)
        except EngineError as exc:
            if engine != "auto":
                raise
            lines = exc.render().splitlines() or [exc.message]
            shown = "\n  ".join(lines[:20]) + ("\n  ..." if len(lines) > 20 else "")
            log.warning("souffle failed, falling back to the embedded engine:\n  %s", shown)
    rels, warnings, printed = _solve_embedded(program, fdir, facts, out, output_relations, incs,
                                              defs, symbols)
    return SolveResult(rels, "embedded", time.perf_counter() - start, warnings, printed)
