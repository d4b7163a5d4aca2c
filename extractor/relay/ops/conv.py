"""Convolutions: conv1d, conv2d, its two gradient helpers (conv2d_transpose,
conv2d_backward_weight), conv3d, conv3d_transpose.

The conv2d gradient emits the same helper calls as v0.19 (`nn.conv2d_transpose` for the data,
`nn.conv2d_backward_weight` for the weight) with the same attributes, including v0.19's limit
that its `output_padding` ignores dilation. v0.19 has no gradient for conv2d_transpose or
conv3d: theirs here are aliaslog extensions (`GRAD_EXTENSION`), built from v0.19 ops. The
kernels support the NCHW / NCDHW layouts (conv1d: any permutation of NCW / OIW) only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import Attrs, Call, Expr, IncompleteType, TensorType, Type, type_str
from . import kernel as K
from . import relation as R
from .grad import RuleError, attrs_of, dtype, int_tuple, out_type, pad_tuple2d, shape, shape_of_type
from .registry import GRAD_EXTENSION, F, OpAttrs, OpDef, OpError, attr, register
from .registry import make_call as op
from .relation import ArgMismatch, Defer, Dim, RelError, Result

_CONV2D = (
    F("strides", (1, 1)),
    F("padding", (0, 0)),
    F("dilation", (1, 1)),
    F("groups", 1, pod_int=True),
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
    F("groups", 1, pod_int=True),
    F("channels", None),
    F("kernel_size", None),
    F("data_layout", "NCDHW"),
    F("kernel_layout", "OIDHW"),
    F("out_layout", ""),
    F("out_dtype", ""),
)


def _rank(t: TensorType, n: int, arg: int) -> TensorType:
    """t, if it has n dimensions; else the relation's error on argument `arg`."""
    if len(t.shape) != n:
        raise RelError(f"expected a {n}-D tensor but found {type_str(t)}", arg)
    return t


def _data(args: Sequence[Type], attrs: OpAttrs, data: str, kernel: str
          ) -> tuple[TensorType, str, str, list[Dim]]:
    """What every conv relation reads first: the data tensor, the kernel and output layouts,
    and the data's dims in the canonical order `data` (e.g. NCHW) whatever its layout."""
    x = _rank(R.tensor(args, 0), len(data), 0)
    dl = R.layout(attrs["data_layout"], data, "data_layout")
    kl = R.layout(attrs["kernel_layout"], kernel, "kernel_layout")
    ol = R.layout(attrs["out_layout"] or dl, data, "out_layout")
    return x, kl, ol, [x.shape[dl.index(ch)] for ch in data]


def _groups(attrs: OpAttrs) -> int:
    groups = R.integer(attrs["groups"], "groups")
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
    return groups


def _output(dims: dict[str, Dim], ol: str, attrs: OpAttrs, x: TensorType,
            assign: dict[int, Type]) -> Type | Result:
    """The output type in layout ol (out_dtype or the data's), with the weight type inferred."""
    out = TensorType(tuple(dims[ch] for ch in ol), attrs["out_dtype"] or x.dtype)
    return Result(out, assign) if assign else out


def _check_layouts(attrs: Attrs, opname: str, kernel: str) -> None:
    dl = attr(attrs, opname, "data_layout")
    kl = attr(attrs, opname, "kernel_layout")
    ol = attr(attrs, opname, "out_layout")
    if dl != "NCHW" or kl != kernel or ol not in ("", "NCHW"):
        raise OpError(f"only data_layout NCHW and kernel_layout {kernel} are supported, "
                      f"got {dl}/{kl}/{ol or dl}")


def _conv2d_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    x, kl, ol, (n, c, h, w) = _data(args, attrs, "NCHW", "OIHW")
    sh, sw = R.pair(attrs["strides"], "strides")
    dh, dw = R.pair(attrs["dilation"], "dilation")
    pt, pl, pb, pr = R.pad4(attrs["padding"])
    groups = R.integer(attrs["groups"], "groups")
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    ks = R.pair(ksize, "kernel_size") if ksize is not None else None
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
    in_per_group = None if c is None else c // groups
    assign: dict[int, Type] = {}
    if isinstance(args[1], IncompleteType):
        if channels is None or ks is None:
            raise Defer
        dims = {"O": R.integer(channels, "channels"), "I": in_per_group, "H": ks[0], "W": ks[1]}
        wt = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        assign[1] = wt
    else:
        wt = _rank(R.tensor(args, 1), 4, 1)
    o, i_, kh, kw = (wt.shape[kl.index(ch)] for ch in "OIHW")
    want = {"O": o if channels is None else channels, "I": in_per_group,
            "H": kh if ks is None else ks[0], "W": kw if ks is None else ks[1]}
    if c is not None and c % groups or not all(
            R.dim_eq(wt.shape[kl.index(ch)], want[ch]) for ch in "OIHW"):
        raise ArgMismatch(1, TensorType(tuple(want[ch] for ch in kl), wt.dtype), wt)
    oc = o if o is not None else (None if channels is None else channels)
    oh = R.conv_out(h, kh, sh, dh, pt + pb)
    ow = R.conv_out(w, kw, sw, dw, pl + pr)
    dims = {"N": n, "C": oc, "H": oh, "W": ow}
    return _output(dims, ol, attrs, x, assign)


