"""TVM's two historical Relay dead-code eliminations, kept as faithful baselines.

`assume-pure` is `dead_code.cc` before apache/tvm PR #9542 (relay-notes §3.1): FindDef, then
CalcDep (lazy use counts, visit limit 2), then the Eliminator. Purity is never consulted, so dead
`ref_write`s and `ref_read`s (and every other binding whose value is unused) are deleted; this is
the bug of apache/tvm #6803.

`purity` is the module pass after #9542, as in v0.19 (relay-notes §3.2): a PurityVisitor over all
global functions (rules A-F), a UsageVisitor that counts a use from a deeper function scope
twice, and an EliminatorMutator that keeps every impure binding exactly in place.

Both walk let chains and deep expressions with explicit stacks (no Python recursion) and rebuild
memoised by node identity, so shared graph nodes (`%0 = ...;`) stay shared. Deviations from the
C++ are noted where they occur.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import NamedTuple

from ...runtime import gc_paused
from ..ast import (
    Call,
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
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    Var,
    children,
    pattern_vars,
    with_children,
)
from ..errors import RelayTypeError
from ..ops import lookup

MAX_CALL_DEPTH = 25  # kMaxCallDepth: calls nested deeper than this are assumed impure

TypeOf = Callable[[Expr], "Type | None"]


class Purity(NamedTuple):
    """pure_eval: evaluating it has no effect; pure_call: calling its value has none."""

    pure_eval: bool
    pure_call: bool


PURE = Purity(True, True)


@gc_paused()
def assume_pure_dce(mod: Module, inline_once: bool = False) -> Module:
    """Pre-#9542 DCE: a function pass over each global function; every binding assumed pure."""
    out = {}
    for name, fn in mod.functions.items():
        uses = _count_uses(fn, impure=_NO_VARS, deeper_scope_counts_twice=False, check_defs=True)
        out[name] = _eliminate(fn, uses, _NO_VARS, inline_once)
    return Module(out, mod.type_defs, mod.source_name)


@gc_paused()
def purity_dce(mod: Module, type_of: TypeOf, inline_once: bool = False) -> Module:
    """Post-#9542 DCE on a type-inferred module: impure bindings stay, pure dead ones go."""
    purity = compute_purity(mod, type_of)
    impure = {v for v, p in purity.items() if not p.pure_eval}
    out = {}
    for name, fn in mod.functions.items():
        uses = _count_uses(fn, impure=impure, deeper_scope_counts_twice=True, check_defs=False)
        out[name] = _eliminate(fn, uses, impure, inline_once)
    return Module(out, mod.type_defs, mod.source_name)


# ------------------------------------------------------------------------------ step 1: purity


def is_first_order(t: Type | None) -> bool:
    """IsFirstOrder: no function type anywhere inside t (unknown or incomplete types are not)."""
    stack: list[Type | None] = [t]
    while stack:
        u = stack.pop()
        if u is None or isinstance(u, (FuncType, IncompleteType)):
            return False
        if isinstance(u, TupleType):
            stack.extend(u.fields)
        elif isinstance(u, RefType):
            stack.append(u.value)
        elif isinstance(u, TypeCall):
            stack.extend(u.args)
    return True


def _is_skipped(fn: Function) -> bool:
    """Primitive and Extern functions are not analysed (their vars default to pure)."""
    return bool(fn.attrs.get("Primitive")) or bool(fn.attrs.get("Extern"))


def _is_external(fn: Function) -> bool:
    """A global bound to an external symbol is an opaque callee (rule F)."""
    return (
        bool(fn.attrs.get("Extern"))
        or fn.attrs.get("ExternalSymbol") is not None
        or fn.attrs.get("Compiler") is not None
    )


def compute_purity(mod: Module, type_of: TypeOf) -> dict[int, Purity]:
    """Purity of the value bound by every let, keyed by id(var), over all analysed globals."""
    visitor = _PurityVisitor(mod, type_of)
    for name, fn in mod.functions.items():
        if not _is_skipped(fn):
            visitor.drive(visitor.global_function(name, fn))
    return visitor.let_purity


