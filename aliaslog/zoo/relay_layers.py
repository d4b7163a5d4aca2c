"""Builders for the Relay zoo: TVM v0.19's `relay.nn` wrappers and `relay.testing.layers`, as AST.

The zoo re-creates `tvm.relay.testing` workloads (relay-notes §5) node for node, so these helpers
reproduce what the Python API hands to the C++ `_make` functions, not just the maths:

* every call carries the operator's whole attrs object, as `_make` fills every field (the printer
  shows only non-default ones, so this changes the text only through the values below);
* `nn.conv2d` / pools normalise padding to 4 elements (`get_pad_tuple2d`) and an int kernel size
  or stride to a pair; `nn.conv3d` pads to 6 (`get_pad_tuple3d`); `nn.conv2d_transpose` only pads;
* `batch_norm` and `dropout` return `.0` of the op's tuple (`TupleWrapper(...)[0]`);
* `relay.nn.global_avg_pool3d` is not an operator in v0.19: the Python wrapper emits
  `nn.adaptive_avg_pool3d(x, output_size=[1, 1, 1])`, and so does `global_avg_pool3d` here;
* `var(name)` is unannotated unless given a shape, as `relay.var`; type inference fills it in.

The layer helpers (`conv2d`, `batch_norm_infer`, `dense_add_bias`, ...) create their weights as
free variables named `<name>_weight`, `<name>_gamma`, ..., exactly as `layers.py` does.
"""

from __future__ import annotations

from collections.abc import Sequence

from extractor.relay.ast import (
    Attrs,
    Call,
    Expr,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    Type,
    Var,
)

IntOrSeq = int | Sequence[int]

# ------------------------------------------------------------------------------------- basics


def var(name: str, shape: Sequence[int] | None = None, dtype: str = "float32",
        type_annotation: Type | None = None) -> Var:
    """`relay.var`: annotated only when a shape (or a type) is given."""
    if type_annotation is not None:
        return Var(name, type_annotation)
    return Var(name, TensorType(tuple(shape), dtype) if shape is not None else None)


def call(op: str, args: Sequence[Expr], type_key: str | None = None, **attrs: object) -> Call:
    """`op(args, attrs)` with the attrs in the order given (the attrs object's field order)."""
    return Call(Op(op), tuple(args), Attrs.of(type_key, **attrs) if type_key or attrs else Attrs())


def _tuple_of(v: IntOrSeq, n: int) -> tuple[int, ...]:
    return (v,) * n if isinstance(v, int) else tuple(v)


def _opt_tuple(v: IntOrSeq | None, n: int) -> tuple[int, ...] | None:
    return None if v is None else _tuple_of(v, n)


def pad_tuple2d(padding: IntOrSeq) -> tuple[int, int, int, int]:
    """`get_pad_tuple2d`: 1 or 2 values become (top, left, bottom, right)."""
    if isinstance(padding, int):
        ph = pw = padding * 2
    else:
        p = tuple(padding)
        if len(p) == 4:
            return p  # type: ignore[return-value]
        if len(p) != 2:
            raise ValueError("Size of padding can only be 2 or 4")
        ph, pw = p[0] * 2, p[1] * 2
    top, left = (ph + 1) // 2, (pw + 1) // 2
    return top, left, ph - top, pw - left


def pad_tuple3d(padding: IntOrSeq) -> tuple[int, int, int, int, int, int]:
    """`get_pad_tuple3d`: 1 or 3 values become (front, top, left, back, bottom, right)."""
    if isinstance(padding, int):
        pd = ph = pw = padding * 2
    else:
        p = tuple(padding)
        if len(p) == 6:
            return p  # type: ignore[return-value]
        if len(p) != 3:
            raise ValueError("Size of padding can only be 3 or 6")
        pd, ph, pw = p[0] * 2, p[1] * 2, p[2] * 2
    front, top, left = (pd + 1) // 2, (ph + 1) // 2, (pw + 1) // 2
    return front, top, left, pd - front, ph - top, pw - left


