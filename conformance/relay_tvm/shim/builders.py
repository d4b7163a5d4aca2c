"""`tvm.relay` constructors, types and operator builders, as TVM v0.19's Python defines them,
building our AST (python/tvm/relay/{expr,function,ty,adt,scope_builder}.py, op/*.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import adapter
from ..classify import Needs, NotInShim
from .hooks import AnyDim
from .module import SOURCE, GlobalTypeVar

A = adapter.ast


def _seq(x: Any) -> tuple[Any, ...]:
    return tuple(x) if x is not None else ()


# --------------------------------------------------------------------------- expressions


def const(value: Any, dtype: str | None = None, span: Any = None) -> Any:
    """relay.const: Python int -> int32, float -> float32 unless dtype says otherwise."""
    if isinstance(value, (bool, int, float, list, np.number)):
        value = np.array(value, dtype=dtype)
    if not dtype:
        dtype = {np.dtype("int64"): np.int32, np.dtype("float64"): np.float32}.get(
            np.asarray(value).dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        value = np.asarray(value)
        if dtype is not None:
            value = value.astype(dtype)
    if not isinstance(value, np.ndarray):
        raise ValueError("value has to be scalar or NDArray")
    return A.Constant(value, span=span)


def shape_of(shape: Any) -> tuple[int | None, ...]:
    if isinstance(shape, int):
        shape = (shape,)
    return tuple(None if isinstance(d, AnyDim) else int(d) for d in shape)


def TensorType(shape: Any, dtype: str = "float32") -> Any:  # TVM's name
    return A.TensorType(shape_of(shape), dtype)


def var(name_hint: str, type_annotation: Any = None, shape: Any = None, dtype: str = "float32",
        span: Any = None) -> Any:
    """relay.var: a shape makes a TensorType; a string annotation is a scalar dtype."""
    if type_annotation is not None and shape is not None:
        raise ValueError("Can't specify both type_annotation and shape")
    if shape is not None:
        type_annotation = TensorType(shape, dtype)
    elif isinstance(type_annotation, str):
        type_annotation = A.TensorType((), type_annotation)
    return A.Var(name_hint, type_annotation, span=span)


def Var(name_hint: str, type_annotation: Any = None, span: Any = None) -> Any:
    return A.Var(name_hint, type_annotation, span=span)


def Function(params: Any, body: Any, ret_type: Any = None, type_params: Any = None,
             attrs: Any = None, span: Any = None) -> Any:
    return A.Function(_seq(params), body, ret_type, _seq(type_params),
                      attrs if attrs is not None else A.EMPTY_ATTRS, span=span)


def Call(op: Any, args: Any, attrs: Any = None, type_args: Any = None,
         span: Any = None) -> Any:
    if hasattr(attrs, "_attrs"):  # call.attrs read back through the shim (AttrsView)
        attrs = attrs._attrs
    if isinstance(attrs, A.Attrs):
        at = attrs
    elif attrs is None:
        at = A.EMPTY_ATTRS
    else:
        raise NotInShim(f"call attrs of type {type(attrs).__name__}")
    return A.Call(op, _seq(args), at, _seq(type_args), span=span)


def make_node(type_key: str, **kw: Any) -> Any:
    """tvm.ir.make_node for attrs objects (DictAttrs, attrs.TestAttrs)."""
    if type_key == "DictAttrs" or type_key.startswith(("attrs.", "relay.attrs.")):
        return A.Attrs(tuple(kw.items()), type_key)
    raise NotInShim(f"tvm.ir.make_node({type_key!r})")


def Span(source_name: Any, line: int, end_line: int, column: int,
         end_column: int) -> Any:
    """relay.Span(source_name, line, end_line, column, end_column)."""
    return A.Span(str(source_name), line, column, end_line, end_column)


def bind(expr: Any, binds: dict[Any, Any]) -> Any:
    """relay.bind: substitute free variables (or a function's parameters) by expressions."""
    table = {id(k): v for k, v in binds.items()}

    class _Bind(A.ExprMutator):
        def visit_Var(self, e: Any) -> Any:
            return table.get(id(e), e)

    if isinstance(expr, A.Function):
        params = tuple(p for p in expr.params if id(p) not in table)
        body = _Bind().visit(expr.body)
        return A.Function(params, body, expr.ret_type, expr.type_params, expr.attrs,
                          span=expr.span)
    return _Bind().visit(expr)


def Constructor(name_hint: str, inputs: Any, belong_to: Any) -> Any:
    """relay.Constructor: its tag is set when its TypeData joins a module (see module.py)."""
    owner = belong_to.name_hint if isinstance(belong_to, GlobalTypeVar) else str(belong_to)
    return A.Constructor(name_hint, _seq(inputs), owner, -1)


# ------------------------------------------------------------------------------ scope builder


class _WithScope:
    def __init__(self, exit_cb: Callable[[], None]) -> None:
        self._exit_cb = exit_cb

    def __enter__(self) -> None:
        return None

    def __exit__(self, ptype: Any, value: Any, trace: Any) -> None:
        if value:
            raise value
        self._exit_cb()


def _make_lets(bindings: list[tuple[Any, Any]], ret_value: Any) -> Any:
    if ret_value is None:
        raise RuntimeError("ret is not called in this scope")
    if isinstance(ret_value, A.If) and ret_value.false_branch is None:
        raise RuntimeError("Creating an If expression without else.")
    out = ret_value
    for v, value in reversed(bindings):
        out = A.Let(v, value, out)
    return out


class ScopeBuilder:
    """relay.ScopeBuilder (python/tvm/relay/scope_builder.py, same behaviour)."""

    def __init__(self) -> None:
        self._bindings: list[list[tuple[Any, Any]]] = [[]]
        self._ret_values: list[Any] = [None]

    def _enter_scope(self) -> None:
        self._bindings.append([])
        self._ret_values.append(None)

    def _exit_scope(self) -> tuple[list[tuple[Any, Any]], Any]:
        return self._bindings.pop(), self._ret_values.pop()

    def let(self, v: Any, value: Any) -> Any:
        if isinstance(v, (tuple, list)):
            v = var(*v)
        elif isinstance(v, str):
            v = var(v)
        self._bindings[-1].append((v, value))
        return v

    def if_scope(self, cond: Any) -> _WithScope:
        self._enter_scope()

        def _on_exit() -> None:
            bindings, ret_value = self._exit_scope()
            if self._ret_values[-1] is not None:
                raise RuntimeError("result already returned before if scope")
            self._ret_values[-1] = A.If(cond, _make_lets(bindings, ret_value), None)

        return _WithScope(_on_exit)

    def else_scope(self) -> _WithScope:
        self._enter_scope()

        def _on_exit() -> None:
            bindings, ret_value = self._exit_scope()
            partial = self._ret_values[-1]
            if not isinstance(partial, A.If) or partial.false_branch is not None:
                raise RuntimeError("else scope must follows")
            self._ret_values[-1] = A.If(partial.cond, partial.true_branch,
                                        _make_lets(bindings, ret_value))

        return _WithScope(_on_exit)

    def type_of(self, expr: Any) -> Any:
        if isinstance(expr, A.Var):
            return expr.type_annotation
        ity = A.IncompleteType()
        self.let(var("unify", ity), expr)
        return ity

    def ret(self, value: Any) -> None:
        if self._ret_values[-1] is not None:
            raise RuntimeError("ret value is already set in this scope.")
        self._ret_values[-1] = value

    def get(self) -> Any:
        if len(self._bindings) != 1:
            raise RuntimeError("can only call get at the outmost scope")
        return _make_lets(self._bindings[-1], self._ret_values[-1])


# ------------------------------------------------------------------------------ operators


def _ints(v: Any, n: int) -> Any:
    return (v,) * n if isinstance(v, int) else v


def _pad2d(p: Any) -> Any:
    """get_pad_tuple2d: 1, 2 or 4 values -> (top, left, bottom, right)."""
    if isinstance(p, int):
        return (p, p, p, p)
    p = tuple(p)
    if len(p) == 2:
        return (p[0], p[1], p[0], p[1])
    return p


def _axis_list(attrs: dict[str, Any]) -> dict[str, Any]:
    if isinstance(attrs.get("axis"), int):
        attrs["axis"] = [attrs["axis"]]
    return attrs


def _conv2d(attrs: dict[str, Any]) -> dict[str, Any]:
    for k in ("kernel_size", "strides", "dilation"):
        if k in attrs and attrs[k] is not None:
            attrs[k] = _ints(attrs[k], 2)
    if "padding" in attrs:
        attrs["padding"] = _pad2d(attrs["padding"])
    return attrs


def _reshape(attrs: dict[str, Any]) -> dict[str, Any]:
    if isinstance(attrs.get("newshape"), int):
        attrs["newshape"] = [attrs["newshape"]]
    return attrs


def _shape_attr(attrs: dict[str, Any]) -> dict[str, Any]:
    if isinstance(attrs.get("shape"), int):
        attrs["shape"] = [attrs["shape"]]
    return attrs


_REDUCE = (("axis", None), ("keepdims", False), ("exclude", False))
# python name -> (op name, tensor inputs, positional attribute names with defaults, normaliser);
# inputs -1: one list argument that becomes a Tuple (concatenate, stack)
SIGNATURES: dict[str, tuple[str, int, tuple[tuple[str, Any], ...], Any]] = {
    "nn.softmax": ("nn.softmax", 1, (("axis", -1),), None),
    "nn.log_softmax": ("nn.log_softmax", 1, (("axis", -1),), None),
    "nn.dense": ("nn.dense", 2, (("units", None), ("out_dtype", "")), None),
    "nn.bias_add": ("nn.bias_add", 2, (("axis", 1),), None),
    "nn.conv2d": ("nn.conv2d", 2, (("strides", (1, 1)), ("padding", (0, 0)),
                                   ("dilation", (1, 1)), ("groups", 1), ("channels", None),
                                   ("kernel_size", None), ("data_layout", "NCHW"),
                                   ("kernel_layout", "OIHW"), ("out_layout", ""),
                                   ("out_dtype", "")), _conv2d),
    "expand_dims": ("expand_dims", 1, (("axis", None), ("num_newaxis", 1)), None),
    "reshape": ("reshape", 1, (("newshape", None), ("allowzero", False)), _reshape),
    "clip": ("clip", 1, (("a_min", None), ("a_max", None)), None),
    "concatenate": ("concatenate", -1, (("axis", 0),), None),
    "stack": ("stack", -1, (("axis", 0),), None),
    "sum": ("sum", 1, _REDUCE, _axis_list),
    "max": ("max", 1, _REDUCE, _axis_list),
    "min": ("min", 1, _REDUCE, _axis_list),
    "mean": ("mean", 1, _REDUCE, _axis_list),
    "prod": ("prod", 1, _REDUCE, _axis_list),
    "transpose": ("transpose", 1, (("axes", None),), None),
    "take": ("take", 2, (("axis", None), ("batch_dims", 0), ("mode", "clip")), None),
    "cast": ("cast", 1, (("dtype", None),), None),
    "zeros": ("zeros", 0, (("shape", None), ("dtype", None)), _shape_attr),
    "ones": ("ones", 0, (("shape", None), ("dtype", None)), _shape_attr),
    "full": ("full", 1, (("shape", None), ("dtype", "")), _shape_attr),
    "split": ("split", 1, (("indices_or_sections", None), ("axis", 0)), None),
    "squeeze": ("squeeze", 1, (("axis", None),), None),
    "broadcast_to": ("broadcast_to", 1, (("shape", None),), _shape_attr),
}


def op_builder(path: str) -> Callable[..., Any] | None:
    """The builder of `relay.<path>` (e.g. 'nn.dense'), None when path is no v0.19 op."""
    sig = SIGNATURES.get(path)
    tvm_ops = SOURCE[0].relay_ops() if SOURCE else frozenset()
    if sig is None:
        if path not in tvm_ops and adapter.lookup(path) is None:
            return None
        d = adapter.lookup(path)
        n = d.num_inputs if d is not None and d.num_inputs is not None else -2
        sig = (path, n, (), None)
    name, n_inputs, fields, norm = sig

    def build(*args: Any, **kw: Any) -> Any:
        if adapter.lookup(name) is None:
            raise Needs(f"op:{name}", f"relay.{path} builds {name}, which the project does not "
                                      "register")
        if n_inputs == -1:
            inputs, rest = (A.Tuple(tuple(args[0])),), list(args[1:])
        elif n_inputs == -2:
            inputs, rest = tuple(args), []
        else:
            inputs, rest = tuple(args[:n_inputs]), list(args[n_inputs:])
        if len(rest) > len(fields):
            raise NotInShim(f"relay.{path} with {len(args)} positional arguments")
        attrs = {f: v for (f, _), v in zip(fields, rest, strict=False)}
        attrs.update(kw)
        attrs.pop("span", None)
        if norm is not None:
            attrs = norm(attrs)
        attrs = {k: _attr(v) for k, v in attrs.items()}
        return adapter.make_call(name, *inputs, **attrs)

    return build


def _attr(v: Any) -> Any:
    if isinstance(v, A.Constant) and v.data.ndim == 0:
        return v.data.item()
    if isinstance(v, (list, tuple)):
        return tuple(_attr(x) for x in v)
    if isinstance(v, np.generic):
        return v.item()
    return v
