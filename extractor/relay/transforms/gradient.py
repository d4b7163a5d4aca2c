"""Higher-order reverse-mode AD, structurally as TVM v0.19's `higher_order_gradient.cc`.

`gradient(f)` returns `fn(xs) -> (f(xs), (dxs...))` built from reference cells: every tensor
value becomes an AD pair `(value, ref(gradient))`, and one cell `bp: ref(fn () -> ())` holds the
backpropagator chain. Each op call pushes a closure that reads its output gradient, adds the
op's gradient rule (declared with the op in `extractor.relay.ops`) into its arguments' cells and
then calls the previous closure; calling `ref_read(bp)()` after seeding the output runs the
backward pass. The closure is put through ToANormalForm; everything else is let-bound by a
LetList with `x_N` names.
See relay-notes §2 for the generated shape; deviations are noted where they happen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ...diagnostics import Span
from ...runtime import gc_paused, recursion_limit
from ..ast import (
    UNIT,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    ExprMutator,
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
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeVar,
    Var,
    bound_vars,
    children,
    post_order,
    type_str,
)
from ..errors import RelayTypeError
from ..ops import RuleError
from ..typeinfer import infer_types
from .ad_shared import (
    CHECKPOINT,
    GenSym,
    LetList,
    first_free_index,
    grad_ret_type,
    gradient_rule,
    with_let_list,
)

BPT: Type = RefType(FuncType((), UNIT))
"""`ref(fn () -> ())`: the cell holding the current backpropagator."""

# ----------------------------------------------------------------------------------------- types


def reverse_type(t: Type) -> Type:
    """ReverseType: Tensor T -> (T, ref(T)); a function type gains a trailing bp parameter."""
    if isinstance(t, TensorType):
        return TupleType((t, RefType(t)))
    if isinstance(t, TupleType):
        return TupleType(tuple(reverse_type(f) for f in t.fields))
    if isinstance(t, FuncType):
        args = tuple(reverse_type(a) for a in t.arg_types) + (BPT,)
        return FuncType(args, reverse_type(t.ret_type), t.type_params)
    if isinstance(t, RefType):
        return RefType(reverse_type(t.value))
    if isinstance(t, TypeCall):
        return TypeCall(t.name, tuple(reverse_type(a) for a in t.args))
    if isinstance(t, (TypeVar, IncompleteType)):
        return t
    raise TypeError(f"unknown type {type_str(t)}")


def _field(e: Expr, i: int) -> Expr:
    return TupleGetItem(e, i)


def _is_atomic(e: Expr) -> bool:
    return isinstance(e, (Var, GlobalVar, Op, Constructor, Constant))


def lift_tensor(
    f: Callable[[Expr], Expr],
    tf: Callable[[Type], Type],
    forward_type: Type,
    e: Expr,
    ll: LetList,
) -> Var:
    """Apply f to every tensor leaf of e (of forward_type), binding each step, rebuilding tuples."""
    if isinstance(forward_type, TensorType):
        return ll.push(f(e), tf(forward_type))
    if isinstance(forward_type, TupleType):
        fields: list[Expr] = []
        for i, ft in enumerate(forward_type.fields):
            sub = ll.push(_field(e, i), None)
            fields.append(lift_tensor(f, tf, ft, sub, ll))
        return ll.push(Tuple(tuple(fields)), tf(forward_type))
    raise _Unsupported(f"unsupported input/output type of an operator: {type_str(forward_type)}")


def get_value(t: Type, e: Expr, ll: LetList) -> Var:
    """The primal part of an AD value (`.0` of every tensor leaf)."""
    return lift_tensor(lambda x: _field(x, 0), lambda ft: ft, t, e, ll)


def get_rev(t: Type, e: Expr, ll: LetList) -> Var:
    """A fresh AD value for primal e: `(e, ref(zeros_like(e)))` per tensor leaf."""
    return lift_tensor(
        lambda x: Tuple((x, RefCreate(Call(Op("zeros_like"), (x,))))), reverse_type, t, e, ll
    )


def get_grad(t: Type, e: Expr, ll: LetList) -> Var:
    """The gradient held by an AD value (`ref_read(.1)` per tensor leaf)."""
    return lift_tensor(lambda x: RefRead(_field(x, 1)), lambda ft: ft, t, e, ll)


def update_grad(t: Type, arg: Expr, grad: Expr, ll: LetList) -> None:
    """`arg.1 := arg.1 + grad` for every tensor leaf (tuples recurse field by field)."""
    if isinstance(t, TensorType):
        ref = _field(arg, 1)
        ll.push(RefWrite(ref, Call(Op("add"), (RefRead(_field(arg, 1)), grad))), UNIT)
    elif isinstance(t, TupleType):
        for i, ft in enumerate(t.fields):
            update_grad(ft, ll.push(_field(arg, i)), ll.push(_field(grad, i)), ll)
    else:
        raise _Unsupported(f"unsupported argument type of an operator: {type_str(t)}")


def transfer_grads(t: Type, frm: Expr, to: Expr, ll: LetList) -> None:
    """Copy the gradient of every tensor leaf of frm into to's cells (for checkpoints)."""
    if isinstance(t, TensorType):
        ll.push(RefWrite(_field(to, 1), RefRead(_field(frm, 1))), UNIT)
    elif isinstance(t, TupleType):
        for i, ft in enumerate(t.fields):
            transfer_grads(ft, ll.push(_field(frm, i)), ll.push(_field(to, i)), ll)
    else:
        raise _Unsupported(f"unsupported checkpoint type: {type_str(t)}")


