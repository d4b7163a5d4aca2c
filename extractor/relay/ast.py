"""Relay AST: small immutable nodes whose identity is the node (shared graph nodes stay shared).

Expression nodes compare and hash by identity, as TVM's ObjectRefs do; types, ops, globals and
constructors compare by value. Nothing mutates a node after construction: passes build new nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Union

import numpy as np

from ..diagnostics import Span


def _slot_init(cls: type) -> type:
    """A frozen slotted dataclass whose __init__ stores each field through its slot's own
    setter: passes build nodes and types by the hundred thousand, and dataclasses' frozen
    __init__ (one `object.__setattr__` call a field) costs twice as much. Still frozen."""
    params, body = [], []
    env: dict[str, object] = {}
    for f in fields(cls):
        if f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: a default factory needs dataclasses' init")
        if f.default is MISSING:
            params.append(f.name)
        else:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        env[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        body.append(f"    _set_{f.name}(self, {f.name})")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body), env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    cls.__init__ = init  # type: ignore[misc]
    return cls


# --------------------------------------------------------------------------------------- types


class Type:
    """Base of Relay types (value equality); str() is the Relay text, so messages that format
    a type read as Relay (repr() stays the dataclass form, for debugging)."""

    __slots__ = ()

    def __str__(self) -> str:
        return type_str(self)


@_slot_init
@dataclass(frozen=True, slots=True)
class TensorType(Type):
    """`Tensor[(d0, d1), dtype]`; a rank-0 tensor prints as the bare dtype; `None` is `?`."""

    shape: tuple[int | None, ...]
    dtype: str


@_slot_init
@dataclass(frozen=True, slots=True)
class TupleType(Type):
    """`(T1, T2)`; `()` is unit."""

    fields: tuple[Type, ...]


@_slot_init
@dataclass(frozen=True, slots=True)
class FuncType(Type):
    """`fn [A](T1, T2) -> R`."""

    arg_types: tuple[Type, ...]
    ret_type: Type
    type_params: tuple[TypeVar, ...] = ()


@_slot_init
@dataclass(frozen=True, slots=True)
class RefType(Type):
    """`ref(T)`: a mutable cell holding a T."""

    value: Type


@dataclass(frozen=True, slots=True)
class TypeVar(Type):
    """A type parameter (of an ADT or a polymorphic function)."""

    name: str


@dataclass(frozen=True, slots=True)
class TypeCall(Type):
    """An ADT applied to arguments: `List[A]`; a nullary ADT has `args == ()`."""

    name: str
    args: tuple[Type, ...] = ()


@dataclass(frozen=True, slots=True)
class IncompleteType(Type):
    """`_`: a hole for inference to fill."""


UNIT = TupleType(())


def dim_str(d: int | None) -> str:
    """A dimension (or an integer attribute) as Relay text: `?`, `5`, `5000000000i64`."""
    if d is None:
        return "?"
    return str(d) if -(2**31) <= d < 2**31 else f"{d}i64"


def type_str(t: Type) -> str:
    """A type as Relay text: `Tensor[(5, 10), float32]`, `float32`, `(T,)`, `fn (T) -> R`,
    `ref(T)`, `_` for one not known yet; the printer and every message write types so."""
    if isinstance(t, TensorType):
        if not t.shape:
            return t.dtype
        return f"Tensor[({', '.join(dim_str(d) for d in t.shape)}), {t.dtype}]"
    if isinstance(t, TupleType):
        inner = ", ".join(type_str(f) for f in t.fields)
        return f"({inner},)" if len(t.fields) == 1 else f"({inner})"
    if isinstance(t, FuncType):
        tps = f"[{', '.join(v.name for v in t.type_params)}]" if t.type_params else ""
        return f"fn {tps}({', '.join(type_str(a) for a in t.arg_types)}) -> {type_str(t.ret_type)}"
    if isinstance(t, RefType):
        return f"ref({type_str(t.value)})"
    if isinstance(t, TypeVar):
        return t.name
    if isinstance(t, TypeCall):
        return f"{t.name}[{', '.join(type_str(a) for a in t.args)}]" if t.args else t.name
    if isinstance(t, IncompleteType):
        return "_"
    raise TypeError(f"not a Relay type: {t!r}")


# --------------------------------------------------------------------------------------- attrs

AttrValue = Union[int, float, bool, str, None, tuple["AttrValue", ...], "Expr"]


@dataclass(frozen=True, slots=True)
class Attrs(Mapping[str, Any]):
    """Ordered call or function attributes (`units=20`), with TVM's attrs type key if known."""

    items_: tuple[tuple[str, AttrValue], ...] = ()
    type_key: str | None = None

    def __getitem__(self, key: str) -> AttrValue:
        for k, v in self.items_:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)

    @staticmethod
    def of(type_key: str | None = None, **kw: AttrValue) -> Attrs:
        """Build attrs from keyword arguments, in order."""
        return Attrs(tuple(kw.items()), type_key)


