"""The static checks Soufflé makes that matter for the result: arity, constant types,
groundedness and stratification."""

from __future__ import annotations

from aliaslog.engines.base import EngineError
from aliaslog.engines.dialect.ast import (
    Aggregate,
    Atom,
    BinOp,
    Constraint,
    Neg,
    Record,
    UnOp,
    Var,
    Wildcard,
    aggregates_in,
    lit_terms,
    term_vars,
)
from aliaslog.engines.dialect.program import Program
from extractor.diagnostics import Span


def _binding_vars(t, out: set[str]) -> None:
    """Variables an atom argument binds: plain variables and those inside record patterns."""
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            out.add(x.name)
        elif isinstance(x, Record):
            stack.extend(x.items)


def _free(t, bound: set[str]) -> list[Var]:
    vs: list[Var] = []
    term_vars(t, vs)
    return [v for v in vs if v.name not in bound]


def _check_conj(conj: list, outer: set[str], heads: list[Atom], program: Program,
                depth: int = 0) -> None:
    """Soufflé's groundedness: every variable must be bound by a positive atom or an equality."""
    if depth > 20:
        raise EngineError("aggregates nested too deeply", conj[0].span if conj else None)
    bound = set(outer)
    for lit in conj:
        if isinstance(lit, Atom):
            for a in lit.args:
                _binding_vars(a, bound)
    changed = True
    while changed:
        changed = False
        for lit in conj:
            if isinstance(lit, Constraint) and lit.op == "=":
                for a, b in ((lit.left, lit.right), (lit.right, lit.left)):
                    if isinstance(a, (Var, Record)) and not _free(b, bound):
                        before = len(bound)
                        _binding_vars(a, bound)
                        if len(bound) != before:
                            changed = True
    # aggregate bodies: their local variables are bound inside
    for lit in [*conj, *heads]:
        for t in lit_terms(lit):
            aggs: list[Aggregate] = []
            aggregates_in(t, aggs)
            for agg in aggs:
                if not agg.body:
                    raise EngineError("empty aggregate body", agg.span)
                inner_heads = []
                if agg.expr is not None:
                    inner_heads = [Atom("", [agg.expr], agg.span)]
                _check_conj(agg.body, bound, inner_heads, program, depth + 1)
    for lit in conj:
        for t in lit_terms(lit):
            for v in _free(t, bound):
                raise EngineError(f"ungrounded variable `{v.name}`", v.span)
            if isinstance(lit, Constraint) and not (lit.op == "=" and isinstance(t, Record)):
                _no_wild(t, "in a constraint")  # `_` may only stand in a record pattern
    for h in heads:
        for t in h.args:
            for v in _free(t, bound):
                raise EngineError(f"ungrounded variable `{v.name}`", v.span)
            _no_wild(t, "in a rule head")


def _no_wild(t, where: str | None) -> None:
    if where is None:
        return
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Wildcard):
            raise EngineError(f"underscore `_` {where}", x.span)
        if isinstance(x, BinOp):
            stack += [x.left, x.right]
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, Record):
            stack.extend(x.items)


def _check_arity(atom: Atom, program: Program) -> None:
    rel = program.relations[atom.rel]
    if len(atom.args) != len(rel.kinds):
        raise EngineError(
            f"relation `{atom.rel}` has {len(rel.kinds)} columns, used with {len(atom.args)}",
            atom.span)


def _all_atoms(conj: list, out: list[tuple[Atom, bool]], negative: bool = False) -> None:
    """(atom, is_negative_dependency) pairs; atoms under negation or aggregation are negative."""
    for lit in conj:
        if isinstance(lit, Atom):
            out.append((lit, negative))
        elif isinstance(lit, Neg):
            out.append((lit.atom, True))
        for t in lit_terms(lit):
            aggs: list[Aggregate] = []
            aggregates_in(t, aggs)
            for agg in aggs:
                for inner_lit in agg.body:
                    for it in lit_terms(inner_lit):
                        nested: list[Aggregate] = []
                        aggregates_in(it, nested)
                        if nested:
                            raise EngineError("unsupported Soufflé construct `aggregate inside "
                                              "an aggregate's body`", nested[0].span)
                _all_atoms(agg.body, out, True)
                if agg.expr is not None:
                    inner: list[Aggregate] = []
                    aggregates_in(agg.expr, inner)
                    if inner:
                        raise EngineError("unsupported Soufflé construct `nested aggregate`",
                                          inner[0].span)


def _has_aggregate(t) -> bool:
    aggs: list[Aggregate] = []
    aggregates_in(t, aggs)
    return bool(aggs)