# ------------------------------------------------------------------------- relay / relay.nn ops


def unary(op: str, data: Expr) -> Call:
    """An attribute-less one-input op (`nn.relu`, `tanh`, `sigmoid`, `nn.batch_flatten`, ...)."""
    return call(op, (data,))


def relu(data: Expr) -> Call:
    """`relay.nn.relu`."""
    return unary("nn.relu", data)


def add(a: Expr, b: Expr) -> Call:
    """`relay.add`."""
    return call("add", (a, b))


def multiply(a: Expr, b: Expr) -> Call:
    """`relay.multiply`."""
    return call("multiply", (a, b))


def batch_flatten(data: Expr) -> Call:
    """`relay.nn.batch_flatten`."""
    return unary("nn.batch_flatten", data)


def softmax(data: Expr, axis: int = -1) -> Call:
    """`relay.nn.softmax`."""
    return call("nn.softmax", (data,), "relay.attrs.SoftmaxAttrs", axis=axis)


def dense(data: Expr, weight: Expr, units: int | None = None, out_dtype: str = "") -> Call:
    """`relay.nn.dense` (units=None prints as `units=None`: the field has no default)."""
    return call("nn.dense", (data, weight), "relay.attrs.DenseAttrs", units=units,
                out_dtype=out_dtype)


def bias_add(data: Expr, bias: Expr, axis: int = 1) -> Call:
    """`relay.nn.bias_add` (default axis 1, the channel of NCHW)."""
    return call("nn.bias_add", (data, bias), "relay.attrs.BiasAddAttrs", axis=axis)


def reshape(data: Expr, newshape: Sequence[int], allowzero: bool = False) -> Call:
    """`relay.reshape` with a static shape."""
    return call("reshape", (data,), "relay.attrs.ReshapeAttrs",
                newshape=tuple(int(d) for d in newshape), allowzero=allowzero)


def reshape_like(data: Expr, like: Expr) -> Call:
    """`relay.reshape_like` (no begin/end attrs, as the zoo uses it)."""
    return call("reshape_like", (data, like))


def concatenate(fields: Sequence[Expr], axis: int = 0) -> Call:
    """`relay.concatenate`: the inputs become one tuple argument."""
    return call("concatenate", (Tuple(tuple(fields)),), "relay.attrs.ConcatenateAttrs", axis=axis)


def split(data: Expr, indices_or_sections: IntOrSeq, axis: int = 0) -> Call:
    """`relay.split(...).astuple()`: the tuple-valued call itself."""
    ios = indices_or_sections if isinstance(indices_or_sections, int) else tuple(
        indices_or_sections)
    return call("split", (data,), "relay.attrs.SplitAttrs", indices_or_sections=ios, axis=axis)


def zeros(shape: Sequence[int], dtype: str = "float32") -> Call:
    """`relay.zeros` with a static shape."""
    return call("zeros", (), "relay.attrs.InitOpAttrs", shape=tuple(shape), dtype=dtype)


