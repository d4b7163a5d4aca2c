"""First-order gradient (v0.19's first_order_gradient.cc): TVM's first-order tests, the shape of
what it builds, finite differences, and its preconditions as located errors."""

from __future__ import annotations

import numpy as np
import pytest

from extractor.relay.ast import (
    Call,
    Function,
    FuncType,
    Let,
    Module,
    Op,
    TensorType,
    Tuple,
    TupleType,
    TypeVar,
    Var,
    let_chain,
    post_order,
)
from extractor.relay.errors import RelayTypeError
from extractor.relay.interpreter import evaluate
from extractor.relay.parser import parse, parse_expr
from extractor.relay.printer import astext
from extractor.relay.transforms.first_order_gradient import (
    first_order_gradient,
    first_order_gradient_module,
)
from extractor.relay.transforms.gradient import gradient
from extractor.relay.typeinfer import infer_types

from .test_gradient import assert_tree_close, rand

HEADER = '#[version = "0.0.5"]\n'
T = TensorType((10, 10), "float32")


def typed_fn(src: str) -> Function:
    """A function literal, type-inferred (TVM's tests run run_infer_type first)."""
    fn = parse_expr(src)
    assert isinstance(fn, Function)
    return infer_types(Module({"main": fn})).module["main"]


def grad_module(fn: Function) -> Module:
    """`run_infer_type(gradient(func, mode="first_order"))` as a module to evaluate."""
    return infer_types(Module({"main": first_order_gradient(fn)})).module


def ops(e: object, name: str) -> int:
    """relay.testing.count_ops: each node once."""
    return sum(isinstance(n, Call) and n.op == Op(name) for n in post_order(e))  # type: ignore[arg-type]


def test_fo_id():
    fn = typed_fn("fn (%x: Tensor[(10, 10), float32]) { %x }")
    g = grad_module(fn)
    assert infer_types(g).type_of(g["main"]) == FuncType((T,), TupleType((T, TupleType((T,)))))
    x = rand(10, 10).astype(np.float32)
    forward, (grad,) = evaluate(g, [x])
    np.testing.assert_allclose(forward, x)
    np.testing.assert_allclose(grad, np.ones_like(x))


def test_tuple_first_order():
    """TVM's _test_tuple("first_order"): no let, a tuple and three projections."""
    t = "Tensor[(10, 10), float32]"
    fn = typed_fn(f"fn (%x: {t}, %y: {t}, %z: {t}) {{ %0 = (%x, %y, %z); %0.0 + %0.1 - %0.2 }}")
    g = grad_module(fn)
    assert g["main"].ret_type == TupleType((T, TupleType((T, T, T))))
    x, y, z = (rand(10, 10, seed=i).astype(np.float32) for i in range(3))
    forward, (gx, gy, gz) = evaluate(g, [x, y, z])
    np.testing.assert_allclose(forward, x + y - z, rtol=1e-6)
    np.testing.assert_allclose(gx, np.ones_like(x))
    np.testing.assert_allclose(gy, np.ones_like(y))
    np.testing.assert_allclose(gz, -np.ones_like(z))


def test_tuple_argument_first_order():
    """TVM's _test_tuple_argument("first_order"): a tuple parameter (higher order rejects it)."""
    t = "Tensor[(2, 3), float32]"
    fn = typed_fn(f"fn (%tup: ({t}, {t}, {t})) {{ add(add(%tup.0, %tup.1), %tup.2) }}")
    g = grad_module(fn)
    xs = tuple(rand(2, 3, seed=i).astype(np.float32) for i in range(3))
    forward, grad = evaluate(g, [xs])
    np.testing.assert_allclose(forward, sum(xs), rtol=1e-6)
    assert len(grad) == 1 and len(grad[0]) == 3
    for field in grad[0]:
        np.testing.assert_allclose(field, np.ones((2, 3)))


def test_no_duplication():
    """A node used twice is computed once and differentiated once: 3 dense (1 + 2 backward)."""
    t = "Tensor[(12, 12), float32]"
    fn = typed_fn(f"fn (%x: {t}, %y: {t}) {{ %0 = nn.dense(%x, %y); "
                  "sum(%0 - sum(%0, keepdims=True)) }")
    assert ops(first_order_gradient(fn), "nn.dense") == 3


def test_no_duplication_tuples():
    t = "Tensor[(12, 12), float32]"
    fn = typed_fn(f"fn (%x: {t}, %y: {t}) {{ %0 = nn.dense(%x, %y); %1 = (%0, %0); "
                  "sum(%1.0 - sum(%0, keepdims=True)) }")
    assert ops(first_order_gradient(fn), "nn.dense") == 3


