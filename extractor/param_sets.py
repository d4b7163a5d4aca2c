"""What the elements of a private function's parameters may hold: the union of the sets of the
arguments at its call sites, so a helper's `p * p` on `x - x` is seen to put back 0 and NaN.

Only where every reference to the function is a call or a closure it makes (its captures are
its last parameters), each such site's argument has a set, and the function is not public (no
caller outside the module). Whether the argument's memory still holds that value when the
helper's write comes is the rules' question, as for any put-back (relax_checks.dl).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import tvm
from tvm import relax

from .element_sets import MAX_VALUES, Elements
from .relax_values import ValueNumbers

Site = list[Elements | None]  # one call: the set of each parameter's argument (None: unknown)


def param_sets(mod: tvm.IRModule, entries: list[str],
               numbers: Callable[[], ValueNumbers]) -> dict[relax.Var, Elements]:
    """The set of every parameter of a private function whose call sites all give one."""
    refs, callees = _references(mod)
    funcs = {gv.name_hint: fn for gv, fn in mod.functions.items()
             if isinstance(fn, relax.Function)}
    sites: dict[str, list[Site]] = {name: [] for name in funcs}
    vn = numbers()
    got: dict[relax.Var, Elements] = {}
    for name in _callers_first(funcs, callees):
        fn = funcs[name]
        own = sites[name]
        if name not in entries and fn.attrs.get("global_symbol") is None \
                and own and len(own) == refs.get(name, 0):
            for i, p in enumerate(fn.params):
                union = _union([s[i] for s in own])
                if union is not None:
                    got[p] = union
                    vn.give_set(p, union)
        for var, value in _bindings(fn.body):
            site = _site(vn, value, funcs)
            if site is not None:
                sites[site[0]].append(site[1])
            vn.bind(var, value)
    return got


def _site(vn: ValueNumbers, value: Any, funcs: dict[str, relax.Function]) -> \
        tuple[str, Site] | None:
    """A call of a module function, or a closure it makes: the sets its parameters get."""
    if not isinstance(value, relax.Call):
        return None
    if isinstance(value.op, tvm.ir.GlobalVar) and value.op.name_hint in funcs:
        return value.op.name_hint, [vn.elements(vn.term(a)) for a in value.args]
    if isinstance(value.op, tvm.ir.Op) and str(value.op.name) == "relax.make_closure" and \
            isinstance(value.args[0], tvm.ir.GlobalVar) and value.args[0].name_hint in funcs:
        name = value.args[0].name_hint
        caps = value.args[1].fields if isinstance(value.args[1], relax.Tuple) else []
        n = len(funcs[name].params)
        return name, [None] * (n - len(caps)) + [vn.elements(vn.term(a)) for a in caps]
    return None


def _union(sets: list[Elements | None]) -> Elements | None:
    if not sets or any(s is None for s in sets):
        return None
    dtypes = {s.dtype for s in sets if s is not None}
    keys = frozenset().union(*(s.keys for s in sets if s is not None))
    if len(dtypes) != 1 or len(keys) > MAX_VALUES:
        return None
    return Elements(dtypes.pop(), keys)


def _bindings(seq: relax.SeqExpr) -> Iterator[tuple[relax.Var, Any]]:
    """Every binding of a function body in program order, nested branches first."""
    for blk in seq.blocks:
        for b in blk.bindings:
            if isinstance(b.value, relax.If):
                yield from _bindings(b.value.true_branch)
                yield from _bindings(b.value.false_branch)
            yield b.var, b.value


def _references(mod: tvm.IRModule) -> tuple[dict[str, int], dict[str, set[str]]]:
    """How often each module function is named anywhere, and whom each function names."""
    refs: dict[str, int] = {}
    callees: dict[str, set[str]] = {}

    @relax.expr_functor.visitor
    class _Count(relax.PyExprVisitor):
        def __init__(self, owner: str) -> None:
            super().__init__()
            self.owner = owner

        def visit_global_var_(self, op: tvm.ir.GlobalVar) -> None:  # noqa: N802 - TVM's name
            refs[op.name_hint] = refs.get(op.name_hint, 0) + 1
            callees.setdefault(self.owner, set()).add(op.name_hint)

    for gv, fn in mod.functions.items():
        if isinstance(fn, relax.Function):
            _Count(gv.name_hint).visit_expr(fn)
    return refs, callees


def _callers_first(funcs: dict[str, relax.Function], callees: dict[str, set[str]]) -> list[str]:
    """The functions, each after every function that names it (one in a cycle: last, and its
    callers' sites are then incomplete, so it gets no sets)."""
    callers: dict[str, set[str]] = {n: set() for n in funcs}
    for g, named in callees.items():
        for f in named:
            if f in callers and f != g:
                callers[f].add(g)
    order: list[str] = []
    done: set[str] = set()
    while len(order) < len(funcs):
        ready = sorted(n for n in funcs if n not in done and callers[n] <= done)
        if not ready:  # a cycle: the rest in name order
            ready = sorted(n for n in funcs if n not in done)
        for n in ready:
            order.append(n)
            done.add(n)
    return order