def conv2d_op(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = (1, 1),
    padding: IntOrSeq = (0, 0),
    dilation: IntOrSeq = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCHW",
    kernel_layout: str = "OIHW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """`relay.nn.conv2d`: int sizes become pairs, padding becomes 4 values."""
    return call("nn.conv2d", (data, weight), "relay.attrs.Conv2DAttrs",
                strides=_tuple_of(strides, 2), padding=pad_tuple2d(padding),
                dilation=_tuple_of(dilation, 2), groups=groups, channels=channels,
                kernel_size=_opt_tuple(kernel_size, 2), data_layout=data_layout,
                kernel_layout=kernel_layout, out_layout=out_layout, out_dtype=out_dtype)


def conv3d_op(
    data: Expr,
    weight: Expr,
    strides: IntOrSeq = (1, 1, 1),
    padding: IntOrSeq = (0, 0, 0),
    dilation: IntOrSeq = (1, 1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: IntOrSeq | None = None,
    data_layout: str = "NCDHW",
    kernel_layout: str = "OIDHW",
    out_layout: str = "",
    out_dtype: str = "",
) -> Call:
    """`relay.nn.conv3d`: int sizes become triples, padding becomes 6 values."""
    return call("nn.conv3d", (data, weight), "relay.attrs.Conv3DAttrs",
                strides=_tuple_of(strides, 3), padding=pad_tuple3d(padding),
                dilation=_tuple_of(dilation, 3), groups=groups, channels=channels,
                kernel_size=_opt_tuple(kernel_size, 3), data_layout=data_layout,
                kernel_layout=kernel_layout, out_layout=out_layout, out_dtype=out_dtype)


def conv2d_transpose_op(
    data: Expr,
    weight: Expr,
    strides: Sequence[int] = (1, 1),
    padding: IntOrSeq = (0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    channels: int | None = None,
    kernel_size: Sequence[int] | None = None,
    data_layout: str = "NCHW",
    kernel_layout: str = "IOHW",
    out_layout: str = "",
    output_padding: Sequence[int] = (0, 0),
    out_dtype: str = "",
) -> Call:
    """`relay.nn.conv2d_transpose`: only padding is normalised (to 4 values).

    The attrs keep Conv2DTransposeAttrs' own field order (channels, kernel_size, strides,
    output_padding, padding, ...).
    """
    return call("nn.conv2d_transpose", (data, weight), "relay.attrs.Conv2DTransposeAttrs",
                channels=channels, kernel_size=None if kernel_size is None else tuple(kernel_size),
                strides=tuple(strides), output_padding=tuple(output_padding),
                padding=pad_tuple2d(padding), dilation=tuple(dilation), groups=groups,
                data_layout=data_layout, kernel_layout=kernel_layout, out_layout=out_layout,
                out_dtype=out_dtype)


def max_pool2d(data: Expr, pool_size: IntOrSeq = (1, 1), strides: IntOrSeq = (1, 1),
               dilation: IntOrSeq = (1, 1), padding: IntOrSeq = (0, 0), layout: str = "NCHW",
               out_layout: str = "", ceil_mode: bool = False) -> Call:
    """`relay.nn.max_pool2d`."""
    return call("nn.max_pool2d", (data,), "relay.attrs.MaxPool2DAttrs",
                pool_size=_tuple_of(pool_size, 2), strides=_tuple_of(strides, 2),
                dilation=_tuple_of(dilation, 2), padding=pad_tuple2d(padding), layout=layout,
                out_layout=out_layout, ceil_mode=ceil_mode)


def avg_pool2d(data: Expr, pool_size: IntOrSeq = (1, 1), strides: IntOrSeq = (1, 1),
               dilation: IntOrSeq = (1, 1), padding: IntOrSeq = (0, 0), layout: str = "NCHW",
               out_layout: str = "", ceil_mode: bool = False,
               count_include_pad: bool = False) -> Call:
    """`relay.nn.avg_pool2d`."""
    return call("nn.avg_pool2d", (data,), "relay.attrs.AvgPool2DAttrs",
                pool_size=_tuple_of(pool_size, 2), strides=_tuple_of(strides, 2),
                dilation=_tuple_of(dilation, 2), padding=pad_tuple2d(padding), layout=layout,
                out_layout=out_layout, ceil_mode=ceil_mode, count_include_pad=count_include_pad)


def global_avg_pool2d(data: Expr, layout: str = "NCHW", out_layout: str = "") -> Call:
    """`relay.nn.global_avg_pool2d`."""
    return call("nn.global_avg_pool2d", (data,), "relay.attrs.GlobalPool2DAttrs",
                layout=layout, out_layout=out_layout)


def global_avg_pool3d(data: Expr, layout: str = "NCDHW", out_layout: str = "") -> Call:
    """`relay.nn.global_avg_pool3d`, which v0.19 builds as `nn.adaptive_avg_pool3d` to 1x1x1."""
    return call("nn.adaptive_avg_pool3d", (data,), "relay.attrs.AdaptivePool3DAttrs",
                output_size=(1, 1, 1), layout=layout, out_layout=out_layout)


def batch_norm(data: Expr, gamma: Expr, beta: Expr, moving_mean: Expr, moving_var: Expr,
               axis: int = 1, epsilon: float = 1e-5, center: bool = True,
               scale: bool = True) -> Call:
    """`relay.nn.batch_norm`'s call: a 3-tuple (normalised data, new mean, new variance)."""
    return call("nn.batch_norm", (data, gamma, beta, moving_mean, moving_var),
                "relay.attrs.BatchNormAttrs", axis=axis, epsilon=epsilon, center=center,
                scale=scale)


