"""The Relay model zoo re-creates TVM v0.19's `relay.testing` workloads (relay-notes §5).

Expected op and parameter counts are the notes' table; every model must print, parse back to the
same graph and type-check; spot checks pin the printed attrs; the gradient files are checked
numerically on small shapes.
"""

from __future__ import annotations

import functools
import json
import re

import numpy as np
import pytest

from aliaslog import loading
from aliaslog.zoo.relay_layers import pad_tuple2d, pad_tuple3d
from aliaslog.zoo.relay_models import (
    RELAY_MODELS,
    build_relay,
    build_relay_typed,
    differentiable,
    gradient_blockers,
    op_counts,
    training_workload,
    write_relay_zoo,
)
from extractor.relay.alpha import assert_alpha_equal
from extractor.relay.ast import (
    Call,
    Constant,
    Function,
    Let,
    Module,
    Op,
    TensorType,
    TupleGetItem,
    TupleType,
    post_order,
)
from extractor.relay.interpreter import evaluate, random_inputs
from extractor.relay.parser import parse
from extractor.relay.printer import astext
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.transforms.gradient import gradient_rule as get_rule
from extractor.relay.transforms.simplify_inference import simplify_inference
from extractor.relay.typeinfer import infer_types

HEAD = {"nn.batch_flatten": 1, "nn.dense": 1, "nn.bias_add": 1, "nn.softmax": 1}
LSTM_CELL = {"nn.dense": 2, "nn.bias_add": 2, "add": 2, "split": 1, "sigmoid": 3, "tanh": 2,
             "multiply": 3}

# name: (op counts, total ops, parameters of @main), from relay-notes §5's table
EXPECTED: dict[str, tuple[dict[str, int], int, int]] = {
    "mlp": ({"nn.batch_flatten": 1, "nn.dense": 3, "nn.bias_add": 3, "nn.relu": 2,
             "nn.softmax": 1}, 10, 7),
    "resnet-18": ({"nn.conv2d": 21, "nn.batch_norm": 19, "nn.relu": 18, "add": 8,
                   "nn.max_pool2d": 1, "nn.global_avg_pool2d": 1, **HEAD}, 72, 100),
    "resnet-50": ({"nn.conv2d": 53, "nn.batch_norm": 51, "nn.relu": 50, "add": 16,
                   "nn.max_pool2d": 1, "nn.global_avg_pool2d": 1, **HEAD}, 176, 260),
    # the notes' `nn.global_avg_pool3d` is the Python wrapper; v0.19 builds this op from it
    "resnet3d-18": ({"nn.conv3d": 21, "nn.batch_norm": 19, "nn.relu": 18, "add": 8,
                     "nn.adaptive_avg_pool3d": 1, **HEAD}, 71, 100),
    "mobilenet": ({"nn.conv2d": 27, "nn.batch_norm": 27, "nn.relu": 27,
                   "nn.global_avg_pool2d": 1, **HEAD}, 86, 138),
    # (1, 1): one cell; its five parameters are %data and the cell's four weights
    "lstm": ({**LSTM_CELL, "zeros": 1}, 16, 5),
    "dqn": ({"nn.conv2d": 3, "nn.bias_add": 5, "nn.relu": 4, "nn.batch_flatten": 1,
             "nn.dense": 2}, 15, 11),
    "dcgan": ({"nn.dense": 1, "nn.relu": 4, "reshape": 1, "nn.conv2d_transpose": 4,
               "nn.batch_norm": 3, "tanh": 1}, 14, 18),
    "squeezenet1.0": ({"nn.conv2d": 26, "nn.bias_add": 26, "nn.relu": 26, "concatenate": 8,
                       "nn.max_pool2d": 3, "nn.dropout": 1, "nn.global_avg_pool2d": 1,
                       "nn.batch_flatten": 1, "nn.softmax": 1}, 93, 53),
    "squeezenet1.1": ({"nn.conv2d": 26, "nn.bias_add": 26, "nn.relu": 26, "concatenate": 8,
                       "nn.max_pool2d": 3, "nn.dropout": 1, "nn.global_avg_pool2d": 1,
                       "nn.batch_flatten": 1, "nn.softmax": 1}, 93, 53),
    # the notes give no parameter count for vgg: data + (weight, bias) per conv and per fc
    "vgg-11": ({"nn.conv2d": 8, "nn.bias_add": 11, "nn.relu": 10, "nn.max_pool2d": 5,
                "nn.dense": 3, "nn.dropout": 2, "nn.batch_flatten": 1, "nn.softmax": 1},
               41, 1 + 2 * 8 + 2 * 3),
    "vgg-16": ({"nn.conv2d": 13, "nn.bias_add": 16, "nn.relu": 15, "nn.max_pool2d": 5,
                "nn.dense": 3, "nn.dropout": 2, "nn.batch_flatten": 1, "nn.softmax": 1},
               56, 1 + 2 * 13 + 2 * 3),
    "densenet-121": ({"nn.batch_norm": 121, "nn.relu": 121, "nn.conv2d": 120, "concatenate": 4,
                      "nn.avg_pool2d": 4, "nn.max_pool2d": 1, "nn.batch_flatten": 1,
                      "nn.dense": 1, "nn.bias_add": 1}, 374, 607),
    "inception_v3": ({"nn.conv2d": 94, "nn.batch_norm": 94, "nn.relu": 94, "concatenate": 11,
                      "nn.avg_pool2d": 9, "nn.max_pool2d": 5, **HEAD}, 311, 473),
    "synthetic": ({"reshape": 2, "nn.dense": 2, "nn.relu": 2, "reshape_like": 2, "nn.conv2d": 2,
                   "nn.softmax": 2, "add": 2, "nn.bias_add": 1, "nn.batch_norm": 1}, 16, 10),
}


