"""Higher-order gradient (relay-notes §2): TVM's structure, ref counts, and numerical correctness.

Numerical checks compare the transform's gradients, run on the interpreter, with central finite
differences of the original program in float64 (the seeded output is field 0, recursively, and
the seed is ones_like, so the reference is d sum(field0) / d x).
"""

from __future__ import annotations

import numpy as np
import pytest

from extractor.relay.ast import (
    Call,
    Function,
    GlobalVar,
    Let,
    Module,
    Op,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    TypeVar,
    Var,
    let_chain,
    post_order,
)
from extractor.relay.errors import RelayTypeError
from extractor.relay.interpreter import evaluate
from extractor.relay.parser import parse, parse_file
from extractor.relay.printer import astext
from extractor.relay.transforms.gradient import BPT, check_no_sharing, gradient, gradient_module
from extractor.relay.typeinfer import infer_types

from .op_registry import RULES
from .test_grad_conv_pool import EXERCISED as CONV_POOL_RULES

HEADER = '#[version = "0.0.5"]\n'


def typed(src: str) -> Module:
    return infer_types(parse(HEADER + src)).module


def ref_counts(mod: Module) -> list[int]:
    nodes = [n for fn in mod.functions.values() for n in post_order(fn)]
    return [sum(isinstance(n, k) for n in nodes) for k in (RefCreate, RefRead, RefWrite)]


def seeded(v):
    """The output the gradient seeds: field 0, recursively."""
    while isinstance(v, tuple):
        v = v[0]
    return v


def loss(mod: Module, args: list[np.ndarray]) -> float:
    return float(np.sum(seeded(evaluate(mod, args))))


def finite_difference(mod: Module, args: list[np.ndarray], i: int, eps: float) -> np.ndarray:
    out = np.zeros_like(args[i])
    for idx in np.ndindex(args[i].shape):
        plus = [a.copy() for a in args]
        minus = [a.copy() for a in args]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        out[idx] = (loss(mod, plus) - loss(mod, minus)) / (2 * eps)
    return out


def assert_tree_close(a, b, rtol=1e-7, atol=1e-9) -> None:
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_tree_close(x, y, rtol, atol)
    else:
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def check_numeric(mod: Module, args: list[np.ndarray], eps: float = 1e-6,
                  rtol: float = 1e-5, atol: float = 1e-7, entry: str = "main") -> Module:
    """Gradient of @entry vs central differences; returns the gradient module."""
    gmod = gradient_module(mod, entry)
    for name, fn in gmod.functions.items():
        check_no_sharing(fn, f"@{name}")  # TVM checks its output has no graph feature too
    primal, grads = evaluate(gmod, args, entry)
    assert_tree_close(primal, evaluate(mod, args, entry))
    assert len(grads) == len(args)
    for i, a in enumerate(args):
        assert grads[i].shape == a.shape and grads[i].dtype == a.dtype
        if a.dtype.kind != "f":
            assert not np.any(grads[i]), "non-float inputs get zero gradients"
            continue
        np.testing.assert_allclose(grads[i], finite_difference(mod, args, i, eps),
                                   rtol=rtol, atol=atol, err_msg=f"d/d arg {i}")
    return gmod


def rand(*shape: int, lo: float = -1.0, hi: float = 1.0, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + 7 * len(shape)).uniform(lo, hi, shape).astype("float64")


# ---------------------------------------------------------------------------------- ref counts


def test_seed_ref_counts_and_type(seed_path):
    g = gradient_module(infer_types(parse_file(seed_path)).module)
    assert ref_counts(g) == [9, 20, 12]
    f32 = "float32"
    assert g["main"].ret_type == TupleType((
        TupleType((TensorType((), f32), TensorType((5, 20), f32))),
        TupleType((TensorType((5, 10), f32), TensorType((5, 20), f32),
                   TensorType((20, 10), f32), TensorType((20,), f32))),
    ))


