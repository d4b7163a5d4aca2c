"""Body atoms with `_` columns read from projections, so that gringo grounds a rule once per
projected row instead of once per matching row.

gringo keeps a body atom's `_` columns as variables of the rule: `kept(b) :- let(l, b),
keep_reason(b, _, _)` is instantiated once per reason of `b`, `not let_bind(_, n, _, _, _)` is
checked against every binding row, and `stale(x, w, o) :- at_risk(w, o, _), ...` grounds its
whole body once per level of each (w, o) (on mobilenetv2 lowered, 3x the solve). An atom
reads the same as its projection `R/0.2(x, z) :- R(x, _, z)`, which holds each projected row
once: the rewrite is exact, for positive and negated atoms alike. (The `/` cannot occur in a
Soufflé name, so the projection's name is fresh.)
"""

from __future__ import annotations

from aliaslog.engines.dialect.ast import Atom, Clause, Neg, Record, Var, Wildcard


def project_wildcards(clauses: list[Clause]) -> list[Clause]:
    """The clauses with every body atom that has `_` columns read from its projection,
    followed by the rules of the projections used."""
    defs: dict[tuple[str, tuple[int, ...]], Clause] = {}
    out = [Clause(c.heads, None if c.body is None else [_conj(conj, defs) for conj in c.body],
                  c.span, c.plans) for c in clauses]
    return out + list(defs.values())


def _conj(conj: list, defs: dict[tuple[str, tuple[int, ...]], Clause]) -> list:
    out = []
    for lit in conj:
        if isinstance(lit, Neg) and _wild(lit.atom):
            lit = Neg(_projected(lit.atom, defs), lit.span)
        elif isinstance(lit, Atom) and _wild(lit):
            lit = _projected(lit, defs)
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
