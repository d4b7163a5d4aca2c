"""Aggregate scoping as Soufflé does it (ast/analysis/Aggregate.cpp): a variable inside an
aggregate is *injected* when it is grounded in an enclosing scope (the rule body, or an
enclosing aggregate's body) with the aggregate itself counted as an unbound value; otherwise it
is local to the aggregate, even if a variable of the same name occurs outside. A non-injected
variable that also occurs outside is a *witness*, which the embedded engine does not evaluate.

`scope_aggregates` renames every local variable apart (`name@k`), so later stages can treat
names as unique per rule.
"""

from __future__ import annotations

import itertools

from aliaslog.engines.base import EngineError
from aliaslog.engines.dialect.ast import (
    Aggregate,
    Atom,
    BinOp,
    Call,
    Clause,
    Constraint,
    Neg,
    Record,
    UnOp,
    Var,
    aggregates_in,
    lit_terms,
    term_vars,
)


def scope_aggregates(clauses: list[Clause]) -> None:
    """Rename aggregate-local variables apart, in place; a witness is a located error."""
    fresh = itertools.count()
    for clause in clauses:
        if clause.body is None:
            continue
        for conj in clause.body:
            _scope_conj(conj, clause.heads, set(), fresh)


def _scope_conj(conj: list, heads: list[Atom], outer: set[str], fresh) -> None:
    targets = [agg for lit in [*conj, *heads] for t in lit_terms(lit) for agg in _top_aggs(t)]
    for agg in targets:
        grounded = outer | _grounded(conj, agg)
        inner = _all_vars_agg(agg)
        injected = {n for n in inner if n in grounded}
        # a witness: grounded by the aggregate's body, and by nothing else once every
        # aggregate of the rule counts as a bound value
        around = outer | _grounded(conj, None)
        within = _grounded(agg.body, None)
        outside = _vars_outside_aggregates(conj, heads)
        for name in sorted(set(inner) - injected):
            if name in outside and name in within and name not in around:
                raise EngineError("unsupported Soufflé construct `aggregate witness` (variable "
                                  f"`{name}` is bound by the aggregate's chosen tuple)",
                                  inner[name].span)
        renames = {n: f"{n}@{next(fresh)}" for n in inner if n not in injected}
        _rename_agg(agg, renames)
        _scope_conj(agg.body, [Atom("", [agg.expr], agg.span)] if agg.expr is not None else [],
                    injected | outer, fresh)


def _top_aggs(t) -> list[Aggregate]:
    out: list[Aggregate] = []
    aggregates_in(t, out)
    return out


def _grounded(conj: list, target: Aggregate | None) -> set[str]:
    """Variables a conjunction grounds, aggregates but `target` standing for bound values."""
    bound: set[str] = set()
    for lit in conj:
        if isinstance(lit, Atom):
            for a in lit.args:
                _pattern_vars(a, bound)
    changed = True
    while changed:
        changed = False
        for lit in conj:
            if isinstance(lit, Constraint) and lit.op == "=":
                for a, b in ((lit.left, lit.right), (lit.right, lit.left)):
                    if isinstance(a, (Var, Record)) and _is_bound(b, bound, target):
                        before = len(bound)
                        _pattern_vars(a, bound)
                        changed |= len(bound) != before
    return bound


def _is_bound(t, bound: set[str], target: Aggregate | None) -> bool:
    if isinstance(t, Aggregate):
        return t is not target
    if isinstance(t, Var):
        return t.name in bound
    if isinstance(t, BinOp):
        return _is_bound(t.left, bound, target) and _is_bound(t.right, bound, target)
    if isinstance(t, UnOp):
        return _is_bound(t.arg, bound, target)
    if isinstance(t, (Record, Call)):
        items = t.items if isinstance(t, Record) else t.args
        return all(_is_bound(x, bound, target) for x in items)
    return True


def _pattern_vars(t, out: set[str]) -> None:
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            out.add(x.name)
        elif isinstance(x, Record):
            stack.extend(x.items)


def _vars_of(t, out: dict[str, Var]) -> None:
    """Every variable of a term, inside aggregates too."""
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            out.setdefault(x.name, x)
        elif isinstance(x, BinOp):
            stack += [x.left, x.right]
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, Record):
            stack.extend(x.items)
        elif isinstance(x, Call):
            stack.extend(x.args)
        elif isinstance(x, Aggregate):
            if x.expr is not None:
                stack.append(x.expr)
            for lit in x.body:
                stack.extend(_lit_terms_all(lit))


def _vars_outside_aggregates(conj: list, heads: list[Atom]) -> set[str]:
    """Variables of the rule with every aggregate taken out (Soufflé's aggregatorless clause)."""
    out: list[Var] = []
    for lit in [*conj, *heads]:
        for t in _lit_terms_all(lit):
            term_vars(t, out)
    return {v.name for v in out}


def _lit_terms_all(lit) -> list:
    return lit_terms(lit.atom if isinstance(lit, Neg) else lit)


def _all_vars_agg(agg: Aggregate) -> dict[str, Var]:
    out: dict[str, Var] = {}
    _vars_of(agg, out)
    return out


def _rename_agg(agg: Aggregate, renames: dict[str, str]) -> None:
    if not renames:
        return
    if agg.expr is not None:
        agg.expr = _rename(agg.expr, renames)
    for lit in agg.body:
        _rename_lit(lit, renames)


def _rename_lit(lit, renames: dict[str, str]) -> None:
    if isinstance(lit, Neg):
        lit = lit.atom
    if isinstance(lit, Atom):
        lit.args = [_rename(a, renames) for a in lit.args]
    elif isinstance(lit, Constraint):
        lit.left = _rename(lit.left, renames)
        lit.right = _rename(lit.right, renames)


def _rename(t, renames: dict[str, str]):
    if isinstance(t, Var):
        return Var(renames[t.name], t.span) if t.name in renames else t
    if isinstance(t, BinOp):
        return BinOp(t.op, _rename(t.left, renames), _rename(t.right, renames), t.span)
    if isinstance(t, UnOp):
        return UnOp(t.op, _rename(t.arg, renames), t.span)
    if isinstance(t, Record):
        return Record([_rename(x, renames) for x in t.items], t.span)
    if isinstance(t, Call):
        return Call(t.name, [_rename(x, renames) for x in t.args], t.span)
    if isinstance(t, Aggregate):
        _rename_agg(t, renames)
    return t
