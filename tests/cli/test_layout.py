"""The layout docs/architecture.md describes, and the import rules it states.

The page's layout block lists every top-level folder and every package, and everything it
lists exists; the IR front end never imports the analysis, the product imports none of the
tests, benchmarks and conformance scripts, no test imports benchmarks/, no module imports
itself back through others (imports under TYPE_CHECKING are not run), no test module imports
another (what tests share is in tests/support), and only extractor/runtime.py changes the
recursion limit or the collector.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import REPO as ROOT

PACKAGES = ("aliaslog", "extractor", "datalog_rules")
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Project modules that running `path` may import (at top level or inside functions)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def resolve(target: str) -> None:
        while target and target not in modules:  # `from pkg import name`: the module or pkg
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                resolve(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                resolve(f"{base}.{alias.name}" if base else alias.name)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return out


def _graph(packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    files = [p for pkg in packages for p in (ROOT / pkg).rglob("*.py")
             if "data" not in p.relative_to(ROOT / pkg).parts]
    modules = {_module_name(p) for p in files}
    return {_module_name(p): _imports(p, modules) for p in files}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return out


def test_the_ir_front_end_never_imports_the_analysis():
    graph = _graph()
    up = sorted((m, t) for m, ts in graph.items() if m.startswith("extractor")
                for t in ts if t.startswith("aliaslog"))
    assert up == []


def test_the_rules_package_imports_nothing_of_the_project():
    graph = _graph()
    assert all(not ts for m, ts in graph.items() if m.startswith("datalog_rules"))


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_test_module_imports_another():
    graph = _graph(("tests",))
    assert any(m.startswith("tests.support.") for ts in graph.values() for m in ts)
    between = sorted((m, t) for m, ts in graph.items() for t in ts
                     if t.rpartition(".")[2].startswith("test_"))
    assert between == []


def test_the_graph_covers_every_package():
    graph = _graph()
    assert {m.partition(".")[0] for m in graph} == set(PACKAGES)


# ---------------------------------------------------------------- docs/architecture.md


def _tree_files() -> list[str]:
    """The repository's files (tracked, or new and not ignored), as posix paths."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tree's files are not known")
    return [f for f in out.splitlines() if (ROOT / f).exists()]


def _layout_block(text: str) -> list[str]:
    """The lines of the ```text block of the page's `## Layout` section."""
    section = text.split("\n## Layout\n", 1)[1]
    return section.split("```text\n", 1)[1].split("```", 1)[0].splitlines()


def _documented(lines: list[str]) -> tuple[set[str], set[str]]:
    """Folders (`a/b/`) and files (`a/b.py`) a layout block lists, placed by indentation (two
    spaces a level); a line indented 12 or more continues the description above it."""
    folders: set[str] = set()
    files: set[str] = set()
    stack: list[tuple[int, str]] = []  # the folders enclosing the current line
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent >= 12:
            continue
        names = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        stack = [(i, path) for i, path in stack if i < indent]
        parent = stack[-1][1] if stack else ""
        if names.endswith("/") and "," not in names:
            folders.add(parent + names)
            stack.append((indent, parent + names))
        else:
            files.update(parent + n for n in names.split(", "))
    return folders, files


def test_the_layout_reader_places_entries_by_indentation() -> None:
    block = ["top/              what it is", "  a.py, b.tsv     two files",
             "  sub/            a package", "                  its description, continued",
             "    c.py          in sub", "other/            another top folder"]
    assert _documented(block) == ({"top/", "top/sub/", "other/"},
                                  {"top/a.py", "top/b.tsv", "top/sub/c.py"})


def test_the_architecture_page_lists_every_folder_and_package_and_nothing_else() -> None:
    folders, files = _documented(_layout_block(ARCHITECTURE.read_text(encoding="utf-8")))
    tree = _tree_files()
    top = {f.split("/")[0] + "/" for f in tree if "/" in f}
    packages = {f.rpartition("/")[0] + "/" for f in tree if f.endswith("/__init__.py")}
    assert {f for f in folders if f.count("/") == 1} == top
    assert sorted(packages - folders) == []
    assert sorted(f for f in folders if not (ROOT / f).is_dir()) == []
    assert sorted(f for f in files if not (ROOT / f).is_file()) == []
    # the top of each product package: every module and data file named on a line of its own
    top_modules = {f for f in tree if f.count("/") == 1 and f.startswith(("aliaslog/",
                   "extractor/")) and not f.endswith("__init__.py")}
    assert sorted(top_modules - files) == []


# --------------------------------------------------------- imports across the top folders


def _imported_names(path: Path) -> set[str]:
    """Every module name an absolute import in the file names."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
    return out


def _python_files(*folders: str) -> list[Path]:
    return [p for folder in folders for p in (ROOT / folder).rglob("*.py")
            if "data" not in p.relative_to(ROOT).parts]


def test_no_test_imports_benchmarks() -> None:
    bad = sorted((str(p.relative_to(ROOT)), name) for p in _python_files("tests")
                 for name in _imported_names(p) if name.partition(".")[0] == "benchmarks")
    assert bad == []


def test_the_product_imports_no_tests_benchmarks_or_conformance() -> None:
    outside = {"tests", "benchmarks", "conformance"}
    bad = sorted((str(p.relative_to(ROOT)), name) for p in _python_files(*PACKAGES)
                 for name in _imported_names(p) if name.partition(".")[0] in outside)
    assert bad == []


RUNTIME_CALLS = re.compile(r"\bsys\.setrecursionlimit\(|\bthreading\.stack_size\(|"
                           r"\bgc\.(disable|enable|freeze|unfreeze)\(")


def test_only_the_runtime_module_changes_the_recursion_limit_or_the_collector() -> None:
    files = _python_files(*PACKAGES, "benchmarks", "conformance")
    users = sorted(str(p.relative_to(ROOT)) for p in files
                   if RUNTIME_CALLS.search(p.read_text(encoding="utf-8")))
    assert users == ["extractor/runtime.py"]