@functools.cache
def typed(name: str):  # noqa: ANN201 - a Typed, shared by the tests of one run
    return build_relay_typed(name)


@functools.cache
def printed(name: str) -> str:
    t = typed(name)
    return astext(t.module, types=t.types)


def shows(text: str, snippet: str) -> bool:
    """Whether the printout contains snippet, where `%_` stands for any temporary `%N`."""
    return re.search(re.escape(snippet).replace("%_", r"%\d+"), text) is not None


def calls(mod: Module, op: str) -> list[Call]:
    return [n for n in post_order(mod["main"]) if isinstance(n, Call) and n.op == Op(op)]


# ------------------------------------------------------------------------------- the registry


def test_registry_names_in_order() -> None:
    assert list(RELAY_MODELS) == list(EXPECTED)


def test_unknown_model_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown Relay zoo model 'resnet-19'.*resnet-18, "):
        build_relay("resnet-19")


# ----------------------------------------------------------------------------- counts (§5 table)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_op_and_param_counts_match_the_notes(name: str) -> None:
    counts, total, nvars = EXPECTED[name]
    mod = typed(name).module
    assert dict(op_counts(mod)) == counts
    assert sum(counts.values()) == total  # the table's total agrees with its own breakdown
    assert len(mod["main"].params) == nvars
    assert len({p.name_hint for p in mod["main"].params}) == nvars  # names as create_workload's


def test_lstm_four_by_four() -> None:
    mod = build_relay("lstm", iterations=4, num_hidden=4)
    assert dict(op_counts(mod)) == {**{k: 4 * v for k, v in LSTM_CELL.items()}, "zeros": 1}
    assert sum(op_counts(mod).values()) == 61
    main = mod["main"]
    assert [p.name_hint for p in main.params[:6]] == [
        "data", "i2h_0_weight", "i2h_0_bias", "h2h_0_weight", "h2h_0_bias", "data"]
    assert main.params[1].type_annotation == TensorType((16, 4), "float32")
    cells = [n for n in post_order(main) if isinstance(n, Function) and n is not main]
    assert len(cells) == 4  # one inner fn per iteration, called directly
    text = astext(mod)
    assert parse(text) is not None and "%data3: Tensor[(1, 4), float32]" in text


