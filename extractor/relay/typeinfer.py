"""Relay type inference: unification with holes plus per-operator relations, TVM type_infer style.

Every missing annotation becomes a hole (a fresh type variable); expressions generate
unification constraints, and each operator call adds its relation from the op registry
that fires as soon as its argument types are known well enough (TVM's TypeSolver; a
deferred relation wakes when a hole it waits on is bound). All globals share one solver,
seeded with their signatures first, so (mutually) recursive globals need no annotations;
globals and constructors with type parameters are instantiated afresh at each use. The
result fills every var annotation and function return type, as TVM's Resolver does (notes
§1.3). The traversal and the rebuild are iterative, so long let chains and deep graphs need
no Python recursion; only type *terms* are walked recursively.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import chain
from weakref import WeakKeyDictionary, ref

import numpy as np

from ..diagnostics import Span
from ..runtime import gc_paused
from .ast import (
    UNIT,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalVar,
    If,
    IncompleteType,
    Let,
    Match,
    Module,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
    Var,
    children,
    let_chain,
    post_order,
    type_str,
    with_children,
)
from .errors import RelayTypeError
from .ops import ArgMismatch, Defer, OpAttrs, OpDef, RelError, Result, Same, lookup

__all__ = ["Typed", "infer_types", "infer_expr"]

BOOL_SCALAR = TensorType((), "bool")


@dataclass
class Typed:
    """A module with every annotation filled in, and the checked type of each of its nodes."""

    module: Module
    types: dict[int, Type]

    def type_of(self, e: Expr) -> Type:
        """The checked type of a node of `module` (a located error for a foreign node)."""
        t = self.types.get(id(e))
        if t is None:
            raise RelayTypeError(f"no type was inferred for this {type(e).__name__} "
                                 "(it is not a node of the typed module)", getattr(e, "span", None))
        return t


# Results by module (modules are immutable and hash by identity): a command checks its input,
# then a transform infers the same module, or the typed one, again. A result is remembered
# while its caller keeps it (a weak reference: a check whose result is dropped frees the typed
# copy), a typed module's types while the typed module lives (inferring a typed module changes
# no node, so its types are the ones already computed).
_BY_INPUT: WeakKeyDictionary[Module, ref[Typed]] = WeakKeyDictionary()
_OF_TYPED: WeakKeyDictionary[Module, dict[int, Type]] = WeakKeyDictionary()


def infer_types(mod: Module) -> Typed:
    """Infer and check every global function of mod; return the annotated module and types."""
    held = _BY_INPUT.get(mod)
    got = held() if held is not None else None
    if got is not None:
        return got
    types = _OF_TYPED.get(mod)
    if types is not None:
        return Typed(mod, types)
    got = _infer_module(mod)
    _BY_INPUT[mod] = ref(got)
    _OF_TYPED[got.module] = got.types  # (not the Typed: it would keep its own key alive)
    return got


@gc_paused()
def _infer_module(mod: Module) -> Typed:
    inf = _Infer(mod)
    inf.run([fn for fn in mod.functions.values()])
    rebuilt, types = inf.rebuild(list(mod.functions.values()), walked=True)
    fns = {name: rebuilt[i] for i, name in enumerate(mod.functions)}
    out = Module(fns, mod.type_defs, mod.source_name)  # type: ignore[arg-type]
    return Typed(out, types)


@gc_paused()
def infer_expr(e: Expr, mod: Module | None = None) -> tuple[Expr, dict[int, Type]]:
    """Infer an expression (free vars allowed) against mod's globals and type definitions."""
    inf = _Infer(mod if mod is not None else Module({}))
    inf.run([*inf.mod.functions.values(), e])
    rebuilt, types = inf.rebuild([e])
    return rebuilt[0], types


# ------------------------------------------------------------------------------------ solver


class _Hole(Type):
    """A type variable of the solver: unbound, or bound (`ref`) to another type."""

    __slots__ = ("ref", "watch")

    def __init__(self) -> None:
        self.ref: Type | None = None
        self.watch: list[_Pending] | None = None


class _Mismatch(Exception):
    """Two types do not unify (the caller reports the whole types)."""


class _Pending:
    """A relation waiting for types: an op call or a projection out of a not-yet-known tuple."""

    __slots__ = ("node", "done")

    def __init__(self, node: Expr) -> None:
        self.node = node
        self.done = False


