"""The v0.19 operators added for TVM's tests and the zoo: type relations read from parsed text,
numpy kernels against direct loops or v0.19's documented examples, and bad attributes as type
errors.

Families: scans and sorts (`algorithm`), gather / scatter (`indexing`), tile / repeat /
reverse / layout_transform (`transform`), norms and pad (`nn`), conv1d and conv3d_transpose
(`conv`), image.resize2d (`image`), predicates and fast math (`elementwise`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from extractor.relay.interpreter import evaluate
from extractor.relay.ops import OPS
from extractor.relay.ops.registry import OpError
from tests.support.relay_ops import T, rand, ret_type, run_op, type_error, typed


def run_text(params: str, body: str, args: list[np.ndarray]) -> object:
    """Parse, type-check and interpret a one-function program."""
    return evaluate(typed(params, body), args)


# ------------------------------------------------------------------------------ scans, sorts


def test_cumsum_and_cumprod():
    x = np.arange(1, 7, dtype="int32").reshape(2, 3)
    np.testing.assert_array_equal(run_op("cumsum", [x], axis=1), [[1, 3, 6], [4, 9, 15]])
    np.testing.assert_array_equal(run_op("cumsum", [x]), [1, 3, 6, 10, 15, 21])
    np.testing.assert_array_equal(run_op("cumsum", [x], axis=0, exclusive=True),
                                  [[0, 0, 0], [1, 2, 3]])
    np.testing.assert_array_equal(run_op("cumprod", [x], axis=1, exclusive=True),
                                  [[1, 1, 2], [1, 4, 20]])
    assert run_op("cumsum", [x], dtype="float32").dtype == np.float32
    assert ret_type(f"%x: {T(2, 3, dtype='int32')}", "cumsum(%x)").shape == (6,)
    t = ret_type(f"%x: {T(2, 3, dtype='int32')}", 'cumprod(%x, axis=-1, dtype="int64")')
    assert (t.shape, t.dtype) == ((2, 3), "int64")
    assert "axis" in type_error(f"%x: {T(2, 3)}", "cumsum(%x, axis=2)")


def test_sort_argsort_are_stable_both_ways():
    x = np.array([[3.0, 1.0, 3.0, 2.0, 1.0]])
    np.testing.assert_array_equal(run_op("argsort", [x]), [[1, 4, 3, 0, 2]])
    # descending keeps equal elements in their original order too (std::stable_sort with >)
    np.testing.assert_array_equal(run_op("argsort", [x], is_ascend=False), [[0, 2, 3, 1, 4]])
    np.testing.assert_array_equal(run_op("sort", [x], is_ascend=False), [[3, 3, 2, 1, 1]])
    assert run_op("argsort", [x], dtype="int64").dtype == np.int64
    assert ret_type(f"%x: {T(2, 5)}", "argsort(%x, axis=0)").dtype == "int32"


def test_topk():
    x = np.array([[1.0, 4.0, 2.0, 4.0], [0.0, -1.0, 5.0, 3.0]])
    values, indices = run_op("topk", [x], k=2)
    np.testing.assert_array_equal(values, [[4, 4], [5, 3]])
    np.testing.assert_array_equal(indices, [[1, 3], [2, 3]])
    np.testing.assert_array_equal(run_op("topk", [x], k=1, axis=0, ret_type="indices",
                                         is_ascend=True), [[1, 1, 0, 1]])
    assert run_op("topk", [x], k=0, ret_type="values").shape == (2, 4)  # k < 1: everything
    t = ret_type(f"%x: {T(2, 4)}", "%0 = topk(%x, k=3); %0.1")
    assert (t.shape, t.dtype) == ((2, 3), "int32")
    assert "ret type" in type_error(f"%x: {T(2, 4)}", 'topk(%x, k=1, ret_type="neither")')


@pytest.mark.parametrize(("is_sorted", "expected"), [
    # the examples of relay.unique's docstring (v0.19), `_` filled as the kernel fills them
    (False, ([4, 5, 1, 2, 3, 0, 0, 0], [0, 1, 2, 3, 4, 8, 8, 8], [0, 1, 2, 3, 4, 4, 0, 1], [5],
             [2, 2, 1, 1, 2, 0, 0, 0])),
    (True, ([1, 2, 3, 4, 5, 0, 0, 0], [2, 3, 4, 0, 1, 8, 8, 8], [3, 4, 0, 1, 2, 2, 3, 4], [5],
            [1, 1, 2, 2, 2, 0, 0, 0])),
])
def test_unique_is_v019s_docstring(is_sorted, expected):
    x = np.array([4, 5, 1, 2, 3, 3, 4, 5], dtype="int32")
    got = run_op("unique", [x], sorted=is_sorted, return_counts=True)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
    assert len(run_op("unique", [x], sorted=is_sorted)) == 4
    t = typed(f"%x: {T(8, dtype='int32')}", "unique(%x, return_counts=True)")["main"].ret_type
    assert len(t.fields) == 5 and t.fields[3].shape == (1,)


@pytest.mark.parametrize(("equation", "shapes", "ref"), [
    ("ij,jk->ik", [(2, 3), (3, 4)], lambda a, b: a @ b),
    ("ii", [(3, 3)], np.trace),
    ("ij,kj", [(2, 3), (4, 3)], lambda a, b: a @ b.T),  # implicit output: sorted letters
    ("...ij,...jk->...ik", [(5, 2, 3), (1, 3, 2)], lambda a, b: a @ b),
    ("i,j->ij", [(2,), (3,)], np.outer),
])
def test_einsum(equation, shapes, ref):
    args = [rand(*s, seed=k) for k, s in enumerate(shapes)]
    params = ", ".join(f"%a{k}: {T(*s)}" for k, s in enumerate(shapes))
    fields = ", ".join(f"%a{k}" for k in range(len(shapes)))
    body = f'einsum(({fields},), equation="{equation}")'
    want = np.asarray(ref(*args))
    assert ret_type(params, body).shape == want.shape
    np.testing.assert_allclose(run_text(params, body, args), want, rtol=1e-12)


def test_einsum_type_errors():
    assert "sizes" in type_error(f"%a: {T(2, 3)}, %b: {T(4, 4)}",
                                 'einsum((%a, %b), equation="ij,jk->ik")')
    assert "operands" in type_error(f"%a: {T(2, 3)}", 'einsum((%a,), equation="ij,jk")')


# ---------------------------------------------------------------------------- gather, scatter


def test_gather_is_take_along_axis():
    x = rand(3, 4)
    idx = np.array([[0, 2], [1, 1], [3, 0]], dtype="int32")
    got = run_op("gather", [x, idx], axis=1)
    want = np.array([[x[i, idx[i, j]] for j in range(2)] for i in range(3)])
    np.testing.assert_array_equal(got, want)
    assert ret_type(f"%x: {T(3, 4)}, %i: Tensor[(3, 2), int32]",
                    "gather(%x, %i, axis=1)").shape == (3, 2)
    assert "rank" in type_error(f"%x: {T(3, 4)}, %i: Tensor[(3), int32]",
                                "gather(%x, %i, axis=1)")
    with pytest.raises(OpError, match="out of range"):
        run_op("gather", [x, idx + 5], axis=1)


def test_gather_nd_with_batch_dims():
    x = rand(2, 3, 4)
    idx = np.array([[0, 1, 1], [2, 0, 1]], dtype="int32")  # (M=2, Y=3)
    np.testing.assert_array_equal(run_op("gather_nd", [x, idx]),
                                  [x[idx[0, y], idx[1, y]] for y in range(3)])
    bidx = np.array([[[2, 0], [1, 2]]], dtype="int32")  # (M=1, B=2, Y=2), batch_dims=1
    got = run_op("gather_nd", [x, bidx], batch_dims=1)
    want = np.array([[x[b, bidx[0, b, y]] for y in range(2)] for b in range(2)])
    np.testing.assert_array_equal(got, want)
    t = ret_type(f"%x: {T(2, 3, 4)}, %i: Tensor[(1, 2, 2), int32]",
                 "gather_nd(%x, %i, batch_dims=1)")
    assert t.shape == (2, 2, 4)


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "min", "max", "mean"])
def test_scatter_elements(reduction):
    x = rand(3, 4)
    idx = np.array([[1, -1, 1], [0, 2, 2], [3, 3, 0]], dtype="int64")
    upd = rand(3, 3, seed=1)
    got = run_op("scatter_elements", [x, idx, upd], axis=1, reduction=reduction)
    want = x.copy()
    for i, j in itertools.product(range(3), range(3)):
        k = idx[i, j] % 4
        v = upd[i, j]
        want[i, k] = {"update": v, "add": want[i, k] + v, "mul": want[i, k] * v,
                      "min": min(want[i, k], v), "max": max(want[i, k], v),
                      "mean": (want[i, k] + v) / 2}[reduction]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("mode", ["update", "add"])
def test_scatter_nd(mode):
    x = rand(3, 2)
    idx = np.array([[0, 2, 0]], dtype="int32")  # row 0 twice
    upd = rand(3, 2, seed=2)
    got = run_op("scatter_nd", [x, idx, upd], mode=mode)
    want = x.copy()
    for y in range(3):
        want[idx[0, y]] = upd[y] if mode == "update" else want[idx[0, y]] + upd[y]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert "Tensor[(3, 2), float64]" in type_error(
        f"%x: {T(3, 2)}, %i: Tensor[(1, 3), int32], %u: {T(3, 3)}", "scatter_nd(%x, %i, %u)")


def test_strided_set():
    x = np.zeros((4, 5))
    v = np.arange(6.0).reshape(2, 3)
    got = run_op("strided_set", [x, v, np.array([0, 0]), np.array([4, 5]), np.array([2, 2])])
    want = x.copy()
    want[0:4:2, 0:5:2] = v
    np.testing.assert_array_equal(got, want)
    # a negative stride counts from the end as topi's within_index does: rows 3, 1 (as numpy's
    # 3:0:-2), but columns 3, 1 where numpy's 4:0:-2 would pick 4, 2
    v = v[:, :2]
    got = run_op("strided_set", [x, v, np.array([3, 4]), np.array([0, 0]), np.array([-2, -2])])
    want = x.copy()
    want[np.ix_([3, 1], [3, 1])] = v
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------- tile, repeat, reverse, ...


def test_tile_repeat_reverse_full_like():
    x = rand(2, 3)
    assert ret_type(f"%x: {T(2, 3)}", "tile(%x, reps=[2, 1, 2])").shape == (2, 2, 6)
    np.testing.assert_array_equal(run_op("tile", [x], reps=(2, 1, 2)), np.tile(x, (2, 1, 2)))
    assert ret_type(f"%x: {T(2, 3)}", "repeat(%x, repeats=2, axis=-1)").shape == (2, 6)
    np.testing.assert_array_equal(run_op("repeat", [x], repeats=2, axis=-1),
                                  [[r for r in row for _ in range(2)] for row in x])
    np.testing.assert_array_equal(run_op("reverse", [x], axis=0), x[::-1])
    np.testing.assert_array_equal(run_op("full_like", [x, np.array(7.0)]), np.full((2, 3), 7.0))
    assert "repeats >= 1" in type_error(f"%x: {T(2, 3)}", "repeat(%x, repeats=0, axis=0)")
    assert "positive" in type_error(f"%x: {T(2, 3)}", "tile(%x, reps=[0])")


@pytest.mark.parametrize(("shape", "newshape", "out"), [
    ((10, 5, 4), (-1, 0), (50, 4)),  # 0 copies the last dim: special values read from the right
    ((2, 3, 4, 5), (-1, 0, 0), (6, 4, 5)),
    ((2, 3, 4), (0, -1), (3, 8)),  # reversed: (4, 3, 2) by (-1, 0), the 0 copying dim 1
])
def test_contrib_reverse_reshape(shape, newshape, out):
    body = f"contrib_reverse_reshape(%x, newshape={list(newshape)})"
    assert ret_type(f"%x: {T(*shape)}", body).shape == out
    x = rand(*shape)
    np.testing.assert_array_equal(run_op("contrib_reverse_reshape", [x], newshape=newshape),
                                  x.reshape(out))


@pytest.mark.parametrize(("src", "dst", "shape", "out"), [
    ("NCHW", "NHWC", (1, 8, 2, 3), (1, 2, 3, 8)),
    ("NCHW", "NCHW4c", (1, 8, 2, 3), (1, 2, 2, 3, 4)),
    ("NCHW4c", "NCHW2c", (1, 2, 2, 3, 4), (1, 4, 2, 3, 2)),
    ("NCHW4c", "NHWC", (1, 2, 2, 3, 4), (1, 2, 3, 8)),
    ("OIHW", "OIHW2i4o", (8, 4, 1, 1), (2, 2, 1, 1, 2, 4)),
])
def test_layout_transform(src, dst, shape, out):
    x = rand(*shape)
    body = f'layout_transform(%x, src_layout="{src}", dst_layout="{dst}")'
    assert ret_type(f"%x: {T(*shape)}", body).shape == out
    got = run_op("layout_transform", [x], src_layout=src, dst_layout=dst)
    assert got.shape == out
    back = run_op("layout_transform", [got], src_layout=dst, dst_layout=src)
    np.testing.assert_array_equal(back, x)


def test_layout_transform_nchw4c_element_by_element():
    x = rand(1, 8, 2, 3)
    got = run_op("layout_transform", [x], src_layout="NCHW", dst_layout="NCHW4c")
    for n, co, h, w, ci in np.ndindex(*got.shape):
        assert got[n, co, h, w, ci] == x[n, co * 4 + ci, h, w]
    assert "divisible" in type_error(f"%x: {T(1, 6, 2, 2)}",
                                     'layout_transform(%x, src_layout="NCHW", '
                                     'dst_layout="NCHW4c")')


# ------------------------------------------------------------------------- norms, pad, conv1d


def ref_norm(x, axes, eps, gamma, beta, axis):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


def test_layer_and_instance_norm():
    x, gamma, beta = rand(2, 3, 4), rand(4, seed=1), rand(4, seed=2)
    np.testing.assert_allclose(run_op("nn.layer_norm", [x, gamma, beta]),
                               ref_norm(x, (2,), np.float32(1e-5), gamma, beta, 2), rtol=1e-12)
    g3, b3 = rand(3, seed=1), rand(3, seed=2)
    np.testing.assert_allclose(run_op("nn.layer_norm", [x, g3, b3], axis=1, epsilon=0.1,
                                      center=False),
                               ref_norm(x, (1,), np.float32(0.1), g3, 0 * b3, 1), rtol=1e-12)
    np.testing.assert_allclose(run_op("nn.instance_norm", [x, g3, b3]),
                               ref_norm(x, (2,), np.float32(1e-5), g3, b3, 1), rtol=1e-12)
    assert ret_type(f"%x: {T(2, 3, 4)}, %g: {T(4)}, %b: {T(4)}",
                    "nn.layer_norm(%x, %g, %b)").shape == (2, 3, 4)
    assert "Tensor[(3), float64]" in type_error(f"%x: {T(2, 3, 4)}, %g: {T(4)}, %b: {T(4)}",
                                                "nn.layer_norm(%x, %g, %b, axis=1)")


def test_group_norm():
    x, gamma, beta = rand(2, 6, 3), rand(6, seed=1), rand(6, seed=2)
    got = run_op("nn.group_norm", [x, gamma, beta], num_groups=3)
    want = np.empty_like(x)
    for n, grp in itertools.product(range(2), range(3)):
        block = x[n, 2 * grp:2 * grp + 2]
        want[n, 2 * grp:2 * grp + 2] = (block - block.mean()) / np.sqrt(block.var()
                                                                         + np.float32(1e-5))
    want = want * gamma[:, None] + beta[:, None]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert "divide" in type_error(f"%x: {T(2, 6, 3)}, %g: {T(6)}, %b: {T(6)}",
                                  "nn.group_norm(%x, %g, %b, num_groups=4)")


def test_l2_normalize():
    x = rand(2, 3)
    got = run_op("nn.l2_normalize", [x], eps=1e-3, axis=(1,))
    np.testing.assert_allclose(got, x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize(("mode", "width"), [
    ("constant", ((1, 0), (2, 1))), ("edge", ((1, 1), (0, 2))), ("reflect", ((1, 1), (2, 0))),
    ("constant", ((-1, 1), (0, -2))),
])
def test_pad(mode, width):
    x = rand(3, 4)
    widths = "[" + ", ".join(f"[{a}, {b}]" for a, b in width) + "]"
    body = f'nn.pad(%x, 2.5f64, pad_width={widths}, pad_mode="{mode}")'
    want_shape = tuple(d + a + b for d, (a, b) in zip(x.shape, width, strict=True))
    assert ret_type(f"%x: {T(3, 4)}", body).shape == want_shape
    got = run_text(f"%x: {T(3, 4)}", body, [x])
    assert got.shape == want_shape
    for idx in np.ndindex(*want_shape):
        src = [i - a for i, (a, _) in zip(idx, width, strict=True)]
        inside = all(0 <= s < d for s, d in zip(src, x.shape, strict=True))
        if mode == "constant":
            want = x[tuple(src)] if inside else 2.5
        elif mode == "edge":
            want = x[tuple(min(max(s, 0), d - 1) for s, d in zip(src, x.shape, strict=True))]
        else:
            want = x[tuple(abs(s) if s < 0 else (2 * (d - 1) - s if s >= d else s)
                           for s, d in zip(src, x.shape, strict=True))]
        assert got[idx] == want, idx
    assert "pad width pairs" in type_error(f"%x: {T(3, 4)}", "nn.pad(%x, 0f64, pad_width=[[1, 1]])")


@pytest.mark.parametrize(("attrs", "layouts"), [
    (dict(), ("NCW", "OIW")),
    (dict(strides=(2,), padding=(1, 2), dilation=(2,)), ("NCW", "OIW")),
    # v0.19 checks the weight's I against all of C unless channels and kernel_size are given
    (dict(groups=2, channels=6, kernel_size=(3,)), ("NCW", "OIW")),
    (dict(padding=(1,)), ("NWC", "WIO")),
])
def test_conv1d(attrs, layouts):
    dl, kl = layouts
    g = attrs.get("groups", 1)
    x, w = rand(2, 4, 9), rand(6, 4 // g, 3, seed=1)
    s, d = attrs.get("strides", (1,))[0], attrs.get("dilation", (1,))[0]
    pad = attrs.get("padding", (0, 0))
    lo, hi = (pad[0], pad[0]) if len(pad) == 1 else pad
    xp = np.pad(x, ((0, 0), (0, 0), (lo, hi)))
    ow = (xp.shape[2] - (3 - 1) * d - 1) // s + 1
    want = np.zeros((2, 6, ow))
    for n, o, p in np.ndindex(*want.shape):
        grp = o // (6 // g)
        for c, k in itertools.product(range(4 // g), range(3)):
            want[n, o, p] += xp[n, grp * (4 // g) + c, p * s + k * d] * w[o, c, k]
    xl = np.transpose(x, ["NCW".index(ch) for ch in dl])
    wl = np.transpose(w, ["OIW".index(ch) for ch in kl])
    got = run_op("nn.conv1d", [xl, wl], **attrs, data_layout=dl, kernel_layout=kl)
    assert got.shape == tuple(want.shape["NCW".index(ch)] for ch in dl)
    np.testing.assert_allclose(got, np.transpose(want, ["NCW".index(ch) for ch in dl]),
                               rtol=1e-12)
    text_attrs = ", ".join(f"{k}={list(v) if isinstance(v, tuple) else v}"
                           for k, v in attrs.items())
    params = f"%x: {T(*xl.shape)}, %w: {T(*wl.shape)}"
    body = f'nn.conv1d(%x, %w, data_layout="{dl}", kernel_layout="{kl}"' + (
        f", {text_attrs})" if text_attrs else ")")
    assert ret_type(params, body).shape == got.shape


def test_conv3d_transpose_type():
    t = ret_type(f"%x: {T(1, 2, 3, 4, 5)}, %w: {T(2, 3, 2, 2, 2)}",
                 "nn.conv3d_transpose(%x, %w, strides=[2, 2, 2], channels=3, "
                 "kernel_size=[2, 2, 2])")
    assert t.shape == (1, 3, 6, 8, 10)


# ---------------------------------------------------------------------------- image.resize2d


def test_resize2d_nearest_asymmetric_is_repeat():
    x = rand(1, 2, 2, 3).astype("float32")
    got = run_op("image.resize2d", [x], size=(4, 6), roi=(0.0, 0.0, 0.0, 0.0),
                 method="nearest_neighbor", coordinate_transformation_mode="asymmetric",
                 rounding_method="")
    np.testing.assert_array_equal(got, np.repeat(np.repeat(x, 2, axis=2), 2, axis=3))


def test_resize2d_linear_align_corners():
    x = np.array([[[[0.0, 2.0], [4.0, 6.0]]]], dtype="float32")
    got = run_op("image.resize2d", [x], size=(3, 3), roi=(0.0, 0.0, 0.0, 0.0),
                 coordinate_transformation_mode="align_corners")
    np.testing.assert_allclose(got[0, 0], [[0, 1, 2], [2, 3, 4], [4, 5, 6]], rtol=1e-6)
    nhwc = run_op("image.resize2d", [np.transpose(x, (0, 2, 3, 1))], size=(3, 3),
                  roi=(0.0, 0.0, 0.0, 0.0), layout="NHWC",
                  coordinate_transformation_mode="align_corners")
    np.testing.assert_array_equal(np.transpose(nhwc, (0, 3, 1, 2)), got)
    t = ret_type(f"%x: {T(1, 2, 5, 5, dtype='float32')}",
                 'image.resize2d(%x, size=[3, 7], roi=[0f, 0f, 0f, 0f], out_dtype="float16")')
    assert (t.shape, t.dtype) == ((1, 2, 3, 7), "float16")


# ------------------------------------------------------------------ predicates and fast math


def test_predicates():
    x = np.array([1.0, np.nan, np.inf, -np.inf], dtype="float32")
    np.testing.assert_array_equal(run_op("isnan", [x]), [False, True, False, False])
    np.testing.assert_array_equal(run_op("isinf", [x]), [False, False, True, True])
    np.testing.assert_array_equal(run_op("isfinite", [x]), [True, False, False, False])
    np.testing.assert_array_equal(run_op("isnan", [np.array([1, 2])]), [False, False])
    assert ret_type(f"%x: {T(4, dtype='float32')}", "isnan(%x)").dtype == "bool"


def test_fast_math_is_close_to_exact():
    x = np.linspace(-20, 20, 401, dtype="float32")
    np.testing.assert_allclose(run_op("fast_exp", [x]), np.exp(x), rtol=2e-6)
    np.testing.assert_allclose(run_op("fast_tanh", [x]), np.tanh(x), atol=2e-6)
    np.testing.assert_allclose(run_op("fast_erf", [x / 4]), [math.erf(v) for v in x / 4],
                               atol=2e-6)
    assert run_op("fast_exp", [x]).dtype == np.float32
    np.testing.assert_array_equal(run_op("fast_exp", [x.astype("float64")]),
                                  np.exp(x.astype("float64")))


def test_bitwise_ops_need_integers():
    a, b = np.array([6, 3], dtype="int32"), np.array([3, 5], dtype="int32")
    np.testing.assert_array_equal(run_op("bitwise_and", [a, b]), [2, 1])
    np.testing.assert_array_equal(run_op("right_shift", [a, np.array([1, 1], "int32")]), [3, 1])
    with pytest.raises(OpError, match="integer"):
        run_op("bitwise_xor", [a.astype("float32"), b.astype("float32")])


# ------------------------------------------------------------------- devices and the VM's ops


def test_on_device_unifies_its_result_with_its_argument_at_once():
    """IdentityRel assigns the result's type before the argument's is known (PlanDevices'
    test_conditional): the call through the annotated closure types the closures' parameter."""
    params = f"%x: bool, %y: {T(5, 7)}, %z: {T(5, 7)}"
    body = ("let %f = fn (%a) { add(%a, %y) }; let %g = fn (%b) { subtract(%b, %y) };"
            " let %h = on_device(if (%x) { %f } else { %g }, constrain_result=True); %h(%z)")
    assert ret_type(params, body).shape == (5, 7)
    y, z = rand(5, 7), rand(5, 7, seed=1)
    np.testing.assert_array_equal(run_text(f"%y: {T(5, 7)}, %z: {T(5, 7)}",
                                           "on_device(add(%y, %z))", [y, z]), y + z)
    # a tuple or a function goes through as it is
    t = typed(f"%y: {T(2)}", "on_device((%y, %y))")["main"].ret_type
    assert len(t.fields) == 2


