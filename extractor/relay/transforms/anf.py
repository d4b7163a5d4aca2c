"""ToANormalForm as TVM v0.19 implements it (src/relay/transforms/to_a_normal_form.cc).

Every non-atomic subexpression is let-bound exactly once, in the innermost scope common to all
of its uses: the dependency graph (src/relay/analysis/dependency_graph.cc) gives each node its
parents, function bodies, let bodies and if / match arms open scopes, and a node's scope is the
lowest common ancestor of its parents' scopes (`CalcScope`). A second walk (`Fill`) visits the
expression in evaluation order and pushes each node's binding onto its scope's let list the
first time it is reached, so a DAG-shared graph node (`%0 = ref(%x); ...`) is evaluated once,
where the debug executor evaluates it. As in TVM, constants are let-bound too, a let-bound
value keeps its variable, each let expression yields a fresh `%x_N` bound to its body (the
"ANF aliases"), and `Primitive` functions are left alone.

Two deviations, both documented: TVM visits the two operands of `ref_write` and the three
parts of an `if` as C++ argument evaluation order has it (unspecified); we take them left to
right, the order the interpreter evaluates them in. And the pass records, for every binding it
makes, the source node it binds and the source let whose value it belongs to (`Provenance`),
so that verdicts on the normal form can be reported against the program as written.

Let chains are walked iteratively and let lists are merged in constant time, so the pass is
linear in the program (TVM's flattening of nested let lists is quadratic in the chain length).
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field, replace
from typing import Any

from ...runtime import run_deep
from ..ast import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    Module,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
    pattern_vars,
)
from ..errors import TransformError

ATOMS = (Var, GlobalVar, Op, Constructor)
_GENSYM = re.compile(r"x_(\d+)")


@dataclass(frozen=True, slots=True)  # (one per binding of the normal form)
class Origin:
    """Where a binding of the normal form comes from.

    `source` is the node of the input it binds (for the binding of a let variable, the let's
    value); `owner` the input let whose value it is evaluated for (None at a function's top
    level, and for a node shared by several parents: it is evaluated once for all of them);
    `shared` says the node had several parents in the input's graph.
    """

    source: Expr
    owner: Let | None
    shared: bool


@dataclass
class Provenance:
    """For every Let of the normal form, its Origin; for every input let, the normal-form Let
    that binds its variable and the input let it is nested in."""

    origin: dict[int, Origin] = field(default_factory=dict)
    # keyed by id() of an input let's variable (passes before this one may rebuild the Let):
    binding_of: dict[int, Let] = field(default_factory=dict)  # -> the normal-form Let binding it
    enclosing: dict[int, Let | None] = field(default_factory=dict)  # -> the input let whose
    # value the let is part of (None at a function's top level)
    temps: set[int] = field(default_factory=set)  # ids of variables the pass made up

    def is_temp(self, v: Var) -> bool:
        return id(v) in self.temps


@dataclass
class ANFModule:
    """A module in A-normal form with the provenance of its bindings."""

    module: Module
    provenance: Provenance
    source: Module


def to_a_normal_form(mod: Module, minimal: bool = False) -> ANFModule:
    """Every global function of mod in A-normal form (TVM's ModuleToANormalForm).

    `minimal` leaves out two kinds of binding TVM makes that are pure and change nothing an
    analysis can see: of a constant, and of a let expression's body to a fresh alias.
    """
    return run_deep(lambda: _module_to_anf(mod, minimal))  # a retry starts from scratch


def _module_to_anf(mod: Module, minimal: bool) -> ANFModule:
    prov = Provenance()
    names = _Names()
    fills = {name: _Fill(fn, prov, names, minimal) for name, fn in mod.functions.items()}
    names.past(max((f.g.top_x for f in fills.values()), default=-1))
    fns = {}
    for name, fill in fills.items():
        loose = fill.escaping_var()
        if loose is not None:  # TVM ICHECKs the result is closed: say which node breaks it
            raise TransformError(
                f"in @{name}, a shared graph node uses %{loose.name_hint} outside the scope that "
                f"binds it: ToANormalForm would bind the node where %{loose.name_hint} is not "
                "defined", loose.span)
        fns[name] = fill.run()
    return ANFModule(Module(fns, mod.type_defs, mod.source_name), prov, mod)


def expr_to_a_normal_form(e: Expr, mod: Module | None = None) -> Expr:
    """An expression (free variables allowed) in A-normal form (TVM's ToANormalFormExpr)."""
    top = max((_Graph(fn).top_x for fn in (mod.functions.values() if mod else ())), default=-1)

    def attempt() -> Expr:  # a retry on a deeper stack starts from scratch
        names = _Names()
        fill = _Fill(e, Provenance(), names)
        names.past(max(top, fill.g.top_x))
        return fill.run()

    return run_deep(attempt)


# ------------------------------------------------------------------------- dependency graph


class _Graph:
    """TVM's DependencyGraph over one function: nodes for expressions and for scopes.

    Edges are linked lists in flat int arrays (a Python list per node and direction cost
    ~180 B a node, the largest transient of preparing a long program). The order of a node's
    parents and children does not matter: any topological order gives the same scopes, and an
    LCA does not depend on the order of its arguments.
    """

    def __init__(self, root: Expr) -> None:
        self.new_scope = bytearray()
        self.first_child, self.first_parent = array("i"), array("i")  # node -> edge, or -1
        self.edge_child, self.next_child = array("i"), array("i")  # edge -> node, next edge
        self.edge_parent, self.next_parent = array("i"), array("i")
        self.node: dict[int, int] = {}  # id(expr) -> graph node
        self.sub: dict[int, int | list[int]] = {}  # id(expr) -> its scope node(s), in TVM's
        # child order (a list for a Match, whose clauses' scopes are not numbered in a row)
        self.top_x = -1  # the largest N of a variable named x_N (fresh names go past it)
        self.binder: dict[int, tuple[int, bool]] = {}  # var's graph node -> (binding scope node,
        # whether it binds exactly there: a let or a parameter; else a pattern, anywhere inside)
        self.variables: list[Var] = []  # (for naming one that escapes its scope)
        self._build(root)

    def __len__(self) -> int:
        return len(self.new_scope)

    def _new(self, new_scope: bool) -> int:
        self.new_scope.append(new_scope)
        self.first_child.append(-1)
        self.first_parent.append(-1)
        return len(self.new_scope) - 1

    def _depend(self, parent: int, child: int) -> None:
        edge = len(self.edge_child)
        self.edge_child.append(child)
        self.next_child.append(self.first_child[parent])
        self.first_child[parent] = edge
        self.edge_parent.append(parent)
        self.next_parent.append(self.first_parent[child])
        self.first_parent[child] = edge

    def shared(self, n: int) -> bool:
        """The node has several parents."""
        e = self.first_parent[n]
        return e >= 0 and self.next_parent[e] >= 0

    def var_of(self, n: int) -> Var:
        """The variable of graph node n (a scan: only an error names one)."""
        return next(v for v in self.variables if self.node[id(v)] == n)

    def _build(self, root: Expr) -> None:
        stack: list[Expr] = [root]
        self.node[id(root)] = self._new(False)
        variables = self.variables
        if isinstance(root, Var):
            variables.append(root)
        patterns: list[tuple[Var, int]] = []

        def dep(parent: int, e: Expr) -> None:
            n = self.node.get(id(e))
            if n is None:
                n = self.node[id(e)] = self._new(False)
                stack.append(e)
                if isinstance(e, Var):
                    variables.append(e)
            self._depend(parent, n)

        while stack:
            e = stack.pop()
            n = self.node[id(e)]
            if isinstance(e, Call):
                dep(n, e.op)
                for a in e.args:
                    dep(n, a)
            elif isinstance(e, Tuple):
                for a in e.fields:
                    dep(n, a)
            elif isinstance(e, TupleGetItem):
                dep(n, e.tuple_value)
            elif isinstance(e, RefCreate):
                dep(n, e.value)
            elif isinstance(e, RefRead):
                dep(n, e.ref)
            elif isinstance(e, RefWrite):
                dep(n, e.ref)
                dep(n, e.value)
            elif isinstance(e, If):
                dep(n, e.cond)
                t, f = self._new(True), self._new(True)
                self._depend(n, t)
                self._depend(n, f)
                dep(t, e.true_branch)
                dep(f, e.false_branch)
                self.sub[id(e)] = t  # (and f = t + 1)
            elif isinstance(e, Function):
                b = self._new(True)
                self._depend(n, b)
                for p in e.params:
                    dep(b, p)
                    self.binder[self.node[id(p)]] = (b, True)
                dep(b, e.body)
                self.sub[id(e)] = b
            elif isinstance(e, Let):
                b = self._new(True)
                self._depend(n, b)
                dep(b, e.var)
                self.binder[self.node[id(e.var)]] = (b, True)
                dep(b, e.value)
                dep(b, e.body)
                self.sub[id(e)] = b
            elif isinstance(e, Match):
                dep(n, e.data)
                subs = []
                for c in e.clauses:
                    b = self._new(True)
                    self._depend(n, b)
                    dep(b, c.rhs)
                    subs.append(b)
                    patterns.extend((v, b) for v in pattern_vars(c.lhs))
                self.sub[id(e)] = subs
        for v, b in patterns:  # a pattern variable has a graph node only where it is used
            n = self.node.get(id(v))
            if n is not None:
                self.binder[n] = (b, False)
        for v in variables:
            m = _GENSYM.fullmatch(v.name_hint)
            if m:
                self.top_x = max(self.top_x, int(m.group(1)))

    def topological(self) -> array:
        """Graph nodes with every parent before its children (reverse post-order)."""
        order = array("i")
        seen = bytearray(len(self))
        cursor = array("i", self.first_child)  # node -> its next edge to follow
        edge_child, next_child = self.edge_child, self.next_child
        stack = [0]
        seen[0] = 1
        while stack:
            n = stack[-1]
            e = cursor[n]
            if e >= 0:
                cursor[n] = next_child[e]
                k = edge_child[e]
                if not seen[k]:
                    seen[k] = 1
                    stack.append(k)
            else:
                stack.pop()
                order.append(n)
        order.reverse()
        return order


# -------------------------------------------------------------------------------- scopes


class _Scope:
    """A scope of the normal form and its let list (bindings, and merged inner let lists).

    `jump` is a skew-binary jump pointer (Myers' level ancestors): it depends on the level
    alone, so two scopes of one level jump to one level, and an LCA takes O(log depth)
    steps. TVM walks parent by parent, which is quadratic on a node used in many of the
    nested scopes of a long let chain.
    """

    __slots__ = ("level", "parent", "jump", "entries")

    def __init__(self, parent: _Scope | None) -> None:
        self.parent = parent
        self.entries: list[_Bind | _Scope] = []
        if parent is None:
            self.level, self.jump = 0, self
            return
        self.level = parent.level + 1
        up = parent.jump
        self.jump = up.jump if parent.level - up.level == up.level - up.jump.level else parent


@dataclass(slots=True)
class _Bind:
    var: Var
    value: Expr
    origin: Origin


def _lca(a: _Scope, b: _Scope) -> _Scope:
    """The innermost scope enclosing both (what TVM's LCA computes, in O(log depth))."""
    if a.level < b.level:
        a, b = b, a
    while a.level > b.level:
        a = a.jump if a.jump.level >= b.level else a.parent  # type: ignore[assignment]
    while a is not b:
        if a.jump is not b.jump:
            a, b = a.jump, b.jump
        else:
            a, b = a.parent, b.parent  # type: ignore[assignment]
    return a


def _calc_scopes(g: _Graph) -> list[_Scope]:
    """CalcScope: the LCA of the parents' scopes; scope nodes open a child scope."""
    scope: list[_Scope | None] = [None] * len(g)
    top = _Scope(None)
    first_parent, edge_parent, next_parent = g.first_parent, g.edge_parent, g.next_parent
    for n in g.topological():
        e = first_parent[n]
        if e < 0:
            s = top
        else:
            s = scope[edge_parent[e]]  # type: ignore[assignment]
            e = next_parent[e]
            while e >= 0:
                s = _lca(s, scope[edge_parent[e]])  # type: ignore[arg-type]
                e = next_parent[e]
        scope[n] = _Scope(s) if g.new_scope[n] else s
    return scope  # type: ignore[return-value]


# ----------------------------------------------------------------------------------- fill


class _Names:
    """Fresh `x_N` names (TVM's Var::GenSym) numbered past every `x_N` already in the module."""

    def __init__(self) -> None:
        self.next = 0

    def past(self, top: int) -> None:
        self.next = max(self.next, top + 1)

    def fresh(self) -> Var:
        v = Var(f"x_{self.next}")
        self.next += 1
        return v


class _Fill:
    """Fill: visit in evaluation order, push each node onto its scope's let list once."""

    def __init__(self, root: Expr, prov: Provenance, names: _Names,
                 minimal: bool = False) -> None:
        self.root = root
        self.minimal = minimal
        self.g = _Graph(root)
        self.scopes = _calc_scopes(self.g)
        self.prov = prov
        self.names = names
        self.memo: dict[int, Expr] = {}
        self.owner: list[Let | None] = [None]  # the input let whose value is being visited
        self.let_of_var: dict[int, Let] = {}  # id(input let variable) -> its Let
        # a global function is the one function not let-bound; inside an expression, all are
        self.nesting = 0 if isinstance(root, Function) else 1

    def run(self) -> Any:
        out = self.visit(self.root, None)
        return self.get(self.scope(self.root), out)

    def escaping_var(self) -> Var | None:
        """A bound variable some node using it is lifted out of (its uses' LCA lies above the
        scope that binds it), so that the normal form would not be closed."""
        for n, (b, exact) in self.g.binder.items():
            inner, outer = self.scopes[n], self.scopes[b]
            if exact and inner is not outer:
                return self.g.var_of(n)
            if not exact:
                while inner.level > outer.level:
                    inner = inner.parent  # type: ignore[assignment]
                if inner is not outer:
                    return self.g.var_of(n)
        return None

    # -- scopes
    def scope(self, e: Expr) -> _Scope:
        return self.scopes[self.g.node[id(e)]]

    def sub(self, e: Expr, i: int) -> _Scope:
        first = self.g.sub[id(e)]
        return self.scopes[first[i] if type(first) is list else first + i]

    def shared(self, e: Expr) -> bool:
        return self.g.shared(self.g.node[id(e)])

    def push(self, e: Expr, var: Var, value: Expr) -> Var:
        """Bind var to value in e's scope (e is the input node the binding comes from)."""
        shared = self.shared(e)
        let = self.let_of_var.get(id(var))
        if let is not None:  # an input let's own variable: its binding is part of that let
            origin = Origin(e, let, shared)
        else:
            origin = Origin(e, None if shared else self.owner[-1], shared)
        self.scope(e).entries.append(_Bind(var, value, origin))
        return var

    def get(self, s: _Scope, body: Expr) -> Expr:
        """LetList::Get: wrap the scope's bindings (merged lists flattened) around body."""
        binds: list[_Bind] = []
        stack: list[tuple[list[_Bind | _Scope], int]] = [(s.entries, 0)]
        while stack:
            entries, i = stack.pop()
            while i < len(entries):
                x = entries[i]
                i += 1
                if isinstance(x, _Scope):
                    stack.append((entries, i))
                    entries, i = x.entries, 0
                else:
                    binds.append(x)
        s.entries = []
        out = body
        for b in reversed(binds):
            let = self.let_of_var.get(id(b.var))
            span = let.span if let is not None else b.origin.source.span
            out = Let(b.var, b.value, out, span=span)
            self.prov.origin[id(out)] = b.origin
            if let is not None:
                self.prov.binding_of[id(b.var)] = out
        return out

    # -- the visitor
    def visit(self, e: Expr, v: Var | None) -> Expr:
        hit = self.memo.get(id(e))
        if hit is not None:
            if v is not None:
                self.push(e, v, hit)
            return hit
        if isinstance(e, Let):
            out = self.let_chain(e, v)
        else:
            out = self.compound_or_atom(e, v)
        self.memo[id(e)] = out
        return out

    def bind(self, orig: Expr, now: Expr, v: Var | None) -> Var:
        """Compound: bind the rebuilt node (to v, or to a fresh variable) in orig's scope."""
        if v is None:
            v = self.names.fresh()
            self.prov.temps.add(id(v))
        return self.push(orig, v, now)

    def compound_or_atom(self, e: Expr, v: Var | None) -> Expr:
        if isinstance(e, ATOMS):
            return e if v is None else self.push(e, v, e)
        if isinstance(e, Constant):
            return e if v is None and self.minimal else self.bind(e, e, v)
        if isinstance(e, Call):
            args = tuple(self.visit(a, None) for a in e.args)
            op = self.visit(e.op, None)
            return self.bind(e, Call(op, args, e.attrs, e.type_args, span=e.span), v)
        if isinstance(e, Tuple):
            fields = tuple(self.visit(a, None) for a in e.fields)
            return self.bind(e, Tuple(fields, span=e.span), v)
        if isinstance(e, TupleGetItem):
            t = self.visit(e.tuple_value, None)
            return self.bind(e, TupleGetItem(t, e.index, span=e.span), v)
        if isinstance(e, RefCreate):
            return self.bind(e, RefCreate(self.visit(e.value, None), span=e.span), v)
        if isinstance(e, RefRead):
            return self.bind(e, RefRead(self.visit(e.ref, None), span=e.span), v)
        if isinstance(e, RefWrite):
            r = self.visit(e.ref, None)
            val = self.visit(e.value, None)
            return self.bind(e, RefWrite(r, val, span=e.span), v)
        if isinstance(e, If):
            c = self.visit(e.cond, None)
            t = self.get(self.sub(e, 0), self.visit(e.true_branch, None))
            f = self.get(self.sub(e, 1), self.visit(e.false_branch, None))
            return self.bind(e, If(c, t, f, span=e.span), v)
        if isinstance(e, Match):
            d = self.visit(e.data, None)
            clauses = tuple(
                Clause(c.lhs, self.get(self.sub(e, k), self.visit(c.rhs, None)), span=c.span)
                for k, c in enumerate(e.clauses))
            return self.bind(e, Match(d, clauses, e.complete, span=e.span), v)
        if isinstance(e, Function):
            return self.function(e, v)
        raise TransformError(f"ToANormalForm cannot handle a {type(e).__name__}",
                             getattr(e, "span", None))

    def function(self, e: Function, v: Var | None) -> Expr:
        if e.attrs.get("Primitive"):
            out: Function = e
        else:
            self.nesting += 1
            self.owner.append(None)
            body = self.get(self.sub(e, 0), self.visit(e.body, None))
            self.owner.pop()
            self.nesting -= 1
            out = replace(e, body=body)  # WithFields: attrs, span and virtual device kept
        if self.nesting == 0:
            return out  # a global function is bound in the module, not in a let
        return self.bind(e, out, v)

    def let_chain(self, e: Let, v: Var | None) -> Expr:
        """A chain of lets: each value bound to its variable, then the lets unwound inner-first
        (each let's list merged into its own scope's list, its body bound to a fresh alias)."""
        lets: list[Let] = []
        cur: Expr = e
        while isinstance(cur, Let) and (cur is e or id(cur) not in self.memo):
            lets.append(cur)
            self.let_of_var[id(cur.var)] = cur
            self.prov.enclosing[id(cur.var)] = self.owner[-1]
            self.owner.append(cur)
            self.visit(cur.value, cur.var)
            self.owner.pop()
            cur = cur.body
        atom = self.visit(cur, None)
        for k in range(len(lets) - 1, -1, -1):
            let = lets[k]
            self.scope(let).entries.append(self.sub(let, 0))  # flatten: O(1), not O(length)
            target = v if k == 0 else None
            if target is not None or not self.minimal:
                atom = self.bind(let, atom, target)
            if k:
                self.memo[id(let)] = atom
        return atom