class _OpRel(_Pending):
    __slots__ = ("name", "rel", "args", "ret", "attrs")

    def __init__(self, node: Call, opdef: OpDef, args: list[Type], ret: _Hole) -> None:
        super().__init__(node)
        self.name = opdef.name
        self.rel = opdef.relation
        self.args = args
        self.ret = ret
        self.attrs = OpAttrs(node.attrs, opdef)


class _ProjRel(_Pending):
    __slots__ = ("tup", "ret")

    def __init__(self, node: TupleGetItem, tup: Type, ret: _Hole) -> None:
        super().__init__(node)
        self.tup = tup
        self.ret = ret


_VISIT, _EXIT, _BIND, _CHAIN_EXIT, _PATTERNS, _PRESEED = range(6)


class _Infer:
    """One inference problem: the constraints of a module (and maybe one extra expression)."""

    def __init__(self, mod: Module) -> None:
        self.mod = mod
        self.types: dict[int, Type] = {}  # id(node) -> raw type (may contain holes)
        self.order: list[Expr] = []  # every node the walk typed, children before parents
        self.spans: dict[int, Span | None] = {}  # id(node) -> own span or nearest enclosing
        self.var_types: dict[int, Type] = {}
        self.var_nodes: dict[int, Var] = {}
        self.fn_rets: dict[int, Type] = {}
        self.globals: dict[str, FuncType] = {}
        self.pending: list[_Pending] = []
        self.ready: list[_Pending] = []
        self.cur_span: Span | None = None
        self.zonk_memo: dict[int, tuple[Type, Type]] = {}  # id(solved term) -> (term, zonked)
        self.used: set[int] = set()  # constructors / globals in value position used once already

    # -------------------------------------------------------------------------- type terms

    def find(self, t: Type) -> Type:
        """The representative of t: follows bound holes, compressing the path."""
        if type(t) is not _Hole or t.ref is None:  # (no class derives from _Hole)
            return t
        path = []
        while isinstance(t, _Hole) and t.ref is not None:
            path.append(t)
            t = t.ref
        for h in path[:-1]:
            h.ref = t
        return t

    def bind(self, h: _Hole, t: Type) -> None:
        if self.occurs(h, t):
            raise _Mismatch
        h.ref = t
        if h.watch:
            self.ready.extend(h.watch)
            h.watch = None

    def occurs(self, h: _Hole, t: Type) -> bool:
        stack = [t]
        while stack:
            u = self.find(stack.pop())
            if u is h:
                return True
            stack.extend(_subterms(u))
        return False

    def unify(self, a: Type, b: Type) -> None:
        """Make a and b equal by binding holes; `?` dims unify with any dim."""
        a, b = self.find(a), self.find(b)
        if a is b:
            return
        if isinstance(a, _Hole):
            self.bind(a, b)
            return
        if isinstance(b, _Hole):
            self.bind(b, a)
            return
        if isinstance(a, TensorType) and isinstance(b, TensorType):
            if a.dtype != b.dtype or len(a.shape) != len(b.shape) or any(
                    x is not None and y is not None and x != y
                    for x, y in zip(a.shape, b.shape, strict=True)):
                raise _Mismatch
            return
        if isinstance(a, TupleType) and isinstance(b, TupleType):
            if len(a.fields) != len(b.fields):
                raise _Mismatch
            for x, y in zip(a.fields, b.fields, strict=False):
                self.unify(x, y)
            return
        if isinstance(a, FuncType) and isinstance(b, FuncType):
            if len(a.arg_types) != len(b.arg_types):
                raise _Mismatch
            a, b = self.align(a, b)
            for x, y in zip(a.arg_types, b.arg_types, strict=False):
                self.unify(x, y)
            self.unify(a.ret_type, b.ret_type)
            return
        if isinstance(a, RefType) and isinstance(b, RefType):
            self.unify(a.value, b.value)
            return
        if isinstance(a, TypeCall) and isinstance(b, TypeCall):
            if a.name != b.name or len(a.args) != len(b.args):
                raise _Mismatch
            for x, y in zip(a.args, b.args, strict=False):
                self.unify(x, y)
            return
        if isinstance(a, TypeVar) and isinstance(b, TypeVar) and a.name == b.name:
            return
        raise _Mismatch

    def align(self, a: FuncType, b: FuncType) -> tuple[FuncType, FuncType]:
        """Two function types made comparable as v0.19's solver does (type_solver.cc, Unifier
        FuncType): the one with more type parameters has its first ones renamed to the
        other's and the extra ones bound to fresh holes, i.e. instantiated."""
        if len(a.type_params) < len(b.type_params):
            b, a = self.align(b, a)
            return a, b
        if not a.type_params:
            return a, b
        k = len(b.type_params)
        m: dict[TypeVar, Type] = {p: q for p, q in zip(a.type_params[:k], b.type_params,
                                                       strict=True)}
        m.update((p, _Hole()) for p in a.type_params[k:])
        inner = FuncType(tuple(self.subst(x, m) for x in a.arg_types),
                         self.subst(a.ret_type, m), b.type_params)
        return inner, b

    def zonk(self, t: Type, holes: list[_Hole] | None = None) -> Type:
        """t with bound holes replaced; unbound ones become IncompleteType (and are collected)."""
        t = self.find(t)
        if isinstance(t, _Hole):
            if holes is not None:
                holes.append(t)
            return IncompleteType()
        if isinstance(t, TupleType):
            return TupleType(tuple(self.zonk(f, holes) for f in t.fields))
        if isinstance(t, FuncType):
            return FuncType(tuple(self.zonk(a, holes) for a in t.arg_types),
                            self.zonk(t.ret_type, holes), t.type_params)
        if isinstance(t, RefType):
            return RefType(self.zonk(t.value, holes))
        if isinstance(t, TypeCall):
            return TypeCall(t.name, tuple(self.zonk(a, holes) for a in t.args))
        return t

    def zonk_final(self, t: Type) -> Type:
        """zonk after solving: each solved term is rebuilt once, however often it is shared."""
        if type(t) is _Hole:
            t = self.find(t)
        if type(t) is TensorType:  # (the common case; no class derives from TensorType)
            return t
        memo = self.zonk_memo
        hit = memo.get(id(t))
        if hit is not None:
            return hit[1]
        if isinstance(t, _Hole):
            out: Type = IncompleteType()
        elif isinstance(t, TupleType):
            out = TupleType(tuple(self.zonk_final(f) for f in t.fields))
        elif isinstance(t, FuncType):
            out = FuncType(tuple(self.zonk_final(a) for a in t.arg_types),
                           self.zonk_final(t.ret_type), t.type_params)
        elif isinstance(t, RefType):
            out = RefType(self.zonk_final(t.value))
        elif isinstance(t, TypeCall):
            out = TypeCall(t.name, tuple(self.zonk_final(a) for a in t.args))
        else:
            out = t
        memo[id(t)] = (t, out)  # t is kept alive so its id is not reused
        return out

    def raw(self, t: Type | None) -> Type:
        """An annotation as a solver type: each `_` (or a missing annotation) is a fresh hole."""
        if t is None or isinstance(t, IncompleteType):
            return _Hole()
        if isinstance(t, TupleType):
            return TupleType(tuple(self.raw(f) for f in t.fields))
        if isinstance(t, FuncType):
            return FuncType(tuple(self.raw(a) for a in t.arg_types), self.raw(t.ret_type),
                            t.type_params)
        if isinstance(t, RefType):
            return RefType(self.raw(t.value))
        if isinstance(t, TypeCall):
            return TypeCall(t.name, tuple(self.raw(a) for a in t.args))
        return t

    def subst(self, t: Type, m: dict[TypeVar, Type]) -> Type:
        t = self.find(t)
        if isinstance(t, TypeVar):
            return m.get(t, t)
        if isinstance(t, TupleType):
            return TupleType(tuple(self.subst(f, m) for f in t.fields))
        if isinstance(t, FuncType):
            inner = {k: v for k, v in m.items() if k not in t.type_params}
            return FuncType(tuple(self.subst(a, inner) for a in t.arg_types),
                            self.subst(t.ret_type, inner), t.type_params)
        if isinstance(t, RefType):
            return RefType(self.subst(t.value, m))
        if isinstance(t, TypeCall):
            return TypeCall(t.name, tuple(self.subst(a, m) for a in t.args))
        return t

    def instantiate(self, ft: FuncType) -> FuncType:
        """A polymorphic function type with fresh holes for its type parameters."""
        m: dict[TypeVar, Type] = {p: _Hole() for p in ft.type_params}
        return FuncType(tuple(self.subst(a, m) for a in ft.arg_types), self.subst(ft.ret_type, m))

    def show(self, t: Type) -> str:
        return type_str(self.zonk(t))

    # ------------------------------------------------------------------------- environment

    def var_type(self, v: Var) -> Type:
        t = self.var_types.get(id(v))
        if t is None:
            t = self.raw(v.type_annotation)
            self.var_types[id(v)] = t
            self.var_nodes[id(v)] = v
        return t

    def fn_ret(self, fn: Function) -> Type:
        t = self.fn_rets.get(id(fn))
        if t is None:
            t = self.fn_rets[id(fn)] = self.raw(fn.ret_type)
        return t

    def global_type(self, g: GlobalVar) -> FuncType:
        t = self.globals.get(g.name_hint)
        if t is None:
            raise self.error(f"unknown global @{g.name_hint}", g)
        return t

    def ctor_scheme(self, c: Constructor, node: object) -> FuncType:
        td = self.mod.type_defs.get(c.belong_to)
        if td is None or all(k.name_hint != c.name_hint for k in td.constructors):
            raise self.error(f"constructor {c.name_hint} belongs to unknown type {c.belong_to}",
                             node)
        return FuncType(c.inputs, TypeCall(td.name, td.type_vars), td.type_vars)

    # ------------------------------------------------------------------------------ errors

    def span_of(self, node: object) -> Span | None:
        sp = self.spans.get(id(node))
        if sp is None:
            sp = getattr(node, "span", None)
        return sp if sp is not None else self.cur_span

    def error(self, msg: str, node: object) -> RelayTypeError:
        return RelayTypeError(msg, self.span_of(node))

    def expect(self, expected: Type, found: Type, where: str, node: object) -> None:
        """Unify, reporting `expected X but found Y in <where>` at node on failure."""
        try:
            self.unify(expected, found)
        except _Mismatch:
            raise self.error(f"expected {self.show(expected)} but found {self.show(found)} "
                             f"in {where}", node) from None

    # --------------------------------------------------------------------------- traversal

    def run(self, roots: list[Expr]) -> None:
        """Generate and solve the constraints of all globals and the given roots."""
        for name, fn in self.mod.functions.items():
            self.globals[name] = FuncType(tuple(self.var_type(p) for p in fn.params),
                                          self.fn_ret(fn), fn.type_params)
        # polymorphic globals first: their bodies fix their signatures before any instantiation
        roots = sorted(roots, key=lambda r: not (isinstance(r, Function) and r.type_params))
        try:
            for root in roots:
                self.cur_span = getattr(root, "span", None)
                self.walk(root)
            self.drain()
            for p in self.pending:
                if not p.done:
                    raise self.stuck(p)
        except RecursionError:
            raise RelayTypeError("type inference gave up: a type or expression is nested too "
                                 "deeply", self.cur_span) from None

    def walk(self, root: Expr) -> None:
        stack: list[tuple[int, object, Span | None]] = [(_VISIT, root, self.cur_span)]
        types = self.types
        while stack:
            kind, node, sp = stack.pop()
            if kind == _VISIT:
                assert isinstance(node, Expr)
                if id(node) in types:
                    continue
                own = getattr(node, "span", None)
                sp = own if own is not None else sp
                self.spans[id(node)] = sp
                self.visit(node, sp, stack)
            elif kind == _EXIT:
                self.cur_span = sp
                types[id(node)] = self.exit(node)  # type: ignore[arg-type]
                self.order.append(node)  # type: ignore[arg-type]
                self.drain()
            elif kind == _BIND:
                assert isinstance(node, Let)
                self.cur_span = sp
                vt = self.var_type(node.var)
                types[id(node.var)] = vt
                where = f"let %{node.var.name_hint}"
                self.expect(vt, self.use(node.value), where, node)
                self.drain()
            elif kind == _CHAIN_EXIT:
                lets: list[Let] = node  # type: ignore[assignment]
                t = self.use(lets[-1].body)
                for let in lets:
                    types[id(let)] = t
                self.order.extend(reversed(lets))  # each let's body before the let
            elif kind == _PRESEED:
                # a let-bound function literal: its var gets the literal's signature before the
                # body is typed, so recursive calls are checked against the parameters
                assert isinstance(node, Let) and isinstance(node.value, Function)
                self.cur_span = sp
                fn = node.value
                sig = FuncType(tuple(self.var_type(p) for p in fn.params), self.fn_ret(fn),
                               fn.type_params)
                self.expect(self.var_type(node.var), sig, f"let %{node.var.name_hint}", node)
            else:  # _PATTERNS
                assert isinstance(node, Match)
                self.cur_span = sp
                self.type_patterns(node)

    def visit(self, e: Expr, sp: Span | None, stack: list) -> None:
        """Type a leaf now, or schedule a compound node's children and then its exit."""
        types = self.types
        if isinstance(e, Var):
            types[id(e)] = self.var_type(e)
            self.order.append(e)
        elif isinstance(e, GlobalVar):  # in value position: instantiate a polymorphic global
            g = self.global_type(e)
            types[id(e)] = self.instantiate(g) if g.type_params else g
            self.order.append(e)
        elif isinstance(e, Constant):
            types[id(e)] = TensorType(tuple(int(d) for d in e.data.shape),
                                      _dtype_name(e.data.dtype))
            self.order.append(e)
        elif isinstance(e, Constructor):  # in value position: a fresh instance
            types[id(e)] = self.instantiate(self.ctor_scheme(e, e))
            self.order.append(e)
        elif isinstance(e, Op):
            raise self.error(f"operator {e.name} is used as a value; operators can only be "
                             "called", e)
        elif isinstance(e, Let):
            lets, body = let_chain(e)
            # stop at a let already typed (a shared tail of the chain)
            for i, let in enumerate(lets):
                if i and id(let) in types:
                    lets, body = lets[:i], let
                    break
            stack.append((_CHAIN_EXIT, lets, sp))
            stack.append((_VISIT, body, sp))
            for let in reversed(lets):
                lsp = let.span if let.span is not None else sp
                self.spans[id(let)] = lsp
                stack.append((_BIND, let, lsp))
                stack.append((_VISIT, let.value, lsp))
                if isinstance(let.value, Function):
                    stack.append((_PRESEED, let, lsp))
                stack.append((_VISIT, let.var, lsp))
        elif isinstance(e, Function):
            for p in e.params:
                types[id(p)] = self.var_type(p)
                self.spans.setdefault(id(p), p.span if p.span is not None else sp)
                self.order.append(p)
            stack.append((_EXIT, e, sp))
            stack.append((_VISIT, e.body, sp))
        elif isinstance(e, Call):
            stack.append((_EXIT, e, sp))
            kids = children(e)
            if isinstance(e.op, Op | Constructor | GlobalVar):
                self.spans.setdefault(id(e.op), sp)
                self.order.append(e.op)  # a callee the call's exit types
                kids = kids[1:]
            for c in reversed(kids):
                stack.append((_VISIT, c, sp))
        elif isinstance(e, Match):
            stack.append((_EXIT, e, sp))
            for c in reversed(e.clauses):
                stack.append((_VISIT, c.rhs, c.span if c.span is not None else sp))
            stack.append((_PATTERNS, e, sp))
            stack.append((_VISIT, e.data, sp))
        else:
            stack.append((_EXIT, e, sp))
            for c in reversed(children(e)):
                stack.append((_VISIT, c, sp))

    def exit(self, e: Expr) -> Type:
        """The type of a compound node whose children are typed."""
        if isinstance(e, Call):
            return self.exit_call(e)
        if isinstance(e, Tuple):
            return TupleType(tuple(self.use(f) for f in e.fields))
        if isinstance(e, TupleGetItem):
            ret = _Hole()
            p = _ProjRel(e, self.use(e.tuple_value), ret)
            self.pending.append(p)
            self.fire(p)
            return ret
        if isinstance(e, Function):
            ret = self.fn_ret(e)
            self.expect(ret, self.use(e.body), "the body of the function (its return type)", e)
            return FuncType(tuple(self.use(p) for p in e.params), ret, e.type_params)
        if isinstance(e, If):
            self.check_cond(e)
            then = self.use(e.true_branch)
            self.expect(then, self.use(e.false_branch),
                        "the else branch of if (the then branch has the first type)", e)
            return then
        if isinstance(e, RefCreate):
            return RefType(self.use(e.value))
        if isinstance(e, RefRead):
            v = _Hole()
            r = self.find(self.use(e.ref))
            if isinstance(r, _Hole | RefType):
                self.unify(r, RefType(v))
                return v
            raise self.error(f"expected a reference but found {self.show(r)} in ref_read", e)
        if isinstance(e, RefWrite):
            r = self.find(self.use(e.ref))
            if not isinstance(r, _Hole | RefType):
                raise self.error(f"expected a reference but found {self.show(r)} in ref_write", e)
            self.expect(r, RefType(self.use(e.value)), "ref_write", e)
            return UNIT
        if isinstance(e, Match):
            out: Type = _Hole()
            for i, c in enumerate(e.clauses):
                self.expect(out, self.use(c.rhs),
                            f"match arm {i} (the earlier arms have the first type)", c.rhs)
            return out
        raise self.error(f"cannot type a {type(e).__name__}", e)

    def use(self, e: Expr) -> Type:
        """The type of e where its parent uses it: a constructor or polymorphic global met in
        value position a second time (a shared node) is instantiated afresh for that use."""
        t = self.types[id(e)]
        if isinstance(e, Constructor | GlobalVar):
            if id(e) in self.used:
                if isinstance(e, Constructor):
                    return self.instantiate(self.ctor_scheme(e, e))
                g = self.global_type(e)
                return self.instantiate(g) if g.type_params else g
            self.used.add(id(e))
        return t

    def check_cond(self, e: If) -> None:
        c = self.find(self.types[id(e.cond)])
        if isinstance(c, _Hole):
            self.unify(c, BOOL_SCALAR)
            return
        if not (isinstance(c, TensorType) and c.shape == () and c.dtype in ("bool", "uint1")):
            raise self.error(f"expected bool but found {self.show(c)} in the condition of if",
                             e.cond if isinstance(e.cond, Call) else e)

    def exit_call(self, e: Call) -> Type:
        args = [self.use(a) for a in e.args]
        callee = e.op
        if isinstance(callee, Op):
            return self.op_call(e, callee, args)
        if isinstance(callee, Constructor):
            ft = self.instantiate(self.ctor_scheme(callee, e))
            self.types[id(callee)] = self.ctor_scheme(callee, e)
            return self.apply(e, ft, args, callee.name_hint)
        what = _callee_name(callee)
        if isinstance(callee, GlobalVar):
            ct = self.global_type(callee)
            self.types.setdefault(id(callee), ct)
        else:
            ct = self.find(self.use(callee))
        if isinstance(ct, _Hole):
            ret = _Hole()
            self.expect(ct, FuncType(tuple(args), ret), f"the call of {what}", e)
            return ret
        if not isinstance(ct, FuncType):
            raise self.error(f"expected a function but found {self.show(ct)} in the call of "
                             f"{what}", e)
        if ct.type_params:
            ct = self.instantiate(ct)
        return self.apply(e, ct, args, what)

    def apply(self, e: Call, ft: FuncType, args: list[Type], what: str) -> Type:
        if len(ft.arg_types) != len(args):
            raise self.error(f"{what} expects {len(ft.arg_types)} argument"
                             f"{'' if len(ft.arg_types) == 1 else 's'} but got {len(args)}", e)
        for i, (p, a) in enumerate(zip(ft.arg_types, args, strict=False)):
            self.expect(p, a, f"argument {i} of {what}", e)
        return ft.ret_type

    def op_call(self, e: Call, op: Op, args: list[Type]) -> Type:
        opdef = lookup(op.name)
        if opdef is None or opdef.relation is None:
            raise self.error(f"operator {op.name} has no type relation", e)
        if opdef.num_inputs is not None and opdef.num_inputs != len(args):
            n = opdef.num_inputs
            raise self.error(f"{op.name} expects {n} argument{'' if n == 1 else 's'} but got "
                             f"{len(args)}", e)
        ret = _Hole()
        self.types.setdefault(id(op), FuncType(tuple(args), ret))
        p = _OpRel(e, opdef, args, ret)
        self.pending.append(p)
        self.fire(p)
        return ret

    def type_patterns(self, m: Match) -> None:
        """Type each clause's pattern against the scrutinee's type, binding pattern vars."""
        data_t = self.use(m.data)
        for c in m.clauses:
            stack: list[tuple[Pattern, Type]] = [(c.lhs, data_t)]
            while stack:
                p, t = stack.pop()
                if isinstance(p, PatternWildcard):
                    continue
                if isinstance(p, PatternVar):
                    vt = self.var_type(p.var)
                    self.types[id(p.var)] = vt
                    self.order.append(p.var)  # before the clause bodies that use it
                    self.spans.setdefault(id(p.var), p.var.span or p.span or self.cur_span)
                    self.expect(vt, t, f"pattern %{p.var.name_hint}", _at(p, c, m))
                elif isinstance(p, PatternConstructor):
                    ft = self.instantiate(self.ctor_scheme(p.constructor, _at(p, c, m)))
                    if len(ft.arg_types) != len(p.patterns):
                        raise self.error(
                            f"constructor {p.constructor.name_hint} has {len(ft.arg_types)} "
                            f"fields but the pattern gives {len(p.patterns)}", _at(p, c, m))
                    self.expect(t, ft.ret_type, f"pattern {p.constructor.name_hint} (the "
                                "matched value has the first type)", _at(p, c, m))
                    stack.extend(zip(p.patterns, ft.arg_types, strict=False))
                elif isinstance(p, PatternTuple):
                    holes = tuple(_Hole() for _ in p.patterns)
                    self.expect(t, TupleType(holes), "a tuple pattern (the matched value has "
                                "the first type)", _at(p, c, m))
                    stack.extend(zip(p.patterns, holes, strict=False))
        self.drain()

    # ----------------------------------------------------------------------------- solving

    def fire(self, p: _Pending) -> None:
        """Try a pending relation; on Defer, watch the holes it is waiting on."""
        if p.done:
            return
        holes: list[_Hole] = []
        if isinstance(p, _ProjRel):
            tt = self.find(p.tup)
            e = p.node
            assert isinstance(e, TupleGetItem)
            if isinstance(tt, _Hole):
                holes.append(tt)
            elif isinstance(tt, TupleType):
                if not 0 <= e.index < len(tt.fields):
                    raise self.error(f"index {e.index} is out of range for the tuple type "
                                     f"{self.show(tt)}", e)
                p.done = True
                self.unify(p.ret, tt.fields[e.index])
                return
            else:
                raise self.error(f"expected a tuple but found {self.show(tt)} in projection "
                                 f".{e.index}", e)
        else:
            assert isinstance(p, _OpRel) and p.rel is not None
            args = [self.zonk(a, holes) for a in p.args]
            try:
                res = p.rel(args, p.attrs)
            except Defer:
                pass
            except ArgMismatch as err:
                raise self.error(f"expected {self.show(err.expected)} but found "
                                 f"{self.show(p.args[err.arg])} in argument {err.arg} of "
                                 f"{p.name}", p.node) from None
            except RelError as err:
                where = f"argument {err.arg} of {p.name}" if err.arg is not None else p.name
                raise self.error(f"{err.message} in {where}", p.node) from None
            except (TypeError, ValueError, IndexError, ZeroDivisionError, OverflowError) as err:
                raise self.error(f"bad attributes for {p.name}: {err}", p.node) from None
            else:
                p.done = True
                if isinstance(res, Same):
                    self.expect(p.ret, p.args[res.arg], f"the result of {p.name}", p.node)
                    return
                if isinstance(res, Result):
                    for i, want in res.args.items():
                        self.expect(want, p.args[i], f"argument {i} of {p.name}", p.node)
                    res = res.out
                self.expect(p.ret, self.raw(res), f"the result of {p.name}", p.node)
                return
        for h in holes:
            h = self.find(h)  # type: ignore[assignment]
            if isinstance(h, _Hole):
                if h.watch is None:
                    h.watch = []
                if p not in h.watch:
                    h.watch.append(p)

    def drain(self) -> None:
        while self.ready:
            p = self.ready.pop()
            if not p.done:
                self.fire(p)

    def stuck(self, p: _Pending) -> RelayTypeError:
        if isinstance(p, _OpRel):
            shown = ", ".join(self.show(a) for a in p.args)
            return self.error(f"cannot infer the type of this call of {p.name}: its argument "
                              f"types ({shown}) are not known well enough", p.node)
        e = p.node
        assert isinstance(e, TupleGetItem)
        return self.error(f"cannot infer the type of projection .{e.index}: the type of the "
                          "tuple is not known", e)

    # ----------------------------------------------------------------------------- rebuild

    def rebuild(self, roots: list[Expr], walked: bool = False
                ) -> tuple[list[Expr], dict[int, Type]]:
        """Copy the roots with every annotation filled; map new node ids to final types.
        `walked`: the roots are exactly what `run` walked, whose order then serves."""
        new: dict[int, Expr] = {}
        final: dict[int, Type] = {}
        zonked: dict[int, Type] = {}
        types, zonk_final, var_type = self.types, self.zonk_final, self.var_type

        def new_var(v: Var) -> Var:
            nv = new.get(id(v))
            if nv is None:
                nv = v
                vt = zonk_final(var_type(v))
                if v.type_annotation is None or (_incomplete(v.type_annotation)
                                                 and vt != v.type_annotation):
                    nv = Var(v.name_hint, vt, span=v.span, virtual_device=v.virtual_device)
                new[id(v)] = nv
                final[id(nv)] = vt
            return nv

        rebuild = _Rebuild(new, new_var, self.fn_ret_final).by_type()
        try:
            nodes = self.order if walked else chain.from_iterable(map(post_order, roots))
            for n in nodes:
                key = id(n)
                if key in new:
                    continue
                cls = type(n)
                if cls is Var:
                    new_var(n)  # type: ignore[arg-type]
                    continue
                f = rebuild.get(cls)
                nn = f(n) if f is not None else n
                new[key] = nn
                t = types.get(key)
                if t is not None:
                    z = zonked.get(id(t))  # (types hold the raw terms: their ids stay theirs)
                    if z is None:
                        z = zonked[id(t)] = zonk_final(t)
                    final[id(nn)] = z
            out = [new[id(root)] for root in roots]
        except RecursionError:
            raise RelayTypeError("type inference gave up: a type or pattern is nested too "
                                 "deeply", self.cur_span) from None
        return out, final

    def fn_ret_final(self, fn: Function) -> Type:
        return self.zonk_final(self.fn_ret(fn))