def dropout(data: Expr, rate: float = 0.5) -> TupleGetItem:
    """`relay.nn.dropout`: `.0` of the (output, mask) pair."""
    return TupleGetItem(call("nn.dropout", (data,), "relay.attrs.DropoutAttrs", rate=rate), 0)


# ------------------------------------------------------------------- relay.testing.layers


def batch_norm_infer(data: Expr, name: str, gamma: Expr | None = None, beta: Expr | None = None,
                     moving_mean: Expr | None = None, moving_var: Expr | None = None,
                     axis: int = 1, epsilon: float = 1e-5, center: bool = True,
                     scale: bool = True) -> TupleGetItem:
    """`layers.batch_norm_infer`: `.0` of batch_norm on fresh `<name>_gamma`, `_beta`, ... vars."""
    bn = batch_norm(
        data,
        gamma if gamma is not None else var(name + "_gamma"),
        beta if beta is not None else var(name + "_beta"),
        moving_mean if moving_mean is not None else var(name + "_moving_mean"),
        moving_var if moving_var is not None else var(name + "_moving_var"),
        axis=axis, epsilon=epsilon, center=center, scale=scale)
    return TupleGetItem(bn, 0)


def conv2d(data: Expr, name: str, weight: Expr | None = None, **kwargs: object) -> Call:
    """`layers.conv2d`: `nn.conv2d` on a fresh `<name>_weight` unless a weight is given."""
    return conv2d_op(data, weight if weight is not None else var(name + "_weight"),
                     **kwargs)  # type: ignore[arg-type]


def conv3d(data: Expr, name: str, weight: Expr | None = None, **kwargs: object) -> Call:
    """`layers.conv3d`: `nn.conv3d` on a fresh `<name>_weight` unless a weight is given."""
    return conv3d_op(data, weight if weight is not None else var(name + "_weight"),
                     **kwargs)  # type: ignore[arg-type]


def conv2d_transpose(data: Expr, name: str, weight: Expr | None = None,
                     **kwargs: object) -> Call:
    """`layers.conv2d_transpose`: on a fresh `<name>_weight` unless a weight is given."""
    return conv2d_transpose_op(data, weight if weight is not None else var(name + "_weight"),
                               **kwargs)  # type: ignore[arg-type]


def dense_add_bias(data: Expr, name: str, units: int | None = None, weight: Expr | None = None,
                   bias: Expr | None = None) -> Call:
    """`layers.dense_add_bias`: `nn.bias_add(nn.dense(d, %<name>_weight), %<name>_bias, -1)`."""
    w = weight if weight is not None else var(name + "_weight")
    b = bias if bias is not None else var(name + "_bias")
    return bias_add(dense(data, w, units), b, axis=-1)


def conv_kernel_layout(data_layout: str, is_depthwise: bool = False) -> str:
    """`layers.conv_kernel_layout`: the kernel layout that goes with a data layout."""
    table = {"NCHW": "OIHW", "NHWC": "HWOI" if is_depthwise else "HWIO"}
    if data_layout not in table:
        raise ValueError(f"Unknown data layout {data_layout}")
    return table[data_layout]
