"""What TVM's Python API does for Relay objects, where the rewritten test code meets one.

`binop`, `neg`, `attr` and `call` are what every `a + b`, `-a`, `a.b` and `f(x)` of a TVM test
become (`rewrite.py`). For our AST nodes they do what TVM's ExprWithOp / Object methods do;
for anything else, what Python does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import adapter
from ..classify import NotInShim
from .module import TYPES, GlobalTypeVar, IRModule

A = adapter.ast
_EXPR_OPS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide"}
_PY_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
           "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b, "matmul": lambda a, b: a @ b}


class AttrsView:
    """`call.attrs.data_layout`: an attribute, or the op's declared default."""

    def __init__(self, attrs: Any, op: Any = None) -> None:
        self._attrs = attrs
        self._op = op

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._attrs:
            return self._attrs[name]
        d = adapter.lookup(self._op.name) if isinstance(self._op, A.Op) else None
        f = d.field(name) if d is not None else None
        if f is None:
            raise AttributeError(f"attrs have no field {name}")
        return f.default

    def __getitem__(self, name: str) -> Any:
        return self._attrs[name]

    def __contains__(self, name: str) -> bool:
        return name in self._attrs

    def keys(self) -> list[str]:
        return list(self._attrs)


def text_of(obj: Any, show_meta_data: bool = True, annotate: Any = None) -> str:
    """`obj.astext()`: the v0.19 text, with the version header, the checked types known and
    the spans nodes have (v0.19's printer always writes them)."""
    if isinstance(obj, IRModule):
        return obj.astext(show_meta_data)
    return adapter.astext(obj, TYPES.by_id, show_meta=show_meta_data, header=True, spans=True)


def _with_attr(fn: Any) -> Any:
    def with_attr(key: str, value: Any = None) -> Any:
        items = tuple((k, v) for k, v in fn.attrs.items_ if k != key) + ((key, value),)
        return A.Function(fn.params, fn.body, fn.ret_type, fn.type_params,
                          A.Attrs(items, "DictAttrs"), span=fn.span)
    return with_attr


class AnyDim:
    """`tvm.tir.Any()`: a dynamic dimension (`?`); our TensorType holds None for it."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyDim)

    def __hash__(self) -> int:
        return 0


def _expr_attr(obj: Any, name: str) -> Any:
    if name == "astext":
        return lambda show_meta_data=True, annotate=None: text_of(obj, show_meta_data, annotate)
    if name == "checked_type":
        return TYPES.of(obj)
    if name == "with_attr" and isinstance(obj, A.Function):
        return _with_attr(obj)
    if name == "attrs" and isinstance(obj, (A.Call, A.Function)):
        return AttrsView(obj.attrs, getattr(obj, "op", None))
    if name in ("args", "params", "fields", "type_params", "type_args", "clauses", "inputs"):
        return list(getattr(obj, name))
    if name == "name" and isinstance(obj, A.Op):
        return obj.name
    if name == "vid" and isinstance(obj, A.Var):
        return obj
    if hasattr(obj, name):
        return getattr(obj, name)
    raise NotInShim(f"{type(obj).__name__}.{name}")


def attr(obj: Any, name: str) -> Any:
    """`obj.name`."""
    if isinstance(obj, A.Expr):
        return _expr_attr(obj, name)
    if isinstance(obj, np.ndarray) and name in ("numpy", "asnumpy"):
        return lambda: obj
    if isinstance(obj, adapter.ConstructorValue):
        if name == "tag":
            return obj.constructor.tag
        if name == "fields":
            return list(obj.fields)
    if isinstance(obj, adapter.RefCell) and name == "value":
        return obj.value
    if isinstance(obj, A.TensorType):
        if name == "shape":
            return [AnyDim() if d is None else d for d in obj.shape]
        if name == "concrete_shape":
            return tuple(obj.shape)
    if isinstance(obj, A.Type) and name in ("fields", "arg_types", "type_params", "args"):
        return list(getattr(obj, name))
    if isinstance(obj, A.TypeData) and name == "constructors":
        return list(obj.constructors)
    if isinstance(obj, A.TypeData) and name == "header":
        return GlobalTypeVar(obj.name)
    return getattr(obj, name)


def binop(op: str, a: Any, b: Any) -> Any:
    """`a <op> b`: a Relay call when an operand is a Relay expression (ExprWithOp)."""
    if isinstance(a, A.Expr) or isinstance(b, A.Expr):
        if not (isinstance(a, A.Expr) and isinstance(b, A.Expr)):
            raise TypeError(f'convert "{b if isinstance(a, A.Expr) else a}" with `const` first')
        name = _EXPR_OPS.get(op)
        if name is None:
            raise NotInShim(f"Expr.__{op}__")
        return adapter.make_call(name, a, b)
    return _PY_OPS[op](a, b)


def neg(x: Any) -> Any:
    """`-x`: `negative(x)` for a Relay expression."""
    if isinstance(x, A.Expr):
        return adapter.make_call("negative", x)
    return -x


def call(f: Any, *args: Any, **kw: Any) -> Any:
    """`f(args)`: a Relay Call when f is a Relay expression (GlobalVar, Var, Function, ...)."""
    if isinstance(f, A.Expr):
        if kw:
            raise NotInShim("keyword arguments of a Relay call")
        return A.Call(f, tuple(args))
    if f is str and len(args) == 1 and isinstance(args[0], (A.Expr, IRModule)):
        return text_of(args[0], show_meta_data=False)
    return f(*args, **kw)


_COMPARE = {"Eq": lambda a, b: a == b, "NotEq": lambda a, b: a != b, "Lt": lambda a, b: a < b,
            "LtE": lambda a, b: a <= b, "Gt": lambda a, b: a > b, "GtE": lambda a, b: a >= b,
            "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
            "Is": lambda a, b: a is b, "IsNot": lambda a, b: a is not b}


def _show(v: Any) -> str:
    if isinstance(v, A.Type):
        return adapter.type_str(v)
    text = repr(v)
    return text if len(text) <= 300 else text[:297] + "..."


def assert_compare(a: Any, op: str, b: Any) -> None:
    """`assert a <op> b` of TVM's test; the failure names both sides."""
    if not _COMPARE[op](a, b):
        raise AssertionError(f"assert {_show(a)} {op} {_show(b)}")