def test_shape_of_the_output():
    """`let x_0 = %x; let x_1 = zeros_like(x_0); ...; (fwd, let ...; (grads))`: no references,
    no closures; a tuple's gradient starts as zeros of each field."""
    t = "Tensor[(3), float64]"
    g = first_order_gradient(typed_fn(f"fn (%x: {t}) {{ %0 = (%x, %x * %x); %0.1 }}"))
    lets, body = let_chain(g.body)
    assert lets[0].value is g.params[0]
    assert isinstance(lets[1].value, Call) and lets[1].value.op == Op("zeros_like")
    assert isinstance(body, Tuple) and isinstance(body.fields[1], Let)
    assert ops(g, "zeros") == 2  # the tuple's reverse: zeros(shape=[3]) per field
    kinds = {type(n).__name__ for n in post_order(g)}
    assert not kinds & {"RefCreate", "RefRead", "RefWrite"}
    assert sum(isinstance(n, Function) for n in post_order(g)) == 1  # g itself: no closure
    text = astext(Module({"main": g}))
    assert 'zeros(shape=[3], dtype="float64")' in text
    back = infer_types(parse(text)).module
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(evaluate(back, [x])[1][0], 2 * x)


def test_tuple_output_seeds_every_field():
    """Unlike the higher-order transform, every field of a tuple result is seeded with ones."""
    t = "Tensor[(3), float64]"
    g = grad_module(typed_fn(f"fn (%x: {t}) {{ (%x * %x, %x) }}"))
    x = np.array([1.0, 2.0, 3.0])
    (a, b), (d,) = evaluate(g, [x])
    np.testing.assert_allclose(d, 2 * x + 1)


