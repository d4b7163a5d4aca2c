"""Soufflé's inlining: the rules of an `inline` relation are substituted into its positive
uses in rule bodies, so its rows are never built (which is what makes `nat_pair(x, y) :-
nat(x), nat(y)` affordable, and lets an inline rule leave head variables to its callers).

Inlining does not change any relation's rows. Uses under negation or inside an aggregate keep
the relation materialised; its rules then stay and are checked like any other.
"""

from __future__ import annotations

import itertools

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
    Wildcard,
    lit_terms,
)
from aliaslog.engines.dialect.program import Program

_MAX_ROUNDS = 32  # deeper chains of inline relations are left materialised


def inline_relations(program: Program) -> None:
    """Unfold positive body atoms of inline relations, in place; drop rules nobody needs."""
    inline = {n for n, r in program.relations.items() if r.inline}
    if not inline:
        return
    defs: dict[str, list[Clause]] = {}
    for c in program.clauses:
        for h in c.heads:
            if h.rel in inline:
                defs.setdefault(h.rel, []).append(c)
    fresh = itertools.count()
    for c in program.clauses:
        if c.body is None:
            continue
        for _ in range(_MAX_ROUNDS):
            body = [alt for conj in c.body for alt in _unfold(conj, defs, fresh)]
            if len(body) > 4096:
                break  # left materialised rather than multiplied out further
            if len(body) == len(c.body) and all(a is b for a, b in zip(body, c.body,
                                                                        strict=True)):
                break
            c.body = body
    used = _still_used(program, inline)
    program.clauses = [c for c in program.clauses
                       if not all(h.rel in inline and h.rel not in used for h in c.heads)]


def _unfold(conj: list, defs: dict[str, list[Clause]], fresh) -> list[list]:
    """The conjunction with its first positive inline atom replaced by each defining body."""
    for k, lit in enumerate(conj):
        if isinstance(lit, Atom) and lit.rel in defs:
            alts = []
            for clause in defs[lit.rel]:
                for head in (h for h in clause.heads if h.rel == lit.rel):
                    for body in clause.body if clause.body is not None else [[]]:
                        alts.append(conj[:k] + _instance(head, body, lit, fresh) + conj[k + 1:])
            return alts
    return [conj]


def _instance(head: Atom, body: list, call: Atom, fresh) -> list:
    """The body of one defining rule, its variables renamed apart and its head unified."""
    n = next(fresh)
    sub: dict[str, object] = {}
    extra: list = []
    for h, a in zip(head.args, call.args, strict=False):
        a = _named_wildcards(a, n)
        if isinstance(h, Var) and h.name not in sub:
            sub[h.name] = a
        elif not isinstance(h, Wildcard):
            extra.append(Constraint("=", a, _subst(h, sub, n), call.span))
    return [_subst_lit(lit, sub, n) for lit in body] + extra


def _named_wildcards(t, n: int):
    """A call argument with each `_` a variable of its own (it is copied into the body)."""
    if isinstance(t, Wildcard):
        return Var(f"_#{n}#{id(t)}", t.span)
    if isinstance(t, Record):
        return Record([_named_wildcards(x, n) for x in t.items], t.span)
    return t


def _subst(t, sub: dict[str, object], n: int):
    if isinstance(t, Var):
        return sub[t.name] if t.name in sub else Var(f"{t.name}#{n}", t.span)
    if isinstance(t, BinOp):
        return BinOp(t.op, _subst(t.left, sub, n), _subst(t.right, sub, n), t.span)
    if isinstance(t, UnOp):
        return UnOp(t.op, _subst(t.arg, sub, n), t.span)
    if isinstance(t, Record):
        return Record([_subst(x, sub, n) for x in t.items], t.span)
    if isinstance(t, Call):
        return Call(t.name, [_subst(x, sub, n) for x in t.args], t.span)
    if isinstance(t, Aggregate):
        expr = _subst(t.expr, sub, n) if t.expr is not None else None
        return Aggregate(t.kind, expr, [_subst_lit(lit, sub, n) for lit in t.body], t.span)
    return t


def _subst_lit(lit, sub: dict[str, object], n: int):
    if isinstance(lit, Atom):
        return Atom(lit.rel, [_subst(a, sub, n) for a in lit.args], lit.span)
    if isinstance(lit, Neg):
        return Neg(_subst_lit(lit.atom, sub, n), lit.span)
    if isinstance(lit, Constraint):
        return Constraint(lit.op, _subst(lit.left, sub, n), _subst(lit.right, sub, n), lit.span)
    return lit


def _still_used(program: Program, inline: set[str]) -> set[str]:
    """Inline relations that some rule still reads (negated, in an aggregate, too deep)."""
    used: set[str] = set()

    def visit(lits: list) -> None:
        for lit in lits:
            atom = lit.atom if isinstance(lit, Neg) else lit
            if isinstance(atom, Atom) and atom.rel in inline:
                used.add(atom.rel)
            for t in lit_terms(atom):
                _aggregate_bodies(t, visit)

    for c in program.clauses:
        for conj in c.body or ():
            visit(conj)
        for h in c.heads:
            for t in h.args:
                _aggregate_bodies(t, visit)
    return used


def _aggregate_bodies(t, visit) -> None:
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Aggregate):
            visit(x.body)
            if x.expr is not None:
                stack.append(x.expr)
        elif isinstance(x, BinOp):
            stack += [x.left, x.right]
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, (Record, Call)):
            stack.extend(x.items if isinstance(x, Record) else x.args)
