"""Pooling: max / avg pool2d, global pools, the pool gradients' helper ops, adaptive avg pool3d
(whose gradient, absent from v0.19, is an aliaslog extension).

The max and avg pool2d gradients emit v0.19's helper calls (`nn.max_pool2d_grad`,
`nn.avg_pool2d_grad`) with v0.19's attributes, which drop the pool's `dilation`; the global
average pool's gradient is an `nn.avg_pool2d_grad` over the whole plane. The kernels support
the NCHW layout (NCDHW-like for the adaptive pool) only.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..ast import Attrs, Call, Expr, TensorType, Type, const, type_str
from . import kernel as K
from . import relation as R
from .grad import RuleError, attrs_of, dtype, mul, out_type, rsum, scalar, shape, shape_of_type
from .registry import GRAD_EXTENSION, F, Kernel, OpAttrs, OpDef, OpError, attr, register
from .registry import make_call as op
from .relation import RelError

_POOL2D = (
    F("pool_size"),
    F("strides", (1, 1)),
    F("dilation", (1, 1)),
    F("padding", (0, 0)),
    F("layout", "NCHW"),
    F("out_layout", ""),
    F("ceil_mode", False),
)
_AVG_POOL2D = (*_POOL2D, F("count_include_pad", False))
_GLOBAL_POOL2D = (F("layout", "NCHW"), F("out_layout", ""))


def _pool2d_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    lay = R.layout(attrs["layout"], "NCHW", "layout")
    ol = R.layout(attrs["out_layout"] or lay, "NCHW", "out_layout")
    if attrs["pool_size"] is None:
        raise RelError("attribute pool_size is required")
    kh, kw = R.pair(attrs["pool_size"], "pool_size")
    sh, sw = R.pair(attrs["strides"], "strides")
    dh, dw = R.pair(attrs["dilation"], "dilation")
    pt, pl, pb, pr = R.pad4(attrs["padding"])
    ceil = bool(attrs["ceil_mode"])
    dims = {ch: x.shape[lay.index(ch)] for ch in "NCHW"}
    dims["H"] = R.conv_out(dims["H"], kh, sh, dh, pt + pb, ceil)
    dims["W"] = R.conv_out(dims["W"], kw, sw, dw, pl + pr, ceil)
    return TensorType(tuple(dims[ch] for ch in ol), x.dtype)


def _pool2d_kernel(opname: str, kind: str) -> Kernel:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = K.tensor(args[0])
        if attr(attrs, opname, "layout") != "NCHW" or x.ndim != 4:
            raise OpError(f"only 4-D NCHW input is supported, got {x.shape} "
                          f"{attr(attrs, opname, 'layout')}")
        kh, kw = K.pair(attr(attrs, opname, "pool_size"), "pool_size")
        sh, sw = K.pair(attr(attrs, opname, "strides"), "strides")
        dh, dw = K.pair(attr(attrs, opname, "dilation"), "dilation")
        pt, pl, pb, pr = K.pad4(attr(attrs, opname, "padding"), opname)
        ceil = bool(attr(attrs, opname, "ceil_mode"))
        n, c, h, w = x.shape
        eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
        # ceil_mode: TVM pads the tail by stride-1 more so that the division rounds up
        xb, xr = (sh - 1 if ceil else 0), (sw - 1 if ceil else 0)
        oh, ow = (h + pt + pb + xb - eh) // sh + 1, (w + pl + pr + xr - ew) // sw + 1
        if oh <= 0 or ow <= 0:
            raise OpError(f"pool window {kh}x{kw} is larger than the padded input {h}x{w}")
        if kind == "max":
            low = -np.inf if np.issubdtype(x.dtype, np.floating) else np.iinfo(x.dtype).min
            fill = np.asarray(low).astype(x.dtype)
        else:
            fill = np.zeros((), x.dtype)
        xp = np.full((n, c, h + pt + pb + xb, w + pl + pr + xr), fill, dtype=x.dtype)
        xp[:, :, pt:pt + h, pl:pl + w] = x
        acc = None
        for i in range(kh):
            for j in range(kw):
                r0, c0 = i * dh, j * dw
                patch = xp[:, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw]
                if acc is None:
                    acc = patch.astype(np.float64 if kind == "avg" else x.dtype)
                elif kind == "max":
                    acc = np.maximum(acc, patch)
                else:
                    acc = acc + patch
        assert acc is not None
        if kind == "max":
            return acc
        include = bool(attr(attrs, opname, "count_include_pad"))
        counts = np.outer(_window_counts(oh, sh, dh, kh, pt, h, pb, include),
                          _window_counts(ow, sw, dw, kw, pl, w, pr, include))
        with np.errstate(invalid="ignore", divide="ignore"):
            return (acc / np.maximum(counts, 1)).astype(x.dtype)

    return run


def _window_counts(o: int, s: int, d: int, k: int, head: int, size: int, tail: int,
                   include_pad: bool) -> np.ndarray:
    """Elements averaged per output position along one axis, as TVM's pool counts them."""
    out = np.zeros(o, dtype=np.float64)
    for i in range(o):
        start = i * s - head
        taps = [start + t * d for t in range(k)]
        if include_pad:
            # the declared padding counts, the extra ceil_mode tail does not
            out[i] = sum(1 for p in taps if p < size + tail)
        else:
            out[i] = sum(1 for p in taps if 0 <= p < size)
    return out


