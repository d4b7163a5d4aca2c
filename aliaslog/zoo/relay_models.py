"""The Relay model zoo: TVM v0.19's `tvm.relay.testing` workloads rebuilt as our AST, and printed.

Each builder takes the keyword arguments of the matching `get_workload` (defaults as there, see
`RELAY_MODELS` and relay-notes §5) and returns the net, `fn (free_vars(out)) { out }`, with the
parameters in the order `relay.analysis.free_vars` gives them. `build_relay` wraps it in a
module and runs type inference, which annotates every parameter (`%fc1_weight: Tensor[(128, 784),
float32]`) as `create_workload`'s InferType does. Parameter values (TVM's Xavier init) are not
made: the zoo is for analysing programs, and the interpreter can take any inputs.

`write_relay_zoo` writes each model as the workloads the analysis exists for: the plain model,
its A-normal form (the lets DCE works on), its higher-order gradient after SimplifyInference,
and a training step (`training_workload`: a loss, and every parameter's gradient but the
data's), each type-checked and run once in the interpreter, plus a `zoo.json` index that says
why a model has no gradient (an op without a gradient rule), if one has none.

Deviations: `lstm`'s default is the (iterations=1, num_hidden=1) form the printer tests use
(`get_workload` has no defaults); `densenet-121` keeps `get_workload`'s batch size of 4.
"""

from __future__ import annotations

import functools
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from aliaslog.loading import write_text_atomically
from aliaslog.workloads import zoo_suffix
from extractor.diagnostics import LocatedError
from extractor.relay.ast import (
    Call,
    Expr,
    Function,
    Let,
    Module,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Var,
    free_vars,
    post_order,
)
from extractor.relay.interpreter import evaluate, random_inputs
from extractor.relay.ops import make_call
from extractor.relay.printer import astext
from extractor.relay.transforms.anf import to_a_normal_form
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.transforms.simplify_inference import simplify_inference
from extractor.relay.transforms.training import training_step
from extractor.relay.typeinfer import Typed, infer_types

from . import relay_layers as L

TVM_VERSION = "0.19.0"

# ------------------------------------------------------------------------------------ helpers


def _net(out: Expr, ret_type: TensorType | None = None) -> Function:
    """`relay.Function(relay.analysis.free_vars(out), out)`."""
    return Function(tuple(free_vars(out)), out, ret_type)


class _Scope:
    """`relay.ScopeBuilder`: a list of annotated let bindings closed by a result."""

    def __init__(self) -> None:
        self.bindings: list[tuple[Var, Expr]] = []

    def let(self, name: str, ty: Any, value: Expr) -> Var:
        v = Var(name, ty)
        self.bindings.append((v, value))
        return v

    def get(self, ret: Expr) -> Expr:
        out = ret
        for v, value in reversed(self.bindings):
            out = Let(v, value, out)
        return out


# --------------------------------------------------------------------------------------- mlp


def mlp(batch_size: int = 1, num_classes: int = 10, image_shape: Sequence[int] = (1, 28, 28),
        dtype: str = "float32") -> Function:
    """`mlp.get_net`: flatten, dense 128 / 64 / num_classes with biases and relus, softmax."""
    data = L.var("data", (batch_size, *image_shape), dtype)
    x = L.batch_flatten(data)
    x = L.relu(L.bias_add(L.dense(x, L.var("fc1_weight"), 128), L.var("fc1_bias"), axis=-1))
    x = L.relu(L.bias_add(L.dense(x, L.var("fc2_weight"), 64), L.var("fc2_bias"), axis=-1))
    x = L.bias_add(L.dense(x, L.var("fc3_weight"), num_classes), L.var("fc3_bias"), axis=-1)
    return _net(L.softmax(x))


# ------------------------------------------------------------------------------------ resnet


