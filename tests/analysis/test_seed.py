"""The seed bug (apache/tvm #6803) reproduced end to end: gradient, then TVM's two DCEs."""

from __future__ import annotations

import numpy as np

from aliaslog.relay.dce import relay_dce as dce
from aliaslog.relay.scenario import count_lets, run_seed_scenario
from extractor.relay.ast import RefCreate, RefRead, RefWrite, post_order
from extractor.relay.interpreter import evaluate, flatten_value, random_inputs
from extractor.relay.parser import parse_file
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.typeinfer import infer_types


def _grad(seed_path):
    return gradient_module(infer_types(parse_file(seed_path)).module)


def test_gradient_ref_counts_match_tvm(seed_path):
    grad = _grad(seed_path)
    nodes = [n for fn in grad.functions.values() for n in post_order(fn)]
    counts = [sum(isinstance(n, k) for n in nodes) for k in (RefCreate, RefRead, RefWrite)]
    assert counts == [9, 20, 12]


def test_assume_pure_dce_zeroes_gradients_purity_dce_does_not(seed_path):
    result = run_seed_scenario(parse_file(seed_path), seed=0)
    assert result.names[:2] == ["result.0", "result.1"]
    pure, purity = result.max_abs_diff("assume-pure"), result.max_abs_diff("purity")
    assert pure[:2] == [0.0, 0.0], "loss and pred agree under assume-pure"
    assert all(d > 0 for d in pure[2:]), "every gradient differs: the bug"
    assert all(d == 0.0 for d in purity)
    # the wrong gradients are exactly the zeros the cells were initialised with
    for g in result.outputs["assume-pure"][2:]:
        assert not g.any()
    assert result.bindings["assume-pure"] < result.bindings["purity"] <= result.bindings["none"]


def test_seed_gradients_match_closed_form(seed_path):
    grad = _grad(seed_path)
    x, y, w, b = args = random_inputs(grad.functions["main"], 3)
    out = flatten_value(evaluate(grad, args))
    z = x @ w.T + b
    logp = z - z.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    loss = -(logp * y).sum() / x.shape[0]
    g_logp = -y / x.shape[0]
    g_z = g_logp - g_logp.sum(1, keepdims=True) * np.exp(logp)
    expected = [loss, z, g_z @ w, -logp / x.shape[0], g_z.T @ x, g_z.sum(0)]
    for got, want in zip(out, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_purity_dce_keeps_every_ref_op(seed_path):
    grad = _grad(seed_path)
    kept = dce(grad, mode="purity")
    def refs(m):
        return sum(isinstance(n, (RefRead, RefWrite)) for f in m.functions.values()
                   for n in post_order(f))
    assert refs(kept) == refs(grad)
    assert count_lets(dce(grad, mode="assume-pure")) < count_lets(kept)