def test_square_ref_counts_and_tvm_shape():
    """§2.2: fn (%x: Tensor[(3), float32]) { %x * %x }, down to the x_N numbering."""
    g = gradient_module(typed("def @main(%x: Tensor[(3), float32]) { %x * %x }"))
    assert ref_counts(g) == [3, 6, 4]
    main = g["main"]
    t = TensorType((3,), "float32")
    assert main.ret_type == TupleType((t, TupleType((t,))))
    lets, body = let_chain(main.body)
    assert [b.var.name_hint for b in lets] == ["x_0", "x_30", "x_31", "x_32", "x_33"]
    bp, pair, call, seed, run = lets
    assert bp.var.type_annotation == BPT
    assert isinstance(bp.value, RefCreate) and isinstance(bp.value.value, Function)
    assert pair.value.fields[0] is main.params[0]
    assert isinstance(call.value.op, Function) and call.value.args == (pair.var, bp.var)
    assert isinstance(seed.value, RefWrite) and seed.value.value.op == Op("ones_like")
    assert isinstance(run.value.op, RefRead) and run.value.op.ref is bp.var
    assert isinstance(body, Tuple) and isinstance(body.fields[0], TupleGetItem)
    rev = call.value.op
    assert [p.name_hint for p in rev.params] == ["x", "bp"]
    assert rev.params[0].type_annotation == TupleType((t, RefType(t)))
    inner, ret = let_chain(rev.body)
    assert [b.var.name_hint for b in inner] == [f"x_{i}" for i in (1, 2, 3, 4, 5, 6, 7, 8, 29)]
    assert ret is inner[6].var
    closure = inner[-1].value.value
    assert isinstance(closure, Function) and closure.params == ()
    cl, cl_body = let_chain(closure.body)
    expect = [12, 9, 13, 14, 15, 16, 17, 18, 10, 19, 20, 21, 22, 23, 24, 11, 25, 26, 27, 28]
    assert [b.var.name_hint for b in cl] == [f"x_{i}" for i in expect]
    assert cl_body is cl[-1].var
    ops = [b.value.op.name for b in cl if isinstance(b.value, Call) and isinstance(b.value.op, Op)]
    assert ops == ["multiply", "collapse_sum_like", "add"] * 2
    check_no_sharing(main, "output")


# ------------------------------------------------------------------------------------- the seed


def _seed_closed_form(x, y, w, b):
    z = x @ w.T + b
    m = z.max(axis=1, keepdims=True)
    ls = z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    n = x.shape[0]
    loss = -(ls * y).sum() / n
    g_ls = -y / n
    g_z = g_ls - g_ls.sum(axis=1, keepdims=True) * np.exp(ls)
    return loss, z, (g_z @ w, -ls / n, g_z.T @ x, g_z.sum(axis=0))


def test_seed_matches_closed_form(seed_path):
    mod = infer_types(parse_file(seed_path)).module
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(s).astype("float32") for s in ((5, 10), (5, 20), (20, 10), (20,))]
    (loss_v, pred), grads = evaluate(gradient_module(mod), args)
    c_loss, c_pred, c_grads = _seed_closed_form(*(a.astype("float64") for a in args))
    np.testing.assert_allclose(loss_v, c_loss, rtol=1e-4)
    np.testing.assert_allclose(pred, c_pred, rtol=1e-4, atol=1e-5)
    for got, want in zip(grads, c_grads, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)


def test_seed_float64_finite_differences(seed_path):
    mod = infer_types(parse(seed_path.read_text().replace("float32", "float64"))).module
    rng = np.random.default_rng(4)
    args = [rng.standard_normal(s) for s in ((5, 10), (5, 20), (20, 10), (20,))]
    check_numeric(mod, args)


# ------------------------------------------------------------------------- programs, numerically

T3 = "Tensor[(3), float64]"
T23 = "Tensor[(2, 3), float64]"


