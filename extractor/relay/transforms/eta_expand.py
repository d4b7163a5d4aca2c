"""EtaExpand(expand_constructor=True) of TVM v0.19 (src/relay/transforms/eta_expand.cc).

A constructor used as a value, not called, becomes `fn [A..](%eta_expand_param: T..) { C(..) }`,
so the interpreter and the analysis only ever see constructors applied. Global variables are
not expanded (`expand_global_var=False`, as the debug executor's Prepare asks).
"""

from __future__ import annotations

from ...runtime import run_deep
from ..ast import (
    Call,
    Constructor,
    Expr,
    ExprMutator,
    Function,
    Module,
    TypeCall,
    Var,
    post_order,
)


class _EtaExpander(ExprMutator):
    def __init__(self, mod: Module) -> None:
        super().__init__()
        self.mod = mod
        self.expanded: dict[int, Constructor] = {}  # id(new Function) -> the constructor

    def visit_Call(self, e: Call) -> Expr:
        op = e.op if isinstance(e.op, Constructor) else self.visit(e.op)  # applied: leave it
        args = tuple(self.visit(a) for a in e.args)
        if op is e.op and all(a is b for a, b in zip(args, e.args, strict=True)):
            return e
        return Call(op, args, e.attrs, e.type_args, span=e.span)

    def visit_Constructor(self, e: Constructor) -> Expr:
        # TVM renames the ADT's type variables apart (fresh `A`s); type variables here are
        # compared by name and this function binds them itself, so the ADT's own ones do
        td = self.mod.type_defs.get(e.belong_to)
        type_vars = td.type_vars if td is not None else ()
        params = tuple(Var("eta_expand_param", t, span=e.span) for t in e.inputs)
        ret = TypeCall(e.belong_to, tuple(type_vars))
        fn = Function(params, Call(e, params, span=e.span), ret, tuple(type_vars), span=e.span)
        self.expanded[id(fn)] = e
        return fn


def eta_expand(mod: Module) -> tuple[Module, dict[int, Constructor]]:
    """mod with every unapplied constructor eta-expanded, and which functions stand for which
    constructor (so a transform that prints the program can put the constructor back)."""
    if not mod.type_defs or not any(_unapplied_constructors(fn) for fn in mod.functions.values()):
        return mod, {}  # (a constructor belongs to a type definition: none, nothing to expand)
    ex = _EtaExpander(mod)
    fns = {name: run_deep(lambda fn=fn: ex.visit(fn)) for name, fn in mod.functions.items()}
    return Module(fns, mod.type_defs, mod.source_name), ex.expanded  # type: ignore[arg-type]


def _unapplied_constructors(e: Expr) -> bool:
    nodes = post_order(e)
    callees = {id(n.op) for n in nodes if isinstance(n, Call)}
    return any(isinstance(n, Constructor) and id(n) not in callees for n in nodes)


def eta_expand_expr(e: Expr, mod: Module) -> Expr:
    """An expression with its unapplied constructors eta-expanded (mod has their types)."""
    if not _unapplied_constructors(e):
        return e
    return run_deep(lambda: _EtaExpander(mod).visit(e))