def _resnet_units(num_layers: int, height: int) -> tuple[list[int], list[int], bool, int]:
    """(units per stage, filter list, bottleneck, stages) as resnet's `get_net` chooses them."""
    if height <= 28:
        if (num_layers - 2) % 9 == 0 and num_layers >= 164:
            return [(num_layers - 2) // 9] * 3, [16, 64, 128, 256], True, 3
        if (num_layers - 2) % 6 == 0 and num_layers < 164:
            return [(num_layers - 2) // 6] * 3, [16, 16, 32, 64], False, 3
        raise ValueError(f"no experiments done on num_layers {num_layers}")
    table = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
             152: [3, 8, 36, 3], 200: [3, 24, 36, 3], 269: [3, 30, 48, 8]}
    if num_layers not in table:
        raise ValueError(f"no experiments done on num_layers {num_layers}")
    filters = [64, 256, 512, 1024, 2048] if num_layers >= 50 else [64, 64, 128, 256, 512]
    return table[num_layers], filters, num_layers >= 50, 4


class _Dims:
    """2-D or 3-D flavour of the resnet builder (conv op, kernel shapes, layouts)."""

    def __init__(self, rank: int, layout: str) -> None:
        self.rank = rank
        self.layout = layout
        if rank == 2:
            self.kernel_layout = "OIHW" if layout == "NCHW" else "HWIO"
            self.bn_axis = layout.index("C")
        else:
            self.kernel_layout = "OIDHW" if layout == "NCDHW" else "DHWIO"
            self.bn_axis = 1  # resnet_3d never passes an axis to batch_norm

    def k(self, n: int) -> tuple[int, ...]:
        return (n,) * self.rank

    def conv(self, data: Expr, name: str, **kw: Any) -> Call:
        kw.update(data_layout=self.layout, kernel_layout=self.kernel_layout)
        if self.rank == 2:
            return L.conv2d(data, name, **kw)
        return L.conv3d(data, name, **kw)

    def bn(self, data: Expr, name: str, **kw: Any) -> Expr:
        return L.batch_norm_infer(data, name, axis=self.bn_axis, epsilon=2e-5, **kw)


def _residual_unit(d: _Dims, data: Expr, num_filter: int, stride: tuple[int, ...],
                   dim_match: bool, name: str, bottle_neck: bool) -> Expr:
    """resnet's `residual_unit` (pre-activation), 2-D or 3-D."""
    act1 = L.relu(d.bn(data, name + "_bn1"))
    if bottle_neck:
        quarter = int(num_filter * 0.25)
        conv1 = d.conv(act1, name + "_conv1", channels=quarter, kernel_size=d.k(1),
                       strides=stride, padding=d.k(0))
        act2 = L.relu(d.bn(conv1, name + "_bn2"))
        conv2 = d.conv(act2, name + "_conv2", channels=quarter, kernel_size=d.k(3),
                       strides=d.k(1), padding=d.k(1))
        act3 = L.relu(d.bn(conv2, name + "_bn3"))
        last = d.conv(act3, name + "_conv3", channels=num_filter, kernel_size=d.k(1),
                      strides=d.k(1), padding=d.k(0))
    else:
        conv1 = d.conv(act1, name + "_conv1", channels=num_filter, kernel_size=d.k(3),
                       strides=stride, padding=d.k(1))
        act2 = L.relu(d.bn(conv1, name + "_bn2"))
        last = d.conv(act2, name + "_conv2", channels=num_filter, kernel_size=d.k(3),
                      strides=d.k(1), padding=d.k(1))
    shortcut = data if dim_match else d.conv(act1, name + "_sc", channels=num_filter,
                                             kernel_size=d.k(1), strides=stride)
    return L.add(last, shortcut)


def _resnet(d: _Dims, batch_size: int, num_classes: int, num_layers: int,
            image_shape: Sequence[int], dtype: str) -> Function:
    """resnet / resnet_3d `get_net` + `resnet`: stem, four (or three) stages, pooled classifier."""
    data_shape = (batch_size, *image_shape)
    h_index = d.layout.index("H")
    units, filters, bottle_neck, num_stages = _resnet_units(num_layers,
                                                            data_shape[h_index])
    data = L.var("data", data_shape, dtype)
    body: Expr = d.bn(data, "bn_data", scale=False)
    if data_shape[h_index] <= 32:
        body = d.conv(body, "conv0", channels=filters[0], kernel_size=d.k(3), strides=d.k(1),
                      padding=d.k(1))
    else:
        if d.rank == 2:
            body = d.conv(body, "conv0", channels=filters[0], kernel_size=(7, 7),
                          strides=(2, 2), padding=(3, 3))
        else:
            body = d.conv(body, "conv0", channels=filters[0], kernel_size=(3, 7, 7),
                          strides=(1, 2, 2), padding=(1, 3, 3))
        body = L.relu(d.bn(body, "bn0"))
        if d.rank == 2:  # resnet_3d comments its max_pool3d out
            body = L.max_pool2d(body, pool_size=(3, 3), strides=(2, 2), padding=(1, 1),
                                layout=d.layout)
    for i in range(num_stages):
        s = 1 if i == 0 else 2
        body = _residual_unit(d, body, filters[i + 1], d.k(s), False, f"stage{i + 1}_unit1",
                              bottle_neck)
        for j in range(units[i] - 1):
            body = _residual_unit(d, body, filters[i + 1], d.k(1), True,
                                  f"stage{i + 1}_unit{j + 2}", bottle_neck)
    relu1 = L.relu(d.bn(body, "bn1"))
    if d.rank == 2:
        pool = L.global_avg_pool2d(relu1, layout=d.layout)
    else:
        pool = L.global_avg_pool3d(relu1, layout=d.layout)
    fc1 = L.dense_add_bias(L.batch_flatten(pool), "fc1", units=num_classes)
    return _net(L.softmax(fc1))


def resnet(batch_size: int = 1, num_classes: int = 1000, num_layers: int = 18,
           image_shape: Sequence[int] = (3, 224, 224), layout: str = "NCHW",
           dtype: str = "float32") -> Function:
    """`resnet.get_workload`: ResNet-v2 (pre-activation); 18 layers by default."""
    return _resnet(_Dims(2, layout), batch_size, num_classes, num_layers, image_shape, dtype)


def resnet_3d(batch_size: int = 1, num_classes: int = 1000, num_layers: int = 18,
              image_shape: Sequence[int] = (3, 16, 112, 112), layout: str = "NCDHW",
              dtype: str = "float32") -> Function:
    """`resnet_3d.get_workload`: the same net with conv3d and a 3-D global average pool."""
    return _resnet(_Dims(3, layout), batch_size, num_classes, num_layers, image_shape, dtype)


# --------------------------------------------------------------------------------- mobilenet


def _separable_block(data: Expr, name: str, dw_channels: int, pw_channels: int,
                     downsample: bool, layout: str, dtype: str) -> Expr:
    """mobilenet's `separable_conv_block`: depthwise 3x3 (groups = channels), pointwise 1x1."""
    strides = (2, 2) if downsample else (1, 1)
    ks = (3, 3)
    if layout == "NCHW":
        wshape = (dw_channels, 1, *ks)
    elif layout == "NHWC":
        wshape = (*ks, dw_channels, 1)
    else:
        raise ValueError("Invalid layout: " + layout)
    bn_axis = layout.index("C")
    conv1 = L.conv2d(data, name + "_depthwise_conv1", weight=L.var(name + "_weight", wshape, dtype),
                     channels=dw_channels, groups=dw_channels, kernel_size=ks, strides=strides,
                     padding=(1, 1), data_layout=layout,
                     kernel_layout=L.conv_kernel_layout(layout, True))
    act1 = L.relu(L.batch_norm_infer(conv1, name + "_bn1", axis=bn_axis))
    conv2 = L.conv2d(act1, name + "_conv2", channels=pw_channels, kernel_size=(1, 1),
                     strides=(1, 1), padding=(0, 0), data_layout=layout,
                     kernel_layout=L.conv_kernel_layout(layout))
    return L.relu(L.batch_norm_infer(conv2, name + "_bn2", axis=bn_axis))


def mobilenet(batch_size: int = 1, num_classes: int = 1000,
              image_shape: Sequence[int] = (3, 224, 224), dtype: str = "float32",
              layout: str = "NCHW") -> Function:
    """`mobilenet.get_workload` (alpha 1, not shallow): 1 conv block and 13 separable blocks."""
    data = L.var("data", (batch_size, *image_shape), dtype)
    conv = L.conv2d(data, "conv_block_1_conv", channels=32, kernel_size=(3, 3), strides=(2, 2),
                    padding=(1, 1), data_layout=layout,
                    kernel_layout=L.conv_kernel_layout(layout))
    body: Expr = L.relu(L.batch_norm_infer(conv, "conv_block_1_bn"))
    plan = [(32, 64, False), (64, 128, True), (128, 128, False), (128, 256, True),
            (256, 256, False), (256, 512, True)]
    plan += [(512, 512, False)] * 5 + [(512, 1024, True), (1024, 1024, False)]
    for i, (dw, pw, down) in enumerate(plan, start=1):
        body = _separable_block(body, f"separable_conv_block_{i}", dw, pw, down, layout, dtype)
    flat = L.batch_flatten(L.global_avg_pool2d(body, layout=layout))
    fc = L.bias_add(L.dense(flat, L.var("fc_weight"), num_classes), L.var("fc_bias"))
    return _net(L.softmax(fc))


# -------------------------------------------------------------------------------------- lstm


def _lstm_cell(num_hidden: int, batch_size: int, dtype: str) -> Function:
    """lstm's `lstm_cell`: a let-bound function of (inputs, states, weights) -> (h, (h, c))."""
    input_t = TensorType((batch_size, num_hidden), dtype)
    weight_t = TensorType((4 * num_hidden, num_hidden), dtype)
    bias_t = TensorType((4 * num_hidden,), dtype)
    dense_t = TensorType((batch_size, 4 * num_hidden), dtype)
    slice_t = TupleType((input_t,) * 4)
    state_t = TupleType((input_t, input_t))
    ret_t = TupleType((input_t, state_t))
    inputs, states = Var("inputs", input_t), Var("states", state_t)
    i2h_w, i2h_b = Var("i2h_weight", weight_t), Var("i2h_bias", bias_t)
    h2h_w, h2h_b = Var("h2h_weight", weight_t), Var("h2h_bias", bias_t)
    sb = _Scope()
    i2h = sb.let("i2h", dense_t, L.dense_add_bias(inputs, "", 4 * num_hidden, i2h_w, i2h_b))
    h2h = sb.let("h2h", dense_t, L.dense_add_bias(TupleGetItem(states, 0), "", 4 * num_hidden,
                                                  h2h_w, h2h_b))
    gates = sb.let("gates", dense_t, L.add(i2h, h2h))
    sl = sb.let("slice_gates", slice_t, L.split(gates, 4, axis=1))
    in_gate = sb.let("in_gate", input_t, L.unary("sigmoid", TupleGetItem(sl, 0)))
    forget_gate = sb.let("forget_gate", input_t, L.unary("sigmoid", TupleGetItem(sl, 1)))
    in_transform = sb.let("in_transform", input_t, L.unary("tanh", TupleGetItem(sl, 2)))
    out_gate = sb.let("out_gate", input_t, L.unary("sigmoid", TupleGetItem(sl, 3)))
    next_c = sb.let("next_c", input_t, L.add(L.multiply(forget_gate, TupleGetItem(states, 1)),
                                             L.multiply(in_gate, in_transform)))
    next_h = sb.let("next_h", input_t, L.multiply(out_gate, L.unary("tanh", next_c)))
    ret = sb.let("ret", ret_t, Tuple((next_h, Tuple((next_h, next_c)))))
    params = (inputs, states, i2h_w, i2h_b, h2h_w, h2h_b)
    return Function(params, sb.get(ret), ret_t)


def lstm(iterations: int = 1, num_hidden: int = 1, batch_size: int = 1,
         dtype: str = "float32") -> Function:
    """`lstm.get_workload(iterations, num_hidden)`: an unrolled RNN, one inner cell fn per step.

    Every step has its own `%data` input (as in TVM, all named `data`).
    """
    input_t = TensorType((batch_size, num_hidden), dtype)
    weight_t = TensorType((4 * num_hidden, num_hidden), dtype)
    bias_t = TensorType((4 * num_hidden,), dtype)
    state_t = TupleType((input_t, input_t))
    cell_t = TupleType((input_t, state_t))
    sb = _Scope()
    z = sb.let("zeros", input_t, L.zeros((batch_size, num_hidden), dtype))
    states: Expr = sb.let("init_states", state_t, Tuple((z, z)))
    out: Expr | None = None
    for i in range(iterations):
        args = (Var("data", input_t), states, Var(f"i2h_{i}_weight", weight_t),
                Var(f"i2h_{i}_bias", bias_t), Var(f"h2h_{i}_weight", weight_t),
                Var(f"h2h_{i}_bias", bias_t))
        cell = sb.let(f"call_{i}", cell_t, Call(_lstm_cell(num_hidden, batch_size, dtype), args))
        out = sb.let(f"out_{i}", input_t, TupleGetItem(cell, 0))
        states = sb.let(f"states_{i}", state_t, TupleGetItem(cell, 1))
    if out is None:
        raise ValueError("lstm needs at least one iteration")
    return _net(sb.get(out), input_t)


# --------------------------------------------------------------------------------------- dqn


def dqn(batch_size: int = 1, num_actions: int = 18, image_shape: Sequence[int] = (4, 84, 84),
        dtype: str = "float32", layout: str = "NCHW") -> Function:
    """`dqn.get_workload`: the Nature DQN, three convs with biases and two dense layers."""
    data = L.var("data", (batch_size, *image_shape), dtype)
    bias_axis = layout.index("C")
    kl = L.conv_kernel_layout(layout)
    x: Expr = data
    for name, k, s, ch in (("conv1", 8, 4, 32), ("conv2", 4, 2, 64), ("conv3", 3, 1, 64)):
        bias = L.var(name + "_bias")
        conv = L.conv2d(x, name, kernel_size=(k, k), strides=(s, s), padding=(0, 0), channels=ch,
                        data_layout=layout, kernel_layout=kl)
        x = L.relu(L.bias_add(conv, bias, bias_axis))
    dense1 = L.relu(L.dense_add_bias(L.batch_flatten(x), "dense1", units=512))
    return _net(L.dense_add_bias(dense1, "dense2", units=num_actions))


# ------------------------------------------------------------------------------------- dcgan


def _deconv2d(data: Expr, oshape: Sequence[int], kshape: tuple[int, int], layout: str,
              name: str, stride: tuple[int, int] = (2, 2)) -> Call:
    """dcgan's `deconv2d`: a transposed conv that doubles the feature map."""
    target = (oshape[-2], oshape[-1])
    pad_y, pad_x = (kshape[0] - 1) // 2, (kshape[1] - 1) // 2
    adj_y = (target[0] + 2 * pad_y - kshape[0]) % stride[0]
    adj_x = (target[1] + 2 * pad_x - kshape[1]) % stride[1]
    if layout == "NCHW":
        kernel_layout = "IOHW"
    elif layout == "NHWC":
        kernel_layout = "HWOI"
    else:
        raise ValueError("Invalid layout: " + layout)
    return L.conv2d_transpose(data, name, kernel_size=kshape, strides=stride, channels=oshape[0],
                              padding=(pad_y, pad_x), output_padding=(adj_y, adj_x),
                              data_layout=layout, kernel_layout=kernel_layout)


def dcgan(batch_size: int = 1, oshape: Sequence[int] = (3, 64, 64), ngf: int = 128,
          random_len: int = 100, layout: str = "NCHW", dtype: str = "float32") -> Function:
    """`dcgan.get_workload`: the DCGAN generator, dense + reshape + 4 transposed convs + tanh."""
    if oshape[-1] != 64 or oshape[-2] != 64:
        raise ValueError("Only support 64x64 image")
    code = L.var("data", (batch_size, random_len), dtype)
    x = L.relu(L.dense(code, L.var("dense_weight"), 4 * 4 * ngf * 8))
    if layout == "NCHW":
        x = L.reshape(x, (-1, ngf * 8, 4, 4))
    elif layout == "NHWC":
        x = L.reshape(x, (-1, 4, 4, ngf * 8))
    else:
        raise ValueError("Invalid layout: " + layout)
    bn_axis = layout.index("C")
    eps = 1e-5 + 1e-12
    net: Expr = x
    for prefix, out_shape in (("g2", (ngf * 4, 8, 8)), ("g3", (ngf * 2, 16, 16)),
                              ("g4", (ngf, 32, 32))):
        net = _deconv2d(net, out_shape, (4, 4), layout, f"{prefix}_deconv")
        net = L.relu(L.batch_norm_infer(net, f"{prefix}_batch_norm", epsilon=eps, scale=False,
                                        axis=bn_axis))
    dc64 = _deconv2d(net, tuple(oshape[-3:]), (4, 4), layout, "g5_deconv")
    return _net(L.unary("tanh", dc64))


# -------------------------------------------------------------------------------- squeezenet


def _fire_conv(net: Expr, channels: int, kernel_size: int, padding: int, prefix: str) -> Expr:
    conv = L.conv2d(net, f"{prefix}_conv", channels=channels,
                    kernel_size=(kernel_size, kernel_size), padding=(padding, padding))
    return L.relu(L.bias_add(conv, L.var(f"{prefix}_conv_bias")))


def _fire(net: Expr, squeeze: int, expand1x1: int, expand3x3: int, prefix: str) -> Expr:
    net = _fire_conv(net, squeeze, 1, 0, f"{prefix}_input")
    left = _fire_conv(net, expand1x1, 1, 0, f"{prefix}_left")
    right = _fire_conv(net, expand3x3, 3, 1, f"{prefix}_right")
    return L.concatenate((left, right), axis=1)


def squeezenet(batch_size: int = 1, num_classes: int = 1000, version: str = "1.0",
               image_shape: Sequence[int] = (3, 224, 224), dtype: str = "float32") -> Function:
    """`squeezenet.get_workload`: version "1.0" or "1.1" (same op counts, other shapes)."""
    if version not in ("1.0", "1.1"):
        raise ValueError(f"Unsupported SqueezeNet version {version}:1.0 or 1.1 expected")
    net: Expr = L.var("data", (batch_size, *image_shape), dtype)

    def pool(x: Expr) -> Expr:
        return L.max_pool2d(x, pool_size=(3, 3), strides=(2, 2))

    if version == "1.0":
        net = L.conv2d(net, "conv1", channels=96, kernel_size=(7, 7), strides=(2, 2),
                       padding=(3, 3))
        net = pool(L.relu(L.bias_add(net, L.var("conv1_bias"))))
        net = _fire(net, 16, 64, 64, "fire1")
        net = _fire(net, 16, 64, 64, "fire2")
        net = _fire(net, 32, 128, 128, "fire3")
        net = pool(net)
        net = _fire(net, 32, 128, 128, "fire4")
        net = _fire(net, 48, 192, 192, "fire5")
        net = _fire(net, 48, 192, 192, "fire6")
        net = _fire(net, 64, 256, 256, "fire7")
        net = pool(net)
        net = _fire(net, 64, 256, 256, "fire8")
    else:
        net = L.conv2d(net, "conv1", channels=64, kernel_size=(3, 3), strides=(2, 2),
                       padding=(1, 1))
        net = pool(L.relu(L.bias_add(net, L.var("conv1_bias"))))
        net = _fire(net, 16, 64, 64, "fire1")
        net = _fire(net, 16, 64, 64, "fire2")
        net = pool(net)
        net = _fire(net, 32, 128, 128, "fire3")
        net = _fire(net, 32, 128, 128, "fire4")
        net = pool(net)
        net = _fire(net, 48, 192, 192, "fire5")
        net = _fire(net, 48, 192, 192, "fire6")
        net = _fire(net, 64, 256, 256, "fire7")
        net = _fire(net, 64, 256, 256, "fire8")
    net = L.dropout(net, rate=0.5)
    net = L.conv2d(net, "conv_final", channels=num_classes, kernel_size=(1, 1))
    net = L.relu(L.bias_add(net, L.var("conv_final_bias")))
    net = L.batch_flatten(L.global_avg_pool2d(net))
    return _net(L.softmax(net))


# --------------------------------------------------------------------------------------- vgg

_VGG_SPEC = {
    11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
    13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
    16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
    19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512]),
}


