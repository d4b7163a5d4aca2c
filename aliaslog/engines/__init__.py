"""Datalog engines for aliaslog: Soufflé by subprocess, or the same .dl files run by clingo.

`solve()` is the one entry point; both engines return identical sorted, typed relations.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import tempfile
import time
from pathlib import Path

from aliaslog.engines.base import (
    EngineError,
    Row,
    SolveResult,
    check_replaceable,
    new_staging_dir,
    publish_dir,
    sort_rows,
    write_tsv,
)
from aliaslog.engines.souffle_subset import Program, load_program

__all__ = ["EngineError", "SolveResult", "available_engines", "solve"]

log = logging.getLogger("aliaslog.engines")

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
    for name, rows in rels.items():
        rel = program.relations[name]
        params = rel.output or {}
        fname = params.get("filename", name + ".csv")
        write_tsv(Path(dir_) / fname, rows, rel.kinds, program.records,
                  params.get("delimiter", "\t"))


# parsed and translated rule programs, valid while every file they read is unchanged
_TRANSLATED: dict[tuple, tuple[tuple[tuple[str, bytes], ...], Program, str]] = {}


def _translated(program_path: Path, include_dirs: list[Path],
                defines: dict[str, str]) -> tuple[Program, str]:
    """The checked program and its clingo text; parsed once per process per rule version."""
    from aliaslog.engines.clingo_backend import translate_rules

    key = (str(Path(program_path).resolve()), tuple(map(str, include_dirs)),
           tuple(sorted(defines.items())))
    hit = _TRANSLATED.get(key)
    if hit is not None and all(_file_digest(f) == d for f, d in hit[0]):
        return hit[1], hit[2]
    program = load_program(program_path, include_dirs, defines)
    rules = translate_rules(program)
    stamp = tuple((str(f), _file_digest(str(f))) for f in program.files)
    _TRANSLATED[key] = (stamp, program, rules)
    return program, rules


def _file_digest(path: str) -> bytes:
    try:
        return hashlib.sha256(Path(path).read_bytes()).digest()
    except OSError:
        return b""


def _solve_embedded(program_path: Path, facts_dir: Path, out_dir: Path | None,
                    output_relations: set[str] | None, include_dirs: list[Path],
                    defines: dict[str, str]) -> tuple[dict[str, list[Row]], list[str]]:
    from aliaslog.engines.clingo_backend import run_clingo

    program, rules = _translated(program_path, include_dirs, defines)
    outputs = _select(program, output_relations)
    rels = {k: sort_rows(v) for k, v in run_clingo(program, facts_dir, outputs, rules).items()}
    if out_dir is not None:
        check_replaceable(out_dir)
        staging = new_staging_dir(out_dir)
        try:
            _write_outputs(staging, program, rels)
            publish_dir(staging, out_dir)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return rels, list(program.warnings)


def _solve_souffle(program_path: Path, facts_dir: Path, out_dir: Path | None, timeout: float,
                   compiled: bool, output_relations: set[str] | None, include_dirs: list[Path],
                   defines: dict[str, str]) -> tuple[dict[str, list[Row]], list[str]]:
    from aliaslog.engines.souffle_backend import run_souffle

    program = load_program(program_path, include_dirs, defines, lenient=True)
    outputs = _select(program, output_relations)
    if out_dir is not None:
        check_replaceable(out_dir)
        work = new_staging_dir(out_dir)
    else:
        work = Path(tempfile.mkdtemp(prefix="aliaslog-souffle-"))
    try:
        raw, warnings = run_souffle(program_path, program, facts_dir, work, outputs,
                                    timeout=timeout, compiled=compiled,
                                    include_dirs=include_dirs, defines=defines)
        rels = {k: sort_rows(v) for k, v in raw.items()}
        if out_dir is not None:
            keep = {(program.relations[n].output or {}).get("filename", n + ".csv")
                    for n in outputs}
            for p in list(work.iterdir()):
                if p.name not in keep:
                    if p.is_dir():
                        shutil.rmtree(p)
                    else:
                        p.unlink()
            publish_dir(work, out_dir)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return rels, [*program.warnings, *warnings]


def solve(program: Path, facts_dir: Path, out_dir: Path | None = None, *, engine: str = "auto",
          timeout: float = 600, compiled: bool = False,
          output_relations: set[str] | None = None, include_dirs: list[Path] | None = None,
          defines: dict[str, str] | None = None) -> SolveResult:
    """Evaluate a Soufflé program on a facts directory; optionally publish CSVs to out_dir."""
    start = time.perf_counter()
    program = Path(program)
    facts_dir = Path(facts_dir)
    out = Path(out_dir) if out_dir is not None else None
    incs = [Path(d) for d in (include_dirs or [])]
    defs = dict(defines or {})
    if engine not in ENGINES:
        raise EngineError(f"unknown engine `{engine}` (choose from {', '.join(ENGINES)})")
    if not facts_dir.is_dir():
        raise EngineError(f"facts directory {facts_dir} does not exist")
    choice = engine
    if engine == "auto":
        from aliaslog.engines.souffle_backend import souffle_executable

        choice = "souffle" if souffle_executable() else "embedded"
    if choice == "souffle":
        try:
            rels, warnings = _solve_souffle(program, facts_dir, out, timeout, compiled,
                                            output_relations, incs, defs)
            name = "souffle-compiled" if compiled else "souffle"
            return SolveResult(rels, name, time.perf_counter() - start, warnings)
        except EngineError as exc:
            if engine != "auto":
                raise
            first = exc.render().splitlines()[0] if exc.render() else exc.message
            log.warning("souffle failed (%s); falling back to the embedded engine", first)
    rels, warnings = _solve_embedded(program, facts_dir, out, output_relations, incs, defs)
    return SolveResult(rels, "embedded", time.perf_counter() - start, warnings)
