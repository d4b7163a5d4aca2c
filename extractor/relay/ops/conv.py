"""Convolutions: conv2d, its two gradient helpers (conv2d_transpose, conv2d_backward_weight),
conv3d.

The conv2d gradient emits the same helper calls as v0.19 (`nn.conv2d_transpose` for the data,
`nn.conv2d_backward_weight` for the weight) with the same attributes, including v0.19's limit
that its `output_padding` ignores dilation. The kernels support the NCHW / NCDHW layouts only.
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
from .registry import F, OpAttrs, OpDef, OpError, attr, register
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


def _check_layouts(attrs: Attrs, opname: str, kernel: str) -> None:
    dl = attr(attrs, opname, "data_layout")
    kl = attr(attrs, opname, "kernel_layout")
    ol = attr(attrs, opname, "out_layout")
    if dl != "NCHW" or kl != kernel or ol not in ("", "NCHW"):
        raise OpError(f"only data_layout NCHW and kernel_layout {kernel} are supported, "
                      f"got {dl}/{kl}/{ol or dl}")


def _conv2d_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    x = R.tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    dl = R.layout(attrs["data_layout"], "NCHW", "data_layout")
    kl = R.layout(attrs["kernel_layout"], "OIHW", "kernel_layout")
    ol = R.layout(attrs["out_layout"] or dl, "NCHW", "out_layout")
    n, c, h, w = (x.shape[dl.index(ch)] for ch in "NCHW")
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
        wt = R.tensor(args, 1)
        if len(wt.shape) != 4:
            raise RelError(f"expected a 4-D tensor but found {type_str(wt)}", 1)
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
    out = TensorType(tuple(dims[ch] for ch in ol), attrs["out_dtype"] or x.dtype)
    return Result(out, assign) if assign else out


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
    xp = np.pad(x.astype(dt), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    oh, ow = (h + pt + pb - eh) // sh + 1, (wd + pl + pr - ew) // sw + 1
    if oh <= 0 or ow <= 0:
        raise OpError(f"kernel {w.shape[2:]} (dilation {dh},{dw}) is larger than the padded "
                      f"input {xp.shape[2:]}")
    xg = xp.reshape(n, g, ci, xp.shape[2], xp.shape[3])
    wg = w.astype(dt).reshape(g, o // g, ci, kh, kw)
    out = np.zeros((n, g, o // g, oh, ow), dtype=dt)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            patch = xg[:, :, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw]
            out += np.einsum("ngchw,goc->ngohw", patch, wg[:, :, :, i, j])
    return out.reshape(n, o, oh, ow)


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
    x = R.tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    dl = R.layout(attrs["data_layout"], "NCHW", "data_layout")
    kl = R.layout(attrs["kernel_layout"], "IOHW", "kernel_layout")
    ol = R.layout(attrs["out_layout"] or dl, "NCHW", "out_layout")
    n, c, h, w = (x.shape[dl.index(ch)] for ch in "NCHW")
    sh, sw = R.pair(attrs["strides"], "strides")
    dh, dw = R.pair(attrs["dilation"], "dilation")
    pt, pl, pb, pr = R.pad4(attrs["padding"])
    oph, opw = R.pair(attrs["output_padding"], "output_padding")
    groups = R.integer(attrs["groups"], "groups")
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
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
        wt = R.tensor(args, 1)
        if len(wt.shape) != 4:
            raise RelError(f"expected a 4-D tensor but found {type_str(wt)}", 1)
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
    out = TensorType(tuple(dims[ch] for ch in ol), attrs["out_dtype"] or x.dtype)
    return Result(out, assign) if assign else out


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
    full_h = (h - 1) * sh + (kh - 1) * dh + 1
    full_w = (wd - 1) * sw + (kw - 1) * dw + 1
    oh, ow = full_h - pt - pb + oph, full_w - pl - pr + opw
    if oh <= 0 or ow <= 0:
        raise OpError(f"output size {oh}x{ow} is not positive")
    xg = x.astype(dt).reshape(n, g, c // g, h, wd)
    wg = w.astype(dt).reshape(g, c // g, og, kh, kw)
    full = np.zeros((n, g, og, max(full_h, pt + oh), max(full_w, pl + ow)), dtype=dt)
    for i in range(kh):
        for j in range(kw):
            contrib = np.einsum("ngchw,gco->ngohw", xg, wg[:, :, :, i, j])
            full[:, :, :, i * dh:i * dh + sh * (h - 1) + 1:sh,
                 j * dw:j * dw + sw * (wd - 1) + 1:sw] += contrib
    return full[:, :, :, pt:pt + oh, pl:pl + ow].reshape(n, g * og, oh, ow)


# Conv2DTransposeAttrs declares its fields in this order (the printer follows it)
register(OpDef("nn.conv2d_transpose", 2, "relay.attrs.Conv2DTransposeAttrs",
               (F("channels", None), F("kernel_size", None), F("strides", (1, 1)),
                F("output_padding", (0, 0)), F("padding", (0, 0)), F("dilation", (1, 1)),
                F("groups", 1, pod_int=True), F("data_layout", "NCHW"),
                F("kernel_layout", "IOHW"), F("out_layout", ""), F("out_dtype", "")),
               relation=_conv2d_transpose_type, kernel=_conv2d_transpose_kernel))


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
    groups = R.integer(attrs["groups"], "groups")
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
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
            out[:, :, :, i, j] = np.einsum("ngchw,ngohw->goc", patch, gg)
    return out.reshape(o, cg, kh, kw)


# (grad, data) -> weight gradient; Conv2DAttrs repurposed: data_layout is the grad's layout,
# kernel_layout the data's, out_layout the weight's (MakeConv2dBackwardWeight)
register(OpDef("nn.conv2d_backward_weight", 2, "relay.attrs.Conv2DAttrs", _CONV2D,
               relation=_conv2d_backward_weight_type, kernel=_conv2d_backward_weight_kernel))


def _conv3d_type(args: Sequence[Type], attrs: OpAttrs) -> Type | Result:
    """Conv3DRel: data NCDHW-like, weight (O, C/groups, KD, KH, KW) in OIDHW-like layout."""
    x = R.tensor(args, 0)
    if len(x.shape) != 5:
        raise RelError(f"expected a 5-D tensor but found {type_str(x)}", 0)
    dl = R.layout(attrs["data_layout"], "NCDHW", "data_layout")
    kl = R.layout(attrs["kernel_layout"], "OIDHW", "kernel_layout")
    ol = R.layout(attrs["out_layout"] or dl, "NCDHW", "out_layout")
    n, c, d, h, w = (x.shape[dl.index(ch)] for ch in "NCDHW")
    strides = R.triple(attrs["strides"], "strides")
    dils = R.triple(attrs["dilation"], "dilation")
    pf, pt, pl, pk, pb, pr = R.pad6(attrs["padding"])
    groups = R.integer(attrs["groups"], "groups")
    if groups <= 0:
        raise RelError(f"groups must be positive, not {groups}")
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
        wt = R.tensor(args, 1)
        if len(wt.shape) != 5:
            raise RelError(f"expected a 5-D tensor but found {type_str(wt)}", 1)
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
    out = TensorType(tuple(dims[ch] for ch in ol), attrs["out_dtype"] or x.dtype)
    return Result(out, assign) if assign else out


def _conv_nd(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dils: Sequence[int],
             pad_lo: Sequence[int], pad_hi: Sequence[int], g: int, dt: np.dtype) -> np.ndarray:
    """Grouped convolution over any number of spatial dims (data NC..., weight OI...)."""
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
    for kpos in itertools.product(*(range(k) for k in ks)):
        window = tuple(slice(p * d, p * d + s * (m - 1) + 1, s)
                       for p, d, s, m in zip(kpos, dils, strides, outs, strict=True))
        out += np.einsum("ngc...,goc->ngo...", xg[lead + window], wg[lead + kpos])
    return out.reshape(n, o, *outs)


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


register(OpDef("nn.conv3d", 2, "relay.attrs.Conv3DAttrs", _CONV3D,
               relation=_conv3d_type, kernel=_conv3d_kernel))
