"""Every command README.md and docs/*.md show in a `console` block runs as printed and prints
what is shown.

In a ```console block, a line starting with `$ ` is a command; the lines after it, up to the next
command, are an excerpt of its output (`...` skips lines, a line may end in `...` to be a
prefix). A command may end in `# exit N` when N is its expected status. Each file's commands run
in order from a scratch directory of their own where `tests/`, `datalog_rules/` and
`benchmarks/` are the repository's, so they write nothing into the checkout; as on a fresh
machine, without Soufflé on PATH (the embedded engine answers).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Example:
    """One command of the README, what it must exit with and what it must print."""

    line: int
    command: str
    status: int
    excerpt: tuple[str, ...]


def examples(text: str) -> list[Example]:
    out: list[Example] = []
    for m in BLOCK.finditer(text):
        first = text.count("\n", 0, m.start(1)) + 1
        current: list[str] | None = None
        for k, raw in enumerate(m.group(1).splitlines()):
            if raw.startswith("$ "):
                cmd = raw[2:]
                status = 0
                exit_mark = re.search(r"\s+# exit (\d+)$", cmd)
                if exit_mark:
                    status, cmd = int(exit_mark.group(1)), cmd[: exit_mark.start()]
                current = []
                out.append(Example(first + k, cmd, status, ()))
            elif current is not None:
                last = out[-1]
                out[-1] = Example(last.line, last.command, last.status, (*last.excerpt, raw))
    return out


EXAMPLES = [(doc, ex) for doc in DOCS for ex in examples(doc.read_text(encoding="utf-8"))]


def _label(doc: Path, ex: Example) -> str:
    return f"{doc.relative_to(REPO)}:{ex.line}"


def _matches(excerpt: tuple[str, ...], output: str) -> str | None:
    """None when the excerpt's lines occur in order in the output, else the first one missing."""
    lines = output.splitlines()
    pos = 0
    for want in excerpt:
        if not want.strip() or want.strip() == "...":
            continue
        prefix = want.rstrip().endswith("...")
        needle = want.rstrip().removesuffix("...").rstrip() if prefix else want.rstrip()
        while pos < len(lines) and not (lines[pos].rstrip().startswith(needle) if prefix
                                        else lines[pos].rstrip() == needle):
            pos += 1
        if pos == len(lines):
            return want
        pos += 1
    return None


_SCRATCH: dict[Path, Path] = {}


@pytest.fixture
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """One scratch directory per document, shared by its examples (they run in order)."""
    def get(doc: Path) -> Path:
        if doc not in _SCRATCH:
            work = tmp_path_factory.mktemp(doc.stem)
            for name in ("tests", "datalog_rules", "benchmarks"):
                (work / name).symlink_to(REPO / name)
            _SCRATCH[doc] = work
        return _SCRATCH[doc]

    return get


def _without_souffle(path: str) -> str:
    """PATH without the directories that hold a `souffle`: examples show a fresh machine."""
    return os.pathsep.join(d for d in path.split(os.pathsep)
                           if d and not (Path(d) / "souffle").exists())


def test_the_docs_have_runnable_examples() -> None:
    readme = [ex for doc, ex in EXAMPLES if doc.name == "README.md"]
    assert len(readme) >= 5, "the README's console blocks hold fewer examples than expected"
    assert len(EXAMPLES) >= 30, "the docs' console blocks hold fewer examples than expected"


@pytest.mark.parametrize(("doc", "ex"), EXAMPLES, ids=[_label(d, e) for d, e in EXAMPLES])
def test_example_runs_as_printed(doc: Path, ex: Example, scratch: Callable[[Path], Path]) -> None:
    argv = shlex.split(ex.command)
    where = _label(doc, ex)
    assert argv[0] == "aliaslog", f"{where}: examples are aliaslog commands"
    env = {**os.environ, "COLUMNS": "100", "PATH": _without_souffle(os.environ.get("PATH", ""))}
    proc = subprocess.run([sys.executable, "-m", "aliaslog.cli", *argv[1:]], cwd=scratch(doc),
                          capture_output=True, text=True, env=env, timeout=1200)
    output = proc.stdout + proc.stderr
    assert proc.returncode == ex.status, (
        f"{where}: `{ex.command}` exited {proc.returncode}, not {ex.status}:\n"
        f"{output[-3000:]}")
    missing = _matches(ex.excerpt, output)
    assert missing is None, (f"{where}: `{ex.command}` did not print {missing!r}; it "
                             f"printed:\n{output[-3000:]}")