class _Rebuild:
    """Each expression node over its already-rebuilt children (itself when nothing changed):
    a let, and a function whose return type is filled in, here; the rest by `with_children`."""

    def __init__(self, new: dict[int, Expr], new_var: Callable[[Var], Var],
                 fn_ret: Callable[[Function], Type]) -> None:
        self.get = new.get
        self.new_var = new_var
        self.fn_ret = fn_ret

    def by_type(self) -> dict[type, Callable]:
        """The rebuilder of each node class (a table the caller holds: on self, a cycle)."""
        visit = self.visit
        table: dict[type, Callable] = {
            cls: (lambda n: with_children(n, visit))
            for cls in (Tuple, TupleGetItem, Call, If, RefCreate, RefRead, RefWrite, Match)}
        table[Let] = self.let
        table[Function] = self.function
        return table

    def visit(self, c: Expr) -> Expr:
        """c rebuilt (a pattern's variable: annotated here, as it is met)."""
        return self.new_var(c) if type(c) is Var else self.get(id(c), c)  # type: ignore[arg-type]

    def let(self, n: Let) -> Expr:
        get = self.get
        v, val, body = get(id(n.var), n.var), get(id(n.value), n.value), get(id(n.body), n.body)
        if v is n.var and val is n.value and body is n.body:
            return n
        return Let(v, val, body, span=n.span)  # type: ignore[arg-type]

    def function(self, n: Function) -> Expr:
        ps = tuple(map(self.visit, n.params))
        body = self.visit(n.body)
        ret = n.ret_type
        if ret is None or _incomplete(ret):
            ret = self.fn_ret(n)
        if _same(ps, n.params) and body is n.body and ret == n.ret_type:
            return n
        return Function(ps, body, ret, n.type_params, n.attrs,  # type: ignore[arg-type]
                        span=n.span, virtual_device=n.virtual_device)


# ----------------------------------------------------------------------------------- helpers


def _subterms(t: Type) -> Iterable[Type]:
    if isinstance(t, TupleType):
        return t.fields
    if isinstance(t, FuncType):
        return (*t.arg_types, t.ret_type)
    if isinstance(t, RefType):
        return (t.value,)
    if isinstance(t, TypeCall):
        return t.args
    return ()


def _incomplete(t: Type) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, IncompleteType | _Hole):
            return True
        stack.extend(_subterms(u))
    return False


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=False))


def _dtype_name(dt: np.dtype) -> str:
    return "bool" if dt == np.bool_ else str(dt)


def _callee_name(e: Expr) -> str:
    if isinstance(e, GlobalVar):
        return f"@{e.name_hint}"
    if isinstance(e, Var):
        return f"%{e.name_hint}"
    return "the function"


def _at(p: Pattern, c: Clause, m: Match) -> object:
    """The node whose span locates a pattern error: the pattern, else its clause, else the match."""
    for x in (p, c):
        if getattr(x, "span", None) is not None:
            return x
    return m