class _Unsupported(Exception):
    """An ICHECK of the transform failed; turned into a located RelayTypeError by the caller."""


# ------------------------------------------------------------------------------ ToANormalForm


class _ANF:
    """ToANormalForm on a backpropagator closure: every sub-expression let-bound as `x_N`.

    A shared node is bound once in the innermost enclosing scope that saw it first. A let
    chain keeps its vars; its body is bound, then one alias `let %x_b = %x_a` per let level,
    as TVM's Fill does (the root closure itself is returned unbound, relay-notes §2.2).
    """

    def __init__(self, gensym: GenSym) -> None:
        self.gensym = gensym
        self.scopes: list[tuple[LetList, dict[int, Expr]]] = []
        self.keep: list[Expr] = []

    def function(self, fn: Function) -> Function:
        return replace(fn, body=self.block(fn.body))

    def block(self, e: Expr) -> Expr:
        ll = LetList(self.gensym)
        self.scopes.append((ll, {}))
        try:
            atom = self.norm(e)
        finally:
            self.scopes.pop()
        return ll.get(atom)

    def _lookup(self, e: Expr) -> Expr | None:
        for _, memo in reversed(self.scopes):
            hit = memo.get(id(e))
            if hit is not None:
                return hit
        return None

    def _bind(self, orig: Expr, now: Expr, v: Var | None) -> Var:
        ll, memo = self.scopes[-1]
        out = ll.push(now, None, v)
        memo[id(orig)] = out
        self.keep.append(orig)
        return out

    def norm(self, e: Expr, v: Var | None = None) -> Expr:
        hit = self._lookup(e)
        if hit is not None:
            if v is not None:
                return self.scopes[-1][0].push(hit, None, v)
            return hit
        if isinstance(e, (Var, GlobalVar, Op, Constructor)):
            return self.scopes[-1][0].push(e, None, v) if v is not None else e
        if isinstance(e, Constant):
            return self._bind(e, e, v)
        if isinstance(e, Let):
            return self._let(e, v)
        if isinstance(e, Tuple):
            now: Expr = Tuple(tuple(self.norm(f) for f in e.fields), span=e.span)
        elif isinstance(e, TupleGetItem):
            now = TupleGetItem(self.norm(e.tuple_value), e.index, span=e.span)
        elif isinstance(e, Call):
            op = self.norm(e.op)
            args = tuple(self.norm(a) for a in e.args)
            now = Call(op, args, e.attrs, e.type_args, span=e.span)
        elif isinstance(e, RefCreate):
            now = RefCreate(self.norm(e.value), span=e.span)
        elif isinstance(e, RefRead):
            now = RefRead(self.norm(e.ref), span=e.span)
        elif isinstance(e, RefWrite):
            r = self.norm(e.ref)
            now = RefWrite(r, self.norm(e.value), span=e.span)
        elif isinstance(e, Function):
            now = self.function(e)
        elif isinstance(e, If):
            c = self.norm(e.cond)
            now = If(c, self.block(e.true_branch), self.block(e.false_branch), span=e.span)
        elif isinstance(e, Match):
            d = self.norm(e.data)
            clauses = tuple(Clause(c.lhs, self.block(c.rhs), span=c.span) for c in e.clauses)
            now = Match(d, clauses, e.complete, span=e.span)
        else:
            raise TypeError(f"ANF: unexpected {type(e).__name__}")
        return self._bind(e, now, v)

    def _let(self, e: Let, v: Var | None) -> Expr:
        levels: list[Let] = []
        cur: Expr = e
        while isinstance(cur, Let):
            levels.append(cur)
            self.norm(cur.value, cur.var)
            cur = cur.body
        out = self.norm(cur)  # atomic: a compound body has just been bound
        ll = self.scopes[-1][0]
        for i in range(len(levels) - 1, -1, -1):
            out = ll.push(out, None, v if i == 0 else None)
        return out