EMPTY_ATTRS = Attrs()

# ---------------------------------------------------------------------------------- expressions


class Expr:
    """Base of Relay expressions (identity equality unless a subclass says otherwise)."""

    __slots__ = ()


def _span() -> Any:
    return field(default=None, compare=False, repr=False)


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Var(Expr):
    """A local variable; its identity is the binding (name_hint need not be unique).

    `virtual_device` is the `{virtual_device=meta[VirtualDevice][i]}` a parameter may carry
    (v0.19 `VarNode::virtual_device_`, printed by relay_text_printer.cc AllocVar)."""

    name_hint: str
    type_annotation: Type | None = None
    span: Span | None = _span()
    virtual_device: MetaRef | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class GlobalVar(Expr):
    """`@name`: a module-level function."""

    name_hint: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Op(Expr):
    """A primitive operator such as `nn.dense`."""

    name: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Constructor(Expr):
    """An ADT constructor; `inputs` are field types over the ADT's type vars."""

    name_hint: str
    inputs: tuple[Type, ...]
    belong_to: str
    tag: int
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Constant(Expr):
    """A tensor constant; scalars print as literals (`1f`, `42i64`, `True`). `origin` is the
    `meta[relay.Constant][i]` it was read from, if any (so its section can be written back)."""

    data: np.ndarray
    span: Span | None = _span()
    origin: MetaRef | None = field(default=None, repr=False)


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Tuple(Expr):
    """`(a, b)`; `()` is the unit value."""

    fields: tuple[Expr, ...]
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class TupleGetItem(Expr):
    """`e.N`."""

    tuple_value: Expr
    index: int
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Call(Expr):
    """`op(args, attrs)`; op is an Op, GlobalVar, Constructor or any function-valued expr."""

    op: Expr
    args: tuple[Expr, ...]
    attrs: Attrs = EMPTY_ATTRS
    type_args: tuple[Type, ...] = ()
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Let(Expr):
    """`let %var = value; body`."""

    var: Var
    value: Expr
    body: Expr
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class If(Expr):
    """`if (cond) { a } else { b }` on a bool scalar tensor."""

    cond: Expr
    true_branch: Expr
    false_branch: Expr
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Function(Expr):
    """`fn [T](%x: T, attrs) -> R { body }`; `virtual_device` is the first-class field v0.19's
    parser promotes a `virtual_device=` attribute to (parser.cc ParseFunctionDef)."""

    params: tuple[Var, ...]
    body: Expr
    ret_type: Type | None = None
    type_params: tuple[TypeVar, ...] = ()
    attrs: Attrs = EMPTY_ATTRS
    span: Span | None = _span()
    virtual_device: MetaRef | None = field(default=None, repr=False)


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class RefCreate(Expr):
    """`ref(e)`: allocate a fresh mutable cell holding e."""

    value: Expr
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class RefRead(Expr):
    """`ref_read(r)`."""

    ref: Expr
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class RefWrite(Expr):
    """`ref_write(r, v)`; evaluates to `()`."""

    ref: Expr
    value: Expr
    span: Span | None = _span()


class Pattern:
    """Base of match patterns."""

    __slots__ = ()


@dataclass(frozen=True, eq=False, slots=True)
class PatternWildcard(Pattern):
    """`_`."""

    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class PatternVar(Pattern):
    """`%x` (optionally typed): binds the matched value."""

    var: Var
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class PatternConstructor(Pattern):
    """`Cons(%h, _)`."""

    constructor: Constructor
    patterns: tuple[Pattern, ...] = ()
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class PatternTuple(Pattern):
    """`(%a, _)`."""

    patterns: tuple[Pattern, ...]
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Clause:
    """`pattern => rhs`."""

    lhs: Pattern
    rhs: Expr
    span: Span | None = _span()


@_slot_init
@dataclass(frozen=True, eq=False, slots=True)
class Match(Expr):
    """`match (e) { clauses }`; `complete=False` is `match?`."""

    data: Expr
    clauses: tuple[Clause, ...]
    complete: bool = True
    span: Span | None = _span()


