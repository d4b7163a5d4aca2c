"""The Relax model zoo writer: failure isolation, atomic files, manifest, missing-extra message.

Most tests inject torch-free model definitions through the public API, so they run with only
apache-tvm; the export of a real model is skipped when torch or transformers is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aliaslog.cli import main as cli_main
from aliaslog.workloads import MODULE_MARKER, is_module_file
from tests.support import paths

tvm = pytest.importorskip("tvm")
relax = pytest.importorskip("tvm.relax")

import tvm_ffi  # noqa: E402

from aliaslog.relax import export  # noqa: E402
from aliaslog.zoo import relax_models as rm  # noqa: E402
from extractor.relax_load import to_point  # noqa: E402

DATA = paths.DATA / "relax"
TOY_OFFSET = np.arange(3, dtype="float32")


def toy_module() -> Any:
    """A torch-free stand-in for an imported model: an embedding lookup plus a bias constant."""
    # take with int32 indices is what makes lowered BERT/GPT-2 need the normalized round trip.
    ids = relax.Var("input_ids", relax.TensorType((4,), "int64"))
    weight = relax.Var("p_weight", relax.TensorType((8, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [ids, weight]):
        with bb.dataflow():
            idx = bb.emit(relax.op.astype(ids, "int32"))
            emb = bb.emit(relax.op.take(weight, idx, axis=0))
            out = bb.emit_output(bb.emit(relax.op.add(emb, relax.const(TOY_OFFSET))))
        bb.emit_func_output(out)
    return bb.get()


def toy_def(name: str) -> rm.ModelDef:
    """A model definition that needs no torch: the build is trivial and import is the toy."""
    return rm.ModelDef(
        name,
        build=lambda zoo: rm.ModelSpec(name, None, (), f"{name}: take + add (test model)"),
        to_relax=lambda zoo, spec: (toy_module(), []),
    )


def failing_def(name: str, stage: str) -> rm.ModelDef:
    """A model definition whose build or import raises, as a broken HF config would."""

    def boom(*_args: Any) -> Any:
        raise RuntimeError(f"{name} broke at {stage}\nsecond line of the message")

    if stage == "build":
        return rm.ModelDef(name, build=boom)
    return rm.ModelDef(name, build=toy_def(name).build, to_relax=boom)


def tvm_only_zoo() -> rm.Zoo:
    """The zoo handle without torch, enough for models that do not use it."""
    return rm.Zoo(torch=None, transformers=None, tvm=tvm, relax=relax,  # type: ignore[arg-type]
                  from_exported_program=lambda *a, **k: None)


def load(path: Path) -> Any:
    """Load a written file with runpy, the way users and the fixtures tests do."""
    return runpy.run_path(str(path))["Module"]


def test_a_failing_model_is_a_manifest_row_and_the_rest_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = {"bad_build": failing_def("bad_build", "build"), "toy": toy_def("toy"),
              "bad_import": failing_def("bad_import", "import")}
    # Files a failed model left from an earlier run must not outlive it.
    (tmp_path / "bad_build.lowered.py").write_text("stale")
    entries = rm.write_relax_zoo(tmp_path, ["bad_build", "toy", "bad_import"],
                                 zoo=tvm_only_zoo(), models=models)

    assert [(e.name, e.status) for e in entries] == [
        ("bad_build", "failed"), ("toy", "ok"), ("bad_import", "failed")]
    err_lines = capsys.readouterr().err.splitlines()
    assert err_lines == [
        "aliaslog zoo: bad_build: failed at build: RuntimeError: bad_build broke at build",
        "aliaslog zoo: bad_import: failed at import: RuntimeError: bad_import broke at import",
    ]
    assert sorted(os.listdir(tmp_path)) == ["toy.lowered.py", "toy.py", "zoo.json"]

    manifest = json.loads((tmp_path / "zoo.json").read_text())
    rows = manifest["models"]
    assert set(rows) == {"bad_build", "toy", "bad_import"}
    bad = rows["bad_build"]
    assert bad["status"] == "failed" and bad["files"] == {}
    assert bad["error"]["stage"] == "build" and bad["error"]["type"] == "RuntimeError"
    assert "second line" in bad["error"]["detail"]
    assert rows["bad_import"]["error"]["stage"] == "import"
    assert set(rows["bad_import"]["seconds"]) == {"build"}  # the failed stage has no time
    toy = rows["toy"]
    assert toy["status"] == "ok" and toy["error"] is None
    assert set(toy["seconds"]) == {"build", "import", "render", "write", "lower",
                                   "render_lowered", "write_lowered"}
    assert set(toy["versions"]) == {"torch", "transformers", "tvm"}
    assert toy["versions"]["tvm"] == rm.versions()["apache-tvm"]
    files = toy["files"]
    assert list(files) == ["toy.py", "toy.lowered.py"]
    for name, info in files.items():
        assert info["bytes"] == (tmp_path / name).stat().st_size


def test_written_files_reload_before_and_after_lowering(tmp_path: Path) -> None:
    entries = rm.write_relax_zoo(tmp_path, ["toy"], zoo=tvm_only_zoo(),
                                 models={"toy": toy_def("toy")})
    mod = toy_module()
    source, lowered = (tmp_path / "toy.py"), (tmp_path / "toy.lowered.py")
    assert tvm_ffi.structural_equal(load(source), mod, map_free_vars=True)
    for written in (source, lowered):  # a batch walking the zoo may run them
        assert written.read_text().splitlines()[0] == MODULE_MARKER
        assert is_module_file(written)

    want = to_point(mod, "lowered")
    got = load(lowered)
    assert relax.analysis.check_well_formed(got)
    ops = {b.value.op.name for blk in got["main"].body.blocks for b in blk.bindings
           if isinstance(b.value, relax.Call) and isinstance(b.value.op, tvm.ir.Op)}
    assert {"relax.memory.alloc_storage", "relax.memory.kill_tensor"} <= ops
    # The int32 `take` index gives a range TVMScript cannot spell; the file equals the module
    # once that range's extent has its min's dtype, and the manifest says which kind it was.
    assert not tvm_ffi.structural_equal(got, want, map_free_vars=True)
    normalized, changed = rm._normalize_point_ranges(tvm_only_zoo(), want)
    assert changed == 1 and tvm_ffi.structural_equal(got, normalized, map_free_vars=True)
    [entry] = entries
    assert [f.roundtrip.kind for f in entry.files] == ["exact", "normalized"]
    rows = json.loads((tmp_path / "zoo.json").read_text())["models"]
    assert rows["toy"]["files"]["toy.lowered.py"]["roundtrip"] == "normalized"
    assert "int32" in rows["toy"]["files"]["toy.lowered.py"]["roundtrip_note"]
    consts = runpy.run_path(str(lowered))["metadata"]["ir.GenericConst"]
    np.testing.assert_array_equal(consts[0].value.numpy(), TOY_OFFSET)

    # A lowered file must still build and compute what the source does.
    ids = np.array([3, 0, 7, 3], dtype="int64")
    weight = np.arange(24, dtype="float32").reshape(8, 3)
    vm = relax.VirtualMachine(relax.build(load(source), "llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(ids), tvm.runtime.tensor(weight)).numpy()
    np.testing.assert_array_equal(out, weight[ids] + TOY_OFFSET)


def test_rerun_replaces_rows_and_removes_files_of_a_now_failing_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zoo = tvm_only_zoo()
    rm.write_relax_zoo(tmp_path, zoo=zoo, models={"toy": toy_def("toy"), "other": toy_def("other")})
    assert (tmp_path / "other.lowered.py").exists()
    rm.write_relax_zoo(tmp_path, ["other"], lowered=True, zoo=zoo,
                       models={"other": failing_def("other", "import")})
    rows = json.loads((tmp_path / "zoo.json").read_text())["models"]
    assert rows["toy"]["status"] == "ok" and rows["other"]["status"] == "failed"
    assert sorted(os.listdir(tmp_path)) == ["toy.lowered.py", "toy.py", "zoo.json"]
    assert capsys.readouterr().err.count("\n") == 1


def test_without_lowered_only_the_source_file_is_written(tmp_path: Path) -> None:
    (tmp_path / "toy.lowered.py").write_text("from an older run")
    [entry] = rm.write_relax_zoo(tmp_path, ["toy"], lowered=False, zoo=tvm_only_zoo(),
                                 models={"toy": toy_def("toy")})
    assert entry.ok and [f.path.name for f in entry.files] == ["toy.py"]
    assert "lower" not in entry.seconds
    assert sorted(os.listdir(tmp_path)) == ["toy.py", "zoo.json"]


def test_a_file_that_fails_verification_never_appears(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def reject(zoo: rm.Zoo, path: Path, mod: Any) -> rm.Roundtrip:
        assert path.parent == tmp_path and path.read_text().startswith(MODULE_MARKER)
        raise RuntimeError("reloaded module differs")

    monkeypatch.setattr(rm, "verify_file", reject)
    [entry] = rm.write_relax_zoo(tmp_path, ["toy"], zoo=tvm_only_zoo(),
                                 models={"toy": toy_def("toy")})
    assert entry.error is not None and entry.error["stage"] == "write"
    assert os.listdir(tmp_path) == ["zoo.json"]  # neither the file nor its temporary copy
    assert "failed at write" in capsys.readouterr().err


def test_unknown_names_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown model.*nope"):
        rm.write_relax_zoo(tmp_path / "out", ["toy", "nope"], zoo=tvm_only_zoo(),
                           models={"toy": toy_def("toy")})
    assert not (tmp_path / "out").exists()


def test_missing_zoo_extra_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(rm.ZooUnavailable, match=r"torch: install .* `pip install -e '\.\[zoo\]'`"):
        rm.write_relax_zoo(tmp_path / "out")
    assert cli_main(["zoo", "relax", "-o", str(tmp_path / "out"), "--models", "llama"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -e '.[zoo]'" in err
    assert not (tmp_path / "out").exists()


def test_registry_names_the_zoo_and_the_fixtures() -> None:
    required = {"bert", "gpt2", "vit", "resnet", "mobilenetv2", "convnext", "t5-encoder", "llama"}
    assert required <= set(rm.RELAX_MODELS) and len(rm.RELAX_MODELS) == len(rm.MODELS)
    assert set(export.FIXTURE_MODELS) <= set(rm.RELAX_MODELS)
    assert all(rm.MODELS[n].to_relax is rm.torch_to_relax for n in rm.RELAX_MODELS)


needs_torch = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("torch", "transformers")),
    reason="the zoo extra (torch, transformers) is not installed",
)


@needs_torch
def test_one_real_model_round_trip(tmp_path: Path) -> None:
    [entry] = rm.write_relax_zoo(tmp_path, ["resnet"])
    assert entry.ok, entry.error
    source = load(tmp_path / "resnet.py")
    fixture = load(DATA / "resnet.py")
    assert tvm_ffi.structural_equal(source, fixture, map_free_vars=True)
    lowered = load(tmp_path / "resnet.lowered.py")
    assert tvm_ffi.structural_equal(lowered, to_point(fixture, "lowered"), map_free_vars=True)
    row = json.loads((tmp_path / "zoo.json").read_text())["models"]["resnet"]
    assert row["versions"]["torch"] != "unknown"
    assert [f["roundtrip"] for f in row["files"].values()] == ["exact", "exact"]


@needs_torch
def test_fixture_regenerates_byte_identically(tmp_path: Path) -> None:
    assert export.main(["-o", str(tmp_path), "--models", "resnet"]) == 0
    assert os.listdir(tmp_path) == ["resnet.py"]

    def unversioned(path: Path) -> list[bytes]:
        # The versions line names what is installed; a different transformers may differ.
        return [ln for ln in path.read_bytes().splitlines() if not ln.startswith(b"# Versions:")]

    assert unversioned(tmp_path / "resnet.py") == unversioned(DATA / "resnet.py")