def to_a_normal_form(fn: Function, gensym: GenSym) -> Function:
    """ToANormalForm of a closure literal: its body is flattened, the literal itself stays."""
    return _ANF(gensym).function(fn)


# ------------------------------------------------------------------------------------ ReverseAD


class _Ctx:
    """State shared by every ReverseAD visitor of one gradient call."""

    def __init__(self, type_of: Callable[[Expr], Type], funcs: dict[str, Function],
                 gensym: GenSym, taken: set[str]) -> None:
        self._type_of = type_of
        self.funcs = funcs  # the typed module's functions, for global callees
        self.gensym = gensym
        self.ad_vars: dict[Var, Var] = {}
        self.ad_gvars: dict[str, GlobalVar] = {}
        self.new_funcs: dict[str, Function] = {}
        self.taken = taken
        self.origin: dict[int, Expr] = {}  # DeDup copy -> typed original
        self.keep: list[Expr] = []

    def type_of(self, e: Expr) -> Type:
        if isinstance(e, Var) and e.type_annotation is not None:
            return e.type_annotation
        return self._type_of(self.origin.get(id(e), e))

    def dedup(self, e: Expr) -> Expr:
        """DeDup: a copy of e with fresh bound vars, types remembered through `origin`."""
        out = _DeDup(e).visit(e)
        stack = [(e, out)]  # same shape: pair the nodes up to carry types over
        while stack:
            a, b = stack.pop()
            if a is not b:
                self.origin[id(b)] = self.origin.get(id(a), a)
                self.keep.append(b)
                stack.extend(zip(children(a), children(b), strict=True))
        return out


class _DeDup(ExprMutator):
    def __init__(self, root: Expr) -> None:
        super().__init__()
        self.fresh = {v: Var(v.name_hint, v.type_annotation, span=v.span) for v in bound_vars(root)}

    def visit_Var(self, e: Var) -> Expr:
        return self.fresh.get(e, e)

    def visit_Function(self, e: Function) -> Expr:
        ps = tuple(self.visit(p) for p in e.params)
        return Function(ps, self.visit(e.body), e.ret_type, e.type_params, e.attrs,  # type: ignore[arg-type]
                        span=e.span)


