"""Image operators: image.resize2d.

Sources: src/relay/op/image/resize.cc (Resize2DRel) and python/tvm/topi/image/resize.py
(`_resize_2d`, `get_inx`, `get_closest_index`) at v0.19. topi computes in float32 (`"float"`)
whatever the data's dtype, clamps every read to the image, and casts to the output dtype at
the end; the kernel does the same. No gradient rule in v0.19.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ast import Attrs, TensorType, Type, type_str
from . import kernel as K
from . import relation as R
from .registry import F, OpAttrs, OpDef, OpError, attr, register
from .relation import RelError

_F32 = np.float32
_MODES = ("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
          "tf_half_pixel_for_nn", "tf_crop_and_resize")


def _resize2d_type(args: Sequence[Type], attrs: OpAttrs) -> Type:
    """Resize2DRel: H and W of the layout become `size`; dtype `out_dtype` or the data's."""
    x = R.tensor(args, 0)
    lay = R.layout(attrs["layout"], "NCHW", "layout")
    if len(x.shape) != 4:
        raise RelError(f"expected a 4-D tensor but found {type_str(x)}", 0)
    size = attrs["size"]
    if size is None or len(R.ints(size, "size")) != 2:
        raise RelError(f"attribute size must have 2 elements, not {size!r}")
    roi = attrs["roi"]
    if roi is None or len(roi) != 4:
        raise RelError(f"attribute roi must have 4 elements, not {roi!r}")
    h, w = R.ints(size, "size")
    shape = list(x.shape)
    shape[lay.index("H")], shape[lay.index("W")] = h, w
    return TensorType(tuple(shape), attrs["out_dtype"] or x.dtype)


def _int_div_ok(origin: int, scaled: int) -> bool:
    """can_convert_multiply_to_intdiv: an integer scale-up factor, not absurdly large."""
    div = scaled / float(origin)
    if div % 1 != 0:
        return False
    eps = 1e-5
    return not div > 1 / (eps * origin + eps)


