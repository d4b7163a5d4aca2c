"""What `aliaslog batch` takes as input: --module, the user's effect tables (and the cache that
must notice an edited one)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aliaslog.batch.runner import run_batch
from aliaslog.cli import main
from tests.support.paths import DATA

TIR_CALLS = DATA / "relax" / "soundness" / "tir_packed_calls.py"  # modules Sort and Custom
CASE08 = DATA / "relax" / "cases" / "case08_packed_alias_storage_reuse.py"
EMBEDDED = {"engine": {"engine": "embedded", "timeout": 0.0, "compiled": False}}


def one_row(paths: list[Path], out: Path, **options: object) -> dict:
    (row,) = run_batch(paths, out, workers=1, progress=False,
                       task_options={**EMBEDDED, **options}).rows
    return row


def test_several_modules_need_module_and_the_error_names_the_file_and_choices(
        tmp_path: Path) -> None:
    pytest.importorskip("tvm")
    row = one_row([TIR_CALLS], tmp_path / "out")
    assert row["status"] == "error"
    assert (f"{TIR_CALLS} defines several IRModules (Custom, Sort); choose one with --module NAME"
            in row["error"])
    assert one_row([TIR_CALLS], tmp_path / "out", module="Sort")["status"] == "ok"
    missing = one_row([TIR_CALLS], tmp_path / "out", module="Nope")
    assert missing["status"] == "error"
    assert "no IRModule named `Nope` (defines: Custom, Sort)" in missing["error"]


def test_module_leaves_files_of_one_module_alone(tmp_path: Path) -> None:
    """--module picks among several; a file that defines one is analysed as it is."""
    pytest.importorskip("tvm")
    res = run_batch([TIR_CALLS, DATA / "relax" / "resnet.py"], tmp_path / "out", workers=1,
                    progress=False, task_options={**EMBEDDED, "module": "Custom"})
    assert [r["status"] for r in res.rows] == ["ok", "ok"]


def test_tir_effects_reach_the_analysis_and_an_edited_table_is_not_answered_from_cache(
        tmp_path: Path) -> None:
    pytest.importorskip("tvm")
    out = tmp_path / "out"
    table = tmp_path / "tir.tsv"
    table.write_text("aliaslog.test.fill_second\t0\t1\n")  # writes only its second argument
    plain = one_row([TIR_CALLS], out, module="Custom")
    assert plain["metrics"]["violations"] > 0  # undescribed: it may write its input
    described = one_row([TIR_CALLS], out, module="Custom", tir_effects=[str(table)])
    assert described["metrics"]["violations"] == 0 and not described["cached"]
    assert one_row([TIR_CALLS], out, module="Custom", tir_effects=[str(table)])["cached"]
    table.write_text("aliaslog.test.fill_second\t1\t0\n")  # same name, says it writes x
    edited = one_row([TIR_CALLS], out, module="Custom", tir_effects=[str(table)])
    assert not edited["cached"] and edited["metrics"]["violations"] > 0


def test_op_effects_reach_relax_and_relay_analyses(tmp_path: Path) -> None:
    pytest.importorskip("tvm")
    relax_table = tmp_path / "relax.tsv"
    relax_table.write_text("aliaslog.case08.identity\tnone\n")  # returns no alias of `a`
    opaque = one_row([CASE08], tmp_path / "a", module="Before")
    known = one_row([CASE08], tmp_path / "b", module="Before", op_effects=[str(relax_table)])
    assert known["metrics"]["may-alias pairs"] < opaque["metrics"]["may-alias pairs"]

    mlp = tmp_path / "mlp.relay"
    shutil.copy(DATA / "analysis" / "model_mlp.relay", mlp)
    relay_table = tmp_path / "relay.tsv"
    relay_table.write_text("nn.relu\tio\n")  # the dead `%dead_act = nn.relu(...)` is now seen
    pure = one_row([mlp], tmp_path / "c")
    io = one_row([mlp], tmp_path / "d", op_effects=[str(relay_table)])
    assert io["metrics"]["removable"] < pure["metrics"]["removable"]


def test_cli_passes_the_options_and_a_bad_table_stops_before_any_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tvm")
    table = tmp_path / "tir.tsv"
    table.write_text("aliaslog.test.fill_second\t0\t1\n")
    out = tmp_path / "out"
    argv = ["batch", str(TIR_CALLS), "--out", str(out), "--workers", "1", "--quiet",
            "--engine", "embedded", "--module", "Custom"]
    assert main([*argv, "--tir-effects", str(table)]) == 0
    (row,) = [json.loads(ln) for ln in (out / "results.jsonl").read_text().splitlines()]
    assert row["metrics"]["violations"] == 0
    meta = json.loads((out / "meta.json").read_text())
    assert meta["options"]["module"] == "Custom"
    assert meta["options"]["tir_effects"] == [str(table)]
    bad = tmp_path / "bad.tsv"
    bad.write_text("aliaslog.test.fill_second\treads\twrites\n")
    fresh = tmp_path / "fresh"
    assert main([*argv[:3], str(fresh), *argv[4:], "--tir-effects", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1:1" in err and "argument positions" in err and "Traceback" not in err
    assert main([*argv[:3], str(fresh), *argv[4:], "--op-effects", str(tmp_path / "no.tsv")]) == 2
    assert "no.tsv: cannot read op effect table" in capsys.readouterr().err
    assert not fresh.exists()  # nothing written for a batch that never started