class ReverseAD(ExprMutator):
    """Turns a typed expression into one over AD values, threading the backpropagator `bp`."""

    def __init__(self, ctx: _Ctx, bp: Var) -> None:
        super().__init__()
        self.ctx = ctx
        self.bp = bp

    def _with(self, build: Callable[[LetList], Expr]) -> Expr:
        return with_let_list(self.ctx.gensym, build)

    # -- atoms
    def visit_Var(self, e: Var) -> Expr:
        hit = self.ctx.ad_vars.get(e)
        if hit is None:
            ann = e.type_annotation
            hit = Var(e.name_hint, reverse_type(ann), span=e.span,
                      virtual_device=e.virtual_device) if ann is not None else e
            self.ctx.ad_vars[e] = hit
        return hit

    def visit_Op(self, e: Op) -> Expr:
        raise _Located(f"op {e.name} is used as a value; it should only be called", e.span)

    def visit_Constant(self, e: Constant) -> Expr:
        def build(ll: LetList) -> Expr:
            k = ll.push(e, self.ctx.type_of(e))
            return Tuple((k, RefCreate(Call(Op("zeros_like"), (k,)))))

        return self._with(build)

    def visit_GlobalVar(self, e: GlobalVar) -> Expr:
        ctx = self.ctx
        gv = ctx.ad_gvars.get(e.name_hint)
        if gv is not None:
            return gv
        name = e.name_hint + "_grad"
        if name in ctx.taken:
            raise _Located(f"cannot add @{name}: the module already defines it", e.span)
        fn = ctx.funcs.get(e.name_hint)
        if fn is None:
            raise _Located(f"global @{e.name_hint} is not defined in the module", e.span)
        gv = GlobalVar(name)
        ctx.ad_gvars[e.name_hint] = gv
        ctx.taken.add(name)
        orig = ctx.dedup(fn)
        assert isinstance(orig, Function)
        # a polymorphic global keeps its type parameters: v0.19 requires only the entry
        # function to be monomorphic (higher_order_gradient.cc Gradient, ReverseAD GlobalVar)
        params = tuple(self.visit(p) for p in orig.params) + (self.bp,)
        ret = reverse_type(orig.ret_type) if orig.ret_type is not None else None
        body = self.visit(orig.body)
        ctx.new_funcs[name] = Function(params, body, ret, orig.type_params, orig.attrs,  # type: ignore[arg-type]
                                       span=orig.span)
        return gv

    # -- structure
    def visit_If(self, e: If) -> Expr:
        c = TupleGetItem(self.visit(e.cond), 0)
        return If(c, self.visit(e.true_branch), self.visit(e.false_branch), span=e.span)

    def visit_Function(self, e: Function) -> Expr:
        params = tuple(self.visit(p) for p in e.params)
        new_bp = Var("bp", BPT)
        body = ReverseAD(self.ctx, new_bp).visit(e.body)
        ret = reverse_type(e.ret_type) if e.ret_type is not None else None
        return Function(params + (new_bp,), body, ret, e.type_params, e.attrs,  # type: ignore[arg-type]
                        span=e.span)

    def visit_Call(self, e: Call) -> Expr:
        if isinstance(e.op, Op):
            if e.op.name == CHECKPOINT:
                return self._checkpoint(e)
            return self._op_call(e, e.op)
        if isinstance(e.op, Constructor):
            args = tuple(self.visit(a) for a in e.args)
            targs = tuple(reverse_type(t) for t in e.type_args)
            return Call(e.op, args, e.attrs, targs, span=e.span)
        args = tuple(self.visit(a) for a in e.args) + (self.bp,)
        return Call(self.visit(e.op), args, span=e.span)

    # -- the op-call core
    def _op_call(self, call: Call, op: Op) -> Expr:
        rule = gradient_rule(op.name)
        if rule is None:
            raise _Located(f"operator {op.name} has no gradient rule", call.span or op.span)
        ctx = self.ctx
        ret_t = ctx.type_of(call)
        arg_ts = [ctx.type_of(a) for a in call.args]

        def build(ll: LetList) -> Expr:
            pairs = zip(call.args, arg_ts, strict=True)
            args = [ll.push(self.visit(a), reverse_type(t)) for a, t in pairs]
            orig_args = [get_value(t, a, ll) for a, t in zip(args, arg_ts, strict=True)]
            orig = Call(op, tuple(orig_args), call.attrs, call.type_args, span=call.span)
            orig_var = ll.push(orig, ret_t)
            ret = ll.push(get_rev(ret_t, orig_var, ll), reverse_type(ret_t))
            bpv = ll.push(RefRead(self.bp), FuncType((), UNIT))

            def closure_body(cl: LetList) -> Expr:
                g = get_grad(ret_t, ret, cl)
                try:
                    rev = rule(orig, g)
                except RuleError as err:
                    raise _Located(f"gradient of {op.name}: {err}", call.span) from None
                if len(rev) != len(args):
                    raise _Located(f"gradient rule of {op.name} returned {len(rev)} gradients "
                                   f"for {len(args)} arguments", call.span)
                for t, a, r in zip(arg_ts, args, rev, strict=True):
                    update_grad(t, a, r, cl)
                return Call(bpv, ())

            nbp = Function((), with_let_list(ctx.gensym, closure_body), UNIT)
            ll.push(RefWrite(self.bp, to_a_normal_form(nbp, ctx.gensym)), UNIT)
            return ret

        return self._with(build)

    # -- annotation.checkpoint: recompute inside the closure with its own bp
    def _checkpoint(self, call: Call) -> Expr:
        ctx = self.ctx
        (x,) = call.args
        ret_t = ctx.type_of(call)

        def build(ll: LetList) -> Expr:
            x_var = ll.push(self._remap(x), ret_t)
            ret = ll.push(get_rev(ret_t, x_var, ll), reverse_type(ret_t))
            bpv = ll.push(RefRead(self.bp), FuncType((), UNIT))

            def closure_body(cl: LetList) -> Expr:
                dup_bp = cl.push(RefCreate(Function((), Tuple(()), UNIT)), BPT)
                dup_ad = cl.push(ReverseAD(ctx, dup_bp).visit(ctx.dedup(x)), reverse_type(ret_t))
                transfer_grads(ret_t, ret, dup_ad, cl)
                cl.push(Call(RefRead(dup_bp), ()), UNIT)
                return Call(bpv, ())

            nbp = Function((), with_let_list(ctx.gensym, closure_body), UNIT)
            ll.push(RefWrite(self.bp, nbp), UNIT)
            return ret

        return self._with(build)

    def _remap(self, e: Expr) -> Expr:
        """e with every already-transformed var replaced by its primal value (Remap)."""
        ctx = self.ctx

        def build(ll: LetList) -> Expr:
            class _Remapper(ExprMutator):
                def visit_Var(self, v: Var) -> Expr:
                    ad = ctx.ad_vars.get(v)
                    if ad is None:
                        return v
                    return get_value(ctx.type_of(v), ad, ll)

            return _Remapper().visit(e)

        return self._with(build)


