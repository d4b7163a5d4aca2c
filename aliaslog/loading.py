"""Read a Relay program from a file (text or save_json), and write outputs atomically."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from extractor.diagnostics import LocatedError
from extractor.facts import FactSet
from extractor.relay.ast import Expr, Function, Module
from extractor.relay.json_io import load_json
from extractor.relay.parser import parse


class UsageError(LocatedError):
    """A command-line mistake that is not inside a program (missing file, bad option value)."""

    kind = "error"


def read_text(path: str | os.PathLike[str]) -> str:
    """The file's text, or a UsageError naming the file."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None


def load_relay(path: str | os.PathLike[str]) -> Module:
    """A Relay module from TVM's text format or, for `.json` files, tvm.ir.save_json output."""
    text = read_text(path)
    name = str(path)
    if name.endswith(".json") or text.lstrip().startswith("{"):
        node = load_json(text, source_name=name)
        if isinstance(node, Module):
            return node
        if isinstance(node, Function):
            return Module({"main": node}, source_name=name)
        if isinstance(node, Expr):
            return Module({"main": Function((), node)}, source_name=name)
        raise UsageError(f"{name}: the JSON document holds neither a module nor an expression")
    return parse(text, source_name=name)


def write_atomically(path: str | os.PathLike[str], write: Callable[[str], None]) -> None:
    """Call write(tmp_path) and rename into place, so no run leaves a partial output file."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{path}: directory {parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, _plain_file_mode())  # mkstemp makes 0600; outputs are ordinary files
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _plain_file_mode() -> int:
    """The permissions `open(path, "w")` gives a new file under the current umask."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Write text to path through a temporary file and a rename."""
    write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def publish_facts(facts: FactSet, output: str | os.PathLike[str]) -> str:
    """Write facts into a fresh directory and rename it into place; returns a summary line.

    An existing directory is replaced only if it holds nothing but .facts files.
    """
    out = Path(output)
    if out.exists() and (not out.is_dir() or any(p.suffix != ".facts" for p in out.iterdir())):
        raise UsageError(f"{out}: exists and is not a facts directory; refusing to overwrite")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        facts.write(staging)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return f"{facts.count()} facts in {len(list(out.iterdir()))} relations -> {out}"
