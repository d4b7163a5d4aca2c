"""One Relay op under test: a typed one-line program, its kernel run, its gradient checked."""

from __future__ import annotations

import numpy as np
import pytest

from extractor.relay import ops
from extractor.relay.alpha import alpha_equal
from extractor.relay.ast import Attrs, Module, TensorType
from extractor.relay.errors import RelayTypeError
from extractor.relay.interpreter import evaluate
from extractor.relay.parser import parse
from extractor.relay.printer import astext
from extractor.relay.transforms.gradient import check_no_sharing, gradient_module
from extractor.relay.typeinfer import infer_types

from .op_registry import OP_IMPLS

HEADER = '#[version = "0.0.5"]\n'


def T(*shape: int, dtype: str = "float64") -> str:
    return f"Tensor[({', '.join(map(str, shape))}), {dtype}]"


def typed(params: str, body: str) -> Module:
    return infer_types(parse(HEADER + f"def @main({params}) {{ {body} }}", "test.relay")).module


def ret_type(params: str, body: str) -> TensorType:
    t = typed(params, body)["main"].ret_type
    assert isinstance(t, TensorType)
    return t


def type_error(params: str, body: str) -> str:
    with pytest.raises(RelayTypeError) as info:
        typed(params, body)
    return info.value.message


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape)


def run_op(name: str, args: list[np.ndarray], **attrs: object) -> np.ndarray:
    d = ops.lookup(name)
    assert d is not None
    return OP_IMPLS[name](args, Attrs.of(d.attrs_type_key, **attrs))


def loss(mod: Module, args: list[np.ndarray]) -> float:
    return float(np.sum(evaluate(mod, args)))


def finite_difference(mod: Module, args: list[np.ndarray], i: int, eps: float) -> np.ndarray:
    out = np.zeros_like(args[i])
    for idx in np.ndindex(args[i].shape):
        plus = [a.copy() for a in args]
        minus = [a.copy() for a in args]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        out[idx] = (loss(mod, plus) - loss(mod, minus)) / (2 * eps)
    return out


def check_gradient(params: str, body: str, shapes: list[tuple[int, ...]]) -> str:
    """Gradient vs central differences, float64; returns the gradient program's text."""
    mod = typed(params, body)
    gmod = gradient_module(mod)
    check_no_sharing(gmod["main"], "@main")
    args = [rand(*s, seed=k) for k, s in enumerate(shapes)]
    primal, grads = evaluate(gmod, args)
    np.testing.assert_allclose(primal, evaluate(mod, args), rtol=1e-12)
    for i, a in enumerate(args):
        assert grads[i].shape == a.shape and grads[i].dtype == a.dtype
        np.testing.assert_allclose(grads[i], finite_difference(mod, args, i, 1e-6),
                                   rtol=1e-5, atol=1e-7, err_msg=f"d/d arg {i} of {body}")
    text = astext(gmod)
    again = infer_types(parse(text, "printed.relay")).module
    assert alpha_equal(again, gmod)
    return text