def _max_pool2d_grad(orig: Call, g: Expr) -> list[Expr]:
    """nn.max_pool2d_grad with the pool's size, strides, padding, layout and ceil_mode."""
    attrs = attrs_of(orig)
    keys = ("pool_size", "strides", "padding", "layout", "ceil_mode")
    return [op("nn.max_pool2d_grad", g, orig.args[0], **{k: attrs[k] for k in keys})]


register(OpDef("nn.max_pool2d", 1, "relay.attrs.MaxPool2DAttrs", _POOL2D,
               relation=_pool2d_type, kernel=_pool2d_kernel("nn.max_pool2d", "max"),
               gradient=_max_pool2d_grad))


def _avg_pool2d_grad(orig: Call, g: Expr) -> list[Expr]:
    """nn.avg_pool2d_grad with the pool's attributes (not its dilation), as v0.19 passes them."""
    attrs = attrs_of(orig)
    keys = ("pool_size", "strides", "padding", "layout", "ceil_mode", "count_include_pad")
    return [op("nn.avg_pool2d_grad", g, orig.args[0], **{k: attrs[k] for k in keys})]


register(OpDef("nn.avg_pool2d", 1, "relay.attrs.AvgPool2DAttrs", _AVG_POOL2D,
               relation=_pool2d_type, kernel=_pool2d_kernel("nn.avg_pool2d", "avg"),
               gradient=_avg_pool2d_grad))


def _global_pool2d_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    x = R.tensor(args, 0)
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    lay = R.layout(attrs["layout"], "NCHW", "layout")
    ol = R.layout(attrs["out_layout"] or lay, "NCHW", "out_layout")
    dims = {ch: x.shape[lay.index(ch)] for ch in "NCHW"}
    dims["H"] = dims["W"] = 1
    return TensorType(tuple(dims[ch] for ch in ol), x.dtype)


def _global_pool2d_kernel(opname: str, fn: Callable[..., Any]) -> Kernel:
    def run(args: list[Any], attrs: Attrs) -> Any:
        x = K.tensor(args[0])
        if attr(attrs, opname, "layout") != "NCHW" or x.ndim != 4:
            raise OpError(f"only 4-D NCHW input is supported, got {x.shape}")
        return np.asarray(fn(x, axis=(2, 3), keepdims=True)).astype(x.dtype)

    return run


def _global_avg_pool2d_grad(orig: Call, g: Expr) -> list[Expr]:
    """An average pool over the whole H x W plane: nn.avg_pool2d_grad with pool_size (H, W)."""
    (data,) = orig.args
    shp = shape(data)
    layout = attrs_of(orig)["layout"]
    if layout == "NCHW":
        pool_size = (shp[2], shp[3])
    elif layout == "NHWC":
        pool_size = (shp[1], shp[2])
    else:
        raise RuleError(f"global_avg_pool2d gradient supports layouts NCHW and NHWC, "
                        f"not {layout!r}")
    return [op("nn.avg_pool2d_grad", g, data, pool_size=pool_size, strides=(1, 1),
               padding=(0, 0), layout=layout)]


register(OpDef("nn.global_avg_pool2d", 1, "relay.attrs.GlobalPool2DAttrs", _GLOBAL_POOL2D,
               relation=_global_pool2d_type,
               kernel=_global_pool2d_kernel("nn.global_avg_pool2d", np.mean),
               gradient=_global_avg_pool2d_grad))