def test_tuples_let_bound_and_projected():
    mod = typed(f"def @main(%x: {T3}, %y: {T3}) {{ let %t = (%x * %y, %x + %y); %t.0 * %t.1 }}")
    check_numeric(mod, [rand(3), rand(3, seed=1)])


def test_tuple_result_seeds_field_zero_only():
    mod = typed(f"def @main(%x: {T3}, %y: {T3}) {{ (sum(%x * %y), (%x, exp(%y))) }}")
    g = check_numeric(mod, [rand(3), rand(3, seed=1)])
    (s, (x, ey)), _ = evaluate(g, [rand(3), rand(3, seed=1)])
    assert ey.shape == (3,)


@pytest.mark.parametrize("cond", [True, False])
def test_if(cond):
    mod = typed(f"def @main(%c: bool, %x: {T3}) {{\n"
                "  if (%c) { exp(%x) * %x } else { log(%x) } }")
    check_numeric(mod, [np.array(cond), rand(3, lo=0.5, hi=2.0)])


def test_if_on_computed_condition():
    mod = typed(f"""def @main(%x: {T3}, %y: {T3}) {{
      let %c = less_equal(sum(%x), sum(%y));
      if (%c) {{ %x * %y }} else {{ %x - %y }} }}""")
    check_numeric(mod, [rand(3), rand(3, seed=1)])
    check_numeric(mod, [rand(3, seed=1), rand(3)])


def test_let_bound_closure_capturing_a_param():
    mod = typed(f"""def @main(%x: {T3}) {{
      let %f = fn (%y: {T3}) {{ %y * %x }};
      %f(%x) + %f(%f(%x)) }}""")
    check_numeric(mod, [rand(3)])


def test_program_with_references():
    """TVM's test_ref: the input itself writes and reads a cell."""
    mod = typed(f"""def @main(%x: {T3}) {{
      let %r = ref(%x);
      let %u = ref_write(%r, ref_read(%r) * %x);
      let %v = ref_write(%r, ref_read(%r) + sin(%x));
      ref_read(%r) }}""")
    g = check_numeric(mod, [rand(3)])
    assert ref_counts(g)[0] > 3


def test_constants_are_ad_values():
    mod = typed(f"""def @main(%x: {T3}) {{
      %x * 2.5f64 + %x * %x }}""")
    check_numeric(mod, [rand(3)])


def test_global_function_callee_gets_a_grad_global(capsys):
    mod = typed(f"""def @double(%x: {T3}) -> {T3} {{ %x + %x }}
    def @main(%x: {T3}) -> {T3} {{ @double(@double(%x)) * %x }}""")
    fn, out = gradient(GlobalVar("main"), mod)
    assert set(out.functions) == {"double", "main", "double_grad"}
    dg = out["double_grad"]
    assert [p.name_hint for p in dg.params] == ["x", "bp"]
    assert dg.params[-1].type_annotation == BPT
    calls = [n for n in post_order(fn) if isinstance(n, Call) and n.op == GlobalVar("double_grad")]
    assert len(calls) == 2 and all(len(c.args) == 2 for c in calls)
    check_numeric(mod, [rand(3)])


def test_recursive_global_over_an_adt():
    """A global that recurses on a nat ADT (the shape of TVM's test_pow)."""
    mod = typed(f"""type nat {{ z, s(nat) }}
    def @pow(%n: nat, %x: {T3}) -> {T3} {{
      match (%n) {{ s(%m) => @pow(%m, %x) * %x, z => ones_like(%x) }} }}
    def @main(%x: {T3}) -> {T3} {{ @pow(s(s(s(z))), %x) }}""")
    g = check_numeric(mod, [rand(3)])
    assert "pow_grad" in g.functions


NAT_ITERATE = """type nat { zero, succ(nat) }
def @nat_iterate[A](%f: fn(A) -> A, %num: nat) -> fn(A) -> A {
  match %num {
    zero => fn(%x: A) -> A { %x },
    succ(%y) => fn (%i: A) { %f(@nat_iterate(%f, %y)(%i)) }
  }
}
"""


