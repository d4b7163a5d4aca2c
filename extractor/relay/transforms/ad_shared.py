"""What the two gradient transforms share, as TVM's `gradient.h` and `let_list.h` do: fresh
`x_N` variables, let lists, the gradient's return type and the op registry's gradient rules."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..ast import Expr, Let, Module, TupleType, Type, Var, post_order
from ..ops import GradRule, lookup

CHECKPOINT = "annotation.checkpoint"


def gradient_rule(name: str) -> GradRule | None:
    """The gradient rule the op registry declares for operator `name`, or None."""
    opdef = lookup(name)
    return None if opdef is None else opdef.gradient


def grad_ret_type(param_types: list[Type], ret: Type) -> Type:
    """GradRetType: `(orig_ret, (T0, ..., Tn))`."""
    return TupleType((ret, TupleType(tuple(param_types))))


class GenSym:
    """Fresh `x_N` vars from one counter, as TVM's Var::GenSym (which is process-global)."""

    def __init__(self, start: int = 0) -> None:
        self.n = start

    def __call__(self, ty: Type | None = None) -> Var:
        v = Var(f"x_{self.n}", ty)
        self.n += 1
        return v


_XN = re.compile(r"x_(\d+)$")


def first_free_index(mod: Module) -> int:
    """The first N no `x_N` variable of mod uses, where a GenSym for it may start."""
    top = -1
    for fn in mod.functions.values():
        for n in post_order(fn):
            if isinstance(n, Var):
                m = _XN.match(n.name_hint)
                if m:
                    top = max(top, int(m.group(1)))
    return top + 1


class LetList:
    """Ordered bindings turned into a nested let around a body (TVM's LetList)."""

    def __init__(self, gensym: GenSym) -> None:
        self.gensym = gensym
        self.bindings: list[tuple[Var, Expr]] = []

    def push(self, value: Expr, ty: Type | None = None, var: Var | None = None) -> Var:
        """Bind value to var (a fresh `x_N` by default) and return the var."""
        v = var if var is not None else self.gensym(ty)
        self.bindings.append((v, value))
        return v

    def get(self, body: Expr) -> Expr:
        """The let chain ending in body, built without recursion."""
        out = body
        for v, val in reversed(self.bindings):
            out = Let(v, val, out)
        return out


def with_let_list(gensym: GenSym, build: Callable[[LetList], Expr]) -> Expr:
    """LetList::With: run build with a fresh list and wrap its result in the bindings."""
    ll = LetList(gensym)
    return ll.get(build(ll))
