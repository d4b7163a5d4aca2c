"""The operator registry as data: names, attribute schemas with TVM v0.19 defaults, statefulness.

One table serves the parser (known names, attribute keys), the printer (only non-default attrs
are printed), type inference (`op_types.py` adds relations by name) and the interpreter.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from .ast import Attrs, Call, Expr, Op

NO_DEFAULT = object()  # a field without a default is always printed (e.g. `units=None`)


@dataclass(frozen=True)
class AttrField:
    """One attribute field: its name and default (NO_DEFAULT when TVM declares none)."""

    name: str
    default: object = NO_DEFAULT


@dataclass(frozen=True)
class OpDef:
    """A registered operator: arity (None = variadic), attrs type key and fields, statefulness."""

    name: str
    num_inputs: int | None
    attrs_type_key: str | None = None
    attr_fields: tuple[AttrField, ...] = ()
    stateful: bool = False  # TOpIsStateful in v0.19: memory.kill, nn.dropout, vm.invoke_tvm_op

    def field(self, name: str) -> AttrField | None:
        for f in self.attr_fields:
            if f.name == name:
                return f
        return None


def F(name: str, default: object = NO_DEFAULT) -> AttrField:
    return AttrField(name, default)


_REDUCE = ("relay.attrs.ReduceAttrs", (F("axis", None), F("keepdims", False), F("exclude", False)))
_CONV2D = (
    F("strides", (1, 1)),
    F("padding", (0, 0)),
    F("dilation", (1, 1)),
    F("groups", 1),
    F("channels", None),
    F("kernel_size", None),
    F("data_layout", "NCHW"),
    F("kernel_layout", "OIHW"),
    F("out_layout", ""),
    F("out_dtype", ""),
)
_CONV3D = (
    F("strides", (1, 1, 1)),
    F("padding", (0, 0, 0)),
    F("dilation", (1, 1, 1)),
    F("groups", 1),
    F("channels", None),
    F("kernel_size", None),
    F("data_layout", "NCDHW"),
    F("kernel_layout", "OIDHW"),
    F("out_layout", ""),
    F("out_dtype", ""),
)
_POOL2D = (
    F("pool_size"),
    F("strides", (1, 1)),
    F("dilation", (1, 1)),
    F("padding", (0, 0)),
    F("layout", "NCHW"),
    F("out_layout", ""),
    F("ceil_mode", False),
)

_UNARY = (
    "negative exp log log2 log10 sqrt rsqrt sin cos tan sinh cosh tanh asin acos atan asinh acosh "
    "atanh sigmoid abs erf floor ceil round sign copy zeros_like ones_like logical_not nn.relu "
    "nn.batch_flatten"
).split()
_BINARY = (
    "add subtract multiply divide power maximum minimum mod floor_divide floor_mod equal not_equal "
    "less less_equal greater greater_equal logical_and logical_or collapse_sum_like "
    "broadcast_to_like nn.cross_entropy_with_logits nn.cross_entropy reshape_like"
).split()

OPS: dict[str, OpDef] = {}


def register(op: OpDef) -> None:
    """Add (or replace) an operator; users may register their own before parsing."""
    OPS[op.name] = op


for _n in _UNARY:
    register(OpDef(_n, 1))
for _n in _BINARY:
    register(OpDef(_n, 2))

for _op in (
    OpDef("nn.dense", 2, "relay.attrs.DenseAttrs", (F("units"), F("out_dtype", ""))),
    OpDef("nn.matmul", 2, "relay.attrs.MatmulAttrs",
          (F("units", None), F("out_dtype", ""), F("transpose_a", False), F("transpose_b", False))),
    OpDef("nn.batch_matmul", 2, "relay.attrs.BatchMatmulAttrs",
          (F("out_dtype", ""), F("transpose_a", False), F("transpose_b", True))),
    OpDef("nn.bias_add", 2, "relay.attrs.BiasAddAttrs", (F("axis", 1),)),
    OpDef("nn.softmax", 1, "relay.attrs.SoftmaxAttrs", (F("axis", -1),)),
    OpDef("nn.log_softmax", 1, "relay.attrs.SoftmaxAttrs", (F("axis", -1),)),
    OpDef("sum", 1, *_REDUCE),
    OpDef("max", 1, *_REDUCE),
    OpDef("min", 1, *_REDUCE),
    OpDef("mean", 1, *_REDUCE),
    OpDef("prod", 1, *_REDUCE),
    OpDef("argmax", 1, "relay.attrs.ArgReduceAttrs",
          (*_REDUCE[1], F("select_last_index", False))),
    OpDef("variance", 2, "relay.attrs.VarianceAttrs",
          (F("axis", None), F("keepdims", False), F("exclude", False), F("unbiased", False))),
    OpDef("transpose", 1, "relay.attrs.TransposeAttrs", (F("axes"),)),
    OpDef("shape_of", 1, "relay.attrs.ShapeOfAttrs", (F("dtype", "int32"),)),
    OpDef("take", 2, "relay.attrs.TakeAttrs",
          (F("batch_dims", 0), F("axis", None), F("mode", "clip"))),
    OpDef("cast", 1, "relay.attrs.CastAttrs", (F("dtype"),)),
    OpDef("cast_like", 2),
    OpDef("expand_dims", 1, "relay.attrs.ExpandDimsAttrs", (F("axis"), F("num_newaxis", 1))),
    OpDef("squeeze", 1, "relay.attrs.SqueezeAttrs", (F("axis", None),)),
    OpDef("reshape", 1, "relay.attrs.ReshapeAttrs", (F("newshape"), F("allowzero", False))),
    OpDef("broadcast_to", 1, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", ""))),
    OpDef("zeros", 0, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", "float32"))),
    OpDef("ones", 0, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", "float32"))),
    OpDef("full", 1, "relay.attrs.InitOpAttrs", (F("shape"), F("dtype", ""))),
    OpDef("where", 3),
    OpDef("clip", 1, "relay.attrs.ClipAttrs", (F("a_min"), F("a_max"))),
    OpDef("concatenate", 1, "relay.attrs.ConcatenateAttrs", (F("axis", 0),)),
    OpDef("stack", 1, "relay.attrs.StackAttrs", (F("axis", 0),)),
    OpDef("split", 1, "relay.attrs.SplitAttrs", (F("indices_or_sections"), F("axis", 0))),
    OpDef("strided_slice", 1, "relay.attrs.StridedSliceAttrs",
          (F("begin"), F("end"), F("strides", None), F("axes", None), F("slice_mode", "end"))),
    OpDef("one_hot", 3, "relay.attrs.OneHotAttrs", (F("depth"), F("axis", -1), F("dtype"))),
    OpDef("nn.conv2d", 2, "relay.attrs.Conv2DAttrs", _CONV2D),
    # Conv2DTransposeAttrs declares its fields in this order (the printer follows it)
    OpDef("nn.conv2d_transpose", 2, "relay.attrs.Conv2DTransposeAttrs",
          (F("channels", None), F("kernel_size", None), F("strides", (1, 1)),
           F("output_padding", (0, 0)), F("padding", (0, 0)), F("dilation", (1, 1)),
           F("groups", 1), F("data_layout", "NCHW"), F("kernel_layout", "IOHW"),
           F("out_layout", ""), F("out_dtype", ""))),
    # (grad, data) -> weight gradient; Conv2DAttrs repurposed: data_layout is the grad's layout,
    # kernel_layout the data's, out_layout the weight's (MakeConv2dBackwardWeight)
    OpDef("nn.conv2d_backward_weight", 2, "relay.attrs.Conv2DAttrs", _CONV2D),
    OpDef("nn.conv3d", 2, "relay.attrs.Conv3DAttrs", _CONV3D),
    OpDef("nn.batch_norm", 5, "relay.attrs.BatchNormAttrs",
          (F("axis", 1), F("epsilon", 1e-5), F("center", True), F("scale", True))),
    OpDef("nn.max_pool2d", 1, "relay.attrs.MaxPool2DAttrs", _POOL2D),
    OpDef("nn.avg_pool2d", 1, "relay.attrs.AvgPool2DAttrs",
          (*_POOL2D, F("count_include_pad", False))),
    OpDef("nn.global_avg_pool2d", 1, "relay.attrs.GlobalPool2DAttrs",
          (F("layout", "NCHW"), F("out_layout", ""))),
    OpDef("nn.global_max_pool2d", 1, "relay.attrs.GlobalPool2DAttrs",
          (F("layout", "NCHW"), F("out_layout", ""))),
    # (out_grad, data) -> data gradient. v0.19 declares MaxPool2DAttrs for both (the avg one
    # by a slip); MakeAvgPool2DGrad builds AvgPool2DAttrs, which is what programs carry.
    OpDef("nn.max_pool2d_grad", 2, "relay.attrs.MaxPool2DAttrs", _POOL2D),
    OpDef("nn.avg_pool2d_grad", 2, "relay.attrs.AvgPool2DAttrs",
          (*_POOL2D, F("count_include_pad", False))),
    # v0.19 has no nn.global_avg_pool3d op: relay.nn.global_avg_pool3d(x) builds this call
    # with output_size=[1, 1, 1]
    OpDef("nn.adaptive_avg_pool3d", 1, "relay.attrs.AdaptivePool3DAttrs",
          (F("output_size", ()), F("layout", "NCDHW"), F("out_layout", ""))),
    OpDef("nn.dropout", 1, "relay.attrs.DropoutAttrs", (F("rate", 0.5),), stateful=True),
    OpDef("nn.leaky_relu", 1, "relay.attrs.LeakyReluAttrs", (F("alpha", 0.25),)),
    OpDef("annotation.checkpoint", 1),
    OpDef("memory.alloc_storage", 2, "relay.attrs.AllocStorageAttrs",
          (F("dtype", "float32"), F("virtual_device", None))),
    OpDef("memory.alloc_tensor", 3, "relay.attrs.AllocTensorAttrs",
          (F("const_shape", None), F("assert_shape", None), F("dtype", "float32"))),
    OpDef("memory.kill", 1, stateful=True),
    OpDef("vm.invoke_tvm_op", 3, stateful=True),
):
    register(_op)


def lookup(name: str) -> OpDef | None:
    """The registered operator called name, or None."""
    return OPS.get(name)


def make_call(name: str, *args: Expr, **attrs: object) -> Call:
    """`name(args, attrs)`: attrs in declared field order, fields at their default left out.

    Leaving defaults out is the form the printer writes and the parser reads back; passes that
    build calls (gradient rules, SimplifyInference) all go through here.
    """
    d = lookup(name)
    if d is None:
        raise KeyError(name)
    items = []
    for f in d.attr_fields:
        if f.name in attrs:
            v = _attr_value(attrs.pop(f.name))
            if f.default is NO_DEFAULT or v != _attr_value(f.default):
                items.append((f.name, v))
    if attrs:
        raise KeyError(f"{name}: unknown attributes {sorted(attrs)}")
    return Call(Op(name), tuple(args), Attrs(tuple(items), d.attrs_type_key if items else None))


def _attr_value(v: object) -> object:
    if isinstance(v, list | tuple):
        return tuple(_attr_value(x) for x in v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def closest(name: str, n: int = 3) -> list[str]:
    """Known operator names closest to a misspelt one, for 'did you mean' messages."""
    return difflib.get_close_matches(name, OPS.keys(), n=n, cutoff=0.6)
