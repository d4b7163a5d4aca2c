"""Read a Relay program from a file (text or save_json), and write outputs atomically."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from extractor.diagnostics import LocatedError
from extractor.facts import FactSet
from extractor.relay.ast import Expr, Function, Module
from extractor.relay.json_io import load_json
from extractor.relay.parser import decode_source, parse

from .engines.publish import publish_dir


class UsageError(LocatedError):
    """A command-line mistake that is not inside a program (missing file, bad option value)."""

    kind = "error"


def read_text(path: str | os.PathLike[str]) -> str:
    """The file's text as it is, or a UsageError naming the file (a byte that is not UTF-8: a
    located error)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a program file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
    return decode_source(data, str(path))


def load_relay(path: str | os.PathLike[str]) -> Module:
    """A Relay module from TVM's text format or, for `.json` files, tvm.ir.save_json output."""
    if str(path).endswith(".py"):
        raise UsageError(f"{path}: a TVMScript (Relax) file; this command reads Relay programs "
                         "(for Relax use check, analyze, dce or facts)")
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
    if target.is_dir():
        raise UsageError(f"{path}: is a directory; give a file name to write to")
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


def output_file_arg(path: str) -> str:
    """argparse type of an output file: checked before any work, so a mistake costs nothing."""
    target = Path(path)
    if target.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a directory; give a file name")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"{path}: directory {parent} does not exist")
    return path


def output_dir_arg(path: str) -> str:
    """argparse type of an output directory: it may exist (as a directory) or be made."""
    if Path(path).exists() and not Path(path).is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file; give a directory")
    return path


def output_dir(path: str | os.PathLike[str]) -> Path:
    """A directory outputs go into (made if missing); a UsageError if a file is in the way."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{path}: is a file; give a directory for these outputs")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{path}: cannot make the directory: {exc.strerror}") from None
    return out


def publish_facts(facts: FactSet, output: str | os.PathLike[str]) -> str:
    """Write facts into a fresh directory swapped into place; returns a summary line.

    An existing directory is replaced only if it holds nothing but .facts files.
    """
    out = Path(output)
    try:
        publish_dir(out, facts.write, owned_suffix=".facts")
    except FileExistsError as exc:
        raise UsageError(f"{exc}; refusing to overwrite") from None
    return f"{facts.count()} facts in {len(list(out.iterdir()))} relations -> {out}"
