"""First-order reverse-mode AD, as TVM v0.19's `first_order_gradient.cc` (FirstOrderGradient).

For pure dataflow programs (vars, constants, tuples, projections, operator calls and calls of
function literals; a DAG is fine): no references, no closures. Every value is an `ADTensor`, a
let-bound forward value with a let-bound reverse (gradient) expression, zeros to start with;
each operator call, tuple and projection records a backprop action, and after the output's
reverse is seeded with ones (every field of a tuple output, unlike the higher-order
transform), the actions run in reverse order, each replacing its inputs' reverse expressions by
sums with what its gradient rule returns. The result is
`fn(xs) -> (f(xs), (dxs...))`:

    let %x_0 = %x; let %x_1 = zeros_like(%x_0); ...forward...; (%fwd, let ...backward...; (grads))

Every node is visited once (a memo by node), so a shared node is computed once and its
gradient accumulated once (test_no_duplication). Deviation: the let-bound forward and reverse
variables carry their types as annotations (TVM sets `checked_type_` instead), since the
project's gradient rules read argument types from annotations; once types are inferred the two
print alike.
"""

from __future__ import annotations

from collections.abc import Callable

from ...diagnostics import Span
from ...runtime import gc_paused
from ..ast import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    Module,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
    post_order,
    type_str,
)
from ..errors import RelayTypeError
from ..ops import RuleError, make_call
from ..typeinfer import infer_types
from .ad_shared import CHECKPOINT, GenSym, LetList, first_free_index, grad_ret_type, gradient_rule

__all__ = ["first_order_gradient", "first_order_gradient_module"]

# what FirstOrderGradient's CheckFeature admits (fVar, fConstant, fTuple, fTupleGetItem,
# fFunction, fOp, fCall, fGraph)
_ALLOWED = (Var, Constant, Tuple, TupleGetItem, Function, Op, Call)


class _Fail(Exception):
    """A diagnostic of the pass, located at a node's span."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def _factory(t: Type, name: str, span: Span | None) -> Expr:
    """MultiFactory: `zeros`/`ones` of t's shape, tuples field by field."""
    if isinstance(t, TensorType):
        if any(d is None for d in t.shape):
            raise _Fail(f"could not build tensors using factory for type {type_str(t)} "
                        "(its shape is not static)", span)
        return make_call(name, shape=tuple(int(d) for d in t.shape), dtype=t.dtype)  # type: ignore[arg-type]
    if isinstance(t, TupleType):
        return Tuple(tuple(_factory(f, name, span) for f in t.fields))
    raise _Fail(f"could not build tensors using factory for type {type_str(t)}", span)


def _factory_like(e: Expr, t: Type, name: str, span: Span | None) -> Expr:
    """MultiFactoryLike: `zeros_like(e)` for a tensor, the factory for a tuple."""
    if isinstance(t, TensorType):
        return make_call(f"{name}_like", e)
    if isinstance(t, TupleType):
        return _factory(t, name, span)
    raise _Fail(f"could not build tensors using factory for type {type_str(t)}", span)


class _ADTensor:
    """A value under AD: its let-bound forward value and its (mutable) reverse expression."""

    __slots__ = ("forward", "reverse", "type")

    def __init__(self, ll: LetList, forward: Expr, t: Type, span: Span | None) -> None:
        self.type = t
        self.forward = ll.push(forward, t)
        self.reverse: Expr = ll.push(_factory_like(self.forward, t, "zeros", span), t)


