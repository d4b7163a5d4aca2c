"""The engine layer stands on its own: atomic publishing, and imports that skip the IR packages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aliaslog.engines import publish
from aliaslog.engines.publish import publish_dir
from tests.support.paths import REPO


def _fill(files: dict[str, str]):
    def fill(d: Path) -> None:
        for name, text in files.items():
            (d / name).write_text(text)
    return fill


def test_publish_replaces_the_whole_set_and_leaves_no_staging(tmp_path: Path) -> None:
    out = tmp_path / "out"
    publish_dir(out, _fill({"a.csv": "1\n", "b.csv": "2\n"}), owned_suffix=".csv")
    publish_dir(out, _fill({"a.csv": "3\n"}), owned_suffix=".csv")
    assert {p.name: p.read_text() for p in out.iterdir()} == {"a.csv": "3\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RENAME_EXCHANGE is Linux's")
def test_publish_never_leaves_the_target_missing(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    publish_dir(out, _fill({"a.csv": "old\n"}), owned_suffix=".csv")
    real_rename, real_rmtree = os.rename, publish.shutil.rmtree
    seen: list[bool] = []

    def watching_rename(a, b):
        seen.append(out.exists())
        real_rename(a, b)

    def watching_rmtree(p, **kw):
        seen.append(out.exists() and (out / "a.csv").read_text() == "new\n")
        real_rmtree(p, **kw)

    monkeypatch.setattr(publish.os, "rename", watching_rename)
    monkeypatch.setattr(publish.shutil, "rmtree", watching_rmtree)
    publish_dir(out, _fill({"a.csv": "new\n"}), owned_suffix=".csv")
    assert seen and all(seen)  # the swap is one exchange: no rename while the target is away
    assert (out / "a.csv").read_text() == "new\n"


def test_publish_keeps_the_target_when_fill_fails(tmp_path: Path) -> None:
    out = tmp_path / "out"
    publish_dir(out, _fill({"a.facts": "x\n"}), owned_suffix=".facts")

    def broken(d: Path) -> None:
        (d / "a.facts").write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        publish_dir(out, broken, owned_suffix=".facts")
    assert (out / "a.facts").read_text() == "x\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_publish_refuses_a_directory_with_foreign_files(tmp_path: Path) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="refusing to replace"):
        publish_dir(out, _fill({"a.csv": ""}), owned_suffix=".csv")
    assert (out / "notes.txt").read_text() == "keep me"


def test_engine_layer_imports_no_ir_package() -> None:
    code = ("import sys, aliaslog.engines, aliaslog.engines.embedded.run, "
            "aliaslog.engines.souffle_backend\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('extractor.relay', 'tvm'))"
            " or m in ('extractor.facts', 'extractor.schema'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""
