"""A numpy interpreter for Relay with the semantics of TVM v0.19's debug interpreter.

It is the ground truth that DCE results are checked against, so it follows interpreter.cc rather
than what would be convenient: a program is first prepared as the debug executor prepares it
(`extractor.relay.transforms.prepare`: SimplifyInference, ToANormalForm, EtaExpand), so a
DAG-shared node, `ref(..)` included, is evaluated once, where ToANormalForm binds it; call
arguments are evaluated before the callee, `ref_write` evaluates the ref before the value and
yields `()`, closures capture their environment, and a let-bound function literal can call
itself through its let variable.

The evaluator is a CEK-style machine over an explicit continuation stack, so neither long let
chains nor long chains of closure calls (a backpropagator calling the previous one, 10,000 deep)
consume Python stack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..diagnostics import LocatedError, Span
from .ast import (
    Call,
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
    Var,
    pattern_vars,
    type_str,
)
from .ops import OpError, lookup, np_dtype
from .transforms.prepare import prepare, prepare_expr


class EvalError(LocatedError):
    """A Relay program went wrong while running (bad call, failed op, no matching clause)."""

    kind = "runtime error"


# ------------------------------------------------------------------------------------- values


class RefCell:
    """A mutable cell made by `ref(e)`; two refs alias exactly when they are the same cell."""

    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"RefCell({describe_value(self.value)})"


@dataclass(eq=False)
class Closure:
    """A function value: the literal, the values of its free variables, and, for a let-bound
    literal, the let variable that names the closure itself inside its body (TVM's RecClosure)."""

    func: Function
    env: dict[int, Value]
    self_var: Var | None = None

    def __repr__(self) -> str:
        return describe_value(self)


@dataclass(frozen=True, eq=False)
class ConstructorValue:
    """An ADT value: the constructor and its field values."""

    constructor: Constructor
    fields: tuple[Value, ...]

    def __repr__(self) -> str:
        return describe_value(self)


Value = np.ndarray | tuple | RefCell | Closure | ConstructorValue

# observer(event, node, cell) with event in {"create", "read", "write"}: the dynamic oracle's hook
Observer = Callable[[str, Expr, RefCell], None]
# on_bind(let, value) -> the value to bind instead: the perturbation oracle's hook;
# on_enter(let) is told when the evaluation of a let's value starts (binds nest inside it)
Binder = Callable[[Let, "Value"], "Value"]
Enter = Callable[[Let], None]

_MISSING = object()


def describe_value(v: Any, depth: int = 3) -> str:
    """A short human description of a value for error messages (bounded in depth and width)."""
    if isinstance(v, np.ndarray):
        ty = f"Tensor[{tuple(v.shape)}, {v.dtype}]" if v.ndim else str(v.dtype)
        if v.size <= 6:
            body = np.array2string(v, separator=", ", threshold=6)
            return f"{body}: {ty}"
        return ty
    if depth <= 0:
        return "..."
    if isinstance(v, tuple):
        parts = [describe_value(x, depth - 1) for x in v[:4]]
        if len(v) > 4:
            parts.append(f"... ({len(v)} fields)")
        return "(" + ", ".join(parts) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, ConstructorValue):
        name = v.constructor.name_hint
        if not v.fields:
            return name
        parts = [describe_value(x, depth - 1) for x in v.fields[:4]]
        if len(v.fields) > 4:
            parts.append("...")
        return f"{name}(" + ", ".join(parts) + ")"
    if isinstance(v, RefCell):
        return f"ref({describe_value(v.value, depth - 1)})"
    if isinstance(v, Closure):
        params = ", ".join("%" + p.name_hint for p in v.func.params)
        return f"<closure fn ({params})>"
    return f"<{type(v).__name__}>"