def vgg(batch_size: int = 1, num_classes: int = 1000, image_shape: Sequence[int] = (3, 224, 224),
        dtype: str = "float32", num_layers: int = 11, batch_norm: bool = False) -> Function:
    """`vgg.get_workload`: conv stacks with max pools, then fc6/fc7 (with dropout) and fc8."""
    if num_layers not in _VGG_SPEC:
        raise ValueError(f"Invalid num_layers {num_layers}. Choices are 11,13,16,19.")
    layers, filters = _VGG_SPEC[num_layers]
    x: Expr = L.var("data", (batch_size, *image_shape), dtype)
    for i, num in enumerate(layers):
        for j in range(num):
            tag = f"{i + 1}_{j + 1}"
            x = L.conv2d(x, f"conv{tag}", kernel_size=(3, 3), padding=(1, 1),
                         channels=filters[i])
            x = L.bias_add(x, L.var(f"conv{tag}_bias"))
            if batch_norm:
                x = L.batch_norm_infer(x, f"bn{tag}")
            x = L.relu(x)
        x = L.max_pool2d(x, pool_size=(2, 2), strides=(2, 2))
    x = L.batch_flatten(x)
    x = L.dropout(L.relu(L.dense_add_bias(x, "fc6", units=4096)), rate=0.5)
    x = L.dropout(L.relu(L.dense_add_bias(x, "fc7", units=4096)), rate=0.5)
    return _net(L.softmax(L.dense_add_bias(x, "fc8", units=num_classes)))


