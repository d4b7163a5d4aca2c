"""nn.conv3d / nn.adaptive_avg_pool3d, and the v0.19 gradients of conv2d and the 2-D pools.

Types are inferred from parsed Relay text; interpreter results are checked against direct numpy
loops; each gradient rule runs through `gradient_module` and the interpreter and is compared with
central finite differences in float64. Gradient programs must print with TVM's op names and
attributes and re-parse to the same program.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from extractor.relay import ops
from extractor.relay.ast import Call, Op, TensorType, post_order
from extractor.relay.errors import RelayTypeError
from extractor.relay.interpreter import evaluate
from extractor.relay.parser import parse
from extractor.relay.printer import astext
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.typeinfer import infer_types
from tests.support.op_registry import CONV_POOL_GRADIENTS as EXERCISED
from tests.support.op_registry import OP_IMPLS, RULES
from tests.support.relay_ops import (
    HEADER,
    T,
    check_gradient,
    rand,
    ret_type,
    run_op,
    type_error,
    typed,
)

# ------------------------------------------------------------------------------ type inference


X3 = T(1, 4, 7, 8, 9, dtype="float32")


@pytest.mark.parametrize(("attrs", "wshape", "out"), [
    ("", (6, 4, 3, 3, 3), (1, 6, 5, 6, 7)),
    ("strides=[2, 1, 3]", (6, 4, 3, 3, 3), (1, 6, 3, 6, 3)),
    ("padding=[1]", (6, 4, 3, 3, 3), (1, 6, 7, 8, 9)),
    ("padding=[1, 0, 2]", (6, 4, 3, 3, 3), (1, 6, 7, 6, 11)),
    ("padding=[0, 1, 2, 1, 0, 0]", (6, 4, 3, 3, 3), (1, 6, 6, 7, 9)),
    ("dilation=[2, 1, 1], strides=[1, 2, 2]", (6, 4, 3, 3, 3), (1, 6, 3, 3, 4)),
    ("groups=2", (6, 2, 1, 3, 5), (1, 6, 7, 6, 5)),
    ("groups=4, channels=4, kernel_size=[3, 3, 3], padding=[1, 1, 1]", (4, 1, 3, 3, 3),
     (1, 4, 7, 8, 9)),
    ("out_dtype=\"float64\"", (6, 4, 1, 1, 1), (1, 6, 7, 8, 9)),
])
def test_conv3d_shapes(attrs, wshape, out):
    sep = ", " if attrs else ""
    t = ret_type(f"%x: {X3}, %w: {T(*wshape, dtype='float32')}", f"nn.conv3d(%x, %w{sep}{attrs})")
    assert t.shape == out
    assert t.dtype == ("float64" if "out_dtype" in attrs else "float32")


def test_conv3d_infers_an_unannotated_weight():
    mod = typed(f"%x: {X3}, %w", "nn.conv3d(%x, %w, channels=5, kernel_size=[1, 3, 3])")
    assert mod["main"].params[1].type_annotation == TensorType((5, 4, 1, 3, 3), "float32")
    assert mod["main"].ret_type == TensorType((1, 5, 7, 6, 7), "float32")


def test_conv3d_layouts():
    t = ret_type(f"%x: {T(1, 7, 8, 9, 4)}, %w: {T(3, 3, 3, 4, 6)}",
                 'nn.conv3d(%x, %w, data_layout="NDHWC", kernel_layout="DHWIO")')
    assert t.shape == (1, 5, 6, 7, 6)
    t = ret_type(f"%x: {T(1, 4, 7, 8, 9)}, %w: {T(6, 4, 3, 3, 3)}",
                 'nn.conv3d(%x, %w, out_layout="NDHWC")')
    assert t.shape == (1, 5, 6, 7, 6)


@pytest.mark.parametrize(("wshape", "attrs", "needle"), [
    ((6, 3, 3, 3, 3), "", "argument 1 of nn.conv3d"),
    ((6, 4, 3, 3, 3), ", channels=5", "argument 1 of nn.conv3d"),
    ((6, 4, 3, 3, 3), ", padding=[1, 1]", "1, 3 or 6 elements"),
    ((6, 4, 9, 3, 3), "", "does not fit"),
    ((6, 4, 3, 3), "", "5-D"),
])
def test_conv3d_type_errors(wshape, attrs, needle):
    assert needle in type_error(f"%x: {X3}, %w: {T(*wshape, dtype='float32')}",
                                f"nn.conv3d(%x, %w{attrs})")


@pytest.mark.parametrize(("attrs", "out"), [
    ("output_size=[1, 1, 1]", (2, 3, 1, 1, 1)),
    ("output_size=[2]", (2, 3, 2, 2, 2)),
    ("output_size=[3, 1, 2]", (2, 3, 3, 1, 2)),
    ("", (2, 3, 4, 5, 6)),
    ('output_size=[1, 2, 3], layout="NDHWC"', (2, 1, 2, 3, 6)),
])
def test_adaptive_avg_pool3d_shapes(attrs, out):
    sep = ", " if attrs else ""
    assert ret_type(f"%x: {T(2, 3, 4, 5, 6)}",
                    f"nn.adaptive_avg_pool3d(%x{sep}{attrs})").shape == out


def test_adaptive_avg_pool3d_errors_and_no_global_avg_pool3d_op():
    assert "0, 1 or 3" in type_error(f"%x: {T(2, 3, 4, 5, 6)}",
                                     "nn.adaptive_avg_pool3d(%x, output_size=[1, 1])")
    assert "5-D" in type_error(f"%x: {T(2, 3, 4, 5)}", "nn.adaptive_avg_pool3d(%x)")
    # v0.19's relay.nn.global_avg_pool3d builds nn.adaptive_avg_pool3d; there is no such op
    assert ops.lookup("nn.global_avg_pool3d") is None


def test_helper_op_types():
    g, x = T(2, 6, 3, 4, dtype="float32"), T(2, 4, 7, 8, dtype="float32")
    t = ret_type(f"%g: {g}, %x: {x}",
                 'nn.conv2d_backward_weight(%g, %x, strides=[2, 2], groups=2, kernel_size=[3, 2],'
                 ' kernel_layout="NCHW", out_layout="OIHW", out_dtype="float64")')
    assert t == TensorType((6, 2, 3, 2), "float64")
    t = ret_type(f"%g: {g}, %x: {x}",
                 'nn.conv2d_backward_weight(%g, %x, kernel_size=[3, 3], kernel_layout="NCHW",'
                 ' out_layout="HWIO")')
    assert t == TensorType((3, 3, 4, 6), "float32")
    assert "kernel_size" in type_error(
        f"%g: {g}, %x: {x}",
        'nn.conv2d_backward_weight(%g, %x, kernel_layout="NCHW", out_layout="OIHW")')
    # the relation reads the repurposed layouts: the defaults (OIHW data, no weight layout) fail
    assert "layout" in type_error(f"%g: {g}, %x: {x}",
                                  "nn.conv2d_backward_weight(%g, %x, kernel_size=[3, 3])")
    dw = T(1, 4, 5, 5)
    assert "channels" in type_error(
        f"%g: {dw}, %x: {dw}", 'nn.conv2d_backward_weight(%g, %x, groups=4, kernel_size=[3, 3],'
        ' kernel_layout="NCHW", out_layout="OIHW")')
    for name in ("nn.max_pool2d_grad", "nn.avg_pool2d_grad"):
        t = ret_type(f"%g: {T(1, 2, 3, 3)}, %x: {T(1, 2, 6, 6)}",
                     f"{name}(%g, %x, pool_size=[2, 2], strides=[2, 2])")
        assert t == TensorType((1, 2, 6, 6), "float64")


def test_conv2d_transpose_prints_attrs_in_declaration_order():
    """Conv2DTransposeAttrs declares channels, kernel_size, strides, output_padding, padding..."""
    src = (HEADER + f"def @main(%x: {T(1, 4, 5, 5)}, %w: {T(4, 2, 4, 4)}) {{ "
           "nn.conv2d_transpose(%x, %w, padding=[1, 1, 1, 1], strides=[2, 2], channels=2, "
           "output_padding=[1, 1], kernel_size=[4, 4]) }")
    text = astext(infer_types(parse(src)).module)
    assert ("nn.conv2d_transpose(%x, %w, channels=2, kernel_size=[4, 4], strides=[2, 2], "
            "output_padding=[1, 1], padding=[1, 1, 1, 1])") in text


# ---------------------------------------------------------------------------------- interpreter


def naive_conv3d(x, w, strides, pads, dil, groups):
    """Direct loops: pads are (front, top, left, back, bottom, right)."""
    xp = np.pad(x, ((0, 0), (0, 0), *((pads[i], pads[i + 3]) for i in range(3))))
    n, c = x.shape[:2]
    o, cg, *ks = w.shape
    outs = [(xp.shape[2 + i] - (ks[i] - 1) * dil[i] - 1) // strides[i] + 1 for i in range(3)]
    out = np.zeros((n, o, *outs))
    og = o // groups
    for b, oc, *pos in itertools.product(range(n), range(o), *(range(m) for m in outs)):
        grp = oc // og
        acc = 0.0
        for ic, *k in itertools.product(range(cg), *(range(kk) for kk in ks)):
            idx = [pos[i] * strides[i] + k[i] * dil[i] for i in range(3)]
            acc += xp[b, grp * cg + ic, idx[0], idx[1], idx[2]] * w[oc, ic, k[0], k[1], k[2]]
        out[b, oc, pos[0], pos[1], pos[2]] = acc
    return out


@pytest.mark.parametrize(("attrs", "wshape", "strides", "pads", "dil", "groups"), [
    ("", (3, 4, 2, 2, 2), (1, 1, 1), (0,) * 6, (1, 1, 1), 1),
    ("strides=[2, 1, 2], padding=[1, 0, 1, 0, 1, 1], dilation=[1, 2, 1], groups=2",
     (4, 2, 2, 2, 3), (2, 1, 2), (1, 0, 1, 0, 1, 1), (1, 2, 1), 2),
    ("padding=[1], groups=4", (4, 1, 3, 3, 3), (1, 1, 1), (1,) * 6, (1, 1, 1), 4),
])
def test_conv3d_interpreter(attrs, wshape, strides, pads, dil, groups):
    sep = ", " if attrs else ""
    mod = typed(f"%x: {T(2, 4, 4, 5, 5)}, %w: {T(*wshape)}", f"nn.conv3d(%x, %w{sep}{attrs})")
    x, w = rand(2, 4, 4, 5, 5), rand(*wshape, seed=1)
    got = evaluate(mod, [x, w])
    assert got.shape == mod["main"].ret_type.shape
    np.testing.assert_allclose(got, naive_conv3d(x, w, strides, pads, dil, groups), rtol=1e-12)
    conv = next(n for n in post_order(mod["main"]) if isinstance(n, Call))
    f32 = OP_IMPLS["nn.conv3d"]([x.astype("float32"), w.astype("float32")], conv.attrs)
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, got, rtol=1e-4, atol=1e-5)


def naive_adaptive_avg(x, size):
    out = np.zeros((*x.shape[:2], *size))
    ins = x.shape[2:]
    for pos in itertools.product(*(range(s) for s in size)):
        sl = tuple(slice(int(np.floor(p * i / s)), int(np.ceil((p + 1) * i / s)))
                   for p, i, s in zip(pos, ins, size, strict=True))
        out[(slice(None), slice(None), *pos)] = x[(slice(None), slice(None), *sl)].mean(
            axis=(2, 3, 4))
    return out


def test_adaptive_avg_pool3d_interpreter():
    x = rand(2, 3, 4, 5, 7)
    mod = typed(f"%x: {T(2, 3, 4, 5, 7)}", "nn.adaptive_avg_pool3d(%x, output_size=[1, 1, 1])")
    np.testing.assert_allclose(evaluate(mod, [x]), x.mean(axis=(2, 3, 4), keepdims=True),
                               rtol=1e-12)
    got = run_op("nn.adaptive_avg_pool3d", [x], output_size=(3, 2, 4))
    np.testing.assert_allclose(got, naive_adaptive_avg(x, (3, 2, 4)), rtol=1e-12)
    xl = np.moveaxis(x, 1, -1)  # NDHWC
    got = run_op("nn.adaptive_avg_pool3d", [xl], output_size=(2,), layout="NDHWC")
    np.testing.assert_allclose(got, np.moveaxis(naive_adaptive_avg(x, (2, 2, 2)), 1, -1),
                               rtol=1e-12)
    assert run_op("nn.adaptive_avg_pool3d", [x.astype("float32")]).dtype == np.float32


def vjp(forward, x_shape, g):
    """The vector-Jacobian product of a linear map, one basis vector at a time."""
    out = np.zeros(x_shape)
    for idx in np.ndindex(*x_shape):
        e = np.zeros(x_shape)
        e[idx] = 1.0
        out[idx] = np.sum(forward(e) * g)
    return out


@pytest.mark.parametrize(("strides", "padding", "dilation", "groups"), [
    ((1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 1), (1, 0, 2, 1), (1, 2), 2),
])
def test_conv2d_backward_weight_is_the_weight_vjp(strides, padding, dilation, groups):
    x, w_shape = rand(2, 4, 6, 5), (6, 4 // groups, 3, 2)
    conv = dict(strides=strides, padding=padding, dilation=dilation, groups=groups)
    out = run_op("nn.conv2d", [x, np.zeros(w_shape)], **conv)
    g = rand(*out.shape, seed=3)
    got = run_op("nn.conv2d_backward_weight", [g, x], **conv, kernel_size=(3, 2),
                 kernel_layout="NCHW", out_layout="OIHW")
    ref = vjp(lambda w: run_op("nn.conv2d", [x, w], **conv), w_shape, g)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("attrs", [
    dict(pool_size=(2, 2), strides=(2, 2)),
    dict(pool_size=(3, 3), strides=(2, 2), padding=(1, 1)),
    dict(pool_size=(3, 2), strides=(2, 1), padding=(0, 1, 1, 0), count_include_pad=True),
    dict(pool_size=(2, 2), strides=(2, 2), ceil_mode=True),
])
def test_avg_pool2d_grad_is_the_vjp(attrs):
    x_shape = (1, 2, 5, 5)
    out = run_op("nn.avg_pool2d", [np.zeros(x_shape)], **attrs)
    g = rand(*out.shape, seed=4)
    got = run_op("nn.avg_pool2d_grad", [g, rand(*x_shape)], **attrs)
    ref = vjp(lambda e: run_op("nn.avg_pool2d", [e], **attrs), x_shape, g)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_max_pool2d_grad_routes_to_the_first_maximum():
    x = np.ones((1, 1, 4, 4))
    x[0, 0, 3, 3] = 2.0
    g = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    got = run_op("nn.max_pool2d_grad", [g, x], pool_size=(2, 2), strides=(2, 2))
    want = np.zeros((1, 1, 4, 4))
    want[0, 0, 0, 0], want[0, 0, 0, 2], want[0, 0, 2, 0], want[0, 0, 3, 3] = 1, 2, 3, 4
    np.testing.assert_array_equal(got, want)
    # overlapping windows accumulate; padding never receives gradient
    x = rand(1, 2, 5, 5)
    attrs = dict(pool_size=(3, 3), strides=(2, 2), padding=(1, 1), ceil_mode=True)
    g = rand(*run_op("nn.max_pool2d", [x], **attrs).shape, seed=2)
    got = run_op("nn.max_pool2d_grad", [g, x], **attrs)
    assert got.shape == x.shape
    np.testing.assert_allclose(got.sum(), g.sum(), rtol=1e-12)


# ------------------------------------------------------------------------------ gradient rules


def attrs_of(text: str, opname: str) -> list[str]:
    """The attribute text of every call to opname in printed text (arguments stripped)."""
    return [m.group(1) for m in re.finditer(re.escape(opname) + r"\(%\w+, %\w+(?:, ([^)]*))?\)",
                                            text)]


CONV2D = [
    # x shape, w shape, attrs, expected printed attrs of conv2d_transpose / backward_weight
    ((1, 2, 5, 5), (3, 2, 3, 3), "padding=[1, 1, 1, 1], strides=[2, 2]",
     'strides=[2, 2], padding=[1, 1, 1, 1], out_dtype="float64"',
     'strides=[2, 2], padding=[1, 1, 1, 1], kernel_size=[3, 3], kernel_layout="NCHW", '
     'out_layout="OIHW", out_dtype="float64"'),
    ((2, 4, 6, 5), (4, 2, 3, 2), "padding=[1, 0], strides=[2, 1], groups=2",
     'strides=[2, 1], output_padding=[1, 0], padding=[1, 0, 1, 0], groups=2, '
     'out_dtype="float64"',
     'strides=[2, 1], padding=[1, 0, 1, 0], groups=2, kernel_size=[3, 2], '
     'kernel_layout="NCHW", out_layout="OIHW", out_dtype="float64"'),
    ((1, 2, 8, 7), (2, 2, 3, 3), "strides=[3, 3]",
     'strides=[3, 3], output_padding=[2, 1], padding=[0, 0, 0, 0], out_dtype="float64"',
     'strides=[3, 3], padding=[0, 0, 0, 0], kernel_size=[3, 3], kernel_layout="NCHW", '
     'out_layout="OIHW", out_dtype="float64"'),
    ((1, 3, 4, 4), (3, 1, 3, 3), "padding=[1, 1], groups=3, channels=3",
     'padding=[1, 1, 1, 1], groups=3, out_dtype="float64"',
     'padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3], kernel_layout="NCHW", '
     'out_layout="OIHW", out_dtype="float64"'),
    ((1, 2, 4, 5), (3, 2, 1, 2), 'padding=[0, 1, 1, 0], out_dtype="float64"',
     'padding=[0, 1, 1, 0], out_dtype="float64"',
     'padding=[0, 1, 1, 0], kernel_size=[1, 2], kernel_layout="NCHW", out_layout="OIHW", '
     'out_dtype="float64"'),
]


@pytest.mark.parametrize(("xs", "ws", "attrs", "transpose", "weight"), CONV2D)
def test_conv2d_gradient(xs, ws, attrs, transpose, weight):
    text = check_gradient(f"%x: {T(*xs)}, %w: {T(*ws)}", f"sin(nn.conv2d(%x, %w, {attrs}))",
                          [xs, ws])
    assert attrs_of(text, "nn.conv2d_transpose") == [transpose]
    assert attrs_of(text, "nn.conv2d_backward_weight") == [weight]


def test_conv2d_gradient_float32_text():
    """The brief's program in float32: TVM prints out_dtype and the repurposed layouts."""
    mod = typed(f"%x: {T(1, 2, 5, 5, dtype='float32')}, %w: {T(3, 2, 3, 3, dtype='float32')}",
                "sum(nn.conv2d(%x, %w, padding=[1, 1, 1, 1], strides=[2, 2]))")
    text = astext(gradient_module(mod))
    assert attrs_of(text, "nn.conv2d_transpose") == [
        'strides=[2, 2], padding=[1, 1, 1, 1], out_dtype="float32"']
    assert attrs_of(text, "nn.conv2d_backward_weight") == [
        'strides=[2, 2], padding=[1, 1, 1, 1], kernel_size=[3, 3], kernel_layout="NCHW", '
        'out_layout="OIHW", out_dtype="float32"']
    x, w = rand(1, 2, 5, 5).astype("float32"), rand(3, 2, 3, 3, seed=1).astype("float32")
    _, (dx, dw) = evaluate(infer_types(parse(text)).module, [x, w])
    assert dx.dtype == dw.dtype == np.float32
    ones = np.ones((1, 3, 3, 3), "float32")
    ref_dw = run_op("nn.conv2d_backward_weight", [ones, x], strides=(2, 2), padding=(1, 1),
                    kernel_size=(3, 3), kernel_layout="NCHW", out_layout="OIHW")
    np.testing.assert_allclose(dw, ref_dw, rtol=1e-5)