_Visit = Generator[Expr, Purity, Purity]


class _PurityVisitor:
    """PurityVisitor of §3.2, written as generators run on an explicit stack (no recursion).

    Each `_visit_<Node>` generator yields the sub-expressions it needs and receives their purity;
    results are memoised by node identity, including the 'too deep' give-up, as in TVM. Vars and
    globals are not memoised: their purity is a table lookup (memoising a var would freeze the
    provisional (pure, pure) given to a recursive let while its value is visited).
    """

    def __init__(self, mod: Module, type_of: TypeOf) -> None:
        self.mod = mod
        self.type_of = type_of
        self.memo: dict[int, Purity] = {}
        self.var_purity: dict[int, Purity] = {}
        self.let_purity: dict[int, Purity] = {}
        self.global_pure_call: dict[str, bool] = {}
        self.depth = 0

    def drive(self, root: Generator[Expr, Purity, object]) -> object:
        """Run a visit generator to completion, expanding requested sub-expressions on a stack."""
        stack: list[tuple[Expr | None, Generator[Expr, Purity, object]]] = [(None, root)]
        sent: Purity | None = None
        while True:
            node, gen = stack[-1]
            try:
                req = gen.send(sent)  # type: ignore[arg-type]
            except StopIteration as stop:
                stack.pop()
                if node is not None and not isinstance(node, (Var, GlobalVar)):
                    self.memo[id(node)] = stop.value
                if not stack:
                    return stop.value
                sent = stop.value
                continue
            hit = self.memo.get(id(req))
            if hit is not None:
                sent = hit
                continue
            sent = None
            stack.append((req, getattr(self, "_visit_" + type(req).__name__)(req)))

    def _type(self, e: Expr) -> Type | None:
        if isinstance(e, Var) and e.type_annotation is not None:
            return e.type_annotation
        return self.type_of(e)

    def global_function(self, name: str, fn: Function) -> Generator[Expr, Purity, bool]:
        """Call purity of a global, memoised; assumed pure while its own body is visited."""
        known = self.global_pure_call.get(name)
        if known is not None:
            return known
        self.global_pure_call[name] = True
        p = yield fn
        self.global_pure_call[name] = p.pure_call
        return p.pure_call

    def _visit_Constant(self, e: Constant) -> _Visit:
        return PURE
        yield e  # pragma: no cover

    def _visit_Constructor(self, e: Constructor) -> _Visit:
        return PURE
        yield e  # pragma: no cover

    def _visit_Op(self, e: Op) -> _Visit:
        op = lookup(e.name)
        return Purity(True, not (op is not None and op.stateful))
        yield e  # pragma: no cover

    def _visit_Var(self, e: Var) -> _Visit:
        p = self.var_purity.get(id(e))
        if p is None:  # a free var (TVM ICHECKs): call-pure only if first-order
            return Purity(True, is_first_order(self._type(e)))
        return Purity(True, p.pure_call)
        yield e  # pragma: no cover

    def _visit_GlobalVar(self, e: GlobalVar) -> _Visit:
        fn = self.mod.functions.get(e.name_hint)
        if fn is None or _is_external(fn):  # externals and PrimFuncs are call-impure [F]
            return Purity(True, False)
        pure_call = yield from self.global_function(e.name_hint, fn)
        return Purity(True, pure_call)

    def _visit_Function(self, e: Function) -> _Visit:
        for p in e.params:  # higher-order parameters are assumed call-impure [B]
            self.var_purity[id(p)] = Purity(True, is_first_order(self._type(p)))
        body = yield e.body
        return Purity(True, body.pure_eval and body.pure_call)

    def _visit_Call(self, e: Call) -> _Visit:
        if self.depth >= MAX_CALL_DEPTH:
            return Purity(False, False)
        self.depth += 1
        callee = yield e.op
        pure_eval = callee.pure_eval and callee.pure_call
        for a in e.args:
            pure_eval = (yield a).pure_eval and pure_eval
        self.depth -= 1
        # [A] a first-order result cannot be called; otherwise it inherits the callee's purity
        return Purity(pure_eval, is_first_order(self._type(e)) or callee.pure_call)

    def _visit_Let(self, e: Let) -> _Visit:
        all_values = True
        cur: Expr = e
        while isinstance(cur, Let):
            self.var_purity[id(cur.var)] = PURE  # so a recursive closure may call itself
            p = yield cur.value
            self.var_purity[id(cur.var)] = p
            self.let_purity[id(cur.var)] = p
            all_values = all_values and p.pure_eval
            cur = cur.body
        body = yield cur
        return Purity(all_values and body.pure_eval, body.pure_call)

    def _visit_If(self, e: If) -> _Visit:
        c = yield e.cond
        t = yield e.true_branch
        f = yield e.false_branch
        return Purity(c.pure_eval and t.pure_eval and f.pure_eval, t.pure_call and f.pure_call)

    def _visit_Match(self, e: Match) -> _Visit:
        d = yield e.data
        pure_eval, pure_call = d.pure_eval, True
        for clause in e.clauses:
            for v in pattern_vars(clause.lhs):  # functions out of ADTs are call-impure [E]
                self.var_purity[id(v)] = Purity(True, is_first_order(self._type(v)))
            r = yield clause.rhs
            pure_eval = pure_eval and r.pure_eval
            pure_call = pure_call and r.pure_call
        return Purity(pure_eval, pure_call)

    def _visit_Tuple(self, e: Tuple) -> _Visit:
        pure_eval = True
        for f in e.fields:
            pure_eval = (yield f).pure_eval and pure_eval
        return Purity(pure_eval, True)

    def _visit_TupleGetItem(self, e: TupleGetItem) -> _Visit:
        t = yield e.tuple_value  # a function projected out of a tuple is call-impure [C]
        return Purity(t.pure_eval, is_first_order(self._type(e)))

    def _visit_RefCreate(self, e: RefCreate) -> _Visit:
        v = yield e.value
        return Purity(v.pure_eval, True)

    def _visit_RefRead(self, e: RefRead) -> _Visit:
        yield e.ref  # a function read from a ref is call-impure [D]
        return Purity(False, is_first_order(self._type(e)))

    def _visit_RefWrite(self, e: RefWrite) -> _Visit:
        yield e.ref
        yield e.value
        return Purity(False, True)