FD_PROGRAMS = {
    "mlp": ("%x: Tensor[(4, 5), float64], %w: Tensor[(3, 5), float64], %b: Tensor[(3), float64]",
            "sum(nn.log_softmax(nn.bias_add(nn.dense(%x, %w), %b)))",
            [(4, 5), (3, 5), (3,)]),
    "shared": ("%x: Tensor[(3), float64], %y: Tensor[(3), float64]",
               "%0 = exp(%x * %y); sum(%0 * %0 + %0)", [(3,), (3,)]),
    "call_of_a_function_literal": ("%x: Tensor[(3), float64]",
                                   "%0 = fn (%a: Tensor[(3), float64]) { tanh(%a) * %a }; "
                                   "sum(%0(%x * %x))", [(3,)]),
    "tuple_through_projection": ("%x: Tensor[(2, 3), float64], %y: Tensor[(2, 3), float64]",
                                 "%0 = (sigmoid(%x), %y * %x); sum(%0.0 * %0.1)",
                                 [(2, 3), (2, 3)]),
    "broadcast_constant": ("%x: Tensor[(2, 3), float64]",
                           "sum(subtract(%x * %x, 2f64) / 3f64)", [(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(FD_PROGRAMS))
def test_against_finite_differences(name: str):
    params, body, shapes = FD_PROGRAMS[name]
    fn = typed_fn(f"fn ({params}) {{ {body} }}")
    mod = Module({"main": fn})
    g = grad_module(fn)
    args = [rand(*s, seed=i) for i, s in enumerate(shapes)]
    forward, grads = evaluate(g, args)
    assert_tree_close(forward, evaluate(mod, args))
    eps = 1e-6
    for i, a in enumerate(args):
        want = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in args]
            minus = [x.copy() for x in args]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            want[idx] = (float(evaluate(mod, plus)) - float(evaluate(mod, minus))) / (2 * eps)
        np.testing.assert_allclose(grads[i], want, rtol=1e-5, atol=1e-7, err_msg=f"d/d arg {i}")


def test_the_module_pass_transforms_every_function():
    mod = parse(HEADER + """def @f(%x: Tensor[(3), float64]) { %x * %x }
    def @g(%y: Tensor[(3), float64]) { exp(%y) }""")
    out = first_order_gradient_module(mod)
    y = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(evaluate(out, [y], entry="f")[1][0], 2 * y)
    np.testing.assert_allclose(evaluate(out, [y], entry="g")[1][0], np.exp(y))
    only = first_order_gradient_module(mod, entry="g")
    np.testing.assert_allclose(evaluate(only, [y], entry="f"), y * y)  # @f as it was
    with pytest.raises(RelayTypeError, match="no @h"):
        first_order_gradient_module(mod, entry="h")


def test_gradient_dispatches_first_order():
    fn = typed_fn("fn (%x: Tensor[(3), float64]) { %x * %x }")
    g, out = gradient(fn, mode="first_order")
    assert out.functions == {}
    assert not any(type(n).__name__.startswith("Ref") for n in post_order(g))


def _error(src: str) -> RelayTypeError:
    with pytest.raises(RelayTypeError) as info:
        first_order_gradient_module(parse(HEADER + src, source_name="prog.relay"))
    return info.value


@pytest.mark.parametrize("body,found", [
    ("let %y = %x; %y", "Let"),
    ("if (True) { %x } else { %x }", "If"),
    ("ref_read(ref(%x))", "RefCreate"),
    ("@other(%x)", "global function"),
])
def test_rejects_what_v019_rejects(body: str, found: str):
    t = "Tensor[(3), float64]"
    err = _error(f"def @other(%a: {t}) {{ %a }}\ndef @main(%x: {t}) {{\n  {body}\n}}")
    assert err.message.endswith(f"found a {found}")
    assert err.span is not None and err.span.source == "prog.relay"


def test_rejects_polymorphism_and_missing_rules():
    x = Var("x", TypeVar("A"))
    with pytest.raises(RelayTypeError, match="does not support polymorphism"):
        first_order_gradient(Function((x,), x, None, (TypeVar("A"),)))
    err = _error("def @main(%x: Tensor[(3), float64]) {\n  floor(%x)\n}")
    assert err.message == "the operator floor does not have a registered gradient."
    assert err.span is not None and err.span.line == 3


def test_rejects_closures_and_free_variables():
    t = "Tensor[(3), float64]"
    err = _error(f"def @main(%x: {t}) {{\n  fn (%a: {t}) {{ %a }}\n}}")
    assert "closures are not supported" in err.message
    free = Var("free", TensorType((3,), "float64"))
    x = Var("x", TensorType((3,), "float64"))
    with pytest.raises(RelayTypeError, match="%free is not a parameter"):
        first_order_gradient(Function((x,), Call(Op("add"), (x, free))))


def test_projection_of_a_call_result():
    """A tuple returned by a called function literal, projected twice, differentiated
    field-wise (the call's result is computed once)."""
    t = "Tensor[(4), float64]"
    fn = typed_fn(f"fn (%x: {t}) {{ %0 = fn (%a: {t}) {{ (exp(%a), %a * %a) }}; %1 = %0(%x); "
                  "sum(%1.0 * %1.1) }")
    g = grad_module(fn)
    x = np.array([0.5, 1.0, 1.5, 2.0])
    _, (d,) = evaluate(g, [x])
    np.testing.assert_allclose(d, np.exp(x) * x * x + np.exp(x) * 2 * x)
    assert ops(g["main"], "exp") == 2  # the forward one, and the one the rule g * exp(x) makes


def test_cli_first_order_mode(capsys, tmp_path):
    """`aliaslog grad --mode first-order`: the gradient without references, which runs."""
    from aliaslog.cli import main

    src = tmp_path / "cube.relay"
    src.write_text(HEADER + "def @main(%x: Tensor[(3), float64]) {\n  %x * %x * %x\n}\n")
    out = tmp_path / "g.relay"
    assert main(["grad", "--mode", "first-order", str(src), "-o", str(out)]) == 0
    mod = infer_types(parse(out.read_text())).module
    assert not any(type(n).__name__.startswith("Ref") for n in post_order(mod["main"]))
    x = np.array([0.5, 1.0, 2.0])
    fwd, (d,) = evaluate(mod, [x])
    np.testing.assert_allclose(fwd, x ** 3)
    np.testing.assert_allclose(d, 3 * x * x)
    higher = tmp_path / "h.relay"
    assert main(["grad", str(src), "-o", str(higher)]) == 0
    assert "ref(" in higher.read_text()  # the default is still the higher-order transform
    capsys.readouterr()
    bad = tmp_path / "let.relay"
    bad.write_text(HEADER + "def @main(%x: Tensor[(3), float64]) {\n  let %y = %x;\n  %y\n}\n")
    assert main(["grad", "--mode", "first-order", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3:3:" in err and "found a Let" in err and "Traceback" not in err
    assert main(["grad", "--mode", "first-order", "--training-step", str(src)]) == 2
    assert "cannot be combined with --mode first-order" in capsys.readouterr().err