def _kind(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return "a tensor"
    if isinstance(v, tuple):
        return "a tuple"
    if isinstance(v, RefCell):
        return "a reference"
    if isinstance(v, Closure):
        return "a function"
    if isinstance(v, ConstructorValue):
        return f"an ADT value ({v.constructor.name_hint})"
    return f"a {type(v).__name__}"


def _normalise(out: Any) -> Value:
    """Op results as values: numpy scalars become rank-0 arrays, lists/tuples become tuples."""
    if isinstance(out, np.ndarray):
        return out
    if isinstance(out, np.generic):
        return np.asarray(out)
    if isinstance(out, (tuple, list)):
        return tuple(_normalise(x) for x in out)
    raise OpError(f"implementation returned {type(out).__name__}, not a tensor or tuple")


def _shape_summary(args: Sequence[Any]) -> str:
    """Argument types in Relay notation, e.g. `Tensor[(2, 3), float32], (float32, float32)`."""

    def one(a: Any) -> str:
        if isinstance(a, np.ndarray):
            return type_str(TensorType(tuple(a.shape), str(a.dtype)))
        if isinstance(a, tuple):
            inner = ", ".join(one(x) for x in a[:6]) + (", ..." if len(a) > 6 else "")
            return f"({inner},)" if len(a) == 1 else f"({inner})"
        return _kind(a)

    return ", ".join(one(a) for a in args)


# ------------------------------------------------------------------------------------ machine


class _Machine:
    """The evaluator: a stack of (step, node, env) frames and a stack of values."""

    def __init__(self, mod: Module, observer: Observer | None,
                 on_bind: Binder | None = None, on_enter: Enter | None = None) -> None:
        self.mod = mod
        self.observer = observer
        self.on_bind = on_bind
        self.on_enter = on_enter
        self.todo: list[tuple[Callable[[Any, Any], None], Any, Any]] = []
        self.vals: list[Value] = []
        self.globals: dict[str, Closure] = {}
        self.fv_cache: dict[int, tuple[Function, tuple[Var, ...]]] = {}
        self.dispatch: dict[type, Callable[[Any, Any], None]] = {
            Var: self._ev_var,
            Constant: self._ev_const,
            GlobalVar: self._ev_global,
            Op: self._ev_op,
            Constructor: self._ev_ctor,
            Tuple: self._ev_tuple,
            TupleGetItem: self._ev_proj,
            Call: self._ev_call,
            Let: self._ev_let,
            If: self._ev_if,
            Function: self._ev_fn,
            RefCreate: self._ev_refnew,
            RefRead: self._ev_refread,
            RefWrite: self._ev_refwrite,
            Match: self._ev_match,
        }

    # -- driver

    def run(self, expr: Expr, env: dict[int, Value]) -> Value:
        """Evaluate expr in env to a value."""
        self._push(expr, env)
        return self._loop()

    def call(self, fn: Value, args: list[Value], node: Expr) -> Value:
        """Apply a function value to argument values."""
        self._invoke(fn, args, node)
        return self._loop()

    def _loop(self) -> Value:
        todo = self.todo
        base = len(self.vals)
        while todo:
            step, a, b = todo.pop()
            step(a, b)
        assert len(self.vals) == base + 1
        return self.vals.pop()

    def _push(self, e: Expr, env: dict[int, Value]) -> None:
        self.todo.append((self.dispatch.get(type(e), self._ev_unknown), e, env))

    def _pop_n(self, n: int) -> list[Value]:
        vals = self.vals
        if n == 0:
            return []
        out = vals[-n:]
        del vals[-n:]
        return out

    # -- atoms

    def _ev_unknown(self, e: Any, env: dict[int, Value]) -> None:
        raise EvalError(f"cannot evaluate a {type(e).__name__}", getattr(e, "span", None))

    def _ev_var(self, e: Var, env: dict[int, Value]) -> None:
        v = env.get(id(e), _MISSING)
        if v is _MISSING:
            raise EvalError(f"unbound variable %{e.name_hint}", e.span)
        self.vals.append(v)  # type: ignore[arg-type]

    def _ev_const(self, e: Constant, env: dict[int, Value]) -> None:
        self.vals.append(e.data)

    def _ev_global(self, e: GlobalVar, env: dict[int, Value]) -> None:
        self.vals.append(self._global(e.name_hint, e.span))

    def _global(self, name: str, span: Span | None) -> Closure:
        clo = self.globals.get(name)
        if clo is None:
            fn = self.mod.functions.get(name)
            if fn is None:
                raise EvalError(f"unknown global function @{name}", span)
            clo = Closure(fn, {})
            self.globals[name] = clo
        return clo

    def _ev_op(self, e: Op, env: dict[int, Value]) -> None:
        raise EvalError(f"operator {e.name} is not a first-class value; it must be called", e.span)

    def _ev_ctor(self, e: Constructor, env: dict[int, Value]) -> None:
        if e.inputs:
            raise EvalError(f"constructor {e.name_hint} takes {len(e.inputs)} field(s); "
                            "it must be called", e.span)
        self.vals.append(ConstructorValue(e, ()))

    # -- tuples

    def _ev_tuple(self, e: Tuple, env: dict[int, Value]) -> None:
        if not e.fields:
            self.vals.append(())
            return
        self.todo.append((self._k_tuple, e, None))
        for f in reversed(e.fields):
            self._push(f, env)

    def _k_tuple(self, e: Tuple, _: Any) -> None:
        self.vals.append(tuple(self._pop_n(len(e.fields))))

    def _ev_proj(self, e: TupleGetItem, env: dict[int, Value]) -> None:
        self.todo.append((self._k_proj, e, None))
        self._push(e.tuple_value, env)

    def _k_proj(self, e: TupleGetItem, _: Any) -> None:
        t = self.vals.pop()
        if not isinstance(t, tuple):
            raise EvalError(f"projection .{e.index} of {_kind(t)}, not a tuple", e.span)
        if not 0 <= e.index < len(t):
            raise EvalError(f"projection .{e.index} out of range for a tuple of {len(t)} "
                            "field(s)", e.span)
        self.vals.append(t[e.index])

    # -- calls

    def _ev_call(self, e: Call, env: dict[int, Value]) -> None:
        op = e.op
        t = type(op)
        if t is Op:
            self.todo.append((self._k_prim, e, None))
        elif t is Constructor:
            self.todo.append((self._k_ctor, e, None))
        else:
            # interpreter.cc evaluates the arguments, then the callee
            self.todo.append((self._k_apply, e, None))
            self._push(op, env)
        for a in reversed(e.args):
            self._push(a, env)

    def _k_apply(self, e: Call, _: Any) -> None:
        fn = self.vals.pop()
        args = self._pop_n(len(e.args))
        self._invoke(fn, args, e)

    def _invoke(self, fn: Value, args: list[Value], node: Expr) -> None:
        if not isinstance(fn, Closure):
            raise EvalError(f"cannot call {_kind(fn)} ({describe_value(fn, 1)}): "
                            "only functions can be called", getattr(node, "span", None))
        params = fn.func.params
        if len(params) != len(args):
            raise EvalError(f"function expects {len(params)} argument(s), got {len(args)}",
                            getattr(node, "span", None))
        env = dict(fn.env)
        for p, a in zip(params, args, strict=True):
            env[id(p)] = a
        if fn.self_var is not None:
            env[id(fn.self_var)] = fn
        self._push(fn.func.body, env)  # a tail step: no frame is left behind for the call

    def _k_ctor(self, e: Call, _: Any) -> None:
        c = e.op
        assert isinstance(c, Constructor)
        fields = self._pop_n(len(e.args))
        if len(fields) != len(c.inputs):
            raise EvalError(f"constructor {c.name_hint} takes {len(c.inputs)} field(s), "
                            f"got {len(fields)}", e.span)
        self.vals.append(ConstructorValue(c, tuple(fields)))

    def _k_prim(self, e: Call, _: Any) -> None:
        op = e.op
        assert isinstance(op, Op)
        name = op.name
        args = self._pop_n(len(e.args))
        span = e.span or op.span
        opdef = lookup(name)
        if opdef is None:
            raise EvalError(f"unknown operator {name}", span)
        if opdef.kernel is None:
            raise EvalError(f"operator {name} is not implemented by the interpreter", span)
        if opdef.num_inputs is not None and opdef.num_inputs != len(args):
            raise EvalError(f"{name} takes {opdef.num_inputs} argument(s), got {len(args)}", span)
        try:
            out = _normalise(opdef.kernel(args, e.attrs))
        except OpError as exc:
            raise EvalError(f"{name}: {exc} (arguments: {_shape_summary(args)})", span) from exc
        except (ValueError, TypeError, IndexError, ArithmeticError, MemoryError) as exc:
            raise EvalError(f"{name} failed on arguments {_shape_summary(args)}: {exc}",
                            span) from exc
        self.vals.append(out)

    # -- binding forms

    def _ev_let(self, e: Let, env: dict[int, Value]) -> None:
        """Walk a let chain in a loop, binding atomic and function values on the spot."""
        cur: Expr = e
        while type(cur) is Let:
            let: Let = cur  # type: ignore[assignment]
            val = let.value
            tv = type(val)
            if tv is Function:
                env[id(let.var)] = self._closure(val, env, let.var)  # type: ignore[arg-type]
            elif tv is Constant and self.on_bind is None:
                env[id(let.var)] = val.data  # type: ignore[union-attr]
            elif tv is Var and self.on_bind is None:
                v = env.get(id(val), _MISSING)
                if v is _MISSING:
                    raise EvalError(f"unbound variable %{val.name_hint}",  # type: ignore[union-attr]
                                    val.span)  # type: ignore[union-attr]
                env[id(let.var)] = v  # type: ignore[assignment]
            else:
                if self.on_enter is not None:
                    self.on_enter(let)
                self.todo.append((self._k_let, let, env))
                self._push(val, env)
                return
            cur = let.body
        self._push(cur, env)

    def _k_let(self, e: Let, env: dict[int, Value]) -> None:
        v = self.vals.pop()
        env[id(e.var)] = v if self.on_bind is None else self.on_bind(e, v)
        self._push(e.body, env)

    def _ev_fn(self, e: Function, env: dict[int, Value]) -> None:
        self.vals.append(self._closure(e, env, None))

    def _closure(self, fn: Function, env: dict[int, Value], self_var: Var | None) -> Closure:
        """Capture the current values of fn's free variables (the let var itself excluded)."""
        hit = self.fv_cache.get(id(fn))
        if hit is None or hit[0] is not fn:
            hit = (fn, function_free_vars(fn))
            self.fv_cache[id(fn)] = hit
        captured: dict[int, Value] = {}
        for v in hit[1]:
            if v is self_var:
                continue
            x = env.get(id(v), _MISSING)
            if x is not _MISSING:
                captured[id(v)] = x  # type: ignore[assignment]
        return Closure(fn, captured, self_var)

    def _ev_if(self, e: If, env: dict[int, Value]) -> None:
        self.todo.append((self._k_if, e, env))
        self._push(e.cond, env)

    def _k_if(self, e: If, env: dict[int, Value]) -> None:
        c = self.vals.pop()
        if not isinstance(c, np.ndarray) or c.ndim != 0:
            what = f"a tensor of shape {c.shape}" if isinstance(c, np.ndarray) else _kind(c)
            raise EvalError(f"if condition must be a rank-0 tensor, got {what}", e.span)
        self._push(e.true_branch if bool(c) else e.false_branch, env)

    def _ev_match(self, e: Match, env: dict[int, Value]) -> None:
        self.todo.append((self._k_match, e, env))
        self._push(e.data, env)

    def _k_match(self, e: Match, env: dict[int, Value]) -> None:
        v = self.vals.pop()
        for clause in e.clauses:
            binds = match_pattern(clause.lhs, v)
            if binds is not None:
                for var, x in binds:
                    env[id(var)] = x
                self._push(clause.rhs, env)
                return
        raise EvalError(f"no clause matched value {describe_value(v)}", e.span)

    # -- references

    def _ev_refnew(self, e: RefCreate, env: dict[int, Value]) -> None:
        self.todo.append((self._k_refnew, e, None))
        self._push(e.value, env)

    def _k_refnew(self, e: RefCreate, _: Any) -> None:
        cell = RefCell(self.vals.pop())
        if self.observer is not None:
            self.observer("create", e, cell)
        self.vals.append(cell)

    def _ev_refread(self, e: RefRead, env: dict[int, Value]) -> None:
        self.todo.append((self._k_refread, e, None))
        self._push(e.ref, env)

    def _k_refread(self, e: RefRead, _: Any) -> None:
        r = self.vals.pop()
        if not isinstance(r, RefCell):
            raise EvalError(f"ref_read of {_kind(r)}, not a reference", e.span)
        if self.observer is not None:
            self.observer("read", e, r)
        self.vals.append(r.value)

    def _ev_refwrite(self, e: RefWrite, env: dict[int, Value]) -> None:
        # the ref is evaluated first, then the value (interpreter.cc)
        self.todo.append((self._k_refwrite, e, None))
        self._push(e.value, env)
        self._push(e.ref, env)

    def _k_refwrite(self, e: RefWrite, _: Any) -> None:
        v = self.vals.pop()
        r = self.vals.pop()
        if not isinstance(r, RefCell):
            raise EvalError(f"ref_write to {_kind(r)}, not a reference", e.span)
        r.value = v
        if self.observer is not None:
            self.observer("write", e, r)
        self.vals.append(())


def function_free_vars(fn: Function) -> tuple[Var, ...]:
    """The variables a function literal uses but does not bind (one iterative pass)."""
    bound: set[int] = {id(p) for p in fn.params}
    used: list[Var] = []
    seen: set[int] = set()
    stack: list[Any] = [fn.body]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        e = pop()
        t = type(e)
        if t is Var:
            used.append(e)
            continue
        if t in _LEAVES or id(e) in seen:
            continue
        seen.add(id(e))
        if t is Let:
            bound.add(id(e.var))
            push(e.body)
            push(e.value)
        elif t is Call:
            extend(e.args)
            push(e.op)
        elif t is TupleGetItem:
            push(e.tuple_value)
        elif t is Tuple:
            extend(e.fields)
        elif t is RefRead:
            push(e.ref)
        elif t is RefWrite:
            push(e.ref)
            push(e.value)
        elif t is RefCreate:
            push(e.value)
        elif t is Function:
            bound.update(id(p) for p in e.params)
            push(e.body)
        elif t is If:
            extend((e.cond, e.true_branch, e.false_branch))
        elif t is Match:
            push(e.data)
            for c in e.clauses:
                bound.update(id(v) for v in pattern_vars(c.lhs))
                push(c.rhs)
    out: list[Var] = []
    for v in used:
        if id(v) not in bound:
            bound.add(id(v))
            out.append(v)
    return tuple(out)


_LEAVES = frozenset({Constant, Op, GlobalVar, Constructor})


def match_pattern(p: Pattern, v: Value) -> list[tuple[Var, Value]] | None:
    """The bindings that make pattern p match value v, or None when it does not match."""
    binds: list[tuple[Var, Value]] = []
    stack: list[tuple[Pattern, Value]] = [(p, v)]
    while stack:
        q, x = stack.pop()
        if isinstance(q, PatternWildcard):
            continue
        if isinstance(q, PatternVar):
            binds.append((q.var, x))
        elif isinstance(q, PatternConstructor):
            c = q.constructor
            if not (isinstance(x, ConstructorValue) and x.constructor.tag == c.tag
                    and x.constructor.belong_to == c.belong_to
                    and x.constructor.name_hint == c.name_hint):
                return None
            if len(q.patterns) != len(x.fields):
                if q.patterns:
                    return None
                continue  # `Cons` written without sub-patterns matches any fields
            stack.extend(reversed(list(zip(q.patterns, x.fields, strict=True))))
        elif isinstance(q, PatternTuple):
            if not isinstance(x, tuple) or len(x) != len(q.patterns):
                return None
            stack.extend(reversed(list(zip(q.patterns, x, strict=True))))
        else:
            return None
    return binds


# ---------------------------------------------------------------------------------- public API

_MODES = (None, "debug", "interpreter")


def evaluate(mod: Module, args: Sequence[Value], entry: str = "main", *,
             mode_str: str | None = None, observer: Observer | None = None,
             on_bind: Binder | None = None, on_enter: Enter | None = None,
             prepared: bool = False) -> Value:
    """Run `@entry` of mod on argument values, as `create_executor("debug", mod).evaluate()`.

    mode_str names the executor; only the debug interpreter ("debug", the default) exists.
    mod is prepared first, unless `prepared` says it already is (the dynamic oracle runs the
    very nodes the analysis saw, so that its hooks can name them).
    observer, when given, is told of every ref create/read/write with the node and the cell;
    on_bind, when given, may replace the value of every let binding as it is bound, and
    on_enter is told when a let's value starts evaluating (with on_bind: a let evaluated
    inline, a function literal, is neither entered nor bound through the hooks).
    """
    if mode_str not in _MODES:
        raise EvalError(f"unknown executor mode {mode_str!r}: only 'debug' (the interpreter) "
                        "is available")
    name = entry[1:] if entry.startswith("@") else entry
    fn = mod.functions.get(name)
    if fn is None:
        known = ", ".join("@" + n for n in mod.functions) or "none"
        raise EvalError(f"no function @{name} in the module (defined: {known})")
    values = [_as_value(a) for a in args]
    if len(values) != len(fn.params):
        raise EvalError(f"@{name} takes {len(fn.params)} argument(s), got {len(values)}",
                        fn.span)
    # v0.19's EvalFunction applies the closure without checking argument types
    # (interpreter.cc, EvalFunction), so only a value of the wrong kind (a non-tensor where
    # a tensor is needed, a tuple of the wrong arity) is refused, here, with a clear message;
    # dtypes and shapes are the ops' business.
    for p, a in zip(fn.params, values, strict=True):
        problem = _kind_mismatch(p.type_annotation, a)
        if problem:
            raise EvalError(f"argument for %{p.name_hint}: {problem}", p.span or fn.span)
    if not prepared:
        mod = prepare(mod).module
    m = _Machine(mod, observer, on_bind, on_enter)
    return m.call(m._global(name, fn.span), values, fn)


def eval_expr(e: Expr, mod: Module | None = None, env: Mapping[Var, Value] | None = None, *,
              observer: Observer | None = None, on_bind: Binder | None = None,
              on_enter: Enter | None = None, prepared: bool = False) -> Value:
    """Evaluate an expression (its free vars bound by env) in an optional module; both are
    prepared first unless `prepared` says they already are."""
    mod = mod if mod is not None else Module({})
    if not prepared:
        e = prepare_expr(e, mod)
        mod = prepare(mod).module
    m = _Machine(mod, observer, on_bind, on_enter)
    start = {id(v): _as_value(x) for v, x in (env or {}).items()}
    return m.run(e, start)


def _as_value(a: Any) -> Value:
    """An argument as the interpreter's value, as `_arg_to_ast` + `relay.const` make it
    (python/tvm/relay/backend/interpreter.py, expr.py): arrays keep their dtype; Python and
    numpy scalars and lists become tensors, 64-bit ints and floats narrowed to int32 and
    float32; tuples stay tuples."""
    if isinstance(a, (np.ndarray, RefCell, Closure, ConstructorValue)):
        return a
    if isinstance(a, tuple):
        return tuple(_as_value(x) for x in a)
    if isinstance(a, (np.generic, bool, int, float, list)):
        try:
            arr = np.asarray(a)
        except (ValueError, TypeError) as ex:
            raise EvalError(f"cannot pass {type(a).__name__} {a!r} as a tensor: {ex}") from None
        if arr.dtype == np.object_:
            raise EvalError(f"cannot pass {type(a).__name__} {a!r} as a tensor")
        narrow = {np.dtype("int64"): np.int32, np.dtype("float64"): np.float32}.get(arr.dtype)
        return arr.astype(narrow) if narrow is not None else arr
    raise EvalError(f"cannot pass a {type(a).__name__} as a Relay value")


def _kind_mismatch(t: Type | None, v: Value) -> str | None:
    """Why value v cannot be what the annotation t says it is: a tensor, a tuple of so many
    fields, a reference (dtype and shape are not checked, as v0.19 does not)."""
    if isinstance(t, TensorType):
        if not isinstance(v, np.ndarray):
            return f"expected a tensor of type {type_str(t)}, got {_kind(v)}"
    elif isinstance(t, TupleType):
        if not isinstance(v, tuple) or len(v) != len(t.fields):
            return f"expected a tuple of {len(t.fields)} field(s), got {_kind(v)}"
        for ft, fv in zip(t.fields, v, strict=True):
            inner = _kind_mismatch(ft, fv)
            if inner:
                return inner
    elif isinstance(t, RefType) and not isinstance(v, RefCell):
        return f"expected a reference, got {_kind(v)}"
    return None


def flatten_value(v: Value) -> list[np.ndarray]:
    """The tensors of a value in order (tuples, ADT fields and ref contents are walked)."""
    out: list[np.ndarray] = []
    stack: list[Any] = [v]
    open_refs: set[int] = set()
    while stack:
        x = stack.pop()
        if isinstance(x, np.ndarray):
            out.append(x)
        elif isinstance(x, tuple) and len(x) == 2 and x[0] is _REF_DONE:
            open_refs.discard(x[1])
        elif isinstance(x, tuple):
            stack.extend(reversed(x))
        elif isinstance(x, ConstructorValue):
            stack.extend(reversed(x.fields))
        elif isinstance(x, RefCell):
            if id(x) in open_refs:
                raise EvalError("cannot flatten a reference that contains itself")
            open_refs.add(id(x))
            stack.append((_REF_DONE, id(x)))
            stack.append(x.value)
        elif isinstance(x, Closure):
            raise EvalError(f"cannot save a function value ({describe_value(x)}) as an array")
        else:
            raise EvalError(f"cannot save a {type(x).__name__} as an array")
    return out


_REF_DONE = object()


def random_inputs(fn: Function, seed: int) -> list[Value]:
    """Deterministic inputs for fn's parameters from their annotated types (same signature and
    seed, same inputs): floats are standard normal, ints small non-negative, bools random."""
    rng = np.random.default_rng(seed)
    out: list[Value] = []
    for p in fn.params:
        out.append(_random_of(p.type_annotation, rng, p, fn))
    return out


def _random_of(t: Type | None, rng: np.random.Generator, p: Var, fn: Function) -> Value:
    if isinstance(t, TensorType) and all(d is not None for d in t.shape):
        shape = tuple(int(d) for d in t.shape)  # type: ignore[arg-type]
        try:
            dt = np_dtype(t.dtype)
        except OpError as exc:
            raise EvalError(f"parameter %{p.name_hint}: {exc}", p.span or fn.span) from exc
        if dt == np.bool_:
            return np.asarray(rng.random(shape) < 0.5)
        if np.issubdtype(dt, np.integer):
            return np.asarray(rng.integers(0, 5, size=shape)).astype(dt)
        return np.asarray(rng.standard_normal(shape)).astype(dt)
    if isinstance(t, TupleType):
        return tuple(_random_of(f, rng, p, fn) for f in t.fields)
    shown = "(no annotation)" if t is None else type_str(t)
    raise EvalError(f"parameter %{p.name_hint} has type {shown}; random inputs need a "
                    "concrete tensor type (or a tuple of them)", p.span or fn.span)