class _Located(Exception):
    """A precondition failure found during the transform, with the node's span."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


# --------------------------------------------------------------------------------- preconditions


def _span_of(e: Expr) -> Span | None:
    return getattr(e, "span", None)


def check_no_sharing(root: Expr, what: str) -> None:
    """Reject a DAG: a non-atomic node referenced twice (TVM's fGraph feature)."""
    seen: set[int] = set()
    stack: list[Expr] = [root]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            if not _is_atomic(e):
                raise RelayTypeError(
                    f"{what} is a graph, not a tree: a {type(e).__name__} node is shared; "
                    "gradient needs every non-atomic node to be used once", _span_of(e))
            continue
        seen.add(id(e))
        stack.extend(children(e))


def _check_syntax(fn: Function, what: str) -> None:
    """Preconditions that need no types: no type params, every op has a rule, no sharing."""
    if fn.type_params:
        raise RelayTypeError(f"{what} has type parameters; gradient supports no polymorphism",
                             fn.span)
    for n in post_order(fn):
        if isinstance(n, Call) and isinstance(n.op, Op):
            name = n.op.name
            if name != CHECKPOINT and gradient_rule(name) is None:
                raise RelayTypeError(f"operator {name} has no gradient rule (in {what})",
                                     n.span or n.op.span)
    check_no_sharing(fn, what)


# ------------------------------------------------------------------------------------------ API

@gc_paused()
def gradient(
    func: Function | GlobalVar, mod: Module | None = None, mode: str = "higher_order"
) -> tuple[Function, Module]:
    """TVM's `relay.transform.gradient(func, mod, mode)`.

    Returns the gradient function `fn(xs) -> (f(xs), (dxs...))` (not yet type-inferred, as TVM
    returns it) and the module with any generated `@name_grad` globals added. `first_order`
    is FirstOrderGradient on func alone (`first_order_gradient.py`); as in v0.19
    (python/tvm/relay/transform/transform.py) it takes no module.
    """
    if mode == "first_order":
        from .first_order_gradient import first_order_gradient

        if mod is not None and mod.functions:
            raise RelayTypeError("to run first-order AD on a module, use the FirstOrderGradient "
                                 "module pass (first_order_gradient_module)")
        if not isinstance(func, Function):
            raise RelayTypeError(f"first-order gradient needs a function, got "
                                 f"{type(func).__name__}", _span_of(func))
        return first_order_gradient(func), mod if mod is not None else Module({})
    if mode != "higher_order":
        raise RelayTypeError(f"unknown gradient mode {mode!r} (modes: 'higher_order', "
                             "'first_order')")
    base = mod if mod is not None else Module({})
    if isinstance(func, GlobalVar):
        if func.name_hint not in base.functions:
            raise RelayTypeError(f"global @{func.name_hint} is not defined in the module",
                                 func.span)
        key = func.name_hint
        fn = base.functions[key]
    elif isinstance(func, Function):
        fn = func
        key = next((k for k, f in base.functions.items() if f is fn), "")
    else:
        raise RelayTypeError(f"gradient needs a function, got {type(func).__name__}",
                             _span_of(func))
    tmp = base
    if not key:
        key = "__gradient_input"
        while key in base.functions:
            key += "_"
        tmp = base.with_function(key, fn)
    what = f"@{key}" if key in base.functions else "the function"
    _check_syntax(fn, what)
    for name, other in base.functions.items():
        if other is not fn:
            check_no_sharing(other, f"@{name}")

    typed = infer_types(tmp)
    tfn = typed.module.functions[key]
    for p, orig_p in zip(tfn.params, fn.params, strict=True):
        pt = p.type_annotation if p.type_annotation is not None else typed.type_of(p)
        if not isinstance(pt, TensorType):
            raise RelayTypeError(
                f"parameter %{orig_p.name_hint} has type {type_str(pt)}; gradient needs tensor "
                "parameters",
                orig_p.span or fn.span)

    try:
        with recursion_limit(20000):
            out, new_funcs = _gradient(tfn, typed, base)
    except _Located as err:
        raise RelayTypeError(err.message, err.span) from None
    except _Unsupported as err:
        raise RelayTypeError(str(err), fn.span) from None
    except RecursionError:
        raise RelayTypeError("expression nesting is too deep for the gradient transform",
                             fn.span) from None
    fns = dict(base.functions)
    fns.update(new_funcs)
    return out, Module(fns, base.type_defs, base.source_name)


def _gradient(tfn: Function, typed: object, base: Module) -> tuple[Function, dict[str, Function]]:
    typed_mod: Module = typed.module  # type: ignore[attr-defined]
    type_of: Callable[[Expr], Type] = typed.type_of  # type: ignore[attr-defined]
    gensym = GenSym(first_free_index(typed_mod))
    ctx = _Ctx(type_of, dict(typed_mod.functions), gensym, set(base.functions))
    ret_t = tfn.ret_type if tfn.ret_type is not None else type_of(tfn.body)
    param_ts = [p.type_annotation or type_of(p) for p in tfn.params]

    ll = LetList(gensym)
    bp = ll.push(RefCreate(Function((), Tuple(()), UNIT)), BPT)
    rev = ReverseAD(ctx, bp).visit(tfn)
    normal_args: list[Var] = []
    for p, t in zip(tfn.params, param_ts, strict=True):
        normal_args.append(ll.push(Tuple((p, RefCreate(Call(Op("zeros_like"), (p,))))),
                                   reverse_type(t)))
    c = ll.push(Call(rev, (*normal_args, bp)), reverse_type(ret_t))

    _init_grad(c, ret_t, ll)
    ll.push(Call(RefRead(bp), ()), UNIT)
    grads = tuple(RefRead(_field(a, 1)) for a in normal_args)
    body = ll.get(Tuple((_final_result(c, ret_t, ll), Tuple(grads))))
    # WithFields (higher_order_gradient.cc Gradient): attrs, span, virtual device kept
    out = replace(tfn, body=body, ret_type=grad_ret_type(param_ts, ret_t), type_params=())
    return out, ctx.new_funcs


# module functions, not closures: a recursive closure is a reference cycle keeping the whole
# let list alive until the next cyclic GC


def _init_grad(e: Expr, t: Type, ll: LetList) -> None:
    """Seed the output gradient: ones for the first tensor leaf of the result."""
    if isinstance(t, TensorType):
        ll.push(RefWrite(_field(e, 1), Call(Op("ones_like"), (_field(e, 0),))), UNIT)
    elif isinstance(t, TupleType):
        if not t.fields:
            raise _Unsupported("cannot seed the gradient of a function returning ()")
        _init_grad(ll.push(_field(e, 0), reverse_type(t.fields[0])), t.fields[0], ll)
    else:
        raise _Unsupported(f"cannot seed the gradient of a result of type {type_str(t)}")


def _final_result(e: Expr, t: Type, ll: LetList) -> Expr:
    """The primal result out of the AD value e (`.0` of every tensor leaf)."""
    if isinstance(t, TensorType):
        return _field(e, 0)
    if isinstance(t, TupleType):
        return Tuple(tuple(_final_result(ll.push(_field(e, i), reverse_type(ft)), ft, ll)
                           for i, ft in enumerate(t.fields)))
    raise _Unsupported(f"cannot return a result of type {type_str(t)} from a gradient")


@gc_paused()
def gradient_module(mod: Module, entry: str = "main") -> Module:
    """`mod` with `@entry` replaced by its gradient (plus any `@f_grad`), type-inferred."""
    if entry not in mod.functions:
        raise RelayTypeError(f"the module has no @{entry} to differentiate")
    fn, out = gradient(GlobalVar(entry), mod)
    return infer_types(out.with_function(entry, fn)).module