register(OpDef("nn.global_max_pool2d", 1, "relay.attrs.GlobalPool2DAttrs", _GLOBAL_POOL2D,
               relation=_global_pool2d_type,
               kernel=_global_pool2d_kernel("nn.global_max_pool2d", np.max)))


def _pool2d_grad_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """Pool2DGradRel: the data gradient has the data's type (out_grad is not checked)."""
    return R.tensor(args, 1)


def _pool2d_grad_kernel(opname: str, kind: str) -> Kernel:
    """topi's pool_grad: scatter each output window's gradient back onto the data.

    As in v0.19's compute, the `dilation` and `out_layout` attributes are not used; max sends a
    window's gradient to its first maximum in row-major order (padding never wins a real value).
    """

    def run(args: list[Any], attrs: Attrs) -> Any:
        g, x = K.tensor(args[0], "out_grad"), K.tensor(args[1], "data")
        if attr(attrs, opname, "layout") != "NCHW" or x.ndim != 4 or g.ndim != 4:
            raise OpError(f"only 4-D NCHW out_grad and data are supported, got {g.shape}, "
                          f"{x.shape} {attr(attrs, opname, 'layout')}")
        kh, kw = K.pair(attr(attrs, opname, "pool_size"), "pool_size")
        sh, sw = K.pair(attr(attrs, opname, "strides"), "strides")
        pt, pl, pb, pr = K.pad4(attr(attrs, opname, "padding"), opname)
        if attr(attrs, opname, "ceil_mode"):
            pb, pr = pb + sh - 1, pr + sw - 1
        n, c, h, w = x.shape
        oh, ow = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
        if g.shape != (n, c, oh, ow):
            raise OpError(f"out_grad {g.shape} does not match the pooled shape {(n, c, oh, ow)} "
                          f"of data {x.shape}")
        gp = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=g.dtype)
        if kind == "max":
            low = -np.inf if np.issubdtype(x.dtype, np.floating) else np.iinfo(x.dtype).min
            xp = np.full(gp.shape, np.asarray(low).astype(x.dtype), dtype=x.dtype)
            xp[:, :, pt:pt + h, pl:pl + w] = x
            ni, ci = np.indices((n, c))
            for i in range(oh):
                for j in range(ow):
                    win = xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw].reshape(n, c, -1)
                    arg = np.argmax(win, axis=-1)
                    gp[ni, ci, i * sh + arg // kw, j * sw + arg % kw] += g[:, :, i, j]
        else:
            include = bool(attr(attrs, opname, "count_include_pad"))
            for i in range(oh):
                for j in range(ow):
                    if include:
                        count = kh * kw
                    else:
                        hs, ws = i * sh - pt, j * sw - pl
                        count = max((min(hs + kh, h) - max(hs, 0))
                                    * (min(ws + kw, w) - max(ws, 0)), 1)
                    share = g[:, :, i, j] / np.asarray(count, dtype=g.dtype)
                    gp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw] += share[:, :, None, None]
        return gp[:, :, pt:pt + h, pl:pl + w].astype(x.dtype)

    return run


# (out_grad, data) -> data gradient. v0.19 declares MaxPool2DAttrs for both (the avg one
# by a slip); MakeAvgPool2DGrad builds AvgPool2DAttrs, which is what programs carry.
register(OpDef("nn.max_pool2d_grad", 2, "relay.attrs.MaxPool2DAttrs", _POOL2D,
               relation=_pool2d_grad_type,
               kernel=_pool2d_grad_kernel("nn.max_pool2d_grad", "max")))
register(OpDef("nn.avg_pool2d_grad", 2, "relay.attrs.AvgPool2DAttrs", _AVG_POOL2D,
               relation=_pool2d_grad_type,
               kernel=_pool2d_grad_kernel("nn.avg_pool2d_grad", "avg")))


def _adaptive_avg_pool3d_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """AdaptivePool3DRel: D, H, W become output_size (empty: unchanged); out_layout unused."""
    x = R.tensor(args, 0)
    if len(x.shape) != 5:
        raise RelError(f"expected a 5-D tensor but found {type_str(x)}", 0)
    lay = R.layout(attrs["layout"], "NCDHW", "layout")
    size = R.ints(attrs["output_size"] or (), "output_size")
    if len(size) == 1:
        size = size * 3
    elif len(size) not in (0, 3):
        raise RelError(f"attribute output_size must have 0, 1 or 3 elements, not {len(size)}")
    shape = list(x.shape)
    for ch, v in zip("DHW", size, strict=False):
        shape[lay.index(ch)] = v
    return TensorType(tuple(shape), x.dtype)