def check_program(program: Program) -> None:
    """Soufflé's static checks that matter for the result: arity, groundedness, stratification."""
    edges: dict[str, list[tuple[str, bool, Span]]] = {name: [] for name in program.relations}
    for clause in program.clauses:
        for h in clause.heads:
            _check_arity(h, program)
        if clause.body is None:
            for h in clause.heads:
                for t in h.args:
                    vs: list[Var] = []
                    term_vars(t, vs)
                    if vs:
                        raise EngineError("argument in fact is not constant (variable "
                                          f"`{vs[0].name}`)", vs[0].span)
                    _no_wild(t, "in a fact")
            if not any(_has_aggregate(t) for h in clause.heads for t in h.args):
                continue
            clause.body = [[]]  # a fact holding aggregates is a rule with an empty body
        for conj in clause.body:
            atoms: list[tuple[Atom, bool]] = []
            _all_atoms(conj, atoms)
            for h in clause.heads:
                for t in h.args:
                    aggs = []
                    aggregates_in(t, aggs)
                    for agg in aggs:
                        _all_atoms(agg.body, atoms, True)
            for a, _neg in atoms:
                _check_arity(a, program)
            try:
                _check_conj(conj, set(), clause.heads, program)
            except EngineError as exc:
                inline = [h.rel for h in clause.heads if program.relations[h.rel].inline]
                if not inline or "ungrounded" not in exc.message:
                    raise
                raise EngineError(
                    f"unsupported Soufflé construct `inline relation with an ungrounded rule`"
                    f" (`{inline[0]}`: Soufflé substitutes its rules into their uses; "
                    f"{exc.message})", exc.span) from None
            for h in clause.heads:
                for a, neg in atoms:
                    edges[h.rel].append((a.rel, neg, a.span))
    comp = _check_stratified(edges, program)
    _check_plans(program, comp)
    _check_inline(program, edges)


def _check_plans(program: Program, comp: dict[str, int]) -> None:
    """`.plan` orders are permutations of the body atoms; versions exist only per recursive atom."""
    for clause in program.clauses:
        if not clause.plans or clause.body is None or len(clause.body) != 1:
            continue
        atoms = [lit for lit in clause.body[0] if isinstance(lit, Atom)]
        head = comp[clause.heads[0].rel]
        recursive = sum(comp[a.rel] == head for a in atoms)
        for plan in clause.plans:
            if sorted(plan.order) != list(range(1, len(atoms) + 1)):
                raise EngineError("invalid execution order in plan (incomplete)", plan.span)
            if plan.version >= max(recursive, 1):
                raise EngineError(f"execution plan for version {plan.version}: only versions "
                                  f"0..{max(recursive, 1) - 1} permitted", plan.span)


def _check_inline(program: Program, edges: dict[str, list[tuple[str, bool, Span]]]) -> None:
    """Soufflé's inlining limits: no I/O on an inline relation, no cycle of inline relations."""
    inline = {n for n, r in program.relations.items() if r.inline}
    for name in sorted(inline):
        rel = program.relations[name]
        if rel.inputs or rel.outputs or rel.printsize:
            raise EngineError(f"IO relation `{name}` cannot be inlined", rel.span)
    succ = {n: {b for b, _, _ in edges[n] if b in inline} for n in inline}
    for start in sorted(inline):
        stack, seen = list(succ[start]), set()
        while stack:
            n = stack.pop()
            if n == start:
                cycle = sorted({start} | {m for m in seen if start in _reach(succ, m)})
                raise EngineError("cannot inline cyclically dependent relations "
                                  f"{{{', '.join(cycle)}}}", program.relations[start].span)
            if n not in seen:
                seen.add(n)
                stack.extend(succ[n])


def _reach(succ: dict[str, set[str]], start: str) -> set[str]:
    seen, stack = set(), [start]
    while stack:
        for m in succ[stack.pop()]:
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return seen


def _check_stratified(edges: dict[str, list[tuple[str, bool, Span]]], program: Program
                      ) -> dict[str, int]:
    """Iterative Tarjan SCCs; a negative edge inside an SCC makes the program unstratifiable.

    Returns each relation's SCC number."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    comp: dict[str, int] = {}
    counter = 0
    ncomp = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            succ = edges[node]
            if i < len(succ):
                work.append((node, i + 1))
                nxt = succ[i][0]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = ncomp
                    if w == node:
                        break
                ncomp += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    for head, succ in edges.items():
        for body, neg, span in succ:
            if neg and comp[head] == comp[body]:
                members = sorted(r for r in comp if comp[r] == comp[head])
                raise EngineError(
                    f"program is not stratifiable: `{head}` depends on `{body}` through negation"
                    f" or an aggregate inside the recursive cycle {{{', '.join(members)}}}",
                    span).with_text(program.texts.get(span.source, ""))
    return comp