def test_conv2d_gradient_with_dilation_fails_as_in_v019():
    """v0.19 infers output_padding without the dilation: the data gradient has the wrong size."""
    mod = typed(f"%x: {T(1, 2, 7, 7)}, %w: {T(3, 2, 3, 3)}", "nn.conv2d(%x, %w, dilation=[2, 2])")
    with pytest.raises(RelayTypeError) as info:
        gradient_module(mod)
    assert "cannot broadcast" in info.value.message
    assert "(1, 2, 9, 9)" in info.value.message


@pytest.mark.parametrize(("attrs", "message"), [
    ("padding=[1]", "size of padding can only be 2 or 4"),
    ('data_layout="NHWC", kernel_layout="HWIO"', "only support NCHW data layout"),
])
def test_conv2d_gradient_rejects_what_v019_asserts(attrs, message):
    xs, ws = ((1, 5, 5, 2), (3, 3, 2, 4)) if "NHWC" in attrs else ((1, 2, 5, 5), (4, 2, 3, 3))
    mod = typed(f"%x: {T(*xs)}, %w: {T(*ws)}", f"nn.conv2d(%x, %w, {attrs})")
    with pytest.raises(RelayTypeError) as info:
        gradient_module(mod)
    assert "gradient of nn.conv2d" in info.value.message and message in info.value.message
    assert info.value.span is not None and info.value.span.line == 2


