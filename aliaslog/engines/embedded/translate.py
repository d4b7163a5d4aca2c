"""Soufflé clauses as clingo rules: stratified programs are fully evaluated by gringo, so the
single answer set is the Datalog model."""

from __future__ import annotations

from aliaslog.engines.base import EngineError
from aliaslog.engines.dialect.ast import (
    Aggregate,
    Atom,
    BinOp,
    BoolLit,
    Call,
    Constraint,
    Neg,
    Nil,
    Num,
    Record,
    Str,
    UnOp,
    Var,
    Wildcard,
    lit_terms,
    term_vars,
)
from aliaslog.engines.dialect.program import Program

_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "\\", "^": "**", "band": "&", "bor": "?",
        "bxor": "^"}


# constraints evaluated by embedded.functors (which holds every `@name` a rule may call)
STRING_TESTS = {"match", "contains", "not_match", "not_contains"}


def clingo_name(rel: str) -> str:
    """Injective map of a Soufflé relation name (letters, digits, `_ ? .`) to a clingo name;
    `/` (never in a Soufflé name) marks the engine's own relations (see projection.py)."""
    return "r_" + rel.replace("_", "__").replace(".", "_d").replace("?", "_q").replace("/", "_s")


def quote(s: str) -> str:
    """A clingo string literal for s (clingo escapes only backslash, quote and newline)."""
    if "\\" in s or '"' in s or "\n" in s:
        s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if "\0" in s:
        raise EngineError("a symbol contains a NUL character, which clingo cannot represent")
    return '"' + s + '"'


class _RuleWriter:
    """Translate one rule alternative (heads + a conjunction) to clingo text."""

    def __init__(self) -> None:
        self.vars: dict[str, str] = {}
        self.fresh = 0
        self.extra: list[str] = []

    def var(self, name: str) -> str:
        v = self.vars.get(name)
        if v is None:
            v = self.vars[name] = f"V{len(self.vars)}"
        return v

    def new(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    def term(self, t, outer: set[str] | None = None, wild_fresh: list[str] | None = None) -> str:
        if isinstance(t, Var):
            return self.var(t.name)
        if isinstance(t, Num):
            return str(t.value) if t.value >= 0 else f"({t.value})"
        if isinstance(t, Str):
            return quote(t.value)
        if isinstance(t, Nil):
            return "nil"
        if isinstance(t, Wildcard):
            if wild_fresh is not None:
                w = self.new("W")
                wild_fresh.append(w)
                return w
            return "_"
        if isinstance(t, Record):
            items = [self.term(x, outer, wild_fresh) for x in t.items]
            if len(items) == 1:
                return f"({items[0]},)"
            return "(" + ",".join(items) + ")"
        if isinstance(t, BinOp):
            return f"({self.term(t.left, outer, wild_fresh)}{_OPS[t.op]}" \
                   f"{self.term(t.right, outer, wild_fresh)})"
        if isinstance(t, UnOp):
            op = "-" if t.op == "-" else "~"
            return f"{op}({self.term(t.arg, outer, wild_fresh)})"
        if isinstance(t, Call):
            args = ",".join(self.term(x, outer, wild_fresh) for x in t.args)
            return f"@{t.name}({args})"
        if isinstance(t, Aggregate):
            return self.aggregate(t)
        raise EngineError(f"unsupported term {type(t).__name__}", getattr(t, "span", None))

    def atom(self, a: Atom, wild_fresh: list[str] | None = None) -> str:
        name = clingo_name(a.rel)
        if not a.args:
            return name
        return name + "(" + ",".join(self.term(x, None, wild_fresh) for x in a.args) + ")"

    def aggregate(self, agg: Aggregate) -> str:
        """Hoist an aggregate into a body literal `A = #agg{...}`; return its variable."""
        res = self.new("A")
        fresh: list[str] = []
        conds = [self.literal(lit, fresh) for lit in agg.body]
        conds = [c for c in conds if c is not None]
        local: list[str] = []
        for lit in agg.body:
            for t in lit_terms(lit):
                vs: list[Var] = []
                term_vars(t, vs)
                for v in vs:
                    if v.name not in self._outer_names:
                        cv = self.var(v.name)
                        if cv not in local:
                            local.append(cv)
        tup = local + fresh
        if agg.kind == "count":
            elem = ",".join(tup) if tup else "0"
            text = f"{res} = #count{{ {elem} : {', '.join(conds)} }}"
        else:
            expr = self.term(agg.expr)
            elem = ",".join([expr, *tup])
            text = f"{res} = #{agg.kind}{{ {elem} : {', '.join(conds)} }}"
            if agg.kind == "min":
                text += f", {res} != #sup"
            elif agg.kind == "max":
                text += f", {res} != #inf"
        self.extra.append(text)
        return res

    def literal(self, lit, wild_fresh: list[str] | None = None) -> str | None:
        if isinstance(lit, Atom):
            return self.atom(lit, wild_fresh)
        if isinstance(lit, Neg):
            return "not " + self.atom(lit.atom)
        if isinstance(lit, Constraint):
            left, right = lit.left, lit.right
            if lit.op in STRING_TESTS:
                return f"@{lit.op}({self.term(left)},{self.term(right)}) = 1"
            if lit.op == "=" and isinstance(right, (Var, Record)) and not isinstance(left, Var):
                left, right = right, left
            fresh: list[str] = []  # `_` in a record pattern: a variable of its own
            return f"{self.term(left, None, fresh)} {lit.op} {self.term(right, None, fresh)}"
        if isinstance(lit, BoolLit):
            return None if lit.value else "#false"
        raise EngineError(f"unsupported literal {type(lit).__name__}", getattr(lit, "span", None))

    def rule(self, heads: list[Atom], conj: list | None) -> list[str]:
        if conj is None:
            return [self.atom(h) + "." for h in heads]
        # variables outside every aggregate are global to the rule
        outer: set[str] = set()
        for lit in [*conj, *heads]:
            for t in lit_terms(lit):
                vs: list[Var] = []
                term_vars(t, vs)
                outer.update(v.name for v in vs)
        self._outer_names = outer
        body = [b for b in (self.literal(lit) for lit in conj) if b is not None]
        head_texts = [self.atom(h) for h in heads]
        body = body + self.extra
        tail = (" :- " + ", ".join(body)) if body else ""
        return [h + tail + "." for h in head_texts]


def translate_rules(program: Program, clauses: list | None = None) -> str:
    """The program's rules (or the given subset of them) as clingo text."""
    out: list[str] = []
    for clause in program.clauses if clauses is None else clauses:
        if clause.body is None:
            out.extend(_RuleWriter().rule(clause.heads, None))
            continue
        for conj in clause.body:
            out.extend(_RuleWriter().rule(clause.heads, conj))
    for rel in program.relations.values():
        if rel.eqrel:  # Soufflé's eqrel: the reflexive, symmetric, transitive closure
            r = clingo_name(rel.name)
            out += [f"{r}(X,X) :- {r}(X,_).", f"{r}(Y,X) :- {r}(X,Y).",
                    f"{r}(X,Z) :- {r}(X,Y), {r}(Y,Z)."]
    return "\n".join(out) + "\n"