# ------------------------------------------------------------------------------------- modules


@dataclass(frozen=True, eq=False, slots=True)
class TypeData:
    """`type List[A] { Cons(A, List[A]), Nil }`; `extern type Storage` has no constructors."""

    name: str
    type_vars: tuple[TypeVar, ...]
    constructors: tuple[Constructor, ...]
    extern: bool = False
    span: Span | None = _span()


@dataclass(frozen=True, eq=False, slots=True, weakref_slot=True)  # (type inference remembers
class Module:  # its results by module while the module lives)
    """An IRModule: global functions and type definitions, each by name (insertion-ordered)."""

    functions: Mapping[str, Function]
    type_defs: Mapping[str, TypeData] = field(default_factory=dict)
    source_name: str = "from_string"

    def __getitem__(self, name: str) -> Function:
        return self.functions[name]

    def with_function(self, name: str, fn: Function) -> Module:
        """A new module with `@name` (re)defined as fn."""
        fns = dict(self.functions)
        fns[name] = fn
        return Module(fns, self.type_defs, self.source_name)

    def constructor(self, name: str) -> Constructor | None:
        """The constructor called `name`, if any type definition declares one."""
        for td in self.type_defs.values():
            for c in td.constructors:
                if c.name_hint == name:
                    return c
        return None


# ------------------------------------------------------------------------------------ traversal