# ---------------------------------------------------------------------------------- densenet

_DENSENET_SPECS = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (69, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
}


def densenet(densenet_size: int = 121, classes: int = 1000, batch_size: int = 4,
             image_shape: Sequence[int] = (3, 224, 224), dtype: str = "float32") -> Function:
    """`densenet.get_workload`, as TVM writes it: each block's layers form a chain (layer i
    reads layer i-1 only) and the block output concatenates every layer's output."""
    bn_size = 4
    num_init_features, growth_rate, block_config = _DENSENET_SPECS[densenet_size]
    data = Var("data", TensorType((batch_size, *image_shape), dtype))
    conv1 = L.conv2d(data, "conv1", channels=num_init_features, kernel_size=(7, 7),
                     strides=(2, 2), padding=(3, 3))
    relu1 = L.relu(L.batch_norm_infer(conv1, "batch1"))
    out: Expr = L.max_pool2d(relu1, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))
    num_features = num_init_features
    for i, num_layers in enumerate(block_config):
        blocks: list[Expr] = []
        for k in range(num_layers):
            index = f"{i}_{k}"
            r1 = L.relu(L.batch_norm_infer(out, f"batch_1_{index}"))
            c1 = L.conv2d(r1, f"conv2d_1_{index}", channels=bn_size * growth_rate,
                          kernel_size=(1, 1))
            r2 = L.relu(L.batch_norm_infer(c1, f"batch_2_{index}"))
            out = L.conv2d(r2, f"conv2d_2_{index}", channels=growth_rate, kernel_size=(3, 3),
                           padding=(1, 1))
            blocks.append(out)
        out = L.concatenate(blocks, 1)
        num_features += num_layers * growth_rate
        if i != len(block_config) - 1:
            num_features //= 2
            rt = L.relu(L.batch_norm_infer(out, f"batch_t_{i}"))
            ct = L.conv2d(rt, f"conv_t_{i}", channels=num_features, kernel_size=(1, 1))
            out = L.avg_pool2d(ct, pool_size=(2, 2), strides=(2, 2))
    relu2 = L.relu(L.batch_norm_infer(out, "batch2"))
    flat = L.batch_flatten(L.avg_pool2d(relu2, pool_size=(7, 7)))
    return _net(L.dense_add_bias(flat, "dense", units=classes))


