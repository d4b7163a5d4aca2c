"""Relax inputs: TVMScript files as IRModules, and the extraction points of the build pipeline.

A TVMScript file is a Python file that defines IRModules at module level (what `mod.script()`
prints, with its imports). Extraction points follow `relax.build`'s default pipeline (0.27):
`legalized` stops just before RemovePurityChecking, which erases declared purity and in-place
indices; `lowered` continues through StaticPlanBlockMemory, LowerAllocTensor and
KillAfterLastUse, where storages, kernels and kills are explicit.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import tvm
from tvm import relax

from .diagnostics import Span
from .effect_table import ExtractError
from .relax_pipeline import passes_through, run_passes

POINTS = ("input", "legalized", "lowered")


def load_relax_modules(path: str | os.PathLike[str]) -> dict[str, tvm.IRModule]:
    """Run a TVMScript file and return the IRModules it defines, by variable name."""
    p = Path(path)
    if not p.is_file():
        raise ExtractError(f"{p}: no such file")
    raw = p.read_bytes()
    try:
        if b"\0" in raw:
            raise UnicodeDecodeError("utf-8", raw, raw.index(b"\0"), raw.index(b"\0") + 1,
                                     "a NUL byte")
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ExtractError(f"expected a TVMScript (Python) file, found binary data ({exc.reason} "
                           f"at byte {exc.start})", Span(str(p), line, 1), "") from None
    try:
        compile(text, str(p), "exec")
    except SyntaxError as exc:
        raise ExtractError(f"expected Python (TVMScript): {exc.msg}",
                           Span(str(p), exc.lineno or 1, exc.offset or 1), text) from None
    err = io.StringIO()
    here = str(p.resolve().parent)  # the file's own directory, as `python FILE` would have it
    try:
        with contextlib.redirect_stderr(err), _on_path(here):
            ns = runpy.run_path(str(p), run_name=f"aliaslog_input_{abs(hash(str(p)))}")
    except BaseException as exc:  # noqa: BLE001 - any failure of the user's file is reported
        if isinstance(exc, KeyboardInterrupt):
            raise
        line, col = _diagnostic_at(exc, p) or (_line_in(exc, p), 1)
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        first = first.removeprefix("error: ")
        raise ExtractError(f"the TVMScript file failed to load: {type(exc).__name__}: {first}",
                           Span(str(p), line, col) if line else None, text) from None
    mods = {k: v for k, v in ns.items() if isinstance(v, tvm.IRModule)}
    if not mods:
        raise ExtractError(f"{p}: expected a Python file that defines a tvm.IRModule "
                           "(e.g. an `@I.ir_module class Module:`); found none")
    return mods


@contextlib.contextmanager
def _on_path(directory: str) -> Iterator[None]:
    """`directory` first on sys.path while a user's file runs, so its sibling imports work."""
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(directory)


_DIAG_AT = re.compile(r"-->\s*(.+?):(\d+):(\d+)")


def _diagnostic_at(exc: BaseException, path: Path) -> tuple[int, int] | None:
    """Line and column of a TVMScript parser diagnostic (` --> file:line:col`) in the file."""
    m = _DIAG_AT.search(str(exc))
    if m and Path(m.group(1)).resolve() == path.resolve():
        return int(m.group(2)), int(m.group(3)) + 1
    return None


def _line_in(exc: BaseException, path: Path) -> int | None:
    """The innermost traceback line that lies in the user's file."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            line = frame.lineno
    return line


def load_relax_module(path: str | os.PathLike[str], name: str | None = None,
                      flag: str = "--module") -> tvm.IRModule:
    """One IRModule from a file: the one named `name`, or the only one (`flag`: the option
    that chooses it, for the error message)."""
    return choose_module(load_relax_modules(path), path, name, flag)


def choose_module(mods: dict[str, tvm.IRModule], path: str | os.PathLike[str],
                  name: str | None = None, flag: str = "--module") -> tvm.IRModule:
    """The IRModule named `name` of a file's modules, or its only one; checked well-formed."""
    if name is not None:
        if name not in mods:
            raise ExtractError(f"{path}: no IRModule named `{name}` "
                               f"(defines: {', '.join(sorted(mods))})")
    elif len(mods) > 1:
        raise ExtractError(f"{path} defines several IRModules ({', '.join(sorted(mods))}); "
                           f"choose one with {flag} NAME")
    else:
        name = next(iter(mods))
    require_well_formed(mods[name], f"{path}: IRModule `{name}`")
    return mods[name]


def require_well_formed(mod: tvm.IRModule, what: str = "the module") -> None:
    """Refuse a module TVM itself calls ill-formed, with TVM's reason: the facts of such a
    module (a variable used where it is not defined, say) mean nothing."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            relax.analysis.well_formed(mod)
    except Exception as exc:  # noqa: BLE001 - TVM's checker raises a variety of errors
        lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
        reason = lines[-1] if lines else type(exc).__name__
        raise ExtractError(f"{what} is not well-formed (relax.analysis.well_formed): "
                           f"{reason}") from None


def to_point(mod: tvm.IRModule, point: str, target: str = "llvm") -> tvm.IRModule:
    """The module as `relax.build`'s default pipeline has it at an extraction point."""
    if point not in POINTS:
        raise ExtractError(f"unknown extraction point `{point}` (choose from {', '.join(POINTS)})")
    if point == "input":
        return mod
    names = point_passes(point)
    if point == "lowered" and has_local_function(mod):
        # relax.build cannot lower local functions (VMShapeLower needs LambdaLift first): the
        # module a VM runs has them lifted
        names = ("LambdaLift", *names)
    try:
        return run_passes(mod, names, target)
    except Exception as exc:  # noqa: BLE001 - a pipeline failure is the module's problem
        last = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
        raise PipelineError(point, f"{type(exc).__name__}: {last}") from None


def has_local_function(mod: tvm.IRModule) -> bool:
    """Whether a Relax function of mod binds a local function (a closure not yet lifted)."""
    return any(isinstance(b.value, relax.Function)
               for f in mod.functions.values() if isinstance(f, relax.Function)
               for blk in f.body.blocks for b in blk.bindings)


def point_passes(point: str) -> tuple[str, ...]:
    """The default pipeline's passes that run before an extraction point, in order."""
    if point == "input":
        return ()
    return (passes_through("ToNonDataflow") if point == "legalized" else
            passes_through("KillAfterLastUse", skip=("RewriteCUDAGraph",)))


class PipelineError(ExtractError):
    """TVM's own pipeline failed on the module before an extraction point."""

    def __init__(self, point: str, reason: str) -> None:
        super().__init__(f"TVM's pipeline failed on the module before `{point}`: {reason}")
        self.point = point
        self.reason = reason


def well_formed(mod: tvm.IRModule) -> bool:
    """TVM's own well-formedness check, without its diagnostics on stderr."""
    with contextlib.redirect_stderr(io.StringIO()):
        return bool(relax.analysis.check_well_formed(mod))

