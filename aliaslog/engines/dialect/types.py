"""Soufflé's type checks at the level of kinds: a term is a number, a symbol or a record of one
record type, and every atom column, functor argument and comparison must get the kind it takes.

Subtypes of one kind (`.type Var <: symbol`) are not told apart here; mixing kinds is always
an error Soufflé reports too ("no valid overloads", "type mismatch").
"""

from __future__ import annotations

from aliaslog.engines.base import EngineError, RecordKind
from aliaslog.engines.dialect.ast import (
    Aggregate,
    Atom,
    BinOp,
    Call,
    Clause,
    Constraint,
    Neg,
    Nil,
    Num,
    Record,
    Str,
    UnOp,
    Var,
    Wildcard,
)
from aliaslog.engines.dialect.program import Program

NUM, SYM = "i", "s"
# functor: (argument kinds, result kind); None: the same kind as the arguments
_FUNCTORS: dict[str, tuple[object, object]] = {
    "cat": (SYM, SYM), "strlen": ((SYM,), NUM), "substr": ((SYM, NUM, NUM), SYM),
    "to_string": (None, SYM), "to_number": (None, NUM), "range": (NUM, NUM),
    "min": (None, None), "max": (None, None), "lnot": (NUM, NUM), "land": (NUM, NUM),
    "lor": (NUM, NUM), "lxor": (NUM, NUM), "bshl": (NUM, NUM), "bshr": (NUM, NUM),
    "bshru": (NUM, NUM),
}


def check_types(program: Program) -> None:
    """Raise a located EngineError where a term gets a kind its place does not take."""
    for clause in program.clauses:
        for conj in clause.body or [[]]:
            _Checker(program).clause(clause, conj)


def _name(kind: object) -> str:
    if kind == NUM:
        return "a number"
    if kind == SYM:
        return "a symbol"
    return f"a record of type `{kind.name}`" if isinstance(kind, RecordKind) else "a record"


class _Checker:
    """Kinds of one rule's variables, from the atoms that use them, then every use checked."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.kinds: dict[str, object] = {}

    def clause(self, clause: Clause, conj: list) -> None:
        atoms = [lit for lit in conj if isinstance(lit, Atom)] + list(clause.heads)
        atoms += [lit.atom for lit in conj if isinstance(lit, Neg)]
        self._learn(conj)
        for a in atoms:
            self.atom(a)
        for lit in conj:
            if isinstance(lit, Constraint):
                self.constraint(lit)

    def _learn(self, conj: list) -> None:
        """Variable kinds from atom columns, also inside aggregate bodies."""
        for lit in conj:
            a = lit.atom if isinstance(lit, Neg) else lit
            if isinstance(a, Atom):
                for t, k in zip(a.args, self.program.relations[a.rel].kinds, strict=False):
                    self._bind(t, k)
                for t in a.args:
                    self._learn_term(t)
            elif isinstance(a, Constraint):
                self._learn_term(a.left)
                self._learn_term(a.right)

    def _learn_term(self, t) -> None:
        if isinstance(t, Aggregate):
            self._learn(t.body)
        elif isinstance(t, (BinOp, UnOp, Call, Record)):
            kids = ([t.left, t.right] if isinstance(t, BinOp) else [t.arg]
                    if isinstance(t, UnOp) else t.args if isinstance(t, Call) else t.items)
            for x in kids:
                self._learn_term(x)

    def _bind(self, t, kind: object) -> None:
        if isinstance(t, Var) and t.name not in self.kinds:
            self.kinds[t.name] = kind
        elif isinstance(t, Record) and isinstance(kind, RecordKind):
            fields = self.program.records.get(kind.name, [])
            for x, k in zip(t.items, fields, strict=False):
                self._bind(x, k)

    def atom(self, a: Atom) -> None:
        for t, k in zip(a.args, self.program.relations[a.rel].kinds, strict=False):
            self.expect(t, k, f"column of `{a.rel}`")

    def constraint(self, c: Constraint) -> None:
        if c.op in ("match", "contains", "not_match", "not_contains"):
            self.expect(c.left, SYM, f"argument of `{c.op.removeprefix('not_')}`")
            self.expect(c.right, SYM, f"argument of `{c.op.removeprefix('not_')}`")
            return
        left, right = self.kind(c.left), self.kind(c.right)
        if left is not None and right is not None and not _same(left, right):
            raise EngineError(f"type mismatch: `{c.op}` compares {_name(left)} with "
                              f"{_name(right)}", c.span)

    def expect(self, t, kind: object, where: str) -> None:
        got = self.kind(t)
        if got is not None and not _same(got, kind):
            raise EngineError(f"type mismatch: {_name(got)} where the {where} takes "
                              f"{_name(kind)}", getattr(t, "span", None))
        if isinstance(t, Record) and isinstance(kind, RecordKind):
            fields = self.program.records.get(kind.name, [])
            if len(fields) != len(t.items):
                raise EngineError(f"record of {len(t.items)} fields where `{kind.name}` has "
                                  f"{len(fields)}", t.span)
            for x, k in zip(t.items, fields, strict=False):
                self.expect(x, k, f"field of `{kind.name}`")

    def kind(self, t) -> object | None:
        """The kind of a term; None where it is open (a fresh variable, `_`, `nil`, `[..]`)."""
        if isinstance(t, Num):
            return NUM
        if isinstance(t, Str):
            return SYM
        if isinstance(t, Var):
            return self.kinds.get(t.name)
        if isinstance(t, (Wildcard, Nil, Record)):
            return None
        if isinstance(t, (BinOp, UnOp)):
            for x in ([t.left, t.right] if isinstance(t, BinOp) else [t.arg]):
                self.expect(x, NUM, f"operand of `{t.op}`")
            return NUM
        if isinstance(t, Aggregate):
            if t.expr is not None and t.kind in ("sum",):
                self.expect(t.expr, NUM, "`sum` expression")
            if t.kind in ("min", "max") and t.expr is not None:
                return self.kind(t.expr)
            return NUM
        if isinstance(t, Call):
            args_kind, result = _FUNCTORS.get(t.name, (None, None))
            kinds = [self.kind(x) for x in t.args]
            if isinstance(args_kind, tuple):
                for x, k in zip(t.args, args_kind, strict=False):
                    self.expect(x, k, f"argument of `{t.name}`")
            elif args_kind is not None:
                for x in t.args:
                    self.expect(x, args_kind, f"argument of `{t.name}`")
            else:
                known = [k for k in kinds if k is not None]
                if any(not _same(k, known[0]) for k in known):
                    raise EngineError(f"no valid overloads: `{t.name}` of mixed kinds", t.span)
                if result is None:
                    return known[0] if known else None
            return result
        return None


def _same(a: object, b: object) -> bool:
    return a == b