# ------------------------------------------------------------------------------ inception_v3


def _conv(data: Expr, num_filter: int, kernel: tuple[int, int] = (1, 1),
          stride: tuple[int, int] = (1, 1), pad: tuple[int, int] = (0, 0), name: str = "",
          suffix: str = "") -> Expr:
    """inception_v3's `Conv`: conv2d + batch_norm (scale=False, eps 2e-5) + relu."""
    conv = L.conv2d(data, f"{name}{suffix}_conv1", channels=int(num_filter), kernel_size=kernel,
                    strides=stride, padding=pad)
    return L.relu(L.batch_norm_infer(conv, f"{name}{suffix}_bn", epsilon=2e-5, scale=False))


def _pool(data: Expr, kernel: tuple[int, int], stride: tuple[int, int], pad: tuple[int, int],
          pool_type: str) -> Expr:
    """inception_v3's `Pooling`: max, or avg counting the padding."""
    if pool_type == "max":
        return L.max_pool2d(data, pool_size=kernel, strides=stride, padding=pad)
    if pool_type == "avg":
        return L.avg_pool2d(data, pool_size=kernel, strides=stride, padding=pad,
                            count_include_pad=True)
    raise ValueError("Invalid pooling type: " + pool_type)


def _inception_a(data: Expr, n1: int, n3r: int, n3a: int, n3b: int, n5r: int, n5: int,
                 pool: str, proj: int, name: str) -> Expr:
    t1 = _conv(data, n1, name=f"{name}_conv")
    t5 = _conv(data, n5r, name=f"{name}_tower", suffix="_conv")
    t5 = _conv(t5, n5, kernel=(5, 5), pad=(2, 2), name=f"{name}_tower", suffix="_conv_1")
    t3 = _conv(data, n3r, name=f"{name}_tower_1", suffix="_conv")
    t3 = _conv(t3, n3a, kernel=(3, 3), pad=(1, 1), name=f"{name}_tower_1", suffix="_conv_1")
    t3 = _conv(t3, n3b, kernel=(3, 3), pad=(1, 1), name=f"{name}_tower_1", suffix="_conv_2")
    pooled = _pool(data, (3, 3), (1, 1), (1, 1), pool)
    cproj = _conv(pooled, proj, name=f"{name}_tower_2", suffix="_conv")
    return L.concatenate((t1, t5, t3, cproj), axis=1)


