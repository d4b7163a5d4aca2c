"""Gradient rules beyond conv2d and the 2-D pools: v0.19's (max, mean, expand_dims,
strided_slice, gather_nd, collapse_sum_to) and aliaslog's extensions where v0.19 has none
(split, conv2d_transpose, conv3d, adaptive_avg_pool3d).

Each rule runs through `gradient_module` and the interpreter and is compared with central
finite differences in float64 (`check_gradient`); the calls a v0.19 rule emits are checked in
the printed program; the registry says which rules are extensions.
"""

from __future__ import annotations

import numpy as np
import pytest

from extractor.relay import ops
from extractor.relay.ast import Call, Module, Op, post_order
from extractor.relay.interpreter import evaluate
from extractor.relay.transforms.gradient import gradient_module
from tests.support.relay_ops import T, check_gradient, rand, run_op, typed


def emitted(mod: Module) -> set[str]:
    """The op names a gradient program calls."""
    names: set[str] = set()
    for fn in mod.functions.values():
        names |= {n.op.name for n in post_order(fn) if isinstance(n, Call)
                  and isinstance(n.op, Op)}
    return names


# ----------------------------------------------------------------------------- v0.19's rules


@pytest.mark.parametrize("attrs", ["", "axis=[1]", "axis=[0, 2], keepdims=True",
                                   "axis=[1], exclude=True"])
def test_max_gradient(attrs):
    sep = ", " if attrs else ""
    text = check_gradient(f"%x: {T(2, 3, 4)}", f"sin(max(%x{sep}{attrs}))", [(2, 3, 4)])
    # v0.19 repeats the max back over the reduced axes (full_like without an axis)
    assert ("full_like(" in text) == (attrs == "")
    assert ("repeat(" in text) == (attrs != "")


def test_max_gradient_splits_ties_evenly():
    mod = typed(f"%x: {T(1, 4)}", "max(%x, axis=[1])")
    x = np.array([[1.0, 3.0, 3.0, 0.0]])
    _, (dx,) = evaluate(gradient_module(mod), [x])
    np.testing.assert_array_equal(dx, [[0.0, 0.5, 0.5, 0.0]])


@pytest.mark.parametrize("attrs", ["", "axis=[1]", "axis=[0, 2], keepdims=True"])
def test_mean_gradient(attrs):
    sep = ", " if attrs else ""
    text = check_gradient(f"%x: {T(2, 3, 4)}", f"sin(mean(%x{sep}{attrs}))", [(2, 3, 4)])
    assert "divide(" not in text  # v0.19 multiplies by the constant 1 / count


def test_expand_dims_gradient_squeezes():
    text = check_gradient(f"%x: {T(2, 3)}", "sin(expand_dims(%x, axis=1, num_newaxis=2))",
                          [(2, 3)])
    assert text.count("squeeze(") == 2 and "reshape_like(" not in text


@pytest.mark.parametrize("attrs", [
    "begin=[0, 1], end=[2, 3], strides=[1, 1]",
    "begin=[1, 0], end=[3, 4], strides=[2, 3]",
    'begin=[0, 1], end=[-1, 2], strides=[1], slice_mode="size"',
    "begin=[2, 3], end=[0, 0], strides=[-1, -2]",
])
def test_strided_slice_gradient_is_strided_set(attrs):
    text = check_gradient(f"%x: {T(3, 5)}", f"sin(strided_slice(%x, {attrs}, axes=None))",
                          [(3, 5)])
    assert "strided_set(" in text


def test_gather_nd_gradient_scatters_with_add():
    mod = typed(f"%x: {T(3, 4)}, %i: Tensor[(1, 5), int32]", "sin(gather_nd(%x, %i))")
    gmod = gradient_module(mod)
    assert "scatter_nd" in emitted(gmod)
    x, idx = rand(3, 4), np.array([[0, 2, 0, 1, 2]], dtype="int32")
    _, (dx, di) = evaluate(gmod, [x, idx])
    want = np.zeros((3, 4))
    for r in idx[0]:
        want[r] += np.cos(x[r])  # a row gathered twice gets both gradients
    np.testing.assert_allclose(dx, want, rtol=1e-12)
    np.testing.assert_array_equal(di, np.zeros_like(idx))


def test_contrib_reverse_reshape_gradient_is_reshape_like():
    text = check_gradient(f"%x: {T(4, 3, 2)}",
                          "sin(contrib_reverse_reshape(%x, newshape=[-1, 0]))", [(4, 3, 2)])
    assert "reshape_like(" in text