def test_polymorphic_global_is_differentiated():
    """TVM's test_pow: @nat_iterate[A] (nat.rly) applied three times to x + x; v0.19 requires
    only the entry to be monomorphic, so @nat_iterate_grad keeps its type parameter."""
    mod = typed(NAT_ITERATE + """def @main(%i: Tensor[(10, 10), float32]) {
      %0 = fn (%x: Tensor[(10, 10), float32]) { %x + %x };
      @nat_iterate(%0, succ(succ(succ(zero))))(%i)
    }""")
    g = gradient_module(mod)
    it = g.functions["nat_iterate_grad"]
    assert [t.name for t in it.type_params] == ["A"]
    assert it.params[-1].type_annotation == BPT  # the backpropagator cell comes last
    t = TensorType((10, 10), "float32")
    assert infer_types(g).type_of(g["main"]).ret_type == TupleType((t, TupleType((t,))))
    i = rand(10, 10).astype(np.float32)
    forward, (grad_i,) = evaluate(g, [i])
    np.testing.assert_allclose(forward, 8 * i, rtol=1e-6)
    np.testing.assert_allclose(grad_i, np.full_like(i, 8))


def test_polymorphic_global_on_float64_against_finite_differences():
    mod = typed(NAT_ITERATE + f"""def @main(%i: {T3}) {{
      %0 = fn (%x: {T3}) {{ %x * %x }};
      @nat_iterate(%0, succ(succ(zero)))(%i)
    }}""")
    check_numeric(mod, [rand(3, lo=0.5, hi=1.5)])  # x^4


def _third_power() -> Module:
    return typed(f"def @main(%x: {T3}) {{ %x * %x * %x }}")


def test_second_order_through_a_function_literal():
    """TVM's test_square_second_order: gradient of fn(y) { grad(f)(y).1.0 }."""
    first, _ = gradient(GlobalVar("main"), _third_power())
    first = infer_types(Module({"main": first})).module["main"]
    y = Var("y", TensorType((3,), "float64"))
    outer = Function((y,), TupleGetItem(TupleGetItem(Call(first, (y,)), 1), 0))
    mod = infer_types(Module({"main": outer})).module
    g = check_numeric(mod, [rand(3)])  # d/dy of 3y^2 by finite differences
    x = rand(3)
    (d1, (d2,)) = evaluate(g, [x])
    np.testing.assert_allclose(d1, 3 * x * x)
    np.testing.assert_allclose(d2, 6 * x)
    check_no_sharing(g["main"], "output")


def test_gradient_of_a_gradient_function_directly():
    """The input body is full of refs, closures and closure calls; field 0 is x^3."""
    first = gradient_module(_third_power())
    g = check_numeric(first, [rand(3)])
    x = rand(3)
    (_, (d,)), (dd,) = evaluate(g, [x])
    np.testing.assert_allclose(d, 3 * x * x)
    np.testing.assert_allclose(dd, 3 * x * x)
    assert ref_counts(g)[2] > ref_counts(first)[2]


def test_checkpoint_recomputes():
    mod = typed(f"def @main(%x: {T3}) {{ annotation.checkpoint(exp(%x) * %x) * %x }}")
    check_numeric(mod, [rand(3)])


def test_output_prints_and_reparses_to_the_same_values():
    g = gradient_module(typed(f"def @main(%x: {T3}, %y: {T3}) {{ tanh(%x) * %y }}"))
    again = infer_types(parse(astext(g))).module
    args = [rand(3), rand(3, seed=2)]
    assert_tree_close(evaluate(again, args), evaluate(g, args))


