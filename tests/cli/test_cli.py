"""The CLI as a user runs it: located errors, no tracebacks, outputs written whole or not at all."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from aliaslog.cli import main

SQUARE = '#[version = "0.0.5"]\ndef @main(%x: Tensor[(3), float32]) {\n  multiply(%x, %x)\n}\n'


@pytest.fixture
def square(tmp_path):
    p = tmp_path / "square.relay"
    p.write_text(SQUARE)
    return p


def test_parse_prints_program(square, capsys):
    assert main(["parse", str(square)]) == 0
    out = capsys.readouterr().out
    assert out.startswith('#[version = "0.0.5"]') and "multiply(%x, %x)" in out


def test_parse_types(seed_path, capsys):
    assert main(["parse", "--types", str(seed_path)]) == 0
    out = capsys.readouterr().out
    assert "-> (float32, Tensor[(5, 20), float32])" in out
    assert "let %x1: Tensor[(5, 20), float32]" in out


def test_parse_error_is_located_without_traceback(tmp_path):
    bad = tmp_path / "bad.relay"
    bad.write_text('#[version = "0.0.5"]\ndef @main(%x: float32) {\n  nn.dnse(%x, %x)\n}\n')
    proc = subprocess.run(
        [sys.executable, "-m", "aliaslog.cli", "parse", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert f"{bad}:3:3" in proc.stderr and "nn.dense" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_file(capsys):
    assert main(["parse", "/nonexistent/x.relay"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_run_random_and_save(square, tmp_path, capsys):
    out = tmp_path / "out.npz"
    assert main(["run", str(square), "--random", "7", "--save", str(out)]) == 0
    with np.load(out) as data:
        assert data.files == ["arr_0"]
        assert data["arr_0"].shape == (3,)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arr_0=np.array([1, 2, 3], dtype="float32"))
    assert main(["run", str(square), "--inputs", str(inputs), "--save", str(out)]) == 0
    with np.load(out) as data:
        np.testing.assert_array_equal(data["arr_0"], [1, 4, 9])


def test_grad_and_dce_write_files(square, tmp_path):
    g = tmp_path / "g.relay"
    assert main(["grad", str(square), "-o", str(g)]) == 0
    assert "ref_write" in g.read_text()
    for mode in ("assume-pure", "purity"):
        d = tmp_path / f"{mode}.relay"
        assert main(["dce", str(g), "--mode", mode, "-o", str(d)]) == 0
        assert d.read_text().startswith('#[version = "0.0.5"]')
    assert "ref_write" not in (tmp_path / "assume-pure.relay").read_text()
    assert "ref_write" in (tmp_path / "purity.relay").read_text()


def test_failed_command_leaves_no_output(tmp_path, capsys):
    bad = tmp_path / "bad.relay"
    bad.write_text('#[version = "0.0.5"]\ndef @main(%x: float32) {\n  add(%x,\n')
    out = tmp_path / "out.relay"
    assert main(["grad", str(bad), "-o", str(out)]) == 2
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [bad]


def test_demo_runs_seed(seed_path, capsys):
    assert main(["demo", str(seed_path)]) == 0
    out = capsys.readouterr().out
    assert "assume-pure" in out and "purity" in out and "dinput_0" in out


def test_parse_reads_save_json_files(square, tmp_path, capsys):
    from extractor.relay.json_io import save_json
    from extractor.relay.parser import parse_file

    doc = tmp_path / "square.json"
    doc.write_text(save_json(parse_file(square)))
    assert main(["parse", str(doc)]) == 0
    assert "multiply(%x, %x)" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text('{"root": 1, "nodes": [{"type_key": ""}, {"type_key": "relay.Nope"}]}')
    assert main(["parse", str(bad)]) == 2
    assert "relay.Nope" in capsys.readouterr().err


def test_type_error_shows_the_source_line(tmp_path, capsys):
    bad = tmp_path / "t.relay"
    bad.write_text('#[version = "0.0.5"]\ndef @main(%x: Tensor[(5, 10), float32], '
                   '%w: Tensor[(20, 20), float32]) {\n  nn.dense(%x, %w, units=20)\n}\n')
    assert main(["parse", "--types", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3:3: type error" in err and "Tensor[(20, 10), float32]" in err
    assert "  nn.dense(%x, %w, units=20)\n    ^" in err


def test_souffle_engine_missing_is_a_clear_error(seed_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert main(["analyze", str(seed_path), "--engine", "souffle"]) == 2
    assert "souffle not found on PATH" in capsys.readouterr().err