def _inception_b(data: Expr, n3: int, nd3r: int, nd3a: int, nd3b: int, pool: str,
                 name: str) -> Expr:
    t3 = _conv(data, n3, kernel=(3, 3), pad=(0, 0), stride=(2, 2), name=f"{name}_conv")
    td = _conv(data, nd3r, name=f"{name}_tower", suffix="_conv")
    td = _conv(td, nd3a, kernel=(3, 3), pad=(1, 1), stride=(1, 1), name=f"{name}_tower",
               suffix="_conv_1")
    td = _conv(td, nd3b, kernel=(3, 3), pad=(0, 0), stride=(2, 2), name=f"{name}_tower",
               suffix="_conv_2")
    pooled = _pool(data, (3, 3), (2, 2), (0, 0), "max")
    return L.concatenate((t3, td, pooled), axis=1)


def _inception_c(data: Expr, n1: int, nd7r: int, nd7a: int, nd7b: int, nq7r: int, nq7a: int,
                 nq7b: int, nq7c: int, nq7d: int, pool: str, proj: int, name: str) -> Expr:
    t1 = _conv(data, n1, kernel=(1, 1), name=f"{name}_conv")
    td = _conv(data, nd7r, name=f"{name}_tower", suffix="_conv")
    td = _conv(td, nd7a, kernel=(1, 7), pad=(0, 3), name=f"{name}_tower", suffix="_conv_1")
    td = _conv(td, nd7b, kernel=(7, 1), pad=(3, 0), name=f"{name}_tower", suffix="_conv_2")
    tq = _conv(data, nq7r, name=f"{name}_tower_1", suffix="_conv")
    tq = _conv(tq, nq7a, kernel=(7, 1), pad=(3, 0), name=f"{name}_tower_1", suffix="_conv_1")
    tq = _conv(tq, nq7b, kernel=(1, 7), pad=(0, 3), name=f"{name}_tower_1", suffix="_conv_2")
    tq = _conv(tq, nq7c, kernel=(7, 1), pad=(3, 0), name=f"{name}_tower_1", suffix="_conv_3")
    tq = _conv(tq, nq7d, kernel=(1, 7), pad=(0, 3), name=f"{name}_tower_1", suffix="_conv_4")
    pooled = _pool(data, (3, 3), (1, 1), (1, 1), pool)
    cproj = _conv(pooled, proj, kernel=(1, 1), name=f"{name}_tower_2", suffix="_conv")
    return L.concatenate((t1, td, tq, cproj), axis=1)


def _inception_d(data: Expr, n3r: int, n3: int, nd7r: int, nd7a: int, nd7b: int, nd7c: int,
                 pool: str, name: str) -> Expr:
    t3 = _conv(data, n3r, name=f"{name}_tower", suffix="_conv")
    t3 = _conv(t3, n3, kernel=(3, 3), pad=(0, 0), stride=(2, 2), name=f"{name}_tower",
               suffix="_conv_1")
    td = _conv(data, nd7r, name=f"{name}_tower_1", suffix="_conv")
    td = _conv(td, nd7a, kernel=(1, 7), pad=(0, 3), name=f"{name}_tower_1", suffix="_conv_1")
    td = _conv(td, nd7b, kernel=(7, 1), pad=(3, 0), name=f"{name}_tower_1", suffix="_conv_2")
    td = _conv(td, nd7c, kernel=(3, 3), stride=(2, 2), name=f"{name}_tower_1", suffix="_conv_3")
    pooled = _pool(data, (3, 3), (2, 2), (0, 0), pool)
    return L.concatenate((t3, td, pooled), axis=1)


def _inception_e(data: Expr, n1: int, nd3r: int, nd3a: int, nd3b: int, n33r: int, n33: int,
                 n33a: int, n33b: int, pool: str, proj: int, name: str) -> Expr:
    t1 = _conv(data, n1, kernel=(1, 1), name=f"{name}_conv")
    td = _conv(data, nd3r, name=f"{name}_tower", suffix="_conv")
    td_a = _conv(td, nd3a, kernel=(1, 3), pad=(0, 1), name=f"{name}_tower",
                 suffix="_mixed_conv")
    td_b = _conv(td, nd3b, kernel=(3, 1), pad=(1, 0), name=f"{name}_tower",
                 suffix="_mixed_conv_1")
    t33 = _conv(data, n33r, name=f"{name}_tower_1", suffix="_conv")
    t33 = _conv(t33, n33, kernel=(3, 3), pad=(1, 1), name=f"{name}_tower_1", suffix="_conv_1")
    t33_a = _conv(t33, n33a, kernel=(1, 3), pad=(0, 1), name=f"{name}_tower_1",
                  suffix="_mixed_conv")
    t33_b = _conv(t33, n33b, kernel=(3, 1), pad=(1, 0), name=f"{name}_tower_1",
                  suffix="_mixed_conv_1")
    pooled = _pool(data, (3, 3), (1, 1), (1, 1), pool)
    cproj = _conv(pooled, proj, kernel=(1, 1), name=f"{name}_tower_2", suffix="_conv")
    return L.concatenate((t1, td_a, td_b, t33_a, t33_b, cproj), axis=1)


