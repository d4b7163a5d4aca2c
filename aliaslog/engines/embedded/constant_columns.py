"""Columns that hold one constant in every row are not materialised.

An exact rewrite of the clause list before translation. A derived, unrequested relation
column whose every row holds the same constant (a `nil` context of the insensitive variant,
threaded through every points-to relation of the one core) costs a term per tuple and an
index column in every join, and tells nothing: the column is dropped from the relation's
heads and uses, and each use that bound a variable there binds it to the constant instead
(`cpts(ctx, n, o)` becomes `cpts(n, o), ctx = nil`).

Which columns are constant is an optimistic fixpoint over the rules: a column starts empty;
a head puts into it a constant, or a variable whose value a positive body atom of a known
constant column (or an `X = constant` constraint) fixes; anything else makes it vary. Input
relations vary. A relation read under negation or in an aggregate with anything but a
wildcard or the constant itself there keeps its column (the rewrite would need the binding
inside the negation).
"""

from __future__ import annotations

from aliaslog.engines.dialect.ast import (
    Aggregate,
    Atom,
    Clause,
    Constraint,
    Neg,
    Nil,
    Num,
    Str,
    Var,
    Wildcard,
    aggregates_in,
    body_atoms,
    lit_terms,
    term_vars,
)
from aliaslog.engines.dialect.elaborate import map_atoms
from aliaslog.engines.dialect.program import Program

_VARIES = object()  # the lattice's top: more than one value


def _const_key(t) -> tuple | None:
    """A comparable key for a constant term, or None if t is not a constant."""
    if isinstance(t, Nil):
        return ("nil",)
    if isinstance(t, (Num, Str)):
        return (type(t).__name__, t.value)
    return None


def drop_constant_columns(program: Program, clauses: list[Clause], wanted: set[str]
                          ) -> list[Clause]:
    """The clauses with every constant column of a derived, unrequested relation removed."""
    consts = _constant_columns(program, clauses)
    consts = {r: cols for r, cols in consts.items() if cols and r not in wanted
              and not program.relations[r].printsize and _uses_allow(clauses, r, cols)}
    if not consts:
        return clauses
    return [_rewrite(c, consts) for c in clauses]


def _constant_columns(program: Program, clauses: list[Clause]) -> dict[str, dict[int, object]]:
    """relation -> column -> the constant term every row holds there (requested relations
    included: their columns stay, but what they hold fixes what is read from them)."""
    derived = {h.rel for c in clauses for h in c.heads}
    # state: relation -> per column: None (no row yet), a constant term, or _VARIES
    state: dict[str, list] = {}
    for name in derived:
        rel = program.relations[name]
        top = rel.inputs or rel.eqrel
        state[name] = [_VARIES if top else None] * len(rel.kinds)

    def column(rel: str, j: int):
        s = state.get(rel)
        return _VARIES if s is None else s[j]

    def empty(rel: str) -> bool:
        s = state.get(rel)
        return s is not None and bool(s) and all(v is None for v in s)

    def value(t, conj: list):
        """What a head term may hold in rows this conjunction derives."""
        if _const_key(t) is not None:
            return t
        if not isinstance(t, Var):
            return _VARIES
        for lit in conj:
            if isinstance(lit, Atom):
                for k, x in enumerate(lit.args):
                    if isinstance(x, Var) and x.name == t.name:
                        v = column(lit.rel, k)
                        if v is not _VARIES:
                            return v
            elif isinstance(lit, Constraint) and lit.op == "=":
                for a, b in ((lit.left, lit.right), (lit.right, lit.left)):
                    if isinstance(a, Var) and a.name == t.name and _const_key(b) is not None:
                        return b
        return _VARIES

    def join(old, new):
        if old is None:
            return new
        if new is None or old is _VARIES:
            return old
        if new is _VARIES or _const_key(old) != _const_key(new):
            return _VARIES
        return old

    changed = True
    while changed:
        changed = False
        for c in clauses:
            for conj in c.body if c.body is not None else [[]]:
                if any(isinstance(lit, Atom) and empty(lit.rel) for lit in conj):
                    continue
                for h in c.heads:
                    s = state[h.rel]
                    for j, t in enumerate(h.args):
                        if s[j] is _VARIES:
                            continue
                        v = join(s[j], value(t, conj))
                        if v is not s[j]:
                            s[j] = v
                            changed = True
    return {name: {j: v for j, v in enumerate(s) if v is not None and v is not _VARIES}
            for name, s in state.items()}


def _uses_allow(clauses: list[Clause], rel: str, cols: dict[int, object]) -> bool:
    """Every atom of rel in a positive body position has a wildcard, a variable or a constant
    at each dropped column; every other atom of rel (negated, or inside an aggregate) a
    wildcard or the constant itself."""
    for c in clauses:
        positive = {id(lit) for conj in c.body or () for lit in conj if isinstance(lit, Atom)}
        for a in body_atoms(c):
            if a.rel != rel:
                continue
            for j, k in cols.items():
                t = a.args[j]
                if isinstance(t, Wildcard) or _const_key(t) == _const_key(k):
                    continue
                if not (id(a) in positive and (isinstance(t, Var) or _const_key(t) is not None)):
                    return False
    return True


def _rewrite(c: Clause, consts: dict[str, dict[int, object]]) -> Clause:
    """c with the constant columns cut; a positive use's variable or constant there becomes
    an equality with the constant."""
    def cut(a: Atom) -> Atom:
        cols = consts.get(a.rel)
        if cols is None:
            return a
        return Atom(a.rel, [t for j, t in enumerate(a.args) if j not in cols], a.span)

    heads = [map_atoms(h, cut) for h in c.heads]
    if c.body is None:
        return Clause(heads, None, c.span)
    body = []
    for conj in c.body:
        mentioned = _mentioned(heads, [map_atoms(lit, cut) for lit in conj])
        new: list = []
        for lit in conj:
            if isinstance(lit, Atom) and lit.rel in consts:
                for j, k in consts[lit.rel].items():
                    t = lit.args[j]
                    if isinstance(t, Wildcard) or _const_key(t) == _const_key(k) \
                            or (isinstance(t, Var) and mentioned is not None
                                and t.name not in mentioned):
                        continue  # (a variable nothing else reads needs no binding)
                    new.append(Constraint("=", t, k, lit.span))
            new.append(map_atoms(lit, cut))
        body.append(new)
    return Clause(heads, body, c.span)


def _mentioned(heads: list[Atom], conj: list) -> set[str] | None:
    """Names of the variables the cut heads and conjunction mention (None: assume every
    name is, as an aggregate's body may read an outer variable)."""
    terms = [t for h in heads for t in h.args] + [t for lit in conj for t in lit_terms(lit)]
    if any(_has_aggregate(t) for t in terms) or not all(
            isinstance(lit, (Atom, Constraint, Neg)) for lit in conj):
        return None
    seen: list[Var] = []
    for t in terms:
        term_vars(t, seen)
    return {v.name for v in seen}


def _has_aggregate(t) -> bool:
    found: list[Aggregate] = []
    aggregates_in(t, found)
    return bool(found)