def _in_coord(out: np.ndarray, image: int, target: int, mode: str, start: float, end: float,
              int_div: bool) -> np.ndarray:
    """get_inx: the input coordinate of each output position (float32)."""
    if mode == "asymmetric" and int_div:
        return (out // (target // image)).astype(_F32)
    x = out.astype(_F32)
    scale = _F32(image) / _F32(target)
    if mode == "half_pixel":
        return (x + _F32(0.5)) * scale - _F32(0.5)
    if mode == "align_corners":
        return _F32(image - 1) / _F32(target - 1) * x
    if mode == "asymmetric":
        return scale * x
    if mode == "pytorch_half_pixel":
        return (x + _F32(0.5)) * scale - _F32(0.5) if target > 1 else np.zeros_like(x)
    if mode == "tf_half_pixel_for_nn":
        return (x + _F32(0.5)) * scale
    if mode == "tf_crop_and_resize":
        s, e = _F32(start), _F32(end)
        if target > 1:
            return s * _F32(image - 1) + x * (e - s) * _F32(image - 1) / _F32(target - 1)
        return np.full_like(x, _F32(0.5) * (s + e) * _F32(image - 1))
    raise OpError(f"Unsupported coordinate_transformation_mode: {mode}")


def _closest(x: np.ndarray, rounding: str, int_div: bool) -> np.ndarray:
    """get_closest_index (te.round rounds half to even, as numpy does)."""
    if int_div:
        return x.astype(np.int32)
    eps = _F32(1e-5)
    if rounding == "round":
        return np.round(x).astype(np.int32)
    if rounding == "round_prefer_floor":
        return np.ceil(x - _F32(0.5)).astype(np.int32)
    if rounding == "round_prefer_ceil":
        return np.floor(x + _F32(0.5)).astype(np.int32)
    if rounding == "floor":
        return np.floor(x + eps).astype(np.int32)
    if rounding == "ceil":
        return np.ceil(x - eps).astype(np.int32)
    raise OpError(f"Unknown rounding method: {rounding}")


def _cubic_weights(t: np.ndarray, a: float) -> list[np.ndarray]:
    """_cubic_spline_weights: the four taps at offsets -1, 0, 1, 2."""
    a32 = _F32(a)
    t2, t3 = t * t, t * t * t
    return [a32 * (t3 - 2 * t2 + t), (a32 + 2) * t3 - (3 + a32) * t2 + 1,
            -(a32 + 2) * t3 + (3 + 2 * a32) * t2 - a32 * t, -a32 * t3 + a32 * t2]


def _resize2d_kernel(args: list[Any], attrs: Attrs) -> Any:
    name = "image.resize2d"
    x = K.tensor(args[0])
    layout = attr(attrs, name, "layout")
    if layout not in ("NCHW", "NHWC") or x.ndim != 4:
        raise OpError(f"only 4-D NCHW or NHWC data is supported, got {x.shape} {layout!r}")
    data = x if layout == "NCHW" else np.transpose(x, (0, 3, 1, 2))
    data = data.astype(_F32)  # get_2d_pixel reads `.astype("float")`
    th, tw = K.ints(attr(attrs, name, "size"))
    roi = [float(v) for v in attr(attrs, name, "roi")]
    method = str(attr(attrs, name, "method")).lower()
    mode = attr(attrs, name, "coordinate_transformation_mode")
    if mode not in _MODES:
        raise OpError(f"Unsupported coordinate_transformation_mode: {mode}")
    rounding = attr(attrs, name, "rounding_method")
    ih, iw = data.shape[2], data.shape[3]
    hdiv = wdiv = False
    if method == "nearest_neighbor" and mode == "asymmetric":
        hdiv, wdiv = _int_div_ok(ih, th), _int_div_ok(iw, tw)
    in_y = _in_coord(np.arange(th), ih, th, mode, roi[0], roi[2], hdiv)
    in_x = _in_coord(np.arange(tw), iw, tw, mode, roi[1], roi[3], wdiv)

    def pixel(yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        yi, xi = np.clip(yi, 0, ih - 1), np.clip(xi, 0, iw - 1)
        return data[:, :, yi[:, None], xi[None, :]]

    if method == "nearest_neighbor":
        if rounding == "":
            rounding = "round" if mode == "align_corners" else "floor"
        value = pixel(_closest(in_y, rounding, hdiv), _closest(in_x, rounding, wdiv))
    elif method == "linear":
        y0, x0 = np.floor(in_y).astype(np.int32), np.floor(in_x).astype(np.int32)
        ly, lx = (in_y - y0)[:, None], (in_x - x0)[None, :]
        one = _F32(1.0)
        top = pixel(y0, x0) * (one - lx) + pixel(y0, x0 + 1) * lx
        bottom = pixel(y0 + 1, x0) * (one - lx) + pixel(y0 + 1, x0 + 1) * lx
        value = top * (one - ly) + bottom * ly
    elif method == "cubic":
        alpha = float(attr(attrs, name, "cubic_alpha"))
        y0, x0 = np.floor(in_y).astype(np.int32), np.floor(in_x).astype(np.int32)
        wy = _cubic_weights(in_y - np.floor(in_y), alpha)
        wx = _cubic_weights(in_x - np.floor(in_x), alpha)
        if attr(attrs, name, "cubic_exclude"):
            for i in range(4):
                wx[i] = np.where((x0 - 1 + i < 0) | (x0 + i > iw), _F32(0), wx[i])
                wy[i] = np.where((y0 - 1 + i < 0) | (y0 + i > ih), _F32(0), wy[i])
            sx, sy = sum(wx), sum(wy)
            wx, wy = [w / sx for w in wx], [w / sy for w in wy]
        value = sum(wy[j][:, None] * sum(pixel(y0 + j - 1, x0 + i - 1) * wx[i][None, :]
                                         for i in range(4))
                    for j in range(4))
    else:
        raise OpError(f"Unknown resize method: {method}")
    value = np.asarray(value, dtype=_F32)
    if mode == "tf_crop_and_resize":
        ext = _F32(attr(attrs, name, "extrapolation_value"))
        outside = ((in_y < 0) | (in_y > ih - 1))[:, None] | ((in_x < 0) | (in_x > iw - 1))[None, :]
        value = np.where(outside, ext, value)
    out_dt = attr(attrs, name, "out_dtype")
    out = value.astype(K.np_dtype(out_dt) if out_dt else x.dtype)
    return out if layout == "NCHW" else np.ascontiguousarray(np.transpose(out, (0, 2, 3, 1)))


# Resize2DAttrs, include/tvm/relay/attrs/image.h (the Python API passes rounding_method="")
register(OpDef("image.resize2d", 1, "relay.attrs.Resize2DAttrs",
               (F("size", None), F("roi", None), F("layout", "NCHW"), F("method", "linear"),
                F("coordinate_transformation_mode", "half_pixel"),
                F("rounding_method", "round"), F("cubic_alpha", -0.5),
                F("cubic_exclude", 0, pod_int=True), F("extrapolation_value", 0.0),
                F("out_dtype", "")),
               relation=_resize2d_type, kernel=_resize2d_kernel))