class _ADFunction:
    """A function reflected over AD values: (AD arguments, the original call) -> AD result."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[list[object], Call], object]) -> None:
        self.func = func


def _lifted_add(t: Type, x: Expr, y: Expr, ll: LetList, span: Span | None) -> Expr:
    """`x + y` for tensors, field by field for tuples (every step let-bound)."""
    if isinstance(t, TensorType):
        return ll.push(make_call("add", x, y), t)
    if isinstance(t, TupleType):
        fields = tuple(
            _lifted_add(ft, ll.push(TupleGetItem(x, i), ft), ll.push(TupleGetItem(y, i), ft),
                        ll, span)
            for i, ft in enumerate(t.fields))
        return ll.push(Tuple(fields), t)
    raise _Fail(f"cannot lift addition for type {type_str(t)}", span)


class _FirstOrderReverseAD:
    """FirstOrderReverseAD: an expression visitor (memoised by node) building the forward
    program in `ll` and recording the backprop actions."""

    def __init__(self, ll: LetList, type_of: Callable[[Expr], Type]) -> None:
        self.ll = ll
        self.type_of = type_of
        self.env: dict[int, object] = {}
        self.keep: list[Expr] = []  # nodes keyed by id in env stay alive
        self.actions: list[Callable[[LetList], None]] = []

    def visit(self, e: Expr) -> object:
        hit = self.env.get(id(e))
        if hit is not None:
            return hit
        if isinstance(e, Var):  # a var is always bound (a parameter) before it is met
            raise _Fail(f"first-order AD: %{e.name_hint} is not a parameter of a function "
                        "being applied (free variables and closures are not supported)", e.span)
        out = self._visit(e)
        self.env[id(e)] = out
        self.keep.append(e)
        return out

    def bind(self, v: Var, value: object) -> None:
        self.env[id(v)] = value
        self.keep.append(v)

    def tensor(self, value: object, e: Expr, what: str) -> _ADTensor:
        """value as an ADTensor (v0.19's `get<ADTensor>()`, an ICHECK there)."""
        if not isinstance(value, _ADTensor):
            raise _Fail(f"first-order AD: {what} is a function, not a tensor or a tuple of "
                        "them (closures are not supported)", getattr(e, "span", None))
        return value

    def _visit(self, e: Expr) -> object:
        if isinstance(e, Op):
            return self.op(e)
        if isinstance(e, Constant):
            return _ADTensor(self.ll, e, self.type_of(e), e.span)
        if isinstance(e, Tuple):
            return self.tuple(e)
        if isinstance(e, TupleGetItem):
            return self.projection(e)
        if isinstance(e, Call):
            f = self.visit(e.op)
            if not isinstance(f, _ADFunction):
                raise _Fail("first-order AD can only call operators and function literals",
                            e.span)
            args = [self.visit(a) for a in e.args]
            return f.func(args, e)
        if isinstance(e, Function):
            return self.function(e)
        raise _Fail(f"first-order AD does not support {type(e).__name__} nodes", _span(e))

    def op(self, op: Op) -> _ADFunction:
        if op.name == CHECKPOINT or gradient_rule(op.name) is None:
            raise _Fail(f"the operator {op.name} does not have a registered gradient.", op.span)
        rule = gradient_rule(op.name)
        assert rule is not None

        def apply(ad_args: list[object], orig: Call) -> object:
            args = [self.tensor(a, x, f"argument {i} of {op.name}")
                    for i, (a, x) in enumerate(zip(ad_args, orig.args, strict=True))]
            orig_new = Call(op, tuple(a.forward for a in args), orig.attrs, orig.type_args,
                            span=orig.span)
            ret = _ADTensor(self.ll, orig_new, self.type_of(orig), orig.span)

            def backprop(ll: LetList) -> None:
                try:
                    rev = rule(orig_new, ret.reverse)
                except RuleError as err:
                    raise _Fail(f"gradient of {op.name}: {err}", orig.span) from None
                if len(rev) != len(args):
                    raise _Fail(f"arity mismatch for operator {op.name} and its registered "
                                f"gradient: expected {len(args)} but got {len(rev)} "
                                "gradients.", orig.span)
                for a, r in zip(args, rev, strict=True):
                    a.reverse = _lifted_add(a.type, a.reverse, r, ll, orig.span)

            self.actions.append(backprop)
            return ret

        return _ADFunction(apply)

    def projection(self, e: TupleGetItem) -> _ADTensor:
        tup = self.tensor(self.visit(e.tuple_value), e.tuple_value, "the projected value")
        tt = tup.type
        if not isinstance(tt, TupleType):
            raise _Fail(f"projection .{e.index} of a value of type {type_str(tt)}", e.span)
        idx = e.index
        orig = TupleGetItem(tup.forward, idx, span=e.span)  # the let-bound tuple: no copy
        ret = _ADTensor(self.ll, orig, self.type_of(e), e.span)

        def backprop(ll: LetList) -> None:
            # the gradient of pi_i: G with pi_i(G) = g and pi_j(G) = 0 elsewhere
            fields = []
            for i, ft in enumerate(tt.fields):
                pre = TupleGetItem(tup.reverse, i)
                fields.append(_lifted_add(ft, pre, ret.reverse, ll, e.span) if i == idx
                              else pre)
            tup.reverse = ll.push(Tuple(tuple(fields)), tt)

        self.actions.append(backprop)
        return ret

    def tuple(self, e: Tuple) -> _ADTensor:
        tt = self.type_of(e)
        assert isinstance(tt, TupleType)
        fields = [self.visit(f) for f in e.fields]
        ad_fields = []
        for f, node in zip(fields, e.fields, strict=True):
            if not isinstance(f, _ADTensor):
                raise _Fail("first-order AD only supports (nested) tuples of tensors",
                            _span(node) or e.span)
            ad_fields.append(f)
        orig = Tuple(tuple(f.forward for f in ad_fields), span=e.span)
        ret = _ADTensor(self.ll, orig, tt, e.span)

        def backprop(ll: LetList) -> None:
            for i, f in enumerate(ad_fields):
                f.reverse = _lifted_add(tt.fields[i], f.reverse, TupleGetItem(ret.reverse, i),
                                        ll, e.span)

        self.actions.append(backprop)
        return ret

    def function(self, fn: Function) -> _ADFunction:
        def apply(ad_args: list[object], orig: Call) -> object:
            if len(ad_args) != len(fn.params):
                raise _Fail(f"the function takes {len(fn.params)} argument(s), got "
                            f"{len(ad_args)}", orig.span)
            for p, a in zip(fn.params, ad_args, strict=True):
                self.bind(p, a)
            return self.visit(fn.body)

        return _ADFunction(apply)


def _span(e: object) -> Span | None:
    return getattr(e, "span", None)


def _check_features(fn: Function, what: str) -> None:
    """FirstOrderGradient's CheckFeature: only vars, constants, tuples, projections, function
    literals, operators and calls (sharing allowed)."""
    if fn.type_params:
        raise RelayTypeError(f"{what}: first-order AD does not support polymorphism yet.",
                             fn.span)
    for n in post_order(fn):
        if not isinstance(n, _ALLOWED):
            kind = "global function" if isinstance(n, GlobalVar) else type(n).__name__
            raise RelayTypeError(
                f"{what}: first-order AD supports only variables, constants, tuples, "
                f"projections, function literals, operators and calls; found a {kind}",
                _span(n) or fn.span)


def _transform(tfn: Function, type_of: Callable[[Expr], Type], gensym: GenSym) -> Function:
    """The gradient of one typed function (the body of FirstOrderGradient's loop)."""
    ll = LetList(gensym)
    ad = _FirstOrderReverseAD(ll, type_of)
    rev = ad.visit(tfn)
    assert isinstance(rev, _ADFunction)
    params = [_ADTensor(ll, p, type_of(p), p.span) for p in tfn.params]
    placeholder = Call(tfn, ())
    res = ad.tensor(rev.func(list(params), placeholder), tfn.body, "the function's result")

    back = LetList(gensym)
    res.reverse = _factory_like(res.forward, res.type, "ones", tfn.span)
    for action in reversed(ad.actions):
        action(back)
    grads = back.get(Tuple(tuple(p.reverse for p in params)))
    body = ll.get(Tuple((res.forward, grads)))
    param_ts = [p.type_annotation for p in tfn.params]
    ret = None
    if tfn.ret_type is not None and all(t is not None for t in param_ts):
        ret = grad_ret_type(param_ts, tfn.ret_type)  # type: ignore[arg-type]
    return Function(tfn.params, body, ret, (), tfn.attrs, span=tfn.span,
                    virtual_device=tfn.virtual_device)


def _run(mod: Module, names: list[str]) -> dict[str, Function]:
    for name in names:
        _check_features(mod.functions[name], f"@{name}")
    typed = infer_types(mod)
    gensym = GenSym(first_free_index(typed.module))
    out: dict[str, Function] = {}
    try:
        for name in names:
            out[name] = _transform(typed.module.functions[name], typed.type_of, gensym)
    except _Fail as err:
        raise RelayTypeError(err.message, err.span) from None
    return out


@gc_paused()
def first_order_gradient_module(mod: Module, entry: str | None = None) -> Module:
    """FirstOrderGradient: every function of mod (only `@entry` when given) replaced by its
    gradient, type-inferred. v0.19 transforms each function on its own (and warns when
    there are several), so no function may call a global."""
    if entry is not None and entry not in mod.functions:
        raise RelayTypeError(f"the module has no @{entry} to differentiate")
    names = [entry] if entry is not None else list(mod.functions)
    fns = dict(mod.functions)
    fns.update(_run(mod, names))
    return infer_types(Module(fns, mod.type_defs, mod.source_name)).module


@gc_paused()
def first_order_gradient(func: Function) -> Function:
    """`relay.transform.gradient(func, mode="first_order")`: FirstOrderGradient on a module
    made of func alone, its `@main` (not yet type-inferred, as TVM returns it)."""
    if not isinstance(func, Function):
        raise RelayTypeError(f"gradient needs a function, got {type(func).__name__}",
                             _span(func))
    return _run(Module({"main": func}), ["main"])["main"]