# ---------------------------------------------------------------------------- step 2: usage

_NO_VARS: frozenset[int] = frozenset()


def _count_uses(
    fn: Function, impure: set[int] | frozenset[int], deeper_scope_counts_twice: bool,
    check_defs: bool,
) -> dict[int, int]:
    """Use counts of let-bound vars (only 0, 1 and >=2 matter), keyed by id(var).

    CalcDep (assume-pure) and UsageVisitor (purity) share this walk: a let value is visited at
    the first use of its var (impure values at once, whatever their use), and every node at
    most twice. With `deeper_scope_counts_twice`, a use inside a function nested deeper than the
    binding counts one extra, so values are never inlined into lambdas. A lazily visited value
    is walked at its binding's scope level (where it stays or, when inlined, moves to), not at
    the use's; TVM's UsageVisitor may walk it at the use's level, which only counts more.
    Counts do not depend on the walk order, so a plain work stack suffices.
    """
    binding: dict[int, tuple[Let, int]] = {}
    uses: dict[int, int] = {}
    visits: dict[int, int] = {}
    stack: list[tuple[Expr, int]] = [(fn, 0)]
    while stack:
        e, level = stack.pop()
        seen = visits.get(id(e), 0)
        if seen >= 2:
            continue
        visits[id(e)] = seen + 1
        if isinstance(e, Var):
            b = binding.get(id(e))
            if b is None:  # a parameter, pattern var or free var
                continue
            let, bound_level = b
            first = id(e) not in uses
            extra = 1 if deeper_scope_counts_twice and level > bound_level else 0
            uses[id(e)] = uses.get(id(e), 0) + 1 + extra
            if first and id(e) not in impure:
                stack.append((let.value, bound_level))
        elif isinstance(e, Let):
            cur: Expr = e
            while isinstance(cur, Let):
                old = binding.get(id(cur.var))
                if old is not None and old[0] is not cur and check_defs:
                    raise RelayTypeError(
                        f"variable %{cur.var.name_hint} is bound by more than one let",
                        cur.span or cur.var.span,
                    )
                binding[id(cur.var)] = (cur, level)
                if id(cur.var) in impure:
                    stack.append((cur.value, level))
                cur = cur.body
            stack.append((cur, level))
        elif isinstance(e, Function):
            stack.append((e.body, level + 1))
        else:
            stack.extend((c, level) for c in children(e))
    return uses