def test_long_let_chain():
    """10,000 lets: the transform walks let chains without recursion."""
    n = 5_000
    lines = [f"let %t{i} = (%y{i - 1}, %x); let %y{i} = %t{i}.0;" for i in range(1, n + 1)]
    src = f"def @main(%x: {T3}) {{ let %y0 = %x;\n" + "\n".join(lines) + f"\n %y{n} * %x }}"
    g = gradient_module(typed(src))
    assert ref_counts(g) == [3, 6, 4]
    x = rand(3)
    (y, (d,)) = evaluate(g, [x])
    np.testing.assert_allclose(y, x * x)
    np.testing.assert_allclose(d, 2 * x)


def test_long_backpropagator_chain():
    """1,000 op calls: 1,000 closures, each calling the previous one."""
    n = 1_000
    lines = [f"let %y{i} = add(%y{i - 1}, %x);" for i in range(1, n + 1)]
    src = f"def @main(%x: {T3}) {{ let %y0 = %x;\n" + "\n".join(lines) + f"\n %y{n} }}"
    g = gradient_module(typed(src))
    assert ref_counts(g) == [2 + n, 2 + 4 * n, 1 + 3 * n]
    x = rand(3)
    (y, (d,)) = evaluate(g, [x])
    np.testing.assert_allclose(y, (n + 1) * x)
    np.testing.assert_allclose(d, np.full(3, n + 1.0))


# ------------------------------------------------------------------------------ every rule once