def test_collapse_sum_to_gradient():
    mod = typed(f"%x: {T(2, 3)}, %s: Tensor[(1), int64]",
                "sin(collapse_sum_to(%x, %s))")
    gmod = gradient_module(mod)
    x = rand(2, 3)
    _, (dx, _) = evaluate(gmod, [x, np.array([3])])
    np.testing.assert_allclose(dx, np.broadcast_to(np.cos(x.sum(0)), (2, 3)), rtol=1e-12)


# ---------------------------------------------------------------------- aliaslog extensions


def test_the_extensions_are_marked_in_the_registry():
    marked = {name for name, op in ops.OPS.items() if op.gradient_is_extension}
    assert marked == {"split", "nn.conv2d_transpose", "nn.conv3d", "nn.adaptive_avg_pool3d"}
    for name in ("nn.conv2d", "max", "gather_nd", "strided_slice"):
        assert not ops.OPS[name].gradient_is_extension


@pytest.mark.parametrize(("sections", "axis", "used"), [
    ("3", 1, "add(sum(sin(%p.0)), sum(%p.2))"),  # the unused field's gradient stays zero
    ("[1, 4]", 1, "sum(sin(%p.1))"),
    ("2", 0, "multiply(%p.0, %p.1)"),
])
def test_split_gradient(sections, axis, used):
    xs = (4, 6) if axis == 1 else (4, 3)
    body = f"let %p = split(%x, indices_or_sections={sections}, axis={axis}); {used}"
    text = check_gradient(f"%x: {T(*xs)}", body, [xs])
    assert "concatenate(" in text


@pytest.mark.parametrize(("xs", "ws", "attrs"), [
    ((1, 2, 3, 3), (2, 3, 3, 3), ""),
    ((1, 2, 3, 4), (2, 2, 2, 3), "strides=[2, 1], padding=[1, 0, 0, 1]"),
    ((2, 4, 3, 3), (4, 1, 3, 3), "strides=[2, 2], padding=[1, 1], output_padding=[1, 1], "
                                 "groups=2"),
    ((1, 1, 3, 3), (1, 2, 2, 2), "dilation=[2, 1]"),
])
def test_conv2d_transpose_gradient(xs, ws, attrs):
    body = f"sin(nn.conv2d_transpose(%x, %w{', ' if attrs else ''}{attrs}))"
    text = check_gradient(f"%x: {T(*xs)}, %w: {T(*ws)}", body, [xs, ws])
    assert "nn.conv2d(" in text and "nn.conv2d_backward_weight(" in text


@pytest.mark.parametrize(("xs", "ws", "attrs"), [
    ((1, 2, 4, 4, 3), (3, 2, 2, 2, 2), ""),
    ((1, 1, 5, 4, 4), (2, 1, 3, 2, 2), "strides=[2, 1, 2], padding=[1, 0, 1]"),
    ((2, 1, 5, 5, 3), (1, 1, 2, 2, 1), "dilation=[2, 1, 1], padding=[0, 1, 0, 1, 0, 0]"),
])
def test_conv3d_gradient(xs, ws, attrs):
    body = f"sin(nn.conv3d(%x, %w{', ' if attrs else ''}{attrs}))"
    text = check_gradient(f"%x: {T(*xs)}, %w: {T(*ws)}", body, [xs, ws])
    assert "nn.conv3d_transpose(" in text


@pytest.mark.parametrize("attrs", ["output_size=[1, 1, 1]", "output_size=[2, 3, 1]",
                                   'output_size=[1, 2, 2], layout="NDHWC"'])
def test_adaptive_avg_pool3d_gradient(attrs):
    xs = (1, 3, 3, 4, 2) if "NDHWC" in attrs else (1, 2, 3, 4, 2)
    check_gradient(f"%x: {T(*xs)}", f"sin(nn.adaptive_avg_pool3d(%x, {attrs}))", [xs])


def test_the_conv3d_transpose_kernel_is_the_conv3d_vjp():
    """conv3d_transpose is conv3d's transpose, checked one basis vector at a time."""
    w = rand(2, 3, 2, 2, 2, seed=1)
    x_shape = (1, 3, 3, 4, 3)
    conv = dict(strides=(2, 1, 1), padding=(1, 0, 0))
    out = run_op("nn.conv3d", [np.zeros(x_shape), w], **conv)
    g = rand(*out.shape, seed=2)
    got = run_op("nn.conv3d_transpose", [g, w], **conv, output_padding=(1, 0, 0))
    ref = np.zeros(x_shape)
    for idx in np.ndindex(*x_shape):
        e = np.zeros(x_shape)
        e[idx] = 1.0
        ref[idx] = np.sum(run_op("nn.conv3d", [e, w], **conv) * g)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