def inception_v3(batch_size: int = 1, num_classes: int = 1000,
                 image_shape: Sequence[int] = (3, 299, 299), dtype: str = "float32") -> Function:
    """`inception_v3.get_workload`, including its `%fc2_bias` for the fc1 layer's bias."""
    data = L.var("data", (batch_size, *image_shape), dtype)
    x = _conv(data, 32, kernel=(3, 3), stride=(2, 2), name="conv")
    x = _conv(x, 32, kernel=(3, 3), name="conv_1")
    x = _conv(x, 64, kernel=(3, 3), pad=(1, 1), name="conv_2")
    x = _pool(x, (3, 3), (2, 2), (0, 0), "max")
    x = _conv(x, 80, kernel=(1, 1), name="conv_3")
    x = _conv(x, 192, kernel=(3, 3), name="conv_4")
    x = _pool(x, (3, 3), (2, 2), (0, 0), "max")
    x = _inception_a(x, 64, 64, 96, 96, 48, 64, "avg", 32, "mixed")
    x = _inception_a(x, 64, 64, 96, 96, 48, 64, "avg", 64, "mixed_1")
    x = _inception_a(x, 64, 64, 96, 96, 48, 64, "avg", 64, "mixed_2")
    x = _inception_b(x, 384, 64, 96, 96, "max", "mixed_3")
    x = _inception_c(x, 192, 128, 128, 192, 128, 128, 128, 128, 192, "avg", 192, "mixed_4")
    x = _inception_c(x, 192, 160, 160, 192, 160, 160, 160, 160, 192, "avg", 192, "mixed_5")
    x = _inception_c(x, 192, 160, 160, 192, 160, 160, 160, 160, 192, "avg", 192, "mixed_6")
    x = _inception_c(x, 192, 192, 192, 192, 192, 192, 192, 192, 192, "avg", 192, "mixed_7")
    x = _inception_d(x, 192, 320, 192, 192, 192, 192, "max", "mixed_8")
    x = _inception_e(x, 320, 384, 384, 384, 448, 384, 384, 384, "avg", 192, "mixed_9")
    x = _inception_e(x, 320, 384, 384, 384, 448, 384, 384, 384, "max", 192, "mixed_10")
    x = _pool(x, (8, 8), (1, 1), (0, 0), "avg")
    fc1 = L.dense(L.batch_flatten(x), L.var("fc1_weight"), num_classes)
    fc1 = L.bias_add(fc1, L.var("fc2_bias"), axis=-1)
    return _net(L.softmax(fc1))


# --------------------------------------------------------------------------------- synthetic


def synthetic(input_shape: Sequence[int] = (1, 3, 24, 12), dtype: str = "float32",
              wtype: str | None = None) -> Function:
    """`synthetic.get_workload`: a small net mixing dense, conv2d, reshape_like and batch_norm."""
    wtype = wtype or dtype
    data = L.var("data", input_shape, dtype)
    dense_shape = (-1, input_shape[3])
    conv_shape = (input_shape[1], input_shape[1], 3, 3)

    def half(x: Expr, dense_w: str, conv_in: Expr, conv_w: str) -> Expr:
        d = L.relu(L.dense(L.reshape(x, dense_shape),
                           L.var(dense_w, (input_shape[3], dense_shape[1]), wtype)))
        d = L.reshape_like(d, data)
        c = L.softmax(L.conv2d_op(conv_in, L.var(conv_w, conv_shape, wtype), padding=1,
                                  kernel_size=3))
        return L.add(d, c)

    added = half(data, "dense_weight", data, "conv_weight")
    biased = L.batch_norm_infer(L.bias_add(added, L.var("bias")), "batch_norm")
    return _net(half(biased, "dense2_weight", biased, "conv2_weight"))


# ------------------------------------------------------------------------------------ registry

Builder = Callable[..., Function]

RELAY_MODELS: dict[str, Builder] = {
    "mlp": mlp,
    "resnet-18": functools.partial(resnet, num_layers=18),
    "resnet-50": functools.partial(resnet, num_layers=50),
    "resnet3d-18": functools.partial(resnet_3d, num_layers=18),
    "mobilenet": mobilenet,
    "lstm": lstm,
    "dqn": dqn,
    "dcgan": dcgan,
    "squeezenet1.0": functools.partial(squeezenet, version="1.0"),
    "squeezenet1.1": functools.partial(squeezenet, version="1.1"),
    "vgg-11": functools.partial(vgg, num_layers=11),
    "vgg-16": functools.partial(vgg, num_layers=16),
    "densenet-121": functools.partial(densenet, densenet_size=121),
    "inception_v3": inception_v3,
    "synthetic": synthetic,
}


def _builder(name: str) -> Builder:
    b = RELAY_MODELS.get(name)
    if b is None:
        raise ValueError(f"unknown Relay zoo model {name!r}; known: {', '.join(RELAY_MODELS)}")
    return b


def build_relay_typed(name: str, **kwargs: Any) -> Typed:
    """The model as `create_workload` leaves it: `@main` type-inferred, plus each node's type."""
    fn = _builder(name)(**kwargs)
    return infer_types(Module({"main": fn}, source_name=f"zoo:{name}"))


def build_relay(name: str, **kwargs: Any) -> Module:
    """The model `name` as a type-annotated module (`kwargs` override get_workload's defaults)."""
    return build_relay_typed(name, **kwargs).module


# ------------------------------------------------------------------------------- statistics


def op_counts(mod: Module) -> Counter[str]:
    """How many calls of each primitive op the module holds (inner functions included)."""
    counts: Counter[str] = Counter()
    for fn in mod.functions.values():
        for node in post_order(fn):
            if isinstance(node, Call) and isinstance(node.op, Op):
                counts[node.op.name] += 1
    return counts


def gradient_blockers(mod: Module) -> list[str]:
    """The ops of mod without a gradient rule (sorted): why its gradient cannot be taken."""
    from extractor.relay.transforms.ad_shared import gradient_rule

    return sorted(name for name in op_counts(mod) if gradient_rule(name) is None)


# ------------------------------------------------------------------------- training workloads


def with_loss(mod: Module) -> Module:
    """`@main` returning a training loss instead of the prediction, with one more parameter.

    A net ending in softmax gets `nn.cross_entropy(prediction, %label)`; any other (Q-values, an
    image, an LSTM state) `mean((out - %target)^2)`. The label or target is the last parameter.
    """
    fn = mod.functions["main"]
    out_t = fn.ret_type
    if not isinstance(out_t, TensorType):
        raise ValueError(f"{mod.source_name}: a training loss needs a tensor result")
    tail = fn.body
    while isinstance(tail, Let):
        tail = tail.body
    out = Var("prediction", out_t)
    if isinstance(tail, Call) and isinstance(tail.op, Op) and tail.op.name == "nn.softmax":
        label = Var("label", out_t)
        loss: Expr = make_call("nn.cross_entropy", out, label)
    else:
        label = Var("target", out_t)
        diff = Var("error", out_t)
        loss = Let(diff, make_call("subtract", out, label),
                   make_call("mean", make_call("multiply", diff, diff)))
    body = Let(out, fn.body, loss)
    main = Function((*fn.params, label), body, TensorType((), out_t.dtype))
    return infer_types(Module({**mod.functions, "main": main}, mod.type_defs,
                              mod.source_name)).module