UNARY = {
    "log": (0.5, 2.0), "log2": (0.5, 2.0), "log10": (0.5, 2.0), "exp": (-1, 1), "sqrt": (0.5, 2),
    "sin": (-1, 1), "cos": (-1, 1), "tan": (-1, 1), "sinh": (-1, 1), "cosh": (-1, 1),
    "asin": (-0.8, 0.8), "acos": (-0.8, 0.8), "atan": (-1, 1), "asinh": (-1, 1),
    "acosh": (1.2, 3.0), "atanh": (-0.8, 0.8), "abs": (-1, 1), "erf": (-1, 1),
    "sigmoid": (-2, 2), "tanh": (-2, 2), "negative": (-1, 1), "nn.relu": (-1, 1),
    "copy": (-1, 1), "nn.softmax": (-1, 1), "nn.log_softmax": (-1, 1),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_rule(name):
    lo, hi = UNARY[name]
    mod = typed(f"def @main(%x: {T23}, %w: {T23}) {{ {name}(%x) * %w }}")
    check_numeric(mod, [rand(2, 3, lo=lo, hi=hi), rand(2, 3, seed=5)])


CASES = {
    "broadcast_add_sub": ("%a: Tensor[(2, 3), float64], %b: Tensor[(3), float64]",
                          "(%a + %b) * (%a - %b) * %a", [(2, 3), (3,)]),
    "divide_broadcast": ("%a: Tensor[(2, 3), float64], %b: Tensor[(2, 1), float64]",
                         "%a / %b", [(2, 3), (2, 1)]),
    "collapse_sum_like": ("%a: Tensor[(2, 3), float64], %b: Tensor[(3), float64]",
                          "collapse_sum_like(%a * %a, %b) * %b", [(2, 3), (3,)]),
    "where_less_equal": ("%a: Tensor[(2, 3), float64], %b: Tensor[(2, 3), float64]",
                         "where(less_equal(%a, %b), %a * %a, %b * %a)", [(2, 3), (2, 3)]),
    "not_equal": ("%a: Tensor[(2, 3), float64]",
                  "cast(not_equal(%a, zeros_like(%a)), dtype=\"float64\") * %a", [(2, 3)]),
    "zeros_ones_like": ("%a: Tensor[(2, 3), float64]",
                        "%a * ones_like(%a) + zeros_like(%a * %a)", [(2, 3)]),
    "zeros_ones": ("%a: Tensor[(2, 3), float64]",
                   "%a * ones(shape=[2, 3], dtype=\"float64\")"
                   " + zeros(shape=[3], dtype=\"float64\")",
                   [(2, 3)]),
    "sum_axis": ("%a: Tensor[(2, 3), float64]", "sum(%a * %a, axis=[1]) * sum(%a)", [(2, 3)]),
    "sum_keepdims_exclude": ("%a: Tensor[(2, 3), float64]",
                             "sum(%a * %a, axis=[1], keepdims=True, exclude=True) * %a", [(2, 3)]),
    "max": ("%a: Tensor[(2, 3), float64]", "max(%a, axis=[1]) * max(%a)", [(2, 3)]),
    "mean": ("%a: Tensor[(2, 3), float64]",
             "mean(%a * %a, axis=[0]) * mean(%a, axis=[1], keepdims=True)", [(2, 3)]),
    "variance": ("%a: Tensor[(2, 3), float64]",
                 "variance(%a, mean(%a, axis=[1], keepdims=True), axis=[1], keepdims=True) * %a",
                 [(2, 3)]),
    "variance_unbiased": ("%a: Tensor[(2, 3), float64]",
                          "variance(%a, mean(%a, axis=[0], keepdims=True), axis=[0],"
                          " unbiased=True)",
                          [(2, 3)]),
    "dense_bias_add": ("%a: Tensor[(2, 3), float64], %w: Tensor[(4, 3), float64], "
                       "%b: Tensor[(4), float64]",
                       "tanh(nn.bias_add(nn.dense(%a, %w, units=4), %b))", [(2, 3), (4, 3), (4,)]),
    "bias_add_axis1": ("%a: Tensor[(2, 3, 2), float64], %b: Tensor[(3), float64]",
                       "nn.bias_add(%a, %b) * %a", [(2, 3, 2), (3,)]),
    "matmul_nn": ("%a: Tensor[(2, 3), float64], %b: Tensor[(3, 4), float64]",
                  "nn.matmul(%a, %b) * nn.matmul(%a, %b)", [(2, 3), (3, 4)]),
    "matmul_tn": ("%a: Tensor[(3, 2), float64], %b: Tensor[(3, 4), float64]",
                  "sin(nn.matmul(%a, %b, transpose_a=True))", [(3, 2), (3, 4)]),
    "matmul_nt": ("%a: Tensor[(2, 3), float64], %b: Tensor[(4, 3), float64]",
                  "sin(nn.matmul(%a, %b, transpose_b=True))", [(2, 3), (4, 3)]),
    "matmul_tt": ("%a: Tensor[(3, 2), float64], %b: Tensor[(4, 3), float64]",
                  "sin(nn.matmul(%a, %b, transpose_a=True, transpose_b=True))", [(3, 2), (4, 3)]),
    "batch_matmul_nt": ("%a: Tensor[(2, 2, 3), float64], %b: Tensor[(2, 4, 3), float64]",
                        "sin(nn.batch_matmul(%a, %b))", [(2, 2, 3), (2, 4, 3)]),
    "batch_matmul_nn": ("%a: Tensor[(2, 2, 3), float64], %b: Tensor[(2, 3, 4), float64]",
                        "sin(nn.batch_matmul(%a, %b, transpose_b=False))", [(2, 2, 3), (2, 3, 4)]),
    "batch_matmul_tn": ("%a: Tensor[(2, 3, 2), float64], %b: Tensor[(2, 3, 4), float64]",
                        "sin(nn.batch_matmul(%a, %b, transpose_a=True, transpose_b=False))",
                        [(2, 3, 2), (2, 3, 4)]),
    "batch_matmul_tt": ("%a: Tensor[(2, 3, 2), float64], %b: Tensor[(2, 4, 3), float64]",
                        "sin(nn.batch_matmul(%a, %b, transpose_a=True))", [(2, 3, 2), (2, 4, 3)]),
    "cross_entropy": ("%a: Tensor[(2, 3), float64], %b: Tensor[(2, 3), float64]",
                      "nn.cross_entropy(sigmoid(%a), %b)", [(2, 3), (2, 3)]),
    "cross_entropy_with_logits": ("%a: Tensor[(2, 3), float64], %b: Tensor[(2, 3), float64]",
                                  "nn.cross_entropy_with_logits(nn.log_softmax(%a), %b)",
                                  [(2, 3), (2, 3)]),
    "batch_flatten": ("%a: Tensor[(2, 3, 2), float64]",
                      "sin(nn.batch_flatten(%a))", [(2, 3, 2)]),
    "transpose_reshape": ("%a: Tensor[(2, 3, 2), float64]",
                          "sin(transpose(%a, axes=[1, 2, 0])) * reshape(%a, newshape=[3, 2, 2])",
                          [(2, 3, 2)]),
    "transpose_default": ("%a: Tensor[(2, 3), float64]", "sin(transpose(%a, axes=None))", [(2, 3)]),
    "reshape_like": ("%a: Tensor[(2, 3), float64], %b: Tensor[(3, 2), float64]",
                     "reshape_like(%a * %a, %b) * %b", [(2, 3), (3, 2)]),
    "squeeze_expand_dims": ("%a: Tensor[(2, 1, 3), float64]",
                            "sin(expand_dims(squeeze(%a, axis=[1]), axis=0))", [(2, 1, 3)]),
    "concatenate": ("%a: Tensor[(2, 3), float64], %b: Tensor[(2, 2), float64]",
                    "sin(concatenate((%a, %b * %b), axis=1))", [(2, 3), (2, 2)]),
    "stack": ("%a: Tensor[(2, 3), float64], %b: Tensor[(2, 3), float64]",
              "sin(stack((%a, %b * %a), axis=1))", [(2, 3), (2, 3)]),
    "cast_cast_like": ("%a: Tensor[(2, 3), float64], %b: Tensor[(2, 3), float32]",
                       "cast_like(cast(%a, dtype=\"float32\") * %b, %a) * %a",
                       [(2, 3), ("f32", (2, 3))]),
    "clip": ("%a: Tensor[(2, 3), float64]", "clip(%a, a_min=-0.5f, a_max=0.5f) * %a", [(2, 3)]),
    "strided_slice": ("%a: Tensor[(4, 3), float64]",
                      "sin(strided_slice(%a, begin=[0, 1], end=[4, 3], strides=[2, 1]))",
                      [(4, 3)]),
    "shape_of": ("%a: Tensor[(2, 3), float64]",
                 "%a * cast(take(shape_of(%a), 1, axis=0), dtype=\"float64\")", [(2, 3)]),
    "take_axis0": ("%a: Tensor[(4, 3), float64], %i: Tensor[(3), int32]",
                   "sin(take(%a, %i, axis=0))", [(4, 3), "idx"]),
    "take_flat": ("%a: Tensor[(2, 3), float64], %i: Tensor[(2, 2), int32]",
                  "sin(take(%a, %i))", [(2, 3), "idx"]),
    "one_hot": ("%i: Tensor[(3), int32], %on: float64, %off: float64",
                "one_hot(%i, %on * %on, %off, depth=4, dtype=\"float64\") * %on", ["idx", (), ()]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rule(case):
    params, body, shapes = CASES[case]
    mod = typed(f"def @main({params}) {{ {body} }}")
    args = []
    for k, s in enumerate(shapes):
        if s == "idx":
            idx = [[5, 0], [5, 2]] if case == "take_flat" else [3, 0, 3]
            args.append(np.array(idx, dtype="int32"))
        elif s and s[0] == "f32":
            args.append(rand(*s[1], seed=k).astype("float32"))
        else:
            args.append(rand(*s, seed=k) if s else np.array(0.7 + 0.3 * k))
    if case == "cast_cast_like":  # float32 rounding of a linear map: large steps are exact
        check_numeric(mod, args, eps=1e-2, rtol=1e-5, atol=1e-6)
    else:
        check_numeric(mod, args)


def test_every_registered_rule_is_exercised():
    exercised: set[str] = set()
    for src in [f"def @main({p}) {{ {b} }}" for p, b, _ in CASES.values()] + [
        f"def @main(%x: {T23}) {{ {n}(%x) }}" for n in UNARY
    ]:
        for n in post_order(typed(src)["main"]):
            if isinstance(n, Call) and isinstance(n.op, Op):
                exercised.add(n.op.name)
    exercised |= {"add", "subtract", "multiply", "exp", "log", "annotation.checkpoint"}
    exercised |= CONV_POOL_RULES  # run by tests/test_grad_conv_pool.py
    assert set(RULES) <= exercised, sorted(set(RULES) - exercised)


# ---------------------------------------------------------------------------------------- errors


def _error(func, mod=None) -> str:
    with pytest.raises(RelayTypeError) as info:
        gradient(func, mod)
    return info.value.message


def test_rejects_op_without_rule_naming_it():
    mod = typed(f"def @main(%x: {T3}) {{ floor(%x) }}")
    msg = _error(GlobalVar("main"), mod)
    assert "floor" in msg and "no gradient" in msg


def test_rejects_non_tensor_parameter():
    mod = typed(f"def @main(%x: ({T3}, {T3})) {{ %x.0 * %x.1 }}")
    assert _error(GlobalVar("main"), mod) == (
        f"parameter %x has type ({T3}, {T3}); gradient needs tensor parameters")


def test_rejects_type_parameters():
    x = Var("x", TensorType((3,), "float64"))
    fn = Function((x,), x, None, (TypeVar("A"),))
    assert "type parameters" in _error(fn)


def test_rejects_dag_input():
    x = Var("x", TensorType((3,), "float64"))
    shared = Call(Op("exp"), (x,))
    fn = Function((x,), Call(Op("add"), (shared, shared)))
    assert "shared" in _error(fn)


def test_rejects_other_modes_and_missing_globals():
    mod = _third_power()
    with pytest.raises(RelayTypeError, match="FirstOrderGradient module pass"):
        gradient(GlobalVar("main"), mod, mode="first_order")  # v0.19: no module in first order
    with pytest.raises(RelayTypeError, match="unknown gradient mode 'zeroth'"):
        gradient(GlobalVar("main"), mod, mode="zeroth")
    assert "not defined" in _error(GlobalVar("nope"), mod)


def test_errors_print_types_in_relay_syntax():
    """An output the seed cannot reach names its type as Relay text, not a Python repr."""
    mod = typed(f"def @main(%x: {T3}) {{ ref(%x) }}")
    msg = _error(GlobalVar("main"), mod)
    assert msg == f"cannot seed the gradient of a result of type ref({T3})"
    assert "TensorType(" not in msg


def test_rule_errors_print_types_in_relay_syntax():
    """A gradient rule's own message (here: a dynamic shape) formats the type as Relay too."""
    mod = typed("def @main(%x: Tensor[(?, 3), float32]) { sum(%x) }")
    assert _error(GlobalVar("main"), mod) == (
        "gradient of sum: gradient rule needs a static tensor type, got Tensor[(?, 3), float32]")


def test_error_is_located():
    mod = infer_types(parse(HEADER + f"def @main(%x: {T3}) {{\n  floor(%x)\n}}",
                            source_name="prog.relay")).module
    with pytest.raises(RelayTypeError) as info:
        gradient(GlobalVar("main"), mod)
    assert info.value.span is not None and info.value.span.line == 3


def test_function_outside_a_module():
    x = Var("x", TensorType((3,), "float64"))
    fn = Function((x,), Call(Op("multiply"), (x, x)))
    g, out = gradient(fn)
    assert out.functions == {}
    lets, _ = let_chain(g.body)
    assert isinstance(lets[0], Let) and lets[0].var.type_annotation == BPT
    (val, (d,)) = evaluate(infer_types(Module({"main": g})).module, [np.array([1.0, 2.0, 3.0])])
    np.testing.assert_allclose(d, [2.0, 4.0, 6.0])