POOLS = [
    ("nn.max_pool2d", "pool_size=[2, 2], strides=[2, 2]", (1, 2, 4, 6),
     "pool_size=[2, 2], strides=[2, 2]"),
    ("nn.max_pool2d", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1]", (1, 2, 6, 5),
     "pool_size=[3, 3], strides=[2, 2], padding=[1, 1]"),
    ("nn.max_pool2d", "pool_size=[2, 3], padding=[0, 1, 1, 0], ceil_mode=True, strides=[2, 2]",
     (2, 1, 5, 5), "pool_size=[2, 3], strides=[2, 2], padding=[0, 1, 1, 0], ceil_mode=True"),
    ("nn.avg_pool2d", "pool_size=[3, 3], strides=[2, 2], padding=[1, 1]", (1, 2, 6, 5),
     "pool_size=[3, 3], strides=[2, 2], padding=[1, 1]"),
    ("nn.avg_pool2d", "pool_size=[3, 2], strides=[1, 2], padding=[1, 1],"
     " count_include_pad=True", (1, 2, 4, 5),
     "pool_size=[3, 2], strides=[1, 2], padding=[1, 1], count_include_pad=True"),
    ("nn.avg_pool2d", "pool_size=[2, 2], strides=[2, 2], ceil_mode=True", (1, 1, 5, 5),
     "pool_size=[2, 2], strides=[2, 2], ceil_mode=True"),
]


