"""Existence checks as projections, so that gringo looks one row up instead of grounding a rule
once per matching row.

gringo keeps a body atom's `_` columns as variables of the rule: `kept(b) :- let(l, b),
keep_reason(b, _, _)` is instantiated once per reason of `b`, and `not let_bind(_, n, _, _, _)`
is checked against every binding row. An atom whose `_` columns are all it adds (a negated
atom, or a positive one whose named variables earlier positive atoms already bind) reads the
same as its projection `R/0.2(x, z) :- R(x, _, z)`, which holds each projected row once: the
rewrite is exact. (The `/` cannot occur in a Soufflé name, so the projection's name is fresh.)
"""

from __future__ import annotations

from aliaslog.engines.dialect.ast import Atom, Clause, Neg, Record, Var, Wildcard, term_vars


def project_existence_checks(clauses: list[Clause]) -> list[Clause]:
    """The clauses with every existence check that has `_` columns read from its projection,
    followed by the rules of the projections used."""
    defs: dict[tuple[str, tuple[int, ...]], Clause] = {}
    out = [Clause(c.heads, None if c.body is None else [_conj(conj, defs) for conj in c.body],
                  c.span, c.plans) for c in clauses]
    return out + list(defs.values())


def _conj(conj: list, defs: dict[tuple[str, tuple[int, ...]], Clause]) -> list:
    bound: set[str] = set()
    out = []
    for lit in conj:
        if isinstance(lit, Neg) and _wild(lit.atom):
            lit = Neg(_projected(lit.atom, defs), lit.span)
        elif isinstance(lit, Atom):
            names = _var_names(lit)
            if _wild(lit) and names <= bound:
                lit = _projected(lit, defs)
            bound |= names
        out.append(lit)
    return out


def _wild(a: Atom) -> bool:
    """Some column is `_` and no column is a record holding one (those stay as written)."""
    return any(isinstance(t, Wildcard) for t in a.args) and not any(
        isinstance(t, Record) and _holds_wildcard(t) for t in a.args)


def _holds_wildcard(t: Record) -> bool:
    stack: list = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Wildcard):
            return True
        if isinstance(x, Record):
            stack.extend(x.items)
    return False


def _var_names(a: Atom) -> set[str]:
    found: list[Var] = []
    for t in a.args:
        term_vars(t, found)
    return {v.name for v in found}


def _projected(a: Atom, defs: dict[tuple[str, tuple[int, ...]], Clause]) -> Atom:
    """a read from the projection of its relation onto its non-`_` columns (defined once)."""
    cols = tuple(i for i, t in enumerate(a.args) if not isinstance(t, Wildcard))
    name = f"{a.rel}/{'.'.join(map(str, cols))}"
    if (a.rel, cols) not in defs:
        params = {i: Var(f"P{i}", a.span) for i in cols}
        head = Atom(name, [params[i] for i in cols], a.span)
        body = Atom(a.rel, [params.get(i) or Wildcard(a.span) for i in range(len(a.args))],
                    a.span)
        defs[(a.rel, cols)] = Clause([head], [[body]], a.span)
    return Atom(name, [a.args[i] for i in cols], a.span)