def differentiable(mod: Module) -> Module:
    """mod ready for the higher-order gradient: SimplifyInference (inference batch_norm and
    dropout, which have no v0.19 gradient), then every shared node let-bound (ToANormalForm,
    constants left inline), since the gradient rejects a graph (relay-notes §2)."""
    return to_a_normal_form(simplify_inference(mod), minimal=True).module


def training_workload(mod: Module) -> Module:
    """A training step of mod: the loss and the gradient of every parameter but the data and
    the label, which `training_step` leaves as dead cells."""
    primal = differentiable(with_loss(mod))
    params = [p.name_hint for p in primal.functions["main"].params]
    keep = [i for i, n in enumerate(params) if n not in ("data", "label", "target")]
    return training_step(primal, keep)


# ------------------------------------------------------------------------------------ writing



@dataclass
class ZooEntry:
    """One model of the zoo: its files, size, one interpreter run of each, or why not."""

    name: str
    paths: dict[str, str] = field(default_factory=dict)  # workload -> file written
    ops: int = 0
    vars: int = 0
    op_counts: dict[str, int] = field(default_factory=dict)
    run_seconds: dict[str, float] = field(default_factory=dict)  # workload -> one run's time
    no_gradient: str | None = None
    error: str | None = None

    def describe(self) -> str:
        """One line for the CLI: what was written, or what went wrong."""
        if not self.paths:
            return f"{self.name}: FAILED: {self.error}"
        files = ", ".join(Path(p).name for p in self.paths.values())
        line = f"{self.name}: {self.ops} ops, {self.vars} params -> {files}"
        if self.error:
            return f"{line}; FAILED: {self.error}"
        return f"{line} (no gradient: {self.no_gradient})" if self.no_gradient else line


def _failure(err: BaseException) -> str:
    return str(err) if isinstance(err, LocatedError) else f"{type(err).__name__}: {err}"


def _write(entry: ZooEntry, workload: str, typed: Typed, out: Path, types: bool,
           run: bool) -> None:
    """Print one workload (type-checked: it is a Typed) and run it once in the interpreter."""
    path = out / f"{entry.name}{zoo_suffix('relay', workload)}"
    write_text_atomically(path, astext(typed.module, types=typed.types if types else None))
    entry.paths[workload] = str(path)
    if run:
        main = typed.module.functions["main"]
        t0 = time.perf_counter()
        with np.errstate(all="ignore"):  # random statistics (a negative variance) give NaNs
            evaluate(typed.module, random_inputs(main, 0))
        entry.run_seconds[workload] = round(time.perf_counter() - t0, 3)


def _write_model(name: str, out: Path, gradient: bool, types: bool, run: bool) -> ZooEntry:
    """Write one model's workloads; a failure is recorded in the entry, not raised."""
    entry = ZooEntry(name)
    try:
        typed = build_relay_typed(name)
        mod = typed.module
        counts = op_counts(mod)
        entry.ops, entry.vars = sum(counts.values()), len(mod.functions["main"].params)
        entry.op_counts = dict(sorted(counts.items()))
        _write(entry, "plain", typed, out, types, run)
        _write(entry, "anf", infer_types(to_a_normal_form(mod).module), out, types, run)
    except Exception as err:  # noqa: BLE001 - one model's failure must not stop the zoo
        entry.error = _failure(err)
        return entry
    if not gradient:
        entry.no_gradient = "gradient not requested"
        return entry
    blockers = gradient_blockers(simplify_inference(mod))
    if blockers:
        entry.no_gradient = "no gradient rule for " + ", ".join(blockers)
        return entry
    try:
        _write(entry, "grad", infer_types(gradient_module(differentiable(mod))), out, types, run)
        _write(entry, "train", infer_types(training_workload(mod)), out, types, run)
    except Exception as err:  # noqa: BLE001
        entry.no_gradient = entry.no_gradient or "gradient failed"
        entry.error = "gradient: " + _failure(err)
    return entry


def write_relay_zoo(out_dir: str | Path, names: Iterable[str] | None = None,
                    gradient: bool = True, types: bool = True, run: bool = True
                    ) -> list[ZooEntry]:
    """Write each model's workloads and `zoo.json`: `NAME.relay` (the plain model),
    `NAME.anf.relay` (after ToANormalForm: lets for DCE to work on), `NAME.grad.relay`
    (SimplifyInference, then the higher-order gradient) and `NAME.train.relay` (a training
    step: the loss and every parameter's gradient, the data's dropped).

    Each is type-checked and, with `run`, evaluated once on seeded inputs. Files are printed
    as TVM prints an inferred module (`/* ty=... */` comments unless `types=False`), each
    through a temporary file and a rename. A model that fails is reported in its entry's
    `error` (and in zoo.json) and the others are still written; unknown names are rejected
    up front.
    """
    chosen = list(RELAY_MODELS) if names is None else list(names)
    for n in chosen:
        _builder(n)  # reject unknown names before writing anything
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = [_write_model(name, out, gradient, types, run) for name in chosen]
    index = {
        "source": f"tvm.relay.testing (TVM v{TVM_VERSION}), rebuilt by aliaslog.zoo",
        "models": [_index_row(e, out) for e in entries],
    }
    write_text_atomically(out / "zoo.json", json.dumps(index, indent=2) + "\n")
    return entries


def _index_row(e: ZooEntry, base: Path) -> dict[str, Any]:
    row = asdict(e)
    row["paths"] = {k: Path(p).relative_to(base).as_posix() for k, p in e.paths.items()}
    return row