def test_parameters_in_free_vars_order_and_annotated() -> None:
    main = typed("mlp").module["main"]
    assert [p.name_hint for p in main.params] == [
        "data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "fc3_weight", "fc3_bias"]
    text = printed("mlp")
    assert "%fc1_weight: Tensor[(128, 784), float32]" in text
    assert "%data: Tensor[(1, 1, 28, 28), float32]" in text
    assert ") -> Tensor[(1, 10), float32] {" in text
    bn = [p.name_hint for p in typed("resnet-18").module["main"].params[:6]]
    assert bn == ["data", "bn_data_gamma", "bn_data_beta", "bn_data_moving_mean",
                  "bn_data_moving_var", "conv0_weight"]


# --------------------------------------------------------------------- print, parse, type-check


@pytest.mark.parametrize("name", list(EXPECTED))
def test_printed_model_parses_back_and_type_checks(name: str) -> None:
    t = typed(name)
    back = parse(printed(name), f"{name}.relay")
    assert_alpha_equal(back, t.module)  # annotations included
    again = infer_types(back).module
    assert again["main"].ret_type == t.module["main"].ret_type
    assert all(p.type_annotation is not None for p in t.module["main"].params)


# ----------------------------------------------------------------------- printed attr spot checks


def test_resnet_attrs_as_printed() -> None:
    text = printed("resnet-18")
    assert re.search(r"nn\.batch_norm\(%data, %bn_data_gamma, %bn_data_beta, "
                     r"%bn_data_moving_mean, %bn_data_moving_var, epsilon=2e-05f, scale=False\)",
                     text)
    assert shows(text, "nn.conv2d(%_, %conv0_weight, strides=[2, 2], padding=[3, 3, 3, 3], "
                       "channels=64, kernel_size=[7, 7])")
    assert "padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3])" in text
    assert shows(text, "nn.max_pool2d(%_, pool_size=[3, 3], strides=[2, 2], "
                       "padding=[1, 1, 1, 1])")
    # a 1x1 shortcut conv: padding is normalised to 4 zeros, which is not the (0, 0) default
    assert re.search(r"nn\.conv2d\(%\d+, %stage2_unit1_sc_weight, strides=\[2, 2\], "
                     r"padding=\[0, 0, 0, 0\], channels=128, kernel_size=\[1, 1\]\)", text)
    assert "nn.bias_add(%" in text and ", %fc1_bias, axis=-1)" in text


def test_resnet3d_uses_conv3d_and_the_adaptive_pool() -> None:
    text = printed("resnet3d-18")
    assert shows(text, "nn.conv3d(%_, %conv0_weight, strides=[1, 2, 2], "
                       "padding=[1, 3, 3, 1, 3, 3], channels=64, kernel_size=[3, 7, 7])")
    assert shows(text, "nn.adaptive_avg_pool3d(%_, output_size=[1, 1, 1])")
    assert "nn.max_pool" not in text  # resnet_3d comments its max_pool3d out


def test_inception_attrs_as_printed() -> None:
    text = printed("inception_v3")
    assert text.count("scale=False") == 94
    assert text.count("count_include_pad=True") == 9
    assert shows(text, "nn.avg_pool2d(%_, pool_size=[3, 3], padding=[1, 1, 1, 1], "
                       "count_include_pad=True)")
    assert "pool_size=[8, 8], padding=[0, 0, 0, 0], count_include_pad=True)" in text
    assert "kernel_size=[1, 7]" in text and "padding=[0, 3, 0, 3]" in text
    assert "%fc2_bias, axis=-1)" in text  # TVM names fc1's bias fc2_bias


def test_mobilenet_depthwise_groups() -> None:
    mod = typed("mobilenet").module
    convs = calls(mod, "nn.conv2d")
    depthwise = [c for c in convs if c.attrs["groups"] != 1]
    assert len(depthwise) == 13
    assert all(c.attrs["groups"] == c.attrs["channels"] for c in depthwise)
    text = printed("mobilenet")
    assert shows(text, "nn.conv2d(%_, %separable_conv_block_1_weight, padding=[1, 1, 1, 1], "
                       "groups=32, channels=32, kernel_size=[3, 3])")
    assert "%separable_conv_block_1_weight: Tensor[(32, 1, 3, 3), float32]" in text
    assert re.search(r"nn\.bias_add\(%\d+, %fc_bias\) ", text)  # default axis: not printed


def test_dcgan_squeezenet_vgg_synthetic_lstm_attrs() -> None:
    dcgan = printed("dcgan")
    assert shows(dcgan, "nn.conv2d_transpose(%_, %g2_deconv_weight, channels=512, "
                        "kernel_size=[4, 4], strides=[2, 2], padding=[1, 1, 1, 1])")
    assert shows(dcgan, "reshape(%_, newshape=[-1, 1024, 4, 4])")
    eps = {c.attrs["epsilon"] for c in calls(typed("dcgan").module, "nn.batch_norm")}
    assert eps == {1e-5 + 1e-12}
    sq = printed("squeezenet1.0")
    assert shows(sq, "nn.max_pool2d(%_, pool_size=[3, 3], strides=[2, 2], padding=[0, 0, 0, 0])")
    assert re.search(r"%\d+ = nn\.dropout\(%\d+\) /\* ty=\(Tensor\[\(1, 512, 13, 13\), "
                     r"float32\], Tensor\[\(1, 512, 13, 13\), float32\]\) \*/;\n  %\d+ = %\d+\.0",
                     sq)
    assert "concatenate(%" in sq and "axis=1)" in sq
    vgg = typed("vgg-11").module
    drops = [n for n in post_order(vgg["main"])
             if isinstance(n, TupleGetItem) and n.tuple_value in calls(vgg, "nn.dropout")]
    assert len(drops) == 2
    syn = printed("synthetic")
    assert shows(syn, "nn.dense(%_, %dense_weight, units=None)")
    assert "nn.conv2d(%data, %conv_weight, padding=[1, 1, 1, 1], kernel_size=[3, 3])" in syn
    lstm = printed("lstm")
    assert "split(%gates, indices_or_sections=4, axis=1)" in lstm
    assert re.search(r"let %call_0: \(Tensor\[\(1, 1\), float32\], .* = %\d+\(%data, "
                     r"%init_states, %i2h_0_weight", lstm)


def test_pad_tuples_follow_tvm() -> None:
    assert pad_tuple2d(1) == (1, 1, 1, 1)
    assert pad_tuple2d((0, 3)) == (0, 3, 0, 3)
    assert pad_tuple2d((1, 2, 3, 4)) == (1, 2, 3, 4)
    assert pad_tuple3d((1, 3, 3)) == (1, 3, 3, 1, 3, 3)
    with pytest.raises(ValueError):
        pad_tuple2d((1, 2, 3))


# ------------------------------------------------------------------------------------ gradients


def test_gradient_blockers() -> None:
    """v0.19 has no rule for batch_norm or dropout (SimplifyInference removes them); split,
    conv2d_transpose, conv3d and adaptive_avg_pool3d have aliaslog's extensions."""
    assert gradient_blockers(typed("mlp").module) == []
    assert gradient_blockers(typed("lstm").module) == []
    assert gradient_blockers(typed("vgg-11").module) == ["nn.dropout"]
    assert gradient_blockers(typed("resnet3d-18").module) == ["nn.batch_norm"]
    assert gradient_blockers(typed("dcgan").module) == ["nn.batch_norm"]
    for name in ("resnet3d-18", "dcgan", "squeezenet1.1", "synthetic"):
        assert gradient_blockers(simplify_inference(typed(name).module)) == [], name


def _sum_output(mod: Module, args: list[np.ndarray]) -> float:
    return float(np.sum(evaluate(mod, args)))


def _check_against_finite_differences(mod: Module, params: list[int], eps: float) -> None:
    """The gradient (of the sum of the output: the seed is ones) against central differences,
    for each listed parameter at its largest gradient entry and at a fixed entry."""
    grad = gradient_module(mod)
    args = random_inputs(mod["main"], 0)
    value, grads = evaluate(grad, args)
    np.testing.assert_allclose(value, evaluate(mod, args), rtol=1e-12)
    assert [g.shape for g in grads] == [a.shape for a in args]
    for i in params:
        g = grads[i]
        for idx in {np.unravel_index(np.argmax(np.abs(g)), g.shape),
                    np.unravel_index(g.size // 3, g.shape)}:
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            fd = (_sum_output(mod, plus) - _sum_output(mod, minus)) / (2 * eps)
            assert g[idx] == pytest.approx(fd, rel=1e-5, abs=1e-8), (i, idx)


def test_mlp_gradient_matches_finite_differences() -> None:
    mod = build_relay("mlp", image_shape=(1, 2, 3), num_classes=4, dtype="float64")
    # the sum of a softmax is 1 whatever the inputs: every gradient is (numerically) zero
    _check_against_finite_differences(mod, [0, 1], eps=1e-6)
    # weight the outputs so the gradient is not trivially zero
    fn = mod["main"]
    w = Constant(np.linspace(-1.0, 2.0, 4).reshape(1, 4))
    weighted = Module({"main": Function(fn.params, Call(Op("multiply"), (fn.body, w)))})
    weighted = infer_types(weighted).module
    _check_against_finite_differences(weighted, [0, 1, 4, 5], eps=1e-6)


@pytest.mark.skipif(get_rule("nn.conv2d") is None, reason="nn.conv2d has no gradient rule")
def test_dqn_gradient_matches_finite_differences() -> None:
    # the smallest image the three convolutions accept (36 -> 8 -> 3 -> 1)
    mod = build_relay("dqn", image_shape=(4, 36, 36), dtype="float64")
    assert gradient_blockers(mod) == []
    # float64, but the outputs reach 1e6: a step below 1e-4 loses the difference to rounding
    _check_against_finite_differences(mod, [0, 1, 3, 6, 10], eps=1e-4)


# ------------------------------------------------------------------------------- writing the zoo


def test_write_relay_zoo(tmp_path) -> None:
    """Every model becomes its workloads: plain, A-normal form, gradient and training step (the
    latter two when SimplifyInference leaves no op without a gradient rule), each run once."""
    names = ["mlp", "lstm", "dqn"]
    entries = write_relay_zoo(tmp_path, names)
    assert [e.name for e in entries] == names
    has_grad = {n: not gradient_blockers(simplify_inference(typed(n).module)) for n in names}
    expected_files = {"zoo.json"}
    for n in names:
        expected_files |= {f"{n}.relay", f"{n}.anf.relay"}
        if has_grad[n]:
            expected_files |= {f"{n}.grad.relay", f"{n}.train.relay"}
    assert {p.name for p in tmp_path.iterdir()} == expected_files  # no temporary files left
    mlp, lstm, dqn = entries
    assert (mlp.ops, mlp.vars, mlp.no_gradient, mlp.error) == (10, 7, None, None)
    assert mlp.describe() == ("mlp: 10 ops, 7 params -> mlp.relay, mlp.anf.relay, "
                              "mlp.grad.relay, mlp.train.relay")
    assert set(mlp.run_seconds) == {"plain", "anf", "grad", "train"}
    assert all(has_grad.values())  # lstm's split has aliaslog's rule
    assert lstm.no_gradient is None and set(lstm.paths) == {"plain", "anf", "grad", "train"}
    # the files are what the library prints, and read back
    assert (tmp_path / "mlp.relay").read_text() == printed("mlp")
    grad = parse((tmp_path / "mlp.grad.relay").read_text(), "mlp.grad.relay")
    assert "ref(" in (tmp_path / "mlp.grad.relay").read_text()
    assert_alpha_equal(infer_types(grad).module,
                       gradient_module(differentiable(typed("mlp").module)))
    step = infer_types(parse((tmp_path / "mlp.train.relay").read_text(), "mlp.train.relay"))
    ret = step.module.functions["main"].ret_type
    assert isinstance(ret, TupleType) and len(ret.fields) == 1 + 6  # loss, six weight grads
    anf = parse((tmp_path / "dqn.anf.relay").read_text(), "dqn.anf.relay")
    assert sum(isinstance(n, Let) for n in post_order(anf.functions["main"])) > 0
    index = json.loads((tmp_path / "zoo.json").read_text())
    rows = {r["name"]: r for r in index["models"]}
    assert list(rows) == names
    assert rows["mlp"]["paths"] == {"plain": "mlp.relay", "anf": "mlp.anf.relay",
                                    "grad": "mlp.grad.relay", "train": "mlp.train.relay"}
    assert rows["lstm"]["op_counts"]["split"] == 1 and rows["lstm"]["ops"] == 16


def test_training_workloads_keep_the_loss_and_drop_the_data_gradient() -> None:
    step = training_workload(typed("dqn").module)  # no softmax: a squared error with %target
    params = [p.name_hint for p in step.functions["main"].params]
    assert params[0] == "data" and params[-1] == "target"
    ret = infer_types(step).module.functions["main"].ret_type
    assert isinstance(ret, TupleType) and len(ret.fields) == 1 + len(params) - 2


def test_write_relay_zoo_without_gradients(tmp_path) -> None:
    (entry,) = write_relay_zoo(tmp_path, ["synthetic"], gradient=False, types=False)
    assert "grad" not in entry.paths and entry.no_gradient == "gradient not requested"
    assert {p.name for p in tmp_path.iterdir()} == {"synthetic.relay", "synthetic.anf.relay",
                                                    "zoo.json"}
    assert "/* ty=" not in (tmp_path / "synthetic.relay").read_text()


def test_write_relay_zoo_rejects_unknown_names_before_writing(tmp_path) -> None:
    out = tmp_path / "zoo"
    with pytest.raises(ValueError, match="known: mlp, resnet-18"):
        write_relay_zoo(out, ["mlp", "alexnet"])
    assert not out.exists()


def test_write_relay_zoo_leaves_no_partial_file(tmp_path, monkeypatch) -> None:
    real_chmod = loading.os.chmod
    written: list[str] = []

    def failing_chmod(path, mode):  # noqa: ANN001, ANN202
        written.append(path)
        if len(written) == 3:  # lstm's first file fails after its text was written
            raise OSError("disk full")
        real_chmod(path, mode)

    monkeypatch.setattr(loading.os, "chmod", failing_chmod)  # after the text is written
    syn, lstm, mlp = write_relay_zoo(tmp_path, ["synthetic", "lstm", "mlp"], gradient=False)
    # lstm failed and left nothing behind (no lstm.relay, no temporary file); the rest went on
    assert {p.name for p in tmp_path.iterdir()} == {"synthetic.relay", "synthetic.anf.relay",
                                                    "mlp.relay", "mlp.anf.relay", "zoo.json"}
    assert lstm.error == "OSError: disk full" and lstm.paths == {}
    assert lstm.describe() == "lstm: FAILED: OSError: disk full"
    assert syn.error is None and mlp.error is None
    assert mlp.describe() == ("mlp: 10 ops, 7 params -> mlp.relay, mlp.anf.relay "
                              "(no gradient: gradient not requested)")
    assert (tmp_path / "synthetic.relay").read_text() == astext(
        typed("synthetic").module, types=typed("synthetic").types)
    rows = json.loads((tmp_path / "zoo.json").read_text())["models"]
    assert [(r["name"], r["error"]) for r in rows] == [
        ("synthetic", None), ("lstm", "OSError: disk full"), ("mlp", None)]
    assert rows[1]["paths"] == {}


def test_gradient_failure_is_reported(tmp_path, monkeypatch) -> None:
    from aliaslog.zoo import relay_models
    from extractor.relay.errors import RelayTypeError

    def broken(mod):  # noqa: ANN001, ANN202
        raise RelayTypeError("cannot differentiate this")

    monkeypatch.setattr(relay_models, "gradient_module", broken)
    (entry,) = write_relay_zoo(tmp_path, ["mlp"])
    assert "grad" not in entry.paths and entry.no_gradient == "gradient failed"
    assert entry.error is not None and "cannot differentiate this" in entry.error
    assert entry.describe().startswith("mlp: 10 ops, 7 params -> mlp.relay, mlp.anf.relay; "
                                       "FAILED: gradient: ")
    assert {p.name for p in tmp_path.iterdir()} == {"mlp.relay", "mlp.anf.relay", "zoo.json"}