def children(e: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions in evaluation order (match clause bodies included)."""
    f = _CHILDREN.get(type(e))
    return f(e) if f is not None else ()


def _call_children(e: Call) -> tuple[Expr, ...]:
    if not e.attrs.items_:
        return (e.op, *e.args)
    return (e.op, *e.args, *(v for _, v in e.attrs.items_ if isinstance(v, Expr)))


_CHILDREN: dict[type, Callable[[Any], tuple[Expr, ...]]] = {
    Tuple: lambda e: e.fields,
    TupleGetItem: lambda e: (e.tuple_value,),
    Call: _call_children,
    Let: lambda e: (e.var, e.value, e.body),
    If: lambda e: (e.cond, e.true_branch, e.false_branch),
    Function: lambda e: (*e.params, e.body),
    RefCreate: lambda e: (e.value,),
    RefRead: lambda e: (e.ref,),
    RefWrite: lambda e: (e.ref, e.value),
    Match: lambda e: (e.data, *(c.rhs for c in e.clauses)),
}
_DONE = object()  # on post_order's stack: the node on top of `open_` has all its children out


def post_order(root: Expr) -> list[Expr]:
    """Every distinct node reachable from root, children before parents, without recursion."""
    out: list[Expr] = []
    seen: set[int] = set()
    stack: list[object] = [root]
    open_: list[Expr] = []
    push, pop, mark = stack.append, stack.pop, seen.add
    get = _CHILDREN.get
    while stack:
        node = pop()
        if node is _DONE:
            out.append(open_.pop())
            continue
        key = id(node)
        if key in seen:
            continue
        mark(key)
        f = get(type(node))
        if f is None:  # a leaf
            out.append(node)  # type: ignore[arg-type]
            continue
        open_.append(node)  # type: ignore[arg-type]
        push(_DONE)
        for c in reversed(f(node)):
            if id(c) not in seen:
                push(c)
    return out


def pattern_vars(p: Pattern) -> list[Var]:
    """Variables a pattern binds, left to right."""
    out: list[Var] = []
    stack = [p]
    while stack:
        q = stack.pop()
        if isinstance(q, PatternVar):
            out.append(q.var)
        elif isinstance(q, (PatternConstructor, PatternTuple)):
            stack.extend(reversed(q.patterns))
    return out


def bound_vars(e: Expr) -> list[Var]:
    """Variables bound anywhere in e (let vars, params, pattern vars)."""
    out: list[Var] = []
    for n in post_order(e):
        if isinstance(n, Let):
            out.append(n.var)
        elif isinstance(n, Function):
            out.extend(n.params)
        elif isinstance(n, Match):
            for c in n.clauses:
                out.extend(pattern_vars(c.lhs))
    return out


def free_vars(e: Expr) -> list[Var]:
    """Variables used in e but not bound in it, in first-occurrence order."""
    bound = {id(v) for v in bound_vars(e)}
    out: list[Var] = []
    seen: set[int] = set()
    for n in post_order(e):
        if isinstance(n, Var) and id(n) not in bound and id(n) not in seen:
            seen.add(id(n))
            out.append(n)
    return out


def let_chain(e: Expr) -> tuple[list[Let], Expr]:
    """Flatten `let a = ..; let b = ..; body` into its lets and the final body, iteratively."""
    lets: list[Let] = []
    while isinstance(e, Let):
        lets.append(e)
        e = e.body
    return lets, e


class ExprMutator:
    """Rebuilds an expression bottom-up, memoised by node identity so sharing is preserved.

    Subclasses override `visit_<ClassName>(node)`; the defaults rebuild a node only when a
    child changed. Let chains are walked iteratively so 10k-long chains need no deep recursion.
    """

    def __init__(self) -> None:
        self.memo: dict[int, Expr] = {}

    def visit(self, e: Expr) -> Expr:
        hit = self.memo.get(id(e))
        if hit is not None:
            return hit
        method: Callable[[Any], Expr] = getattr(self, "visit_" + type(e).__name__)
        out = method(e)
        self.memo[id(e)] = out
        return out

    def visit_Var(self, e: Var) -> Expr:
        return e

    def visit_GlobalVar(self, e: GlobalVar) -> Expr:
        return e

    def visit_Op(self, e: Op) -> Expr:
        return e

    def visit_Constructor(self, e: Constructor) -> Expr:
        return e

    def visit_Constant(self, e: Constant) -> Expr:
        return e

    def visit_Tuple(self, e: Tuple) -> Expr:
        return with_children(e, self.visit)

    def visit_TupleGetItem(self, e: TupleGetItem) -> Expr:
        return with_children(e, self.visit)

    def visit_Call(self, e: Call) -> Expr:
        return with_children(e, self.visit)

    def visit_Let(self, e: Let) -> Expr:
        """Walk the chain iteratively; a subclass overriding this handles the whole chain."""
        lets: list[Let] = []
        cur: Expr = e
        while isinstance(cur, Let) and (cur is e or id(cur) not in self.memo):
            lets.append(cur)
            cur = cur.body
        parts = []
        for let in lets:
            v = self.visit(let.var)
            assert isinstance(v, Var)
            parts.append((let, v, self.visit(let.value)))
        out = self.visit(cur)
        for old, v, val in reversed(parts):
            if v is old.var and val is old.value and out is old.body:
                out = old
            else:
                out = Let(v, val, out, span=old.span)
            self.memo[id(old)] = out
        return out

    def visit_If(self, e: If) -> Expr:
        return with_children(e, self.visit)

    def visit_Function(self, e: Function) -> Expr:
        return with_children(e, self.visit)

    def visit_RefCreate(self, e: RefCreate) -> Expr:
        return with_children(e, self.visit)

    def visit_RefRead(self, e: RefRead) -> Expr:
        return with_children(e, self.visit)

    def visit_RefWrite(self, e: RefWrite) -> Expr:
        return with_children(e, self.visit)

    def visit_Match(self, e: Match) -> Expr:
        return with_children(e, self.visit)


def with_children(e: Expr, visit: Callable[[Expr], Expr]) -> Expr:
    """e with every sub-expression c replaced by visit(c), in evaluation order (a function's
    parameters, a clause's pattern variables included); e itself when none changed, so what
    is unchanged stays shared. Leaves are returned as they are; a Let is not handled here,
    since each pass walks a let chain iteratively itself."""
    assert type(e) is not Let, "with_children: a let chain is walked by its pass"
    f = _WITH_CHILDREN.get(type(e))
    return f(e, visit) if f is not None else e


def _tuple_with(e: Tuple, visit: Callable[[Expr], Expr]) -> Expr:
    fs = tuple(map(visit, e.fields))
    return e if _same(fs, e.fields) else Tuple(fs, span=e.span)


def _proj_with(e: TupleGetItem, visit: Callable[[Expr], Expr]) -> Expr:
    t = visit(e.tuple_value)
    return e if t is e.tuple_value else TupleGetItem(t, e.index, span=e.span)


def _call_with(e: Call, visit: Callable[[Expr], Expr]) -> Expr:
    op = visit(e.op)
    args = tuple(map(visit, e.args))
    if op is e.op and _same(args, e.args):
        return e
    return Call(op, args, e.attrs, e.type_args, span=e.span)


def _if_with(e: If, visit: Callable[[Expr], Expr]) -> Expr:
    c, t, f = visit(e.cond), visit(e.true_branch), visit(e.false_branch)
    if c is e.cond and t is e.true_branch and f is e.false_branch:
        return e
    return If(c, t, f, span=e.span)


def _function_with(e: Function, visit: Callable[[Expr], Expr]) -> Expr:
    ps = tuple(map(visit, e.params))
    b = visit(e.body)
    if _same(ps, e.params) and b is e.body:
        return e
    return Function(ps, b, e.ret_type, e.type_params, e.attrs,  # type: ignore[arg-type]
                    span=e.span, virtual_device=e.virtual_device)


def _ref_create_with(e: RefCreate, visit: Callable[[Expr], Expr]) -> Expr:
    v = visit(e.value)
    return e if v is e.value else RefCreate(v, span=e.span)


def _ref_read_with(e: RefRead, visit: Callable[[Expr], Expr]) -> Expr:
    r = visit(e.ref)
    return e if r is e.ref else RefRead(r, span=e.span)


def _ref_write_with(e: RefWrite, visit: Callable[[Expr], Expr]) -> Expr:
    r, v = visit(e.ref), visit(e.value)
    return e if r is e.ref and v is e.value else RefWrite(r, v, span=e.span)


def _match_with(e: Match, visit: Callable[[Expr], Expr]) -> Expr:
    d = visit(e.data)
    clauses = []
    changed = d is not e.data
    for c in e.clauses:
        lhs = _with_pattern_vars(c.lhs, visit)
        rhs = visit(c.rhs)
        if lhs is c.lhs and rhs is c.rhs:
            clauses.append(c)
        else:
            changed = True
            clauses.append(Clause(lhs, rhs, span=c.span))
    return Match(d, tuple(clauses), e.complete, span=e.span) if changed else e


_WITH_CHILDREN: dict[type, Callable[[Any, Callable[[Expr], Expr]], Expr]] = {
    Tuple: _tuple_with, TupleGetItem: _proj_with, Call: _call_with, If: _if_with,
    Function: _function_with, RefCreate: _ref_create_with, RefRead: _ref_read_with,
    RefWrite: _ref_write_with, Match: _match_with,
}


def _with_pattern_vars(p: Pattern, visit: Callable[[Expr], Expr]) -> Pattern:
    """p with each variable it binds replaced by visit(var); p itself when none changed."""
    if isinstance(p, PatternVar):
        v = visit(p.var)
        assert isinstance(v, Var)
        return p if v is p.var else PatternVar(v, span=p.span)
    if isinstance(p, PatternConstructor):
        ps = tuple(_with_pattern_vars(q, visit) for q in p.patterns)
        if all(a is b for a, b in zip(ps, p.patterns, strict=True)):
            return p
        return PatternConstructor(p.constructor, ps, span=p.span)
    if isinstance(p, PatternTuple):
        ps = tuple(_with_pattern_vars(q, visit) for q in p.patterns)
        if all(a is b for a, b in zip(ps, p.patterns, strict=True)):
            return p
        return PatternTuple(ps, span=p.span)
    return p


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def const(value: Any, dtype: str | None = None) -> Constant:
    """A Constant from a Python scalar or array (float -> float32, int -> int32 like Relay)."""
    if dtype is None:
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, int):
            dtype = "int32" if -(2**31) <= value < 2**31 else "int64"
        elif isinstance(value, float):
            dtype = "float32"
    return Constant(np.asarray(value, dtype=dtype))


class MetaSource:
    """One parsed `#[metadata]` document (save_json of Map<String, Array<Object>>), kept whole
    so that objects the project does not model print back exactly as they came."""

    __slots__ = ("nodes", "arrays", "tables", "root")

    def __init__(self, nodes: list[dict[str, Any]], arrays: list[str],
                 tables: Mapping[str, int], root: int) -> None:
        self.nodes = nodes
        self.arrays = arrays
        self.tables = dict(tables)  # table key -> index of its Array node
        self.root = root  # the Map node

    def entries(self, key: str) -> list[Any]:
        """The node indices table `key` lists, in order."""
        j = self.tables.get(key)
        return list(self.nodes[j].get("data", [])) if j is not None else []


@dataclass(frozen=True, slots=True)
class MetaRef:
    """`meta[TypeKey][N]` for an object Relay keeps opaque here (e.g. a VirtualDevice).

    `source` and `node` locate it in the document it came from (the printer writes that
    document back); two refs are equal when key, index and content (`fingerprint`) agree."""

    type_key: str
    index: int
    fields: Mapping[str, Any] | None = field(default=None, compare=False)  # its JSON attrs
    fingerprint: tuple[Any, ...] = ()
    source: MetaSource | None = field(default=None, compare=False, repr=False)
    node: int = field(default=-1, compare=False, repr=False)
