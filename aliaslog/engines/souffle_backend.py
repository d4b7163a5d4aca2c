"""The reference engine: Soufflé run by subprocess (argument lists, a time limit, stderr surfaced).

Compiled mode builds `souffle -o` once per (rule files, defines, Soufflé version) into a cache
directory and reuses the binary. Output CSVs are read back with the types the program declares.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from aliaslog.engines.base import EngineError, Symbols
from aliaslog.engines.dialect import Program
from aliaslog.engines.tsv_files import read_tsv
from extractor.tsv import Row

_SAFE_PATH = re.compile(r'^[^"`$\\\n]*$')
_MACRO = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MACRO_VALUE = re.compile(r"^[A-Za-z0-9_.+\-/:]*$")
_STDERR_LIMIT = 6000
_PR_SET_PDEATHSIG = 1


def souffle_executable() -> str | None:
    """The `souffle` found on PATH, or None."""
    return shutil.which("souffle")


def _require_executable() -> str:
    exe = souffle_executable()
    if exe is None:
        raise EngineError("souffle not found on PATH (use the embedded engine, or install "
                          "Soufflé: https://souffle-lang.github.io/install)")
    return exe


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    if len(text) > _STDERR_LIMIT:
        text = "…" + text[-_STDERR_LIMIT:]
    return text


def _die_with_parent() -> None:
    """In the child, before exec: the kernel kills it if aliaslog dies, even by SIGKILL (a batch
    time limit), so no Soufflé is left running under init (Linux; elsewhere a no-op)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_process(cmd: list[str], timeout: float, what: str = "souffle",
                cwd: Path | None = None) -> tuple[str, str]:
    """Run cmd (no shell) in its own process group; kill the group past the time limit, and
    on anything that stops aliaslog meanwhile (Ctrl-C, SIGTERM, an error)."""
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=cwd,
                                preexec_fn=_die_with_parent)
    except FileNotFoundError:
        raise EngineError(f"{what} not found on PATH") from None
    except OSError as exc:
        raise EngineError(f"cannot start {what}: {exc}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        _, err = proc.communicate()
        tail = _tail(err)
        raise EngineError(f"{what} timed out after {timeout:g} s"
                          + (f"; it had printed:\n{tail}" if tail else "")) from None
    except BaseException:
        _kill_group(proc)
        proc.communicate()
        raise
    rc = proc.returncode
    if rc < 0:
        sig = -rc
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "unknown signal"
        msg = f"{what} crashed with signal {sig} ({name})"
        tail = _tail(err)
        raise EngineError(msg + (f":\n{tail}" if tail else ""))
    if rc != 0:
        tail = _tail(err) or _tail(out)
        raise EngineError(f"{what} failed with exit code {rc}" + (f":\n{tail}" if tail else ""))
    return out.decode("utf-8", errors="replace"), err.decode("utf-8", errors="replace")


def _common_args(include_dirs: list[Path], defines: dict[str, str]) -> list[str]:
    """`-I` and `-M` arguments; Soufflé pastes them into a shell line, so only safe text passes."""
    args: list[str] = []
    for d in include_dirs:
        if not _SAFE_PATH.match(str(d)):
            raise EngineError(f"include directory {str(d)!r} has characters Soufflé cannot pass on")
        args += ["-I", str(d)]
    if defines:
        parts = []
        for k, v in defines.items():
            if not _MACRO.match(k) or not _MACRO_VALUE.match(str(v)):
                raise EngineError(f"define {k}={v!r} cannot be passed to Soufflé's preprocessor "
                                  "(names are identifiers, values have no spaces or quotes)")
            parts.append(f"{k}={v}" if v != "" else k)
        args += ["-M", " ".join(parts)]
    return args


def souffle_version(exe: str) -> str:
    """`souffle --version` text, part of the compiled-binary cache key."""
    out, _err = run_process([exe, "--version"], 60)
    return out.strip()


def cache_dir() -> Path:
    """Where compiled Soufflé binaries live: $ALIASLOG_CACHE or ~/.cache/aliaslog."""
    env = os.environ.get("ALIASLOG_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "aliaslog"


def program_hash(program: Program, version: str, defines: dict[str, str]) -> str:
    """sha256 over the Soufflé version, every rule file (program + includes) and the defines."""
    h = hashlib.sha256()
    h.update(b"aliaslog-souffle-v1\0" + version.encode() + b"\0")
    for path in program.files:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for k in sorted(defines):
        h.update(f"-D{k}={defines[k]}\0".encode())
    return h.hexdigest()


def compiled_binary(program_path: Path, program: Program, timeout: float,
                    include_dirs: list[Path], defines: dict[str, str]) -> Path:
    """The cached `souffle -o` binary for this program, building it on first use."""
    exe = _require_executable()
    key = program_hash(program, souffle_version(exe), defines)
    root = cache_dir()
    target = root / f"souffle-{key[:24]}"
    binary = target / "program"
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    root.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        cmd = [exe, "-o", str(build / "program"), *_common_args(include_dirs, defines),
               str(program_path)]
        run_process(cmd, timeout, "souffle compilation", cwd=build)
        if not (build / "program").is_file():
            raise EngineError("souffle compilation produced no binary")
        try:
            os.rename(build, target)
        except OSError:
            if not binary.is_file():  # lost a race only if the winner finished
                raise
    finally:
        if build.exists():
            shutil.rmtree(build, ignore_errors=True)
    return binary


def run_souffle(program_path: Path, program: Program, facts_dir: Path, work_dir: Path,
                outputs: list[str], *, timeout: float, compiled: bool,
                include_dirs: list[Path], defines: dict[str, str],
                symbols: Symbols | None = None
                ) -> tuple[dict[str, list[Row]], list[str], str]:
    """Run Soufflé writing CSVs into work_dir, then read the selected outputs back typed
    (symbols as `symbols()`'s strings where they are equal: see `solve`)."""
    if not _SAFE_PATH.match(str(program_path)):
        raise EngineError(
            f"program path {str(program_path)!r} has characters Soufflé cannot pass on")
    if program.tsv_unsafe:
        span = program.tsv_unsafe[0]
        raise EngineError("a string constant holding a tab, newline or carriage return cannot be"
                          " read back from Soufflé's TSV output; use the embedded engine",
                          span).with_text(program.texts.get(span.source, ""))
    if compiled:
        binary = compiled_binary(program_path, program, timeout, include_dirs, defines)
        cmd = [str(binary), "-F", str(facts_dir), "-D", str(work_dir)]
        out, err = run_process(cmd, timeout, "souffle-compiled program")
    else:
        exe = _require_executable()
        cmd = [exe, "-F", str(facts_dir), "-D", str(work_dir),
               *_common_args(include_dirs, defines), str(program_path)]
        out, err = run_process(cmd, timeout)
    warnings = [ln for ln in err.splitlines() if ln.strip()]
    rows: dict[str, list[Row]] = {}
    # one string per distinct symbol across the outputs
    memo: dict[str, str] = symbols() if symbols is not None else {}
    for name in outputs:
        rel = program.relations[name]
        if not rel.file_outputs:
            raise EngineError(f"`{name}` is written only to standard output, which is not read"
                              " back from Soufflé", rel.outputs[0].span)
        io = rel.file_outputs[0]
        fname = io.filename(name, ".csv")
        path = Path(fname) if Path(fname).is_absolute() else Path(work_dir) / fname
        if not rel.kinds:
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                raise EngineError(f"souffle wrote no output file {path}") from None
            rows[name] = [()] if text.strip() else []
            continue
        if not path.exists():
            raise EngineError(f"souffle wrote no output file {path}")
        rows[name] = read_tsv(path, rel.kinds, program.records, delimiter=io.delimiter,
                              headers=io.headers, what="souffle output", strict=True,
                              memo=memo)
    return rows, warnings, out
