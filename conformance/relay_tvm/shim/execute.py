"""`relay.create_executor("debug")` on the project's interpreter, with the argument handling of
python/tvm/relay/backend/{executor,interpreter}.py (kwargs by parameter name, Python values
reflected into Relay: ints are int32, floats float32, tuples are tuples)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import adapter
from ..classify import NotExpressible
from .builders import ScopeBuilder, const
from .module import IRModule

A = adapter.ast
_ENTRY = "__shim_evaluate"


def to_value(x: Any) -> Any:
    """A Python argument as a Relay value (`_arg_to_ast` + evaluation of the constant)."""
    if isinstance(x, A.Constant):
        return x.data
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (bool, int, float, np.generic)):
        return const(x).data
    if isinstance(x, (tuple, list)):
        return tuple(to_value(v) for v in x)
    if isinstance(x, adapter.RefCell):  # _arg_to_ast: RefCreate, so a fresh cell
        return adapter.RefCell(to_value(x.value))
    if isinstance(x, adapter.ConstructorValue):
        return adapter.ConstructorValue(x.constructor, tuple(to_value(f) for f in x.fields))
    raise NotExpressible(f"a {type(x).__name__} passed to the executor (a runtime object)")


def _to_ast(x: Any) -> Any:
    if isinstance(x, A.Expr):
        return x
    v = to_value(x)
    if isinstance(v, np.ndarray):
        return A.Constant(v)
    raise NotExpressible(f"a {type(x).__name__} bound into an expression")


class Executor:
    """The debug interpreter over a module (prepared on each evaluate, as v0.19's)."""

    def __init__(self, mod: IRModule | None) -> None:
        self.mod = mod

    def _convert_args(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                      ) -> list[Any]:
        if not kwargs:
            return list(args)
        names = [p.name_hint for p in fn.params]
        out = list(args)
        for name in names[len(args):]:
            if name not in kwargs:
                raise TypeError(f"missing argument {name}")
            out.append(kwargs.pop(name))
        if kwargs:
            raise TypeError(f"unexpected arguments {sorted(kwargs)}")
        return out

    def _make(self, expr: Any) -> Callable[..., Any]:
        base = self.mod.to_module() if self.mod is not None else A.Module({})
        if expr is None:
            expr = A.GlobalVar("main")
        if isinstance(expr, A.GlobalVar):
            entry, fn, mod = expr.name_hint, base.functions.get(expr.name_hint), base
            if fn is None:
                raise adapter.LocatedError(f"Cannot find global var \"{entry}\" in the Module")
        else:
            entry, fn = _ENTRY, expr
            mod = base.with_function(entry, expr)

        def apply(*args: Any, **kwargs: Any) -> Any:
            values = [to_value(a) for a in self._convert_args(fn, args, kwargs)]
            return adapter.evaluate(mod, values, entry)

        return apply

    def evaluate(self, expr: Any = None, binds: dict[Any, Any] | None = None) -> Any:
        if binds:
            sb = ScopeBuilder()
            for k, v in binds.items():
                sb.let(k, _to_ast(v))
            sb.ret(expr)
            expr = sb.get()
        if expr is None or isinstance(expr, (A.Function, A.GlobalVar)):
            if isinstance(expr, A.Function) and A.free_vars(expr):
                raise AssertionError("the function to evaluate has free variables")
            return self._make(expr)
        return self._make(A.Function((), expr))()


def create_executor(kind: str = "debug", mod: IRModule | None = None, device: Any = None,
                    target: Any = "llvm", params: Any = None) -> Executor:
    """Only the debug interpreter is Relay semantics alone; the others compile for a target."""
    if kind not in ("debug", None):
        raise NotExpressible(f"the {kind!r} executor (compilation for a target)")
    if params:
        raise NotExpressible("executor params (Python-built constants)")
    return Executor(mod if mod is not None else IRModule())