@pytest.mark.parametrize(("name", "attrs", "xs", "printed"), POOLS)
def test_pool2d_gradient(name, attrs, xs, printed):
    text = check_gradient(f"%x: {T(*xs)}", f"sin({name}(%x, {attrs}))", [xs])
    assert attrs_of(text, name + "_grad") == [printed]


def test_pool_gradient_drops_dilation_as_in_v019():
    mod = typed(f"%x: {T(1, 1, 5, 5)}",
                "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], dilation=[2, 2])")
    assert attrs_of(astext(gradient_module(mod)), "nn.max_pool2d_grad") == [
        "pool_size=[2, 2], strides=[2, 2]"]


def test_global_avg_pool2d_gradient():
    text = check_gradient(f"%x: {T(2, 3, 4, 5)}", "sin(nn.global_avg_pool2d(%x))", [(2, 3, 4, 5)])
    assert attrs_of(text, "nn.avg_pool2d_grad") == ["pool_size=[4, 5]"]


def test_global_avg_pool2d_gradient_nhwc_text():
    mod = typed(f"%x: {T(2, 4, 5, 3)}", 'nn.global_avg_pool2d(%x, layout="NHWC")')
    assert attrs_of(astext(gradient_module(mod)), "nn.avg_pool2d_grad") == [
        'pool_size=[4, 5], layout="NHWC"']


