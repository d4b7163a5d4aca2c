"""What `aliaslog batch` takes as input: --module, the user's effect tables (and the cache that
must notice an edited one), and which Python files found in a directory it may run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aliaslog.batch.runner import collect, run_batch
from aliaslog.cli import main
from aliaslog.workloads import MODULE_MARKER
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


RUNS_IF_EXECUTED = '''from pathlib import Path
Path({sentinel!r}).write_text("{name} ran")
raise SystemExit("{name} must never be run by a batch")
'''


def test_a_directory_walk_runs_no_unmarked_python_and_lists_what_it_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "project"
    (src / "build").mkdir(parents=True)
    shutil.copy(DATA / "analysis" / "model_mlp.relay", src / "mlp.relay")
    sentinel = tmp_path / "ran.txt"
    scripts = [src / "setup.py", src / "conftest.py", src / "build" / "make_models.py"]
    for script in scripts:
        script.write_text(RUNS_IF_EXECUTED.format(sentinel=str(sentinel), name=script.name))
    late = src / "late_marker.py"  # the marker after code does not count
    late.write_text(f"import sys\n{MODULE_MARKER}\n"
                    + RUNS_IF_EXECUTED.format(sentinel=str(sentinel), name=late.name))
    out = tmp_path / "out"
    assert main(["batch", str(src), "--out", str(out), "--workers", "1", "--quiet",
                 "--engine", "embedded"]) == 0
    assert not sentinel.exists()
    printed = capsys.readouterr().out
    assert "1 models: 1 ok, 0 errors, 0 timeouts (0 from cache), 4 files skipped" in printed
    reason = f"not marked as a module file (no '{MODULE_MARKER}' line)"
    for script in [*scripts, late]:
        assert f"skipped {script}: {reason}" in printed
    rows = [json.loads(ln) for ln in (out / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["ok"] + ["skipped"] * 4
    assert {r["path"] for r in rows[1:]} == {str(p) for p in [*scripts, late]}
    assert all(reason in r["reason"] for r in rows[1:])
    assert "skipped," in (out / "results.csv").read_text().splitlines()[-1]
    meta = json.loads((out / "meta.json").read_text())
    assert meta["counts"]["skipped"] == 4 and len(meta["skipped"]) == 4
    html = (out / "report.html").read_text()
    assert "Skipped files (4)" in html and "make_models.py" in html
    only_scripts = tmp_path / "only_scripts"
    only_scripts.mkdir()
    shutil.copy(scripts[0], only_scripts / "setup.py")
    assert main(["batch", str(only_scripts), "--out", str(tmp_path / "o2"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "no model files" in err and f"skipped {only_scripts / 'setup.py'}: {reason}" in err
    assert not sentinel.exists()


def test_marked_files_in_a_walk_and_named_files_are_analysed(tmp_path: Path) -> None:
    pytest.importorskip("tvm")
    src = tmp_path / "models"
    src.mkdir()
    shutil.copy(DATA / "relax" / "resnet.py", src / "resnet.py")  # a zoo fixture: marked
    shutil.copy(TIR_CALLS, src / "tir_packed_calls.py")  # a test input: not marked
    walked = run_batch([src], tmp_path / "a", workers=1, progress=False, task_options=EMBEDDED)
    assert [(r["model"], r["status"]) for r in walked.rows] == [("resnet", "ok")]
    assert [s["path"] for s in walked.skipped] == [str(src / "tir_packed_calls.py")]
    named = run_batch([src, src / "tir_packed_calls.py"], tmp_path / "b", workers=1,
                      progress=False, task_options={**EMBEDDED, "module": "Custom"})
    assert sorted(r["model"] for r in named.rows) == ["resnet", "tir_packed_calls"]
    assert not named.skipped


def test_a_zoo_lowered_file_beside_its_input_is_not_parsed(tmp_path: Path) -> None:
    """The worker lowers NAME.py itself; NAME.lowered.py is only read when named."""
    pytest.importorskip("tvm")
    src = tmp_path / "zoo"
    src.mkdir()
    shutil.copy(DATA / "relax" / "resnet.py", src / "resnet.py")
    sentinel = tmp_path / "ran.txt"
    lowered = src / "resnet.lowered.py"
    lowered.write_text(f"{MODULE_MARKER}\n"
                       + RUNS_IF_EXECUTED.format(sentinel=str(sentinel), name=lowered.name))
    res = run_batch([src], tmp_path / "out", workers=1, progress=False,
                    task_options={**EMBEDDED, "relax_point": "lowered"})
    assert not sentinel.exists()
    (row,) = res.rows
    assert (row["path"], row["variant"], row["status"]) == (str(src / "resnet.py"), "lowered",
                                                            "ok")
    assert row["metrics"]["storages"] > 0  # the lowered module: storages are explicit
    (skip,) = res.skipped
    assert skip["path"] == str(lowered) and "the lowered form of resnet.py" in skip["reason"]
    files, skipped = collect([src, lowered])
    assert lowered in files and not skipped  # named: taken as it is
    (src / "resnet.py").unlink()
    files, skipped = collect([src])
    assert files == [lowered] and not skipped  # marked, and no input to lower instead
