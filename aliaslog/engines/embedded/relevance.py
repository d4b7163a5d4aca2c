"""Only what the requested relations need: clauses, input relations, and columns.

Exact rewrites of the clause list before translation (every requested relation keeps exactly
its rows):
- a clause is kept only if its head relation is requested or used, transitively, by a kept
  clause (in a body, under negation or in an aggregate);
- a derived relation that is not requested and whose every use leaves some columns as `_`
  is computed without them (its projection): `dem_edge(k, x, i, _, _, _)` is the only use
  of `dem_edge` in the shipped rules, so without `explain` its 6-column rows are never built;
- `S(x..) :- R(x..)` where R is read nowhere else: R's rules derive S directly;
- a derived, unrequested relation every use of which names a constant in some column is
  derived only for those constants (each rule, once per constant, with its head variable
  fixed): `binding_kind(b, k)` is only ever asked for `"ref_read"` and `"ref_write"`, so only
  those nodes are read, and the input filter below then drops every other `node` row;
- an input relation is loaded with the columns its uses read, and, where every use names a
  constant in some column, only the rows holding one of those constants (`InputShape`);
- a derived, unrequested relation D every use of which joins column j with an input relation
  is derived only at the values those inputs hold: where a rule of D takes column j from an
  input relation nothing else reads, only that input's rows holding such a value are loaded
  (`retained(n)` is only ever read next to `var_ref(n, _)`, `let_bind(_, n, ..)` or
  `fn_literal(n)`, so `segment(n, s)` rows of any other node are not loaded). The rows it
  drops can only derive rows of D no rule reads, so loading them all gives the same result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

from aliaslog.engines.dialect.ast import (
    Atom,
    Clause,
    Constraint,
    Neg,
    Num,
    Record,
    Str,
    Var,
    Wildcard,
    body_atoms,
)
from aliaslog.engines.dialect.elaborate import map_atoms
from aliaslog.engines.dialect.program import Program
from aliaslog.engines.embedded.constant_columns import drop_constant_columns
from extractor.tsv import Row


@dataclass(frozen=True)
class InputShape:
    """Which rows and columns of an input relation the rules can see."""

    columns: tuple[int, ...]  # kept, in order
    filters: tuple[tuple[int, frozenset], ...] = ()  # (column, the constants it may hold)
    # (column, the (input relation, column) pairs whose values it may hold): in memory only
    joins: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = ()

    def is_whole(self, arity: int) -> bool:
        return not self.filters and self.columns == tuple(range(arity))

    def semijoin(self, rows: Sequence[Row], facts: Mapping[str, Sequence[Row]]
                 ) -> Sequence[Row]:
        """rows without those whose `joins` columns hold a value none of the sources hold."""
        for j, sources in self.joins:
            values: set = set()
            for rel, m in sources:
                values.update(map(itemgetter(m), facts.get(rel, ())))
            rows = [r for r in rows if r[j] in values]
        return rows

    def apply(self, rows: Sequence[Row]) -> list[Row] | Sequence[Row]:
        for j, allowed in self.filters:
            rows = [r for r in rows if r[j] in allowed]
        if self.columns != tuple(range(len(rows[0]) if rows else 0)):
            pick = itemgetter(*self.columns) if self.columns else (lambda r: ())
            rows = [pick(r) if len(self.columns) > 1 else (pick(r),) if self.columns else ()
                    for r in rows]
        return rows


def relevant(program: Program, clauses: list[Clause], wanted: set[str]
             ) -> tuple[list[Clause], dict[str, InputShape]]:
    """The clauses the `wanted` relations depend on, unused columns projected away, and the
    input relations they read with the rows and columns they can see."""
    kept = _specialized(program, _needed(clauses, wanted), wanted)
    used = {a.rel for c in kept for a in body_atoms(c)}
    filters = _input_filters(program, kept, wanted)
    joins = _semijoins(program, kept, wanted)
    keep_cols = _used_columns(program, kept, wanted)
    inputs = {}
    for name, rel in program.relations.items():
        if rel.inputs and (name in used or name in wanted):
            cols = tuple(keep_cols.get(name, range(len(rel.kinds))))
            inputs[name] = InputShape(cols, tuple(sorted(filters.get(name, {}).items())),
                                      tuple(sorted(joins.get(name, {}).items())))
    if keep_cols:
        kept = [_project(c, keep_cols) for c in kept]
    return _unfold_copies(program, drop_constant_columns(program, kept, wanted), wanted), inputs


def _needed(clauses: list[Clause], wanted: set[str]) -> list[Clause]:
    """The clauses the `wanted` relations depend on (through bodies, negations, aggregates)."""
    by_head: dict[str, list[Clause]] = {}
    for c in clauses:
        for h in c.heads:
            by_head.setdefault(h.rel, []).append(c)
    needed, stack = set(wanted), list(wanted)
    while stack:
        for c in by_head.get(stack.pop(), ()):
            for a in body_atoms(c):
                if a.rel not in needed:
                    needed.add(a.rel)
                    stack.append(a.rel)
    return [c for c in clauses if any(h.rel in needed for h in c.heads)]


_MAX_CONSTANTS = 8  # more would multiply the rules more than the rows they save


def _specialized(program: Program, clauses: list[Clause], wanted: set[str]) -> list[Clause]:
    """Rules of relations that are only ever read at constants, derived only at those.

    R must be derived, unrequested and read somewhere; every atom of R in any body (positive,
    negated or in an aggregate) names a constant in column j. A rule `R(.., K, ..) :- body`
    becomes one rule per constant c: `R(.., K, ..) :- body[K := c], K = c` (exact: the rows
    it drops have no reader). Done only where it pays: every rule of R has one head, a
    variable K in column j, and in each alternative of its body K is read from an input
    relation, whose rows the input filter then cuts to the constants (a K from derived rows
    would only multiply the rules).
    """
    fixed: dict[str, tuple[int, list]] = {}
    for name, atoms in _readers(clauses).items():
        rel = program.relations[name]
        if name in wanted or rel.inputs or rel.eqrel or rel.printsize:
            continue
        for j in range(len(rel.kinds)):
            consts = [a.args[j] for a in atoms if isinstance(a.args[j], (Num, Str))]
            distinct = {}
            for t in consts:
                distinct.setdefault((type(t), t.value), t)
            if len(consts) == len(atoms) and len(distinct) <= _MAX_CONSTANTS \
                    and _read_from_inputs(program, clauses, name, j):
                fixed[name] = (j, list(distinct.values()))
                break
    if not fixed:
        return clauses
    out: list[Clause] = []
    for c in clauses:
        hit = fixed.get(c.heads[0].rel) if len(c.heads) == 1 else None
        if hit is None:
            out.append(c)
            continue
        j, consts = hit  # (every rule of a fixed relation has one head, a variable at j)
        out.extend(_fix_var(c, c.heads[0].args[j].name, k) for k in consts)
    return out


def _read_from_inputs(program: Program, clauses: list[Clause], name: str, j: int) -> bool:
    """Every rule of `name` has one head with a variable in column j, an argument of a positive
    input atom in each alternative of the body."""
    rules = [c for c in clauses if any(h.rel == name for h in c.heads)]
    if not rules:
        return False
    for c in rules:
        t = c.heads[0].args[j] if len(c.heads) == 1 else None
        if not isinstance(t, Var) or c.body is None:
            return False
        for conj in c.body:
            if not any(isinstance(lit, Atom) and program.relations[lit.rel].inputs
                       and any(isinstance(x, Var) and x.name == t.name for x in lit.args)
                       for lit in conj):
                return False
    return True


def _fix_var(c: Clause, name: str, const) -> Clause:
    """c with `name = const` added, and `name` replaced by const in the body's own atoms
    (positive or negated; not inside aggregates, whose variables Soufflé may scope locally)."""
    def term(t):
        if isinstance(t, Var) and t.name == name:
            return const
        if isinstance(t, Record):
            return Record([term(x) for x in t.items], t.span)
        return t

    def fix(lit):
        if isinstance(lit, Atom):
            return Atom(lit.rel, [term(x) for x in lit.args], lit.span)
        if isinstance(lit, Neg):
            return Neg(fix(lit.atom), lit.span)
        return lit

    body = [[fix(lit) for lit in conj]
            + [Constraint("=", Var(name, const.span), const, const.span)]
            for conj in c.body]
    return Clause(c.heads, body, c.span, c.plans)


def _unfold_copies(program: Program, clauses: list[Clause], wanted: set[str]) -> list[Clause]:
    """Derive straight into S what a private relation R only passes on by `S(x..) :- R(x..)`.

    R must be derived and unrequested, and either read nowhere else (S's rows are then the
    same: R's rows plus S's other rules) or the copy is S's only rule (S is R: R's rules
    derive S and R's readers read S). Either way R's rows are never built twice.
    """
    uses: dict[str, list[Clause]] = {}
    for c in clauses:
        for a in body_atoms(c):
            uses.setdefault(a.rel, []).append(c)
    rules: dict[str, int] = {}
    for c in clauses:
        for h in c.heads:
            rules[h.rel] = rules.get(h.rel, 0) + 1
    renames: dict[str, str] = {}
    copies: set[int] = set()
    for name, users in uses.items():
        rel = program.relations[name]
        if name in wanted or rel.inputs or rel.eqrel or rel.printsize:
            continue
        for c in users:
            if c.body is None or len(c.body) != 1 or len(c.body[0]) != 1 or len(c.heads) != 1:
                continue
            (lit,), head = c.body[0], c.heads[0]
            if not isinstance(lit, Atom) or lit.rel != name or head.rel == name \
                    or program.relations[head.rel].eqrel or head.rel in renames:
                continue
            if len(users) != 1 and (rules[head.rel] != 1 or program.relations[head.rel].inputs):
                continue
            names = [t.name if isinstance(t, Var) else None for t in lit.args]
            if None in names or len(set(names)) != len(names) or len(head.args) != len(names) \
                    or [t.name if isinstance(t, Var) else None for t in head.args] != names:
                continue
            renames[name] = head.rel
            copies.add(id(c))
            break
    if not renames:
        return clauses

    def target(name: str) -> str:  # R -> S -> T: R's rows go to T
        seen = set()
        while name in renames and name not in seen:
            seen.add(name)
            name = renames[name]
        return name

    def rename(a: Atom) -> Atom:
        return Atom(target(a.rel), a.args, a.span)

    out = []
    for c in clauses:
        if id(c) in copies:
            continue
        heads = [map_atoms(h, rename) for h in c.heads]
        body = None if c.body is None else [[map_atoms(lit, rename) for lit in conj]
                                           for conj in c.body]
        out.append(Clause(heads, body, c.span))
    return out


def _readers(clauses: list[Clause]) -> dict[str, list[Atom]]:
    """Every atom that reads each relation (in bodies, negations and aggregates)."""
    uses: dict[str, list[Atom]] = {}
    for c in clauses:
        for a in body_atoms(c):
            uses.setdefault(a.rel, []).append(a)
    return uses


def _used_columns(program: Program, clauses: list[Clause], wanted: set[str]
                  ) -> dict[str, list[int]]:
    """Derived, unrequested relations some of whose columns no body reads: columns kept."""
    used: dict[str, set[int]] = {}
    for c in clauses:
        outside: list[Atom] = []
        for conj in c.body or ():
            outside += [lit.atom if isinstance(lit, Neg) else lit for lit in conj
                        if isinstance(lit, (Atom, Neg))]
        plain = {id(a) for a in outside}
        for a in body_atoms(c):
            cols = used.setdefault(a.rel, set())
            if id(a) in plain:
                cols.update(i for i, t in enumerate(a.args) if not isinstance(t, Wildcard))
            else:  # an aggregate counts whole rows: every column matters
                cols.update(range(len(a.args)))
    out: dict[str, list[int]] = {}
    for name, cols in used.items():
        rel = program.relations[name]
        if name in wanted or rel.eqrel or rel.printsize or (rel.inputs and rel.outputs):
            continue
        if len(cols) < len(rel.kinds):
            out[name] = sorted(cols)
    return out


def _input_filters(program: Program, clauses: list[Clause], wanted: set[str]
                   ) -> dict[str, dict[int, frozenset]]:
    """Input columns every use of which names a constant: only rows holding one can match."""
    out: dict[str, dict[int, frozenset]] = {}
    for name, atoms in _readers(clauses).items():
        rel = program.relations[name]
        if not rel.inputs or name in wanted or rel.eqrel or rel.printsize:
            continue
        for j in range(len(rel.kinds)):
            values = [a.args[j].value for a in atoms if isinstance(a.args[j], (Num, Str))]
            if len(values) == len(atoms) and not any(
                    isinstance(v, str) and any(ch in v for ch in "\\\t\n\r") for v in values):
                out.setdefault(name, {})[j] = frozenset(values)
    return out


def _semijoins(program: Program, clauses: list[Clause], wanted: set[str]
               ) -> dict[str, dict[int, tuple[tuple[str, int], ...]]]:
    """Input columns that need only hold values some other inputs hold (see the module
    docstring): input -> column -> the (input, column) pairs whose values it may hold."""
    derived = {h.rel for c in clauses for h in c.heads}

    def is_input(name: str) -> bool:  # rows only from the facts (the join's values are theirs)
        rel = program.relations[name]
        return bool(rel.inputs) and not rel.eqrel and name not in wanted and name not in derived

    plain: dict[str, list[tuple[Atom, list]]] = {}  # relation -> (positive atom, its conj)
    for c in clauses:
        for conj in c.body or ():
            for lit in conj:
                if isinstance(lit, Atom):
                    plain.setdefault(lit.rel, []).append((lit, conj))
    readers = _readers(clauses)
    out: dict[str, dict[int, tuple[tuple[str, int], ...]]] = {}
    for name, atoms in readers.items():
        rel = program.relations[name]
        uses = plain.get(name, [])
        if name in wanted or rel.inputs or rel.eqrel or rel.printsize or len(uses) != len(atoms):
            continue  # (a use under negation or in an aggregate reads D's rows as a whole)
        rules = [c for c in clauses if any(h.rel == name for h in c.heads)]
        if any(len(c.heads) != 1 or c.body is None for c in rules):
            continue
        for j in range(len(rel.kinds)):
            sources = _guards(uses, j, is_input, name)
            if sources is None:
                continue
            for c in rules:
                x = c.heads[0].args[j]
                if not isinstance(x, Var):
                    continue
                for conj in c.body:  # type: ignore[union-attr]
                    for lit in conj:
                        if isinstance(lit, Atom) and is_input(lit.rel) \
                                and len(readers[lit.rel]) == 1:
                            cols = [k for k, t in enumerate(lit.args)
                                    if isinstance(t, Var) and t.name == x.name]
                            if cols:
                                out.setdefault(lit.rel, {})[cols[0]] = sources
                                break
    return out


def _guards(uses: list[tuple[Atom, list]], j: int, is_input, name: str
            ) -> tuple[tuple[str, int], ...] | None:
    """Where every use of a relation has a variable in column j that a positive input atom of
    the same conjunction also holds: one such (input, column) per use; else None."""
    sources: set[tuple[str, int]] = set()
    for a, conj in uses:
        x = a.args[j]
        if not isinstance(x, Var):
            return None
        found = next(((lit.rel, k) for lit in conj
                      if isinstance(lit, Atom) and lit.rel != name and is_input(lit.rel)
                      for k, t in enumerate(lit.args)
                      if isinstance(t, Var) and t.name == x.name), None)
        if found is None:
            return None
        sources.add(found)
    return tuple(sorted(sources))


def _project(c: Clause, keep: dict[str, list[int]]) -> Clause:
    def cut(a: Atom) -> Atom:
        cols = keep.get(a.rel)
        return a if cols is None else Atom(a.rel, [a.args[i] for i in cols], a.span)

    heads = [map_atoms(h, cut) for h in c.heads]
    body = None if c.body is None else [[map_atoms(lit, cut) for lit in conj]
                                       for conj in c.body]
    return Clause(heads, body, c.span)
