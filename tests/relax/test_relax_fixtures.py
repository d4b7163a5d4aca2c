"""The generated Relax model fixtures load, are well-formed and run with only apache-tvm."""

from __future__ import annotations

import ast
import runpy
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")
relax = pytest.importorskip("tvm.relax")

from aliaslog.relax import export  # noqa: E402  (after the skip: the module itself needs no tvm)
from tests.support.relax_models import (  # noqa: E402
    DATA,
    EXPECT,
    MODELS,
    load,
    make_inputs,
    shape_of,
)

ALLOWED_IMPORTS = {"base64", "numpy", "tvm"}


def call_ops(func: Any) -> list[str]:
    """Names of the Relax operators called by the bindings of `func`, in order."""
    return [
        b.value.op.name
        for blk in func.body.blocks
        for b in blk.bindings
        if isinstance(b.value, relax.Call) and isinstance(b.value.op, tvm.ir.Op)
    ]


@pytest.fixture(scope="module")
def module() -> Callable[[str], Any]:
    """Load each fixture once per test module; parsing BERT's TVMScript takes most of a second."""
    cache: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in cache:
            cache[name] = load(name)
        return cache[name]

    return get


@pytest.fixture(scope="module")
def executable(module: Callable[[str], Any]) -> Callable[[str], Any]:
    """Build each fixture at most once per test module, since relax.build takes seconds."""
    cache: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in cache:
            cache[name] = relax.build(module(name), "llvm")
        return cache[name]

    return get


@pytest.mark.parametrize("name", MODELS)
def test_fixture_loads_and_is_well_formed(name: str, module: Callable[[str], Any]) -> None:
    mod = module(name)
    relax.analysis.well_formed(mod)  # raises on the first violation
    assert relax.analysis.check_well_formed(mod)
    assert [gv.name_hint for gv in mod.functions] == ["main"]
    func = mod["main"]
    assert isinstance(func, relax.Function) and func.is_pure


@pytest.mark.parametrize("name", MODELS)
def test_signature_matches_export_config(name: str, module: Callable[[str], Any]) -> None:
    exp = EXPECT[name]
    func = module(name)["main"]
    assert int(func.attrs["num_input"]) == 1
    assert len(func.params) == exp.n_params
    first = func.params[0]
    assert (first.name, shape_of(first.ty), str(first.ty.dtype)) == (
        exp.input_name, exp.input_shape, exp.input_dtype)
    # keep_params_as_input: every other parameter is a float32 weight.
    assert {str(p.ty.dtype) for p in func.params[1:]} == {"float32"}
    assert all(p.name.startswith("p_") for p in func.params[1:])
    assert shape_of(func.ret_ty) == exp.out_shape


@pytest.mark.parametrize("name", MODELS)
def test_main_has_expected_structure(name: str, module: Callable[[str], Any]) -> None:
    exp = EXPECT[name]
    func = module(name)["main"]
    blocks = func.body.blocks
    assert len(blocks) == 1 and isinstance(blocks[0], relax.DataflowBlock)
    assert len(blocks[0].bindings) >= exp.min_bindings
    ops = call_ops(func)
    assert exp.ops <= set(ops)
    assert not relax.analysis.contains_impure_call(func.body)
    if name in ("bert", "vit", "gpt2"):
        assert ops.count("relax.reshape") >= 20
    else:
        assert "relax.reshape" not in ops


@pytest.mark.parametrize("name", MODELS)
def test_fixture_imports_only_tvm_and_numpy(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse((DATA / f"{name}.py").read_text())
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots.add((node.module or "").split(".")[0])
    assert roots <= ALLOWED_IMPORTS
    # Loading must also work when torch and transformers cannot be imported at all.
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "transformers", None)
    assert relax.analysis.check_well_formed(load(name))


@pytest.mark.parametrize("name", MODELS)
def test_builds_and_runs(
    name: str, module: Callable[[str], Any], executable: Callable[[str], Any]
) -> None:
    exp = EXPECT[name]
    func = module(name)["main"]
    vm = relax.VirtualMachine(executable(name), tvm.cpu())
    args = [tvm.runtime.tensor(a) for a in make_inputs(func, exp)]
    out = vm["main"](*args).numpy()
    assert out.shape == exp.out_shape and out.dtype == np.float32
    assert np.isfinite(out).all()
    assert np.array_equal(out, vm["main"](*args).numpy())
    if exp.ends_in_layer_norm:
        # last_hidden_state ends in a LayerNorm with unit weight and zero bias.
        np.testing.assert_allclose(out.mean(axis=-1), 0.0, atol=1e-4)
        np.testing.assert_allclose(out.std(axis=-1), 1.0, atol=1e-2)
    else:
        # ResNet's last_hidden_state is the output of a ReLU.
        assert out.min() >= 0.0 and out.max() > 0.0


def test_embedded_constants_round_trip(tmp_path: Path) -> None:
    """The metadata dict written for buffers rebuilds constants exactly, int64 included."""
    import tvm_ffi

    ints = np.arange(6, dtype="int64").reshape(2, 3) - 3
    floats = np.array([0.1, -2.5, 3e-8], dtype="float32")
    x = relax.Var("x", relax.TensorType((2, 3), "int64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.add(x, relax.const(ints, "int64")))
            z = bb.emit(relax.op.multiply(relax.op.astype(y, "float32"), relax.const(floats)))
            w = bb.emit(relax.op.add(z, relax.const(1.5, "float32")))
            out = bb.emit_output(w)
        bb.emit_func_output(out)
    mod = bb.get()
    zoo = export.Zoo(torch=None, transformers=None, tvm=tvm, relax=relax,  # type: ignore[arg-type]
                     from_exported_program=lambda *a, **k: None)
    spec = export.ModelSpec("toy", None, (), "toy module")
    path = tmp_path / "toy.py"
    path.write_text(export.render(zoo, spec, mod))
    export.verify_file(zoo, path, mod)
    loaded = runpy.run_path(str(path))["Module"]
    assert tvm_ffi.structural_equal(loaded, mod, map_free_vars=True)
    consts = runpy.run_path(str(path))["metadata"]["ir.GenericConst"]
    assert [str(c.ty.dtype) for c in consts] == ["int64", "float32"]
    np.testing.assert_array_equal(consts[0].value.numpy(), ints)
    np.testing.assert_array_equal(consts[1].value.numpy(), floats)
    with pytest.raises(RuntimeError, match="metadata references"):
        export.metadata_constants(zoo, mod, "no references here")


def test_export_cli_without_torch_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    assert export.main(["-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -e '.[zoo]'" in err
    assert not (tmp_path / "out").exists()