def test_small_cnn_gradient():
    """conv2d -> relu -> max_pool2d -> conv2d -> avg_pool2d -> global_avg_pool2d, end to end."""
    params = f"%x: {T(1, 2, 6, 6)}, %w1: {T(3, 2, 3, 3)}, %w2: {T(2, 3, 1, 1)}"
    body = ("%0 = nn.relu(nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]));"
            " %1 = nn.max_pool2d(%0, pool_size=[2, 2], strides=[2, 2]);"
            " %2 = nn.avg_pool2d(nn.conv2d(%1, %w2), pool_size=[2, 2], padding=[1, 1]);"
            " tanh(nn.global_avg_pool2d(%2))")
    check_gradient(params, body, [(1, 2, 6, 6), (3, 2, 3, 3), (2, 3, 1, 1)])


def test_exercised_rules():
    assert EXERCISED <= set(RULES)
    names = {n.op.name for n in post_order(typed(f"%x: {T(1, 1, 4, 4)}, %w: {T(1, 1, 1, 1)}",
                                                 "nn.global_avg_pool2d(nn.avg_pool2d(nn.max_pool2d("
                                                 "nn.conv2d(%x, %w), pool_size=[1, 1]), "
                                                 "pool_size=[1, 1]))")["main"])
             if isinstance(n, Call) and isinstance(n.op, Op)}
    assert EXERCISED <= names
