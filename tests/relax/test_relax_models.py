"""aliaslog on imported models (BERT, ViT, ResNet, GPT-2 fixtures): no false alarm at any
extraction point, and EffectAwareDCE leaves what the VM computes unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import tvm_ffi

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from aliaslog.relax import EffectAwareDCE, analyze_relax, check_module  # noqa: E402
from extractor.relax_load import to_point  # noqa: E402
from tests.support.relax_models import EXPECT, MODELS, load, make_inputs  # noqa: E402


@pytest.fixture(scope="module")
def models() -> dict[str, tvm.IRModule]:
    return {name: load(name) for name in MODELS}


@pytest.mark.parametrize("name", MODELS)
def test_no_violation_on_imported_models(name, models):
    assert check_module(models[name], ("input", "legalized", "lowered")).violations == []


@pytest.mark.parametrize("name", MODELS)
def test_effect_aware_dce_on_models(name, models):
    mod = models[name]
    res = analyze_relax(mod)
    assert res.removable_ids == set()  # the importer leaves no dead code (notes §6) ...
    assert tvm_ffi.structural_equal(EffectAwareDCE()(mod), mod)
    lowered = to_point(mod, "lowered")
    after = EffectAwareDCE()(lowered)
    removed = analyze_relax(lowered).removable_ids
    n = sum(len(b.bindings) for b in lowered["main"].body.blocks)
    m = sum(len(b.bindings) for b in after["main"].body.blocks)
    assert n - m == len(removed)  # ... but lowering leaves dead tuple repacks and kernels
    inputs = make_inputs(mod["main"], EXPECT[name])

    def run(m: tvm.IRModule) -> np.ndarray:
        vm = relax.VirtualMachine(relax.build(m, "llvm"), tvm.cpu())
        return vm["main"](*[tvm.runtime.tensor(a) for a in inputs]).numpy()

    np.testing.assert_array_equal(run(lowered), run(after))
