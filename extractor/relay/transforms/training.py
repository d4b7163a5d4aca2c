"""A training step over a primal program: the seed scenario as a caller would really use it.

`training_step` differentiates `@main` (higher-order AD), keeps the gradient function as
`@main_grad` and makes a new `@main` with the same parameters that calls it and returns only the
loss and the chosen gradients. The gradients it drops are computed through reference cells that
nothing reads any more, which is exactly what an alias-aware DCE should be able to remove.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ast import (
    Call,
    Expr,
    Function,
    GlobalVar,
    Let,
    Module,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
)
from ..errors import RelayTypeError
from ..typeinfer import infer_types
from .gradient import gradient_module

GRAD_NAME = "main_grad"


def training_step(mod: Module, keep_grads: Sequence[int]) -> Module:
    """Wrap `@main`'s gradient as `@main_grad` and return (loss, grad[i] for i in keep_grads).

    The new `@main(params...)` is
    `let %r = @main_grad(params...); let %l = %r.0; let %g = %r.1; (loss, %g.i, ...)`, where the
    loss is the output the gradient seeds: `%l` itself for a tensor result, else field 0,
    recursively (`%l.0` for the seed program's `(loss, pred)`). Other globals, including any
    `@f_grad` the gradient adds, are kept. The result is type-inferred.
    """
    main = mod.functions.get("main")
    if main is None:
        raise RelayTypeError("a training step needs a @main to differentiate")
    if GRAD_NAME in mod.functions:
        raise RelayTypeError(f"the module already defines @{GRAD_NAME}; a training step would "
                             "overwrite it", mod.functions[GRAD_NAME].span)
    n = len(main.params)
    bad = [i for i in keep_grads if not isinstance(i, int) or not 0 <= i < n]
    if bad:
        raise RelayTypeError(f"gradient index {bad[0]!r} is out of range: @main has {n} "
                             f"parameter(s), so indices run from 0 to {n - 1}", main.span)
    primal = infer_types(mod).module
    ret = primal.functions["main"].ret_type
    grad = gradient_module(primal)
    grad_fn = grad.functions["main"]
    fns = {name: fn for name, fn in grad.functions.items() if name != "main"}
    fns[GRAD_NAME] = grad_fn

    params = tuple(Var(p.name_hint, p.type_annotation, span=p.span,
                       virtual_device=p.virtual_device) for p in grad_fn.params)
    r = Var("r")
    loss = Var("l")
    grads = Var("g")
    result = Tuple((_seeded_output(loss, ret), *(TupleGetItem(grads, i) for i in keep_grads)))
    body = Let(r, Call(GlobalVar(GRAD_NAME), params),
               Let(loss, TupleGetItem(r, 0),
                   Let(grads, TupleGetItem(r, 1), result)))
    fns["main"] = Function(params, body, None, (), main.attrs, span=main.span,
                           virtual_device=main.virtual_device)
    return infer_types(Module(fns, grad.type_defs, grad.source_name)).module


def _seeded_output(value: Expr, ty: Type | None) -> Expr:
    """Field 0, recursively, of a primal result: the output the gradient seeds with ones."""
    while isinstance(ty, TupleType) and ty.fields:
        value, ty = TupleGetItem(value, 0), ty.fields[0]
    if not isinstance(ty, TensorType):
        raise RelayTypeError(f"cannot take a loss from a result of type {ty}")
    return value
