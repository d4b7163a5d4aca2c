"""`training_step`: @main calls @main_grad and keeps the loss and the chosen gradients."""

from __future__ import annotations

import numpy as np
import pytest

from extractor.relay.ast import Call, GlobalVar, TupleType, let_chain
from extractor.relay.errors import RelayTypeError
from extractor.relay.interpreter import evaluate, random_inputs
from extractor.relay.parser import parse, parse_file
from extractor.relay.printer import astext
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.transforms.training import training_step
from extractor.relay.typeinfer import infer_types

HEADER = '#[version = "0.0.5"]\n'
T = "Tensor[(2, 3), float32]"


def _same(a, b) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b)


def test_seed_training_step_matches_the_full_gradient(seed_path):
    mod = parse_file(seed_path)
    step = training_step(mod, [2, 3])
    full = gradient_module(infer_types(mod).module)
    for seed in (0, 1):
        args = random_inputs(step["main"], seed)
        (loss, pred), grads = evaluate(full, args)
        out = evaluate(step, args)
        assert len(out) == 3
        _same(out[0], loss)
        _same(out[1], grads[2])
        _same(out[2], grads[3])
        assert pred.shape == (5, 20)


def test_shape_of_the_new_main(seed_path):
    step = training_step(parse_file(seed_path), [2, 3])
    assert set(step.functions) == {"main", "main_grad"}
    main, grad = step["main"], step["main_grad"]
    assert [p.name_hint for p in main.params] == [p.name_hint for p in grad.params]
    assert [p.type_annotation for p in main.params] == [p.type_annotation for p in grad.params]
    assert not {id(p) for p in main.params} & {id(p) for p in grad.params}, "fresh params"
    lets, _ = let_chain(main.body)
    assert [let.var.name_hint for let in lets] == ["r", "l", "g"]
    call = lets[0].value
    assert isinstance(call, Call) and call.op == GlobalVar("main_grad")
    assert list(call.args) == list(main.params)
    assert isinstance(main.ret_type, TupleType) and len(main.ret_type.fields) == 3
    # @main_grad is the gradient program itself: same result type as gradient_module's @main
    full = gradient_module(infer_types(parse_file(seed_path)).module)
    assert grad.ret_type == full["main"].ret_type


def test_tensor_loss_and_generated_globals_are_kept():
    """A tensor result is its own loss; @double_grad (made by the gradient) stays in the module."""
    mod = parse(HEADER + f"""def @double(%z: {T}) -> {T} {{ %z + %z }}
def @main(%x: {T}, %y: {T}) -> {T} {{ @double(%x) * %y }}""")
    step = training_step(mod, [1, 0, 1])
    assert {"main", "main_grad", "double", "double_grad"} <= set(step.functions)
    full = gradient_module(infer_types(mod).module)
    args = random_inputs(step["main"], 3)
    loss, (dx, dy) = evaluate(full, args)
    out = evaluate(step, args)
    for got, want in zip(out, [loss, dy, dx, dy], strict=True):
        _same(got, want)


def test_nested_tuple_result_takes_field_zero_recursively():
    mod = parse(HEADER + f"def @main(%x: {T}) {{ ((exp(%x), %x), %x * %x) }}")
    step = training_step(mod, [])
    out = evaluate(step, [np.ones((2, 3), "float32")])
    assert len(out) == 1
    _same(out[0], np.exp(np.ones((2, 3), "float32")))


def test_prints_and_reparses(seed_path):
    step = training_step(parse_file(seed_path), [0])
    again = infer_types(parse(astext(step))).module
    args = random_inputs(step["main"], 0)
    for got, want in zip(evaluate(again, args), evaluate(step, args), strict=True):
        _same(got, want)


@pytest.mark.parametrize("keep", [[4], [-1], [0, 7]])
def test_out_of_range_gradient_index(seed_path, keep):
    with pytest.raises(RelayTypeError, match="out of range"):
        training_step(parse_file(seed_path), keep)


def test_refuses_to_overwrite_main_grad():
    mod = parse(HEADER + f"""def @main_grad(%x: {T}) -> {T} {{ %x }}
def @main(%x: {T}) -> {T} {{ %x * %x }}""")
    with pytest.raises(RelayTypeError, match="already defines @main_grad"):
        training_step(mod, [0])


def test_needs_a_main():
    mod = parse(HEADER + f"def @f(%x: {T}) -> {T} {{ %x }}")
    with pytest.raises(RelayTypeError, match="needs a @main"):
        training_step(mod, [0])


def test_input_module_is_not_changed(seed_path):
    mod = infer_types(parse_file(seed_path)).module
    before = dict(mod.functions)
    training_step(mod, [2])
    assert dict(mod.functions) == before