def _conv2d_kernel(args: list[Any], attrs: Attrs) -> Any:
    opname = "nn.conv2d"
    x, w = K.tensor(args[0], "data"), K.tensor(args[1], "weight")
    _check_layouts(attrs, opname, "OIHW")
    sh, sw = K.pair(attr(attrs, opname, "strides"), "strides")
    dh, dw = K.pair(attr(attrs, opname, "dilation"), "dilation")
    pt, pl, pb, pr = K.pad4(attr(attrs, opname, "padding"), opname)
    g = int(attr(attrs, opname, "groups"))
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(f"data {x.shape} and weight {w.shape} must be 4-D")
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    if g <= 0 or c % g or o % g or ci != c // g:
        raise OpError(f"data {x.shape} and weight {w.shape} do not match with groups={g}")
    dt = K.out_dtype(attrs, opname, x.dtype)
    return _conv_nd(x, w, (sh, sw), (dh, dw), (pt, pl), (pb, pr), g, dt)


def _dims4(s: tuple[int, ...], what: str) -> tuple[int, int, int, int]:
    if len(s) != 4:
        raise RuleError(f"conv2d gradient needs a 4-D {what}, got shape {s}")
    return s[0], s[1], s[2], s[3]


def _conv2d_grad(orig: Call, g: Expr) -> list[Expr]:
    """dX by nn.conv2d_transpose, dW by nn.conv2d_backward_weight (v0.19's rule)."""
    data, weight = orig.args
    _, _, in_h, in_w = _dims4(shape(data), "data")
    _, _, filter_h, filter_w = _dims4(shape(weight), "weight")
    _, _, grad_h, grad_w = _dims4(shape_of_type(out_type(orig)), "output")
    attrs = attrs_of(orig)
    fpad_top, fpad_left, fpad_bottom, fpad_right = pad_tuple2d(attrs["padding"])
    strides = int_tuple(attrs["strides"], "strides")
    if len(strides) != 2:
        raise RuleError(f"conv2d gradient needs 2 strides, not {len(strides)}")
    stride_h, stride_w = strides
    # v0.19 infers output_padding without the dilation, so dilated kernels get a wrong size
    out_h = (grad_h - 1) * stride_h - fpad_top - fpad_bottom + filter_h
    out_w = (grad_w - 1) * stride_w - fpad_left - fpad_right + filter_w
    output_padding = (in_h - out_h, in_w - out_w)
    data_layout, kernel_layout = attrs["data_layout"], attrs["kernel_layout"]
    out_layout = attrs["out_layout"]
    if data_layout != "NCHW":
        raise RuleError("only support NCHW data layout")
    if kernel_layout != "OIHW":
        raise RuleError("only support OIHW kernel layout")
    if out_layout not in ("", "NCHW"):
        raise RuleError("only support NCHW output layout")
    out_dtype = attrs["out_dtype"] or dtype(data)
    common = dict(strides=attrs["strides"], padding=pad_tuple2d(attrs["padding"]),
                  dilation=attrs["dilation"], groups=attrs["groups"])
    backward_data = op("nn.conv2d_transpose", g, weight, **common,
                       output_padding=output_padding, out_dtype=out_dtype)
    backward_weight = op("nn.conv2d_backward_weight", g, data, **common,
                         channels=attrs["channels"], kernel_size=(filter_h, filter_w),
                         data_layout=out_layout or data_layout,  # the grad's layout
                         kernel_layout=data_layout,  # the data's layout
                         out_layout=kernel_layout,  # the weight's layout
                         out_dtype=out_dtype)
    return [backward_data, backward_weight]


register(OpDef("nn.conv2d", 2, "relay.attrs.Conv2DAttrs", _CONV2D,
               relation=_conv2d_type, kernel=_conv2d_kernel, gradient=_conv2d_grad))


