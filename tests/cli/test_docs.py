"""The README and docs/ say what is true: the README is short and points at pages that exist,
every Python example runs, and generated tables match what generates them. (Console examples:
test_examples.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "CHANGELOG.md"]
PYTHON = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"\]\(([^)#]+)(#[^)]*)?\)")


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len((REPO / "README.md").read_text().splitlines()) <= 200


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_point_at_files_that_exist(doc: Path) -> None:
    for target, _ in LINK.findall(doc.read_text()):
        if target.startswith(("http://", "https://")):
            continue
        assert (doc.parent / target).exists(), f"{doc.name} links to {target}, which is missing"


def test_every_page_is_linked_from_the_readme() -> None:
    readme = (REPO / "README.md").read_text()
    for page in (REPO / "docs").glob("*.md"):
        assert f"docs/{page.name}" in readme, f"README does not point at docs/{page.name}"


EXAMPLES = [(doc, k, block) for doc in DOCS
            for k, block in enumerate(PYTHON.findall(doc.read_text()))]


@pytest.mark.parametrize(("doc", "k", "code"), EXAMPLES,
                         ids=[f"{d.name}#{k}" for d, k, _ in EXAMPLES])
def test_python_examples_run(doc: Path, k: int, code: str) -> None:
    pytest.importorskip("tvm")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=1200)
    assert proc.returncode == 0, f"{doc.name} python block {k}:\n{proc.stderr[-3000:]}"


def test_the_tvm_bugs_table_is_generated_from_the_cases() -> None:
    from tests.support.relax_cases import bugs_markdown

    text = (REPO / "docs" / "tvm-bugs.md").read_text()
    table = text.split("<!-- cases:begin -->\n", 1)[1].split("\n<!-- cases:end -->", 1)[0]
    assert table.strip() == bugs_markdown().strip(), (
        "regenerate with `python -m tests.support.relax_cases --markdown`")
