"""The syntax tree of a Soufflé program: terms, literals, clauses and declarations."""

from __future__ import annotations

from dataclasses import dataclass, field

from extractor.diagnostics import Span


@dataclass(eq=False, slots=True)
class Var:
    name: str
    span: Span


@dataclass(eq=False, slots=True)
class Wildcard:
    span: Span


@dataclass(eq=False, slots=True)
class Num:
    value: int
    span: Span


@dataclass(eq=False, slots=True)
class Str:
    value: str
    span: Span


@dataclass(eq=False, slots=True)
class Nil:
    span: Span


@dataclass(eq=False, slots=True)
class Record:
    items: list
    span: Span


@dataclass(eq=False, slots=True)
class BinOp:
    op: str  # + - * / % ^ band bor bxor
    left: object
    right: object
    span: Span


@dataclass(eq=False, slots=True)
class UnOp:
    op: str  # - bnot
    arg: object
    span: Span


@dataclass(eq=False, slots=True)
class Call:
    """A functor application: `cat(a, b)`, `max(a, b)`, `range(a, b)`, `x bshl y`, ..."""

    name: str
    args: list
    span: Span


@dataclass(eq=False, slots=True)
class Aggregate:
    kind: str  # count sum min max
    expr: object | None
    body: list  # a conjunction of literals
    span: Span


@dataclass(eq=False, slots=True)
class Atom:
    rel: str
    args: list
    span: Span


@dataclass(eq=False, slots=True)
class Neg:
    atom: Atom
    span: Span


@dataclass(eq=False, slots=True)
class Constraint:
    op: str  # = != < <= > >=, match contains not_match not_contains
    left: object
    right: object
    span: Span


@dataclass(eq=False, slots=True)
class BoolLit:
    value: bool
    span: Span


@dataclass(eq=False, slots=True)
class Clause:
    """`h1, h2 :- body.`; body is in disjunctive normal form (a list of conjunctions)."""

    heads: list[Atom]
    body: list[list] | None
    span: Span
    plans: list[Plan] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Plan:
    """`.plan V:(i, j, ...)`: evaluate version V of a rule with its body atoms in that order."""

    version: int
    order: list[int]
    span: Span


@dataclass(eq=False, slots=True)
class TypeDecl:
    name: str
    form: str  # sub | alias | union | record
    refs: list[str]  # base / alias target / union members / record field types
    fields: list[str]
    span: Span


@dataclass(eq=False, slots=True)
class Decl:
    names: list[str]
    attrs: list[tuple[str, str]]
    qualifiers: list[str]
    span: Span


@dataclass(eq=False, slots=True)
class IODirective:
    kind: str  # input | output | printsize
    names: list[str]
    params: dict[str, str]
    span: Span
    name_spans: list[Span] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class CompDecl:
    name: str
    params: list[str]
    bases: list[tuple[str, list[str], Span]]
    items: list
    span: Span


@dataclass(eq=False, slots=True)
class InitDecl:
    inst: str
    comp: str
    args: list[str]
    span: Span


@dataclass(eq=False, slots=True)
class Override:
    """`.override R` in a component: R's rules from base components are dropped."""

    name: str
    span: Span


# --- walkers ------------------------------------------------------------------------------------


def term_vars(t, out: list[Var]) -> None:
    """Variables of a term, not looking inside aggregates (their variables are local)."""
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            out.append(x)
        elif isinstance(x, BinOp):
            stack.append(x.right)
            stack.append(x.left)
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, (Record, Call)):
            stack.extend(reversed(x.items if isinstance(x, Record) else x.args))


def aggregates_in(t, out: list[Aggregate]) -> None:
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Aggregate):
            out.append(x)
        elif isinstance(x, BinOp):
            stack.append(x.right)
            stack.append(x.left)
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, (Record, Call)):
            stack.extend(reversed(x.items if isinstance(x, Record) else x.args))


def lit_terms(lit) -> list:
    if isinstance(lit, Atom):
        return list(lit.args)
    if isinstance(lit, Neg):
        return list(lit.atom.args)
    if isinstance(lit, Constraint):
        return [lit.left, lit.right]
    return []


def body_atoms(c: Clause) -> list[Atom]:
    """Every atom c reads: its body's (positive or negated) and those inside aggregates, in
    its body or its heads."""
    out: list[Atom] = []
    for conj in c.body or ():
        _conj_atoms(conj, out)
    for h in c.heads:
        for t in h.args:
            for agg in _aggregates(t):
                _conj_atoms(agg.body, out)
    return out


def _conj_atoms(conj: list, out: list[Atom]) -> None:
    for lit in conj:
        if isinstance(lit, Atom):
            out.append(lit)
        elif isinstance(lit, Neg):
            out.append(lit.atom)
        for t in lit_terms(lit):
            for agg in _aggregates(t):
                _conj_atoms(agg.body, out)


def _aggregates(t) -> list[Aggregate]:
    found: list[Aggregate] = []
    aggregates_in(t, found)
    return found