def test_device_copy_copies_and_vm_shape_ops():
    x = rand(2, 3)
    got = run_op("device_copy", [x])
    np.testing.assert_array_equal(got, x)
    assert got is not x and not np.shares_memory(got, x)
    np.testing.assert_array_equal(run_op("vm.shape_of", [x]), [2, 3])
    assert run_op("vm.shape_of", [x]).dtype == np.int64
    t = ret_type(f"%x: {T(2, 3)}", 'vm.shape_of(%x, dtype="int32")')
    assert (t.shape, t.dtype) == ((2,), "int32")
    got = run_op("vm.reshape_tensor", [x, np.array([3, 2])], newshape=(3, 2))
    np.testing.assert_array_equal(got, x.reshape(3, 2))
    with pytest.raises(OpError, match="contradicts"):
        run_op("vm.reshape_tensor", [x, np.array([1, 6])], newshape=(3, 2))
    assert ret_type(f"%x: {T(2, 3)}, %s: Tensor[(2), int64]",
                    "vm.reshape_tensor(%x, %s, newshape=[3, 2])").shape == (3, 2)


def test_alloc_storage_takes_size_shape_and_alignment():
    body = "memory.alloc_storage(%size, %shape, %align)"
    params = "%size: int64, %shape: Tensor[(2), int64], %align: int64"
    assert typed(params, body)["main"].ret_type.name == "Storage"
    message = type_error(params.replace("%align: int64", "%align: int32"), body)
    assert "argument 2 of memory.alloc_storage" in message
    assert "argument" in type_error(params, "memory.alloc_storage(%size, %shape)")


# ------------------------------------------------------------------------------ the registry


ITEM_1 = ["on_device", "device_copy", "layout_transform", "nn.pad", "vm.shape_of",
          "vm.reshape_tensor", "memory.alloc_storage", "memory.alloc_tensor", "cumsum",
          "cumprod", "einsum", "scatter_elements", "scatter_nd", "gather", "gather_nd", "topk",
          "sort", "argsort", "unique", "nn.layer_norm", "nn.conv1d", "tile", "repeat",
          "reverse", "image.resize2d", "isnan", "fast_exp"]


# what each may do (OpDef.effect, the extractor's default): everything is pure but the
# annotation that returns its argument and the two allocations
NOT_PURE = {"on_device": "alias", "memory.alloc_storage": "allocates",
            "memory.alloc_tensor": "allocates"}


@pytest.mark.parametrize("name", ITEM_1)
def test_every_op_of_issue_14_has_a_relation_and_its_effect(name):
    op = OPS[name]
    assert op.relation is not None
    assert op.effect == NOT_PURE.get(name, "none")
    assert not op.stateful