def _adaptive_avg_pool3d_kernel(args: list[Any], attrs: Attrs) -> Any:
    """Window i of an axis spans [floor(i*in/out), ceil((i+1)*in/out)), as topi's adaptive pool."""
    opname = "nn.adaptive_avg_pool3d"
    x = K.tensor(args[0])
    lay = attr(attrs, opname, "layout")
    if not isinstance(lay, str) or sorted(lay) != sorted("NCDHW") or x.ndim != 5:
        raise OpError(f"only 5-D input in a layout of N, C, D, H, W is supported, got {x.shape} "
                      f"{lay!r}")
    axes = [lay.index(ch) for ch in "DHW"]
    ins = [x.shape[a] for a in axes]
    size = K.ints(attr(attrs, opname, "output_size") or ())
    if len(size) == 0:
        size = tuple(ins)
    elif len(size) == 1:
        size = size * 3
    elif len(size) != 3:
        raise OpError(f"output_size must have 0, 1 or 3 elements, got {size}")
    if any(v <= 0 for v in size):
        raise OpError(f"output_size {size} must be positive")
    xm = np.moveaxis(x, axes, [2, 3, 4])
    out = np.zeros((*xm.shape[:2], *size), dtype=np.float64)
    for pos in itertools.product(*(range(v) for v in size)):
        window = tuple(slice(*adaptive_windows(i, o)[p])
                       for p, i, o in zip(pos, ins, size, strict=True))
        out[(slice(None), slice(None), *pos)] = xm[(slice(None), slice(None), *window)].mean(
            axis=(2, 3, 4))
    return np.moveaxis(out, [2, 3, 4], axes).astype(x.dtype)


def adaptive_windows(n_in: int, n_out: int) -> list[tuple[int, int]]:
    """[start, end) of each adaptive window along an axis (topi's adaptive pool)."""
    return [(p * n_in // n_out, -((-(p + 1) * n_in) // n_out)) for p in range(n_out)]


def _adaptive_avg_pool3d_grad(orig: Call, g: Expr) -> list[Expr]:
    """aliaslog extension (v0.19 has no rule): the pool averages separably, one (out x in)
    averaging matrix per pooled axis, so the gradient applies each matrix's transpose.

    With every output extent 1 (what relay.nn.global_avg_pool3d emits) that is
    `broadcast_to_like(g * 1/(D*H*W), x)`; otherwise each pooled axis a is contracted with a
    constant `A[o, i]` (1/|window o| inside window o): `sum(expand_dims(g, a + 1) * A, a)`.
    """
    (x,) = orig.args
    xs = shape(x)
    lay = attrs_of(orig)["layout"]
    if not isinstance(lay, str) or sorted(lay) != sorted("NCDHW"):
        raise RuleError(f"adaptive_avg_pool3d gradient needs a layout of N, C, D, H, W, not "
                        f"{lay!r}")
    out = shape_of_type(out_type(orig))
    axes = [lay.index(ch) for ch in "DHW"]
    dt = dtype(x)
    if all(out[a] == 1 for a in axes):
        count = int(np.prod([xs[a] for a in axes]))
        return [op("broadcast_to_like", mul(g, scalar(1.0 / count, x)), x)]
    grad: Expr = g
    for a in axes:
        n_in, n_out = xs[a], out[a]
        if n_in == n_out:
            continue
        mat = np.zeros((n_out, n_in), dtype=dt)
        for o, (lo, hi) in enumerate(adaptive_windows(n_in, n_out)):
            mat[o, lo:hi] = 1.0 / (hi - lo)
        mat = mat.reshape((1,) * a + mat.shape + (1,) * (len(xs) - a - 1))
        grad = rsum(mul(op("expand_dims", grad, axis=a + 1, num_newaxis=1), const(mat)), a)
    return [grad]


# v0.19 has no nn.global_avg_pool3d op: relay.nn.global_avg_pool3d(x) builds this call
# with output_size=[1, 1, 1]
register(OpDef("nn.adaptive_avg_pool3d", 1, "relay.attrs.AdaptivePool3DAttrs",
               (F("output_size", ()), F("layout", "NCDHW"), F("out_layout", "")),
               relation=_adaptive_avg_pool3d_type, kernel=_adaptive_avg_pool3d_kernel,
               gradient=_adaptive_avg_pool3d_grad, grad_origin=GRAD_EXTENSION))
