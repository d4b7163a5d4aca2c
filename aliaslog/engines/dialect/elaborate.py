"""Elaboration: expand components (`.comp` / `.init`), resolve relation and type names."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from aliaslog.engines.base import EngineError, RecordKind
from aliaslog.engines.dialect.ast import (
    Aggregate,
    Atom,
    BinOp,
    Call,
    Clause,
    CompDecl,
    Constraint,
    Decl,
    InitDecl,
    IODirective,
    Neg,
    Override,
    Record,
    TypeDecl,
    UnOp,
)
from aliaslog.engines.dialect.program import IO, Program, Relation
from extractor.diagnostics import Span


@dataclass
class _Scope:
    prefix: str
    parent: _Scope | None
    comps: dict[str, tuple[CompDecl, _Scope]] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)  # local name -> full type name


@dataclass
class _TypeDef:
    decl: TypeDecl
    scope: _Scope


_PRIMS = {"symbol": "s", "number": "i"}


class Elaborator:
    """Expand `.init` instances, resolve relation and type names, build `Program`."""

    def __init__(self, lenient: bool) -> None:
        self.lenient = lenient
        self.typedefs: dict[str, _TypeDef] = {}
        self.decls: list[tuple[Decl, _Scope]] = []
        self.ios: list[tuple[IODirective, _Scope]] = []
        self.clauses: list[tuple[Clause, _Scope]] = []
        self.inst_stack: list[str] = []
        self.warnings: list[str] = []

    def run(self, items: list) -> None:
        root = _Scope("", None)
        self._walk(items, root, {})

    def _lookup_comp(self, name: str, scope: _Scope | None) -> tuple[CompDecl, _Scope] | None:
        while scope is not None:
            if name in scope.comps:
                return scope.comps[name]
            scope = scope.parent
        return None

    def _walk(self, items: list, scope: _Scope, tparams: dict[str, str]) -> None:
        for it in items:
            if isinstance(it, CompDecl):
                scope.comps[it.name] = (it, scope)
        for it in items:
            if isinstance(it, TypeDecl):
                full = scope.prefix + it.name
                if full in self.typedefs:
                    raise EngineError(f"type `{it.name}` declared twice", it.span)
                scope.types[it.name] = full
                decl = TypeDecl(full, it.form, [tparams.get(r, r) for r in it.refs], it.fields,
                                it.span)
                self.typedefs[full] = _TypeDef(decl, scope)
            elif isinstance(it, Decl):
                attrs = [(a, tparams.get(t, t)) for a, t in it.attrs]
                self.decls.append((Decl(it.names, attrs, it.qualifiers, it.span), scope))
            elif isinstance(it, IODirective):
                self.ios.append((it, scope))
            elif isinstance(it, Clause):
                self.clauses.append((it, scope))
            elif isinstance(it, InitDecl):
                self._instantiate(it, scope, tparams)

    def _instantiate(self, init: InitDecl, scope: _Scope, tparams: dict[str, str]) -> None:
        found = self._lookup_comp(tparams.get(init.comp, init.comp), scope)
        if found is None:
            raise EngineError(f"unknown component `{init.comp}`", init.span)
        if len(self.inst_stack) > 50:
            raise EngineError("components instantiate each other recursively", init.span)
        child = _Scope(scope.prefix + init.inst + ".", scope)
        args = [tparams.get(a, a) for a in init.args]
        self.inst_stack.append(init.inst)
        try:
            self._expand_comp(found, args, child, init.span, set())
        finally:
            self.inst_stack.pop()

    def _expand_comp(self, found: tuple[CompDecl, _Scope], args: list[str], child: _Scope,
                     span: Span, seen: set[str]) -> None:
        comp, _defscope = found
        if comp.name in seen:
            raise EngineError(f"component `{comp.name}` inherits from itself", span)
        if len(comp.params) != len(args):
            raise EngineError(
                f"component `{comp.name}` takes {len(comp.params)} type arguments, "
                f"given {len(args)}", span)
        binding = dict(zip(comp.params, args, strict=False))
        first = len(self.clauses)
        direct = all(b not in binding for b, _, _ in comp.bases)
        for bname, bargs, bspan in comp.bases:
            bname = binding.get(bname, bname)  # a base may be a type parameter
            base = self._lookup_comp(bname, found[1]) or self._lookup_comp(bname, child)
            if base is None:
                raise EngineError(f"unknown base component `{bname}`", bspan)
            self._expand_comp(base, [binding.get(a, a) for a in bargs], child, bspan,
                              seen | {comp.name})
        overrides = [it for it in comp.items if isinstance(it, Override)]
        for ov in overrides:
            decl = next((d for d, sc in self.decls if sc is child and ov.name in d.names), None)
            if direct and (decl is None or "overridable" not in decl.qualifiers):
                raise EngineError(f"relation `{ov.name}` is not overridable in a base of "
                                  f"`{comp.name}`", ov.span)
        if overrides:
            names = {ov.name for ov in overrides}
            self.clauses[first:] = [(c, sc) for c, sc in self.clauses[first:]
                                    if sc is not child or not any(h.rel in names
                                                                  for h in c.heads)]
        self._walk(comp.items, child, binding)

    # types -----------------------------------------------------------------------------------
    def _resolve_type_name(self, name: str, scope: _Scope | None) -> str:
        if name in _PRIMS:
            return name
        s = scope
        while s is not None:
            if name in s.types:
                return s.types[name]
            if s.prefix + name in self.typedefs:  # `D.T`: type T of instance D
                return s.prefix + name
            s = s.parent
        return name

    def kind_of(self, name: str, scope: _Scope | None, span: Span, records: dict,
                seen: set[str] | None = None) -> object:
        seen = set() if seen is None else seen
        full = self._resolve_type_name(name, scope)
        while True:
            if full in _PRIMS:
                return _PRIMS[full]
            if full in ("unsigned", "float"):
                raise EngineError(f"unsupported Soufflé construct `{full} type`", span)
            td = self.typedefs.get(full)
            if td is None:
                if self.lenient:
                    self.warnings.append(f"unknown type `{name}` read as symbol")
                    return "s"
                raise EngineError(f"unknown type `{name}`", span)
            if full in seen:
                raise EngineError(f"type `{name}` is defined in terms of itself", td.decl.span)
            seen.add(full)
            d = td.decl
            if d.form == "record":
                if full not in records:
                    records[full] = []  # placeholder for recursive records
                    records[full] = [self.kind_of(r, td.scope, d.span, records) for r in d.refs]
                return RecordKind(full)
            if d.form == "union":
                kinds = {self.kind_of(r, td.scope, d.span, records, set(seen)) for r in d.refs}
                if len(kinds) != 1:
                    raise EngineError(f"union type `{name}` mixes number and symbol types",
                                      d.span)
                return kinds.pop()
            full = self._resolve_type_name(d.refs[0], td.scope)

    def build(self, files: list[Path], texts: dict[str, str]) -> Program:
        records: dict[str, list[object]] = {}
        relations: dict[str, Relation] = {}
        for decl, scope in self.decls:
            for name in decl.names:
                full = scope.prefix + name
                if full in relations:
                    raise EngineError(f"relation `{full}` declared twice", decl.span)
                names = [a for a, _ in decl.attrs]
                dup = next((a for i, a in enumerate(names) if a in names[:i]), None)
                if dup is not None:
                    raise EngineError(f"doubly defined attribute name `{dup}`", decl.span)
                repeated = next((q for i, q in enumerate(decl.qualifiers)
                                 if q in decl.qualifiers[:i]), None)
                if repeated is not None:
                    raise EngineError(f"{repeated} qualifier already set", decl.span)
                kinds = [self.kind_of(t, scope, decl.span, records) for _, t in decl.attrs]
                rel = Relation(full, [a for a, _ in decl.attrs], [t for _, t in decl.attrs],
                               kinds, decl.span)
                if "input" in decl.qualifiers:
                    rel.inputs.append(IO("file", {}, decl.span))
                if "output" in decl.qualifiers:
                    rel.outputs.append(IO("file", {}, decl.span))
                if "eqrel" in decl.qualifiers:
                    if len(kinds) != 2 or kinds[0] != kinds[1]:
                        raise EngineError(f"eqrel `{full}` must be binary over one type",
                                          decl.span)
                    rel.eqrel = True
                if "printsize" in decl.qualifiers:
                    rel.printsize = True
                rel.inline = "inline" in decl.qualifiers
                relations[full] = rel

        def resolve(name: str, scope: _Scope, span: Span) -> str:
            s: _Scope | None = scope
            while s is not None:
                if s.prefix + name in relations:
                    return s.prefix + name
                s = s.parent
            raise EngineError(f"relation `{name}` is not declared", span)

        for io, scope in self.ios:
            spans = io.name_spans or [io.span] * len(io.names)
            for name, span in zip(io.names, spans, strict=False):
                rel = relations[resolve(name, scope, span)]
                if io.kind == "printsize":
                    if rel.printsize:
                        raise EngineError(f"redefinition of printsize directives for relation "
                                          f"`{name}`", span)
                    rel.printsize = True
                    continue
                params = dict(io.params)
                iokind = params.pop("IO", "file")
                allowed = {"filename", "delimiter", "headers"} if iokind == "file" else {"headers"}
                bad = sorted(set(params) - allowed)
                if iokind not in ("file", "stdout") or (iokind == "stdout" and io.kind == "input") \
                        or bad:
                    what = f"IO={iokind}" if not bad else f"{bad[0]} IO parameter"
                    err = EngineError(f"unsupported Soufflé construct `{what}`", io.span)
                    if not self.lenient:
                        raise err
                    self.warnings.append(err.message + f" at {io.span}; `{name}` not read back")
                    continue
                (rel.inputs if io.kind == "input" else rel.outputs).append(
                    IO(iokind, params, span))

        clauses: list[Clause] = []
        for clause, scope in [] if self.lenient else self.clauses:

            def fix_atom(a: Atom, scope=scope) -> Atom:
                return Atom(resolve(a.rel, scope, a.span), a.args, a.span)

            heads = [fix_atom(h) for h in clause.heads]
            body = None
            if clause.body is not None:
                body = [[map_atoms(lit, fix_atom) for lit in conj] for conj in clause.body]
            clauses.append(Clause(heads, body, clause.span, clause.plans))
        return Program(relations, clauses, records, files, texts, self.warnings)


def map_atoms(lit, fn):
    """Rebuild a literal with every atom (also inside aggregates in its terms) passed through fn."""
    if isinstance(lit, Atom):
        return fn(Atom(lit.rel, [_map_term(a, fn) for a in lit.args], lit.span))
    if isinstance(lit, Neg):
        return Neg(map_atoms(lit.atom, fn), lit.span)
    if isinstance(lit, Constraint):
        return Constraint(lit.op, _map_term(lit.left, fn), _map_term(lit.right, fn), lit.span)
    return lit


def _map_term(t, fn):
    if isinstance(t, Aggregate):
        expr = _map_term(t.expr, fn) if t.expr is not None else None
        return Aggregate(t.kind, expr, [map_atoms(lit, fn) for lit in t.body], t.span)
    if isinstance(t, BinOp):
        return BinOp(t.op, _map_term(t.left, fn), _map_term(t.right, fn), t.span)
    if isinstance(t, UnOp):
        return UnOp(t.op, _map_term(t.arg, fn), t.span)
    if isinstance(t, Record):
        return Record([_map_term(x, fn) for x in t.items], t.span)
    if isinstance(t, Call):
        return Call(t.name, [_map_term(x, fn) for x in t.args], t.span)
    return t