def _conv2d_transpose_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """Weight (I=C_in, O/groups, KH, KW) in IOHW; out = (H-1)*s - pad + dilated k + out_pad."""
    x, kl, ol, (n, c, h, w) = _data(args, attrs, "NCHW", "IOHW")
    sh, sw = R.pair(attrs["strides"], "strides")
    dh, dw = R.pair(attrs["dilation"], "dilation")
    pt, pl, pb, pr = R.pad4(attrs["padding"])
    oph, opw = R.pair(attrs["output_padding"], "output_padding")
    groups = _groups(attrs)
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    ks = R.pair(ksize, "kernel_size") if ksize is not None else None
    assign: dict[int, Type] = {}
    if isinstance(args[1], IncompleteType):
        if channels is None or ks is None:
            raise Defer
        dims = {"I": c, "O": R.integer(channels, "channels") // groups, "H": ks[0], "W": ks[1]}
        wt = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        assign[1] = wt
    else:
        wt = _rank(R.tensor(args, 1), 4, 1)
    i_, o, kh, kw = (wt.shape[kl.index(ch)] for ch in "IOHW")
    want = {"I": c, "O": o if channels is None else R.integer(channels, "channels") // groups,
            "H": kh if ks is None else ks[0], "W": kw if ks is None else ks[1]}
    if not all(R.dim_eq(wt.shape[kl.index(ch)], want[ch]) for ch in "IOHW"):
        raise ArgMismatch(1, TensorType(tuple(want[ch] for ch in kl), wt.dtype), wt)
    oc = None if o is None else o * groups

    def out_size(size: Dim, k: Dim, s: int, d: int, pad: int, op: int) -> Dim:
        if size is None or k is None:
            return None
        return (size - 1) * s - pad + (k - 1) * d + 1 + op

    dims = {"N": n, "C": oc, "H": out_size(h, kh, sh, dh, pt + pb, oph),
            "W": out_size(w, kw, sw, dw, pl + pr, opw)}
    return _output(dims, ol, attrs, x, assign)


def _conv2d_transpose_kernel(args: list[Any], attrs: Attrs) -> Any:
    opname = "nn.conv2d_transpose"
    x, w = K.tensor(args[0], "data"), K.tensor(args[1], "weight")
    _check_layouts(attrs, opname, "IOHW")
    sh, sw = K.pair(attr(attrs, opname, "strides"), "strides")
    dh, dw = K.pair(attr(attrs, opname, "dilation"), "dilation")
    pt, pl, pb, pr = K.pad4(attr(attrs, opname, "padding"), opname)
    oph, opw = K.pair(attr(attrs, opname, "output_padding"), "output_padding")
    g = int(attr(attrs, opname, "groups"))
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(f"data {x.shape} and weight {w.shape} must be 4-D")
    n, c, h, wd = x.shape
    ci, og, kh, kw = w.shape
    if g <= 0 or ci != c or c % g:
        raise OpError(f"data {x.shape} and weight {w.shape} (IOHW) do not match with groups={g}")
    dt = K.out_dtype(attrs, opname, x.dtype)
    return _conv_transpose_nd(x, w, (sh, sw), (dh, dw), (pt, pl), (pb, pr), (oph, opw), g, dt)


def _conv2d_transpose_grad(orig: Call, g: Expr) -> list[Expr]:
    """aliaslog extension (v0.19 has no rule): conv2d_transpose is the adjoint of conv2d with
    the same weight read as OIHW, so dX = conv2d(g, W) and dW = conv2d_backward_weight(x, g)
    (the roles of gradient and data exchanged), with the same strides, padding, dilation and
    groups; NCHW / IOHW only."""
    data, weight = orig.args
    attrs = attrs_of(orig)
    if attrs["data_layout"] != "NCHW" or attrs["kernel_layout"] != "IOHW" or \
            attrs["out_layout"] not in ("", "NCHW"):
        raise RuleError("conv2d_transpose gradient supports NCHW data and IOHW kernels only")
    _, c_in, _, _ = _dims4(shape(data), "data")
    _, _, kh, kw = _dims4(shape(weight), "weight")
    dt = dtype(data)
    common = dict(strides=attrs["strides"], padding=attrs["padding"],
                  dilation=attrs["dilation"], groups=attrs["groups"])
    d_data = op("nn.conv2d", g, weight, **common, kernel_size=(kh, kw), out_dtype=dt)
    d_weight = op("nn.conv2d_backward_weight", data, g, **common, channels=c_in,
                  kernel_size=(kh, kw), data_layout="NCHW", kernel_layout="NCHW",
                  out_layout="OIHW", out_dtype=dt)
    return [d_data, d_weight]


# Conv2DTransposeAttrs declares its fields in this order (the printer follows it)
register(OpDef("nn.conv2d_transpose", 2, "relay.attrs.Conv2DTransposeAttrs",
               (F("channels", None), F("kernel_size", None), F("strides", (1, 1)),
                F("output_padding", (0, 0)), F("padding", (0, 0)), F("dilation", (1, 1)),
                F("groups", 1, pod_int=True), F("data_layout", "NCHW"),
                F("kernel_layout", "IOHW"), F("out_layout", ""), F("out_dtype", "")),
               relation=_conv2d_transpose_type, kernel=_conv2d_transpose_kernel,
               gradient=_conv2d_transpose_grad, grad_origin=GRAD_EXTENSION))


def _conv2d_backward_weight_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """Conv2DBackwardWeightRel: (grad, data) -> weight (O = grad channels, C/groups, kernel)."""
    g, x = R.tensor(args, 0), R.tensor(args, 1)
    for i, t in ((0, g), (1, x)):
        if len(t.shape) != 4:
            raise RelError(f"expected a 4-D tensor but found {type_str(t)}", i)
    if attrs["kernel_size"] is None:
        raise RelError("attribute kernel_size is required by nn.conv2d_backward_weight")
    # the Conv2DAttrs fields are repurposed: data_layout = grad's, kernel_layout = data's,
    # out_layout = the weight gradient's
    gl = R.layout(attrs["data_layout"], "NCHW", "data_layout (the gradient's layout)")
    dl = R.layout(attrs["kernel_layout"], "NCHW", "kernel_layout (the data's layout)")
    wl = R.layout(attrs["out_layout"], "OIHW", "out_layout (the weight's layout)")
    in_ch, out_ch = x.shape[dl.index("C")], g.shape[gl.index("C")]
    if in_ch is None or out_ch is None:
        raise RelError("nn.conv2d_backward_weight needs static channel dimensions")
    groups = _groups(attrs)
    if in_ch == out_ch == groups:  # depthwise: TVM takes the per-group width from channels
        if attrs["channels"] is None:
            raise RelError("attribute channels is required for a depthwise "
                           "nn.conv2d_backward_weight")
        per_group = R.integer(attrs["channels"], "channels") // groups
    else:
        per_group = in_ch // groups
    kh, kw = R.pair(attrs["kernel_size"], "kernel_size")
    dims = {"O": out_ch, "I": per_group, "H": kh, "W": kw}
    return TensorType(tuple(dims[ch] for ch in wl), attrs["out_dtype"] or g.dtype)


def _conv2d_backward_weight_kernel(args: list[Any], attrs: Attrs) -> Any:
    """dW of nn.conv2d from the output gradient and the data (layouts: grad, data, weight)."""
    opname = "nn.conv2d_backward_weight"
    g, x = K.tensor(args[0], "grad"), K.tensor(args[1], "data")
    layouts = (attr(attrs, opname, "data_layout"), attr(attrs, opname, "kernel_layout"),
               attr(attrs, opname, "out_layout"))
    if layouts != ("NCHW", "NCHW", "OIHW"):
        raise OpError("only grad layout NCHW (data_layout), data layout NCHW (kernel_layout) "
                      f"and weight layout OIHW (out_layout) are supported, got {layouts}")
    if g.ndim != 4 or x.ndim != 4:
        raise OpError(f"grad {g.shape} and data {x.shape} must be 4-D")
    ksize = attr(attrs, opname, "kernel_size")
    if ksize is None:
        raise OpError(f"{opname} requires the attribute 'kernel_size'")
    kh, kw = K.pair(ksize, "kernel_size")
    sh, sw = K.pair(attr(attrs, opname, "strides"), "strides")
    dh, dw = K.pair(attr(attrs, opname, "dilation"), "dilation")
    pt, pl, pb, pr = K.pad4(attr(attrs, opname, "padding"), opname)
    groups = int(attr(attrs, opname, "groups"))
    n, c, h, wd = x.shape
    _, o, oh, ow = g.shape
    if groups <= 0 or g.shape[0] != n or c % groups or o % groups:
        raise OpError(f"grad {g.shape} and data {x.shape} do not match with groups={groups}")
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    if (oh - 1) * sh + (kh - 1) * dh + 1 > xp.shape[2] or \
            (ow - 1) * sw + (kw - 1) * dw + 1 > xp.shape[3]:
        raise OpError(f"grad {g.shape} does not fit data {x.shape} with kernel ({kh}, {kw})")
    dt = K.out_dtype(attrs, opname, g.dtype)
    cg = c // groups
    xg = xp.astype(dt).reshape(n, groups, cg, *xp.shape[2:])
    gg = g.astype(dt).reshape(n, groups, o // groups, oh, ow)
    out = np.zeros((groups, o // groups, cg, kh, kw), dtype=dt)
    for i in range(kh):
        for j in range(kw):
            patch = xg[:, :, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                       j * dw:j * dw + sw * (ow - 1) + 1:sw]
            pm = np.moveaxis(patch, 0, 2).reshape(groups, cg, -1)  # (g, c, n * oh * ow)
            gm = np.moveaxis(gg, 0, 2).reshape(groups, o // groups, -1)
            out[:, :, :, i, j] = gm @ np.swapaxes(pm, 1, 2)
    return out.reshape(o, cg, kh, kw)


# (grad, data) -> weight gradient; Conv2DAttrs repurposed: data_layout is the grad's layout,
# kernel_layout the data's, out_layout the weight's (MakeConv2dBackwardWeight)
register(OpDef("nn.conv2d_backward_weight", 2, "relay.attrs.Conv2DAttrs", _CONV2D,
               relation=_conv2d_backward_weight_type, kernel=_conv2d_backward_weight_kernel))


def _conv3d_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """Conv3DRel: data NCDHW-like, weight (O, C/groups, KD, KH, KW) in OIDHW-like layout."""
    x, kl, ol, (n, c, d, h, w) = _data(args, attrs, "NCDHW", "OIDHW")
    strides = R.triple(attrs["strides"], "strides")
    dils = R.triple(attrs["dilation"], "dilation")
    pf, pt, pl, pk, pb, pr = R.pad6(attrs["padding"])
    groups = _groups(attrs)
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    ks = R.triple(ksize, "kernel_size") if ksize is not None else None
    in_per_group = None if c is None else c // groups
    assign: dict[int, Type] = {}
    if isinstance(args[1], IncompleteType):
        if channels is None or ks is None:
            raise Defer
        dims = {"O": R.integer(channels, "channels"), "I": in_per_group,
                "D": ks[0], "H": ks[1], "W": ks[2]}
        wt = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        assign[1] = wt
    else:
        wt = _rank(R.tensor(args, 1), 5, 1)
    o, kd, kh, kw = (wt.shape[kl.index(ch)] for ch in "ODHW")
    want = {"O": o if channels is None else channels, "I": in_per_group,
            "D": kd if ks is None else ks[0], "H": kh if ks is None else ks[1],
            "W": kw if ks is None else ks[2]}
    if c is not None and c % groups or not all(
            R.dim_eq(wt.shape[kl.index(ch)], want[ch]) for ch in "OIDHW"):
        raise ArgMismatch(1, TensorType(tuple(want[ch] for ch in kl), wt.dtype), wt)
    oc = o if o is not None else (None if channels is None else channels)
    dims = {"N": n, "C": oc,
            "D": R.conv_out(d, kd, strides[0], dils[0], pf + pk),
            "H": R.conv_out(h, kh, strides[1], dils[1], pt + pb),
            "W": R.conv_out(w, kw, strides[2], dils[2], pl + pr)}
    return _output(dims, ol, attrs, x, assign)


def _conv_nd(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dils: Sequence[int],
             pad_lo: Sequence[int], pad_hi: Sequence[int], g: int, dt: np.dtype) -> np.ndarray:
    """Grouped convolution over any number of spatial dims (data NC..., weight OI...).

    It loops over kernel taps or over output positions, whichever are fewer (a weight
    gradient written as a convolution has a kernel as large as the image).
    """
    n, c = x.shape[:2]
    o, ci = w.shape[:2]
    ks = w.shape[2:]
    if g <= 0 or c % g or o % g or ci != c // g:
        raise OpError(f"data {x.shape} and weight {w.shape} do not match with groups={g}")
    xp = np.pad(x.astype(dt), ((0, 0), (0, 0), *zip(pad_lo, pad_hi, strict=True)))
    outs = [(xp.shape[2 + i] - ((k - 1) * dils[i] + 1)) // strides[i] + 1
            for i, k in enumerate(ks)]
    if any(v <= 0 for v in outs):
        raise OpError(f"kernel {ks} (dilation {tuple(dils)}) is larger than the padded input "
                      f"{xp.shape[2:]}")
    xg = xp.reshape(n, g, ci, *xp.shape[2:])
    wg = w.astype(dt).reshape(g, o // g, ci, *ks)
    out = np.zeros((n, g, o // g, *outs), dtype=dt)
    lead = (slice(None),) * 3
    if int(np.prod(outs)) < int(np.prod(ks)):
        wk = np.moveaxis(wg.reshape(g, o // g, -1), 1, 2)  # (g, c * taps, o)
        for pos in itertools.product(*(range(m) for m in outs)):
            window = tuple(slice(p * s, p * s + (k - 1) * d + 1, d)
                           for p, s, d, k in zip(pos, strides, dils, ks, strict=True))
            patch = np.moveaxis(xg[lead + window].reshape(n, g, -1), 0, 1)  # (g, n, c * taps)
            out[(*lead, *pos)] = np.moveaxis(patch @ wk, 0, 1)
        return out.reshape(n, o, *outs)
    for kpos in itertools.product(*(range(k) for k in ks)):
        window = tuple(slice(p * d, p * d + s * (m - 1) + 1, s)
                       for p, d, s, m in zip(kpos, dils, strides, outs, strict=True))
        patch = xg[lead + window].reshape(n, g, ci, -1)
        out += (wg[lead + kpos][None] @ patch).reshape(out.shape)
    return out.reshape(n, o, *outs)


def _conv_transpose_nd(x: np.ndarray, w: np.ndarray, strides: Sequence[int],
                       dils: Sequence[int], pad_lo: Sequence[int], pad_hi: Sequence[int],
                       out_pad: Sequence[int], g: int, dt: np.dtype) -> np.ndarray:
    """Grouped transposed convolution (data NC..., weight IO...): the adjoint of `_conv_nd`,
    each input element scattering its kernel-weighted contribution, then cropped by the
    padding and extended by output_padding (topi's conv*_transpose)."""
    n, c = x.shape[:2]
    ci, og = w.shape[:2]
    ks = w.shape[2:]
    spatial = x.shape[2:]
    if g <= 0 or ci != c or c % g:
        raise OpError(f"data {x.shape} and weight {w.shape} (IO...) do not match with "
                      f"groups={g}")
    full = [(h - 1) * s + (k - 1) * d + 1 for h, s, k, d in zip(spatial, strides, ks, dils,
                                                                   strict=True)]
    outs = [f - lo - hi + op for f, lo, hi, op in zip(full, pad_lo, pad_hi, out_pad,
                                                       strict=True)]
    if any(v <= 0 for v in outs):
        raise OpError(f"output size {tuple(outs)} is not positive")
    xg = x.astype(dt).reshape(n, g, c // g, *spatial)
    wg = w.astype(dt).reshape(g, c // g, og, *ks)
    buf = np.zeros((n, g, og, *(max(f, lo + m) for f, lo, m in zip(full, pad_lo, outs,
                                                                     strict=True))), dtype=dt)
    lead = (slice(None),) * 3
    flat = xg.reshape(n, g, c // g, -1)
    for kpos in itertools.product(*(range(k) for k in ks)):
        wt = np.swapaxes(wg[lead + kpos], 1, 2)[None]  # (1, g, o, c)
        contrib = (wt @ flat).reshape(n, g, og, *spatial)
        window = tuple(slice(p * d, p * d + s * (h - 1) + 1, s)
                       for p, d, s, h in zip(kpos, dils, strides, spatial, strict=True))
        buf[lead + window] += contrib
    crop = tuple(slice(lo, lo + m) for lo, m in zip(pad_lo, outs, strict=True))
    return buf[lead + crop].reshape(n, g * og, *outs)


def _conv3d_kernel(args: list[Any], attrs: Attrs) -> Any:
    opname = "nn.conv3d"
    x, w = K.tensor(args[0], "data"), K.tensor(args[1], "weight")
    dl, kl = attr(attrs, opname, "data_layout"), attr(attrs, opname, "kernel_layout")
    ol = attr(attrs, opname, "out_layout")
    if dl != "NCDHW" or kl != "OIDHW" or ol not in ("", "NCDHW"):
        raise OpError(f"only data_layout NCDHW and kernel_layout OIDHW are supported, "
                      f"got {dl}/{kl}/{ol or dl}")
    if x.ndim != 5 or w.ndim != 5:
        raise OpError(f"data {x.shape} and weight {w.shape} must be 5-D")
    pads = K.pad6(attr(attrs, opname, "padding"), opname)
    return _conv_nd(x, w, K.triple(attr(attrs, opname, "strides"), "strides"),
                    K.triple(attr(attrs, opname, "dilation"), "dilation"), pads[:3], pads[3:],
                    int(attr(attrs, opname, "groups")), K.out_dtype(attrs, opname, x.dtype))


def _conv3d_grad(orig: Call, g: Expr) -> list[Expr]:
    """aliaslog extension (v0.19 has no rule), NCDHW / OIDHW and groups = 1.

    dX = conv3d_transpose(g, W) with the output_padding that restores the input's size (with
    the dilation counted, unlike v0.19's conv2d rule). dW is a convolution of the data with the
    gradient, batch and channels exchanged and strides and dilation swapped (what v0.19's
    conv2d rule did before conv2d_backward_weight existed; there is no conv3d counterpart):
    conv3d(transpose(x, C N ...), transpose(g, O N ...)) is (C, O, K'...) with K' >= K, cut to
    the kernel by strided_slice and transposed to (O, C, K...).
    """
    data, weight = orig.args
    attrs = attrs_of(orig)
    if attrs["data_layout"] != "NCDHW" or attrs["kernel_layout"] != "OIDHW" or \
            attrs["out_layout"] not in ("", "NCDHW"):
        raise RuleError("conv3d gradient supports NCDHW data and OIDHW kernels only")
    if int(attrs["groups"]) != 1:  # type: ignore[call-overload]
        raise RuleError("conv3d gradient supports groups = 1 only")
    xs, ws = shape(data), shape(weight)
    gs = shape_of_type(out_type(orig))
    if len(xs) != 5 or len(ws) != 5:
        raise RuleError("conv3d gradient needs 5-D data and weight")
    strides = int_tuple(attrs["strides"], "strides")
    dils = int_tuple(attrs["dilation"], "dilation")
    strides = strides * 3 if len(strides) == 1 else strides
    dils = dils * 3 if len(dils) == 1 else dils
    pads = int_tuple(attrs["padding"], "padding")
    lo, hi = (pads * 3, pads * 3) if len(pads) == 1 else (
        (pads, pads) if len(pads) == 3 else (pads[:3], pads[3:]))
    restored = [(gs[2 + i] - 1) * strides[i] - lo[i] - hi[i] + (ws[2 + i] - 1) * dils[i] + 1
                for i in range(3)]
    out_pad = tuple(xs[2 + i] - restored[i] for i in range(3))
    dt = dtype(data)
    d_data = op("nn.conv3d_transpose", g, weight, channels=xs[1], kernel_size=ws[2:],
                strides=strides, output_padding=out_pad, padding=attrs["padding"],
                dilation=dils, kernel_layout="IODHW", out_dtype=dt)
    perm = (1, 0, 2, 3, 4)
    big = op("nn.conv3d", op("transpose", data, axes=perm), op("transpose", g, axes=perm),
             strides=dils, padding=attrs["padding"], dilation=strides, out_dtype=dt)
    cut = op("strided_slice", big, begin=(0, 0, 0, 0, 0), end=(xs[1], ws[0], *ws[2:]),
             strides=(1, 1, 1, 1, 1), axes=None)
    return [d_data, op("transpose", cut, axes=perm)]


register(OpDef("nn.conv3d", 2, "relay.attrs.Conv3DAttrs", _CONV3D,
               relation=_conv3d_type, kernel=_conv3d_kernel, gradient=_conv3d_grad,
               grad_origin=GRAD_EXTENSION))

# ------------------------------------------------------------------- conv1d, conv3d_transpose


def _permute_to(x: np.ndarray, layout: str, canonical: str) -> np.ndarray:
    return np.transpose(x, [layout.index(ch) for ch in canonical])


def _permute_from(x: np.ndarray, canonical: str, layout: str) -> np.ndarray:
    return np.ascontiguousarray(np.transpose(x, [canonical.index(ch) for ch in layout]))


_CONV1D = (
    F("strides", (1,)),
    F("padding", (0, 0)),
    F("dilation", (1,)),
    F("groups", 1, pod_int=True),
    F("channels", None),
    F("kernel_size", None),
    F("data_layout", "NCW"),
    F("kernel_layout", "OIW"),
    F("out_layout", ""),
    F("out_dtype", ""),
)


def _pad2(v: Any) -> tuple[int, int]:
    """GetPaddingWidth: 1 value (both sides) or 2 (left, right)."""
    xs = R.ints(v, "padding")
    if len(xs) == 1:
        return xs[0], xs[0]
    if len(xs) != 2:
        raise RelError(f"attribute padding must have 1 or 2 elements, not {len(xs)}")
    return xs[0], xs[1]


def _one(v: Any, what: str) -> int:
    xs = R.ints(v, what)
    if len(xs) != 1:
        raise RelError(f"attribute {what} must have 1 element, not {len(xs)}")
    return xs[0]


def _conv1d_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """Conv1DRel: data NCW-like, weight (O, C/groups, K) in an OIW-like layout."""
    x, kl, ol, (n, c, w) = _data(args, attrs, "NCW", "OIW")
    stride, dil = _one(attrs["strides"], "strides"), _one(attrs["dilation"], "dilation")
    pl, pr = _pad2(attrs["padding"])
    groups = _groups(attrs)
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    per_group = None if c is None else c // groups
    assign: dict[int, Type] = {}
    if channels is not None and ksize is not None:
        dims = {"O": R.integer(channels, "channels"), "I": per_group,
                "W": _one(ksize, "kernel_size")}
        want = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        if isinstance(args[1], IncompleteType):
            assign[1] = want
        else:
            wt = R.tensor(args, 1)
            if not R.shape_eq(wt.shape, want.shape):
                raise ArgMismatch(1, TensorType(want.shape, wt.dtype), wt)
        o, k = dims["O"], dims["W"]
    else:
        if isinstance(args[1], IncompleteType):
            raise Defer
        wt = _rank(R.tensor(args, 1), 3, 1)
        o, i_, k = (wt.shape[kl.index(ch)] for ch in "OIW")
        bad = (ksize is not None and not R.dim_eq(k, _one(ksize, "kernel_size"))) or (
            channels is not None and not R.dim_eq(o, channels)) or not R.dim_eq(i_, c)
        if bad:
            want_dims = {"O": o if channels is None else channels, "I": c,
                         "W": k if ksize is None else _one(ksize, "kernel_size")}
            raise ArgMismatch(1, TensorType(tuple(want_dims[ch] for ch in kl), wt.dtype), wt)
    dims_out = {"N": n, "C": o, "W": R.conv_out(w, k, stride, dil, pl + pr)}
    return _output(dims_out, ol, attrs, x, assign)


def _conv1d_kernel(args: list[Any], attrs: Attrs) -> Any:
    opname = "nn.conv1d"
    x, w = K.tensor(args[0], "data"), K.tensor(args[1], "weight")
    dl, kl = attr(attrs, opname, "data_layout"), attr(attrs, opname, "kernel_layout")
    ol = attr(attrs, opname, "out_layout") or dl
    if x.ndim != 3 or w.ndim != 3 or sorted(dl) != sorted("NCW") or \
            sorted(kl) != sorted("OIW") or sorted(ol) != sorted("NCW"):
        raise OpError(f"data {x.shape} {dl} and weight {w.shape} {kl} must be 3-D NCW / OIW "
                      "permutations")
    try:
        pl, pr = _pad2(attr(attrs, opname, "padding"))
        stride = _one(attr(attrs, opname, "strides"), "strides")
        dil = _one(attr(attrs, opname, "dilation"), "dilation")
    except RelError as err:
        raise OpError(err.message) from None
    out = _conv_nd(_permute_to(x, dl, "NCW"), _permute_to(w, kl, "OIW"), (stride,), (dil,),
                   (pl,), (pr,), int(attr(attrs, opname, "groups")),
                   K.out_dtype(attrs, opname, x.dtype))
    return _permute_from(out, "NCW", ol)


register(OpDef("nn.conv1d", 2, "relay.attrs.Conv1DAttrs", _CONV1D,
               relation=_conv1d_type, kernel=_conv1d_kernel))


def _conv3d_transpose_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """Conv3DTransposeRel: weight IODHW-like (C_in, channels / groups, K...); each output dim
    is stride * (in - 1) + dilated kernel - padding + output_padding.

    As in v0.19, the output has `channels` (or the weight's O) channels, not O * groups, and
    when the shape comes from the weight (no kernel_size and channels), the H output uses the W
    kernel extent and W the H one (its `dilated_ksize_x` / `_y` are crossed).
    """
    x, kl, ol, (n, c, d, h, w) = _data(args, attrs, "NCDHW", "IODHW")
    strides = R.triple(attrs["strides"], "strides")
    dils = R.triple(attrs["dilation"], "dilation")
    pf, pt, pl, pk, pb, pr = R.pad6(attrs["padding"])
    opad = R.triple(attrs["output_padding"], "output_padding")
    groups = _groups(attrs)
    channels, ksize = attrs["channels"], attrs["kernel_size"]
    assign: dict[int, Type] = {}
    if channels is not None and ksize is not None:
        ks = R.triple(ksize, "kernel_size")
        dims = {"I": c, "O": R.integer(channels, "channels") // groups,
                "D": ks[0], "H": ks[1], "W": ks[2]}
        want = TensorType(tuple(dims[ch] for ch in kl), x.dtype)
        if isinstance(args[1], IncompleteType):
            assign[1] = want
        else:
            wt = R.tensor(args, 1)
            if not R.shape_eq(wt.shape, want.shape):
                raise ArgMismatch(1, TensorType(want.shape, wt.dtype), wt)
        oc: Dim = R.integer(channels, "channels")
        kd, kh, kw = ks
        crossed = False
    else:
        if isinstance(args[1], IncompleteType):
            raise Defer
        wt = _rank(R.tensor(args, 1), 5, 1)
        i_, o, kd, kh, kw = (wt.shape[kl.index(ch)] for ch in "IODHW")
        if not R.dim_eq(i_, c):
            raise ArgMismatch(1, TensorType(tuple(c if ch == "I" else wt.shape[kl.index(ch)]
                                                  for ch in kl), wt.dtype), wt)
        oc, crossed = o, True

    def size(i: Dim, k: Dim, s: int, dd: int, pad: int, op_: int) -> Dim:
        if i is None or k is None:
            return i
        return s * (i - 1) + (k - 1) * dd + 1 - pad + op_

    (kh_, dh_), (kw_, dw_) = ((kw, dils[2]), (kh, dils[1])) if crossed else (
        (kh, dils[1]), (kw, dils[2]))
    dims_out = {"N": n, "C": oc, "D": size(d, kd, strides[0], dils[0], pf + pk, opad[0]),
                "H": size(h, kh_, strides[1], dh_, pt + pb, opad[1]),
                "W": size(w, kw_, strides[2], dw_, pl + pr, opad[2])}
    return _output(dims_out, ol, attrs, x, assign)


def _conv3d_transpose_kernel(args: list[Any], attrs: Attrs) -> Any:
    opname = "nn.conv3d_transpose"
    x, w = K.tensor(args[0], "data"), K.tensor(args[1], "weight")
    dl, kl = attr(attrs, opname, "data_layout"), attr(attrs, opname, "kernel_layout")
    ol = attr(attrs, opname, "out_layout") or dl
    if (dl, kl, ol) != ("NCDHW", "IODHW", "NCDHW") or x.ndim != 5 or w.ndim != 5:
        raise OpError(f"only 5-D NCDHW data and IODHW weights are supported, got {x.shape} {dl} "
                      f"and {w.shape} {kl}")
    pads = K.pad6(attr(attrs, opname, "padding"), opname)
    return _conv_transpose_nd(x, w, K.triple(attr(attrs, opname, "strides"), "strides"),
                              K.triple(attr(attrs, opname, "dilation"), "dilation"), pads[:3],
                              pads[3:], K.triple(attr(attrs, opname, "output_padding"),
                                                 "output_padding"),
                              int(attr(attrs, opname, "groups")),
                              K.out_dtype(attrs, opname, x.dtype))


register(OpDef("nn.conv3d_transpose", 2, "relay.attrs.Conv3DTransposeAttrs",
               (F("channels", None), F("kernel_size", None), F("strides", (1, 1, 1)),
                F("output_padding", (0, 0, 0)), F("padding", (0, 0, 0)),
                F("dilation", (1, 1, 1)), F("groups", 1, pod_int=True),
                F("data_layout", "NCDHW"), F("kernel_layout", "IODHW"), F("out_layout", ""),
                F("out_dtype", "")),
               relation=_conv3d_transpose_type, kernel=_conv3d_transpose_kernel))