# ------------------------------------------------------------------------- step 3: eliminate


def _eliminate(
    fn: Function, uses: dict[int, int], impure: set[int] | frozenset[int], inline_once: bool
) -> Function:
    """Drop unused pure lets, inline single-use ones when asked, keep impure ones in place.

    Rebuilds bottom-up on an explicit stack, memoised by node identity (shared nodes stay
    shared, unchanged nodes are returned as they are). An inlined var becomes the rebuilt value
    of its let, so the substitution shares whatever the value shared.
    """

    def keep(v: Var) -> bool:
        n = uses.get(id(v), 0)
        return id(v) in impure or n >= 2 or (n == 1 and not inline_once)

    inlined: dict[int, Expr] = {}  # id(var) -> its let's (original) value, for single uses

    memo: dict[int, Expr] = {}

    def deps(e: Expr) -> list[Expr]:
        if isinstance(e, Let):
            out: list[Expr] = []
            cur: Expr = e
            while isinstance(cur, Let) and (cur is e or id(cur) not in memo):
                if keep(cur.var):
                    out.append(cur.value)
                elif inline_once and uses.get(id(cur.var), 0) == 1:
                    inlined[id(cur.var)] = cur.value
                cur = cur.body
            out.append(cur)
            return out
        if isinstance(e, Var):
            v = inlined.get(id(e))
            return [] if v is None else [v]
        if isinstance(e, Function):
            return [e.body]
        if isinstance(e, Call):
            return [e.op, *e.args]
        if isinstance(e, Match):
            return [e.data, *(c.rhs for c in e.clauses)]
        return list(children(e))

    stack: list[tuple[Expr, bool]] = [(fn, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in memo:
            continue
        if not ready:
            stack.append((e, True))
            stack.extend((d, False) for d in reversed(deps(e)) if id(d) not in memo)
            continue
        memo[id(e)] = _rebuild(e, memo, keep, inlined)
    result = memo[id(fn)]
    assert isinstance(result, Function)
    return result


def _rebuild(
    e: Expr, memo: dict[int, Expr], keep: Callable[[Var], bool], inlined: dict[int, Expr]
) -> Expr:
    """One node from its already rebuilt children (the node itself when nothing changed)."""
    if isinstance(e, Let):
        chain: list[Let] = []
        cur: Expr = e
        while isinstance(cur, Let) and (cur is e or id(cur) not in memo):
            chain.append(cur)
            cur = cur.body
        out = memo[id(cur)]
        for let in reversed(chain):
            if keep(let.var):
                value = memo[id(let.value)]
                if not (value is let.value and out is let.body):
                    out = Let(let.var, value, out, span=let.span)
                else:
                    out = let
            memo[id(let)] = out
        return out
    if isinstance(e, Var):
        v = inlined.get(id(e))
        return e if v is None else memo[id(v)]
    # parameters and pattern variables are no dependencies: they stay as they are
    return with_children(e, lambda c: memo.get(id(c), c))

