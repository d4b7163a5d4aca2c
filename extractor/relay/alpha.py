"""Alpha-equivalence of Relay programs: TVM's `assert_structural_equal(map_free_vars=True)`.

Bound variables (let vars, parameters, pattern vars) correspond through a bijection fixed at their
binding sites; free variables are paired on first encounter, also bijectively. Graph nodes (every
expression but constants, the empty tuple, projections, ops, globals and constructors, as
`include/tvm/relay/expr.h` marks them) follow TVM's GraphEqual: once a node of one side is paired
with a node of the other, every later meeting must pair the same two, so sharing in one program
must be sharing in the other. A var's virtual device is compared by content, constructors by
name and field types. Constants compare by dtype, shape and bytes; call attributes by value with
the operator's defaults filled in (what TVM's attrs objects hold); types structurally, a var's
`_` annotation as none. Modules compare function by function (by name) and type definition by
type definition. The walk uses an explicit stack, so let chains of any length are fine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .ast import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
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
    RefWrite,
    Tuple,
    TupleGetItem,
    TypeData,
    Var,
    type_str,
)
from .ops import attr_norm, effective_call_attrs

_VALUE_NODES = (GlobalVar, Op, Constructor)


@dataclass(frozen=True, slots=True)
class _Path:
    """A path from the root, as a linked list so that deep walks build it in O(1) per step."""

    parent: _Path | None
    step: str

    def render(self) -> str:
        steps: list[str] = []
        p: _Path | None = self
        while p is not None:
            steps.append(p.step)
            p = p.parent
        steps.reverse()
        out: list[str] = []
        i = 0
        while i < len(steps):
            j = i
            while j < len(steps) and steps[j] == steps[i]:
                j += 1
            run = j - i
            out.append(f"{steps[i]}*{run}" if run > 3 else ".".join([steps[i]] * run))
            i = j
        return ".".join(s for s in out if s)


class _Differ(Exception):
    def __init__(self, path: _Path, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def _describe(x: Any) -> str:
    if isinstance(x, Var):
        return f"%{x.name_hint}"
    if isinstance(x, GlobalVar):
        return f"@{x.name_hint}"
    if isinstance(x, Op):
        return x.name
    if isinstance(x, Constructor):
        return x.name_hint
    return type(x).__name__


def _annotation(v: Var) -> Any:
    """A var's annotation, `_` (IncompleteType) read as none: v0.19's parser gives the var of
    `e1; e2` an IncompleteType annotation (parser.cc ParseExpr) and `let %x: _` one too, and
    TVM's own tests (test_ir_parser.py test_seq, test_incomplete_type) expect both to equal
    a var built without one."""
    t = v.type_annotation
    return None if isinstance(t, IncompleteType) else t


def _same_ctor(a: Constructor, b: Constructor) -> bool:
    """Constructors are equal by name and field types (ConstructorNode::SEqualReduce)."""
    return a.name_hint == b.name_hint and a.inputs == b.inputs


def _device(v: Var) -> Any:
    return None if v.virtual_device is None else v.virtual_device.fingerprint


def _show_device(v: Var) -> str:
    d = v.virtual_device
    return "none" if d is None else f"meta[{d.type_key}][{d.index}]"


def _ann(t: Any) -> str:
    return "none" if t is None else type_str(t)


class _Equal:
    """One comparison: the node pairing in both directions and the pending work."""

    def __init__(self, ignore_annotations: bool) -> None:
        self.ignore = ignore_annotations
        self.lmap: dict[int, Any] = {}
        self.rmap: dict[int, Any] = {}
        self.alive: list[Any] = []
        self.stack: list[tuple[str, Any, Any, _Path]] = []

    # ------------------------------------------------------------------------------- driver

    def run(self, a: Any, b: Any) -> None:
        root = _Path(None, "root")
        if isinstance(a, Module) or isinstance(b, Module):
            if not (isinstance(a, Module) and isinstance(b, Module)):
                raise _Differ(root, f"{type(a).__name__} vs {type(b).__name__}")
            self.module(a, b, root)
        else:
            self.stack.append(("expr", a, b, root))
        while self.stack:
            kind, x, y, path = self.stack.pop()
            if kind == "expr":
                self.expr(x, y, path)
            elif kind == "bind":
                self.bind(x, y, path)
            else:
                self.pattern(x, y, path)

    def module(self, a: Module, b: Module, path: _Path) -> None:
        if sorted(a.type_defs) != sorted(b.type_defs):
            raise _Differ(path, f"type definitions {sorted(a.type_defs)} vs {sorted(b.type_defs)}")
        for name in sorted(a.type_defs):
            self.typedef(a.type_defs[name], b.type_defs[name], _Path(path, f"type {name}"))
        if sorted(a.functions) != sorted(b.functions):
            raise _Differ(path, f"functions {sorted(a.functions)} vs {sorted(b.functions)}")
        for name in sorted(a.functions, reverse=True):
            fp = _Path(path, "@" + name)
            self.stack.append(("expr", a.functions[name], b.functions[name], fp))

    def typedef(self, a: TypeData, b: TypeData, path: _Path) -> None:
        if a.type_vars != b.type_vars:
            raise _Differ(path, "type parameters differ")
        if len(a.constructors) != len(b.constructors):
            raise _Differ(path, f"{len(a.constructors)} vs {len(b.constructors)} constructors")
        for ca, cb in zip(a.constructors, b.constructors, strict=True):
            if not _same_ctor(ca, cb):
                raise _Differ(_Path(path, ca.name_hint), f"constructor {ca} vs {cb}")

    # ---------------------------------------------------------------------------- variables

    def pair(self, x: Any, y: Any) -> bool:
        """Record x <-> y; False when either side is already paired with something else."""
        mx, my = self.lmap.get(id(x)), self.rmap.get(id(y))
        if mx is None and my is None:
            self.lmap[id(x)] = y
            self.rmap[id(y)] = x
            self.alive += (x, y)
            return True
        return mx is y and my is x

    def bind(self, x: Var, y: Var, path: _Path) -> None:
        if not isinstance(x, Var) or not isinstance(y, Var):
            raise _Differ(path, f"{_describe(x)} vs {_describe(y)}")
        if not self.pair(x, y):
            raise _Differ(path, f"binding of %{x.name_hint} vs %{y.name_hint} clashes with an "
                                "earlier pairing")
        self.annotations(x, y, path)

    def annotations(self, x: Var, y: Var, path: _Path) -> None:
        if not self.ignore and _annotation(x) != _annotation(y):
            raise _Differ(path, f"type annotation of %{x.name_hint}: "
                                f"{_ann(x.type_annotation)} vs {_ann(y.type_annotation)}")
        # a var's virtual device is part of it (VarNode::SEqualReduce); compared by content
        dx, dy = _device(x), _device(y)
        if dx != dy:
            raise _Differ(path, f"virtual device of %{x.name_hint}: {_show_device(x)} vs "
                                f"{_show_device(y)}")

    def use(self, x: Var, y: Var, path: _Path) -> None:
        mx = self.lmap.get(id(x))
        if mx is not None:
            if mx is not y:
                raise _Differ(path, f"%{x.name_hint} stands for %{mx.name_hint} here, "
                                    f"not %{y.name_hint}")
            return
        if id(y) in self.rmap:
            other = self.rmap[id(y)]
            raise _Differ(path, f"%{y.name_hint} stands for %{other.name_hint}, "
                                f"not %{x.name_hint}")
        self.pair(x, y)  # a free variable, paired on first encounter
        self.annotations(x, y, path)

    # -------------------------------------------------------------------------- expressions

    def expr(self, x: Any, y: Any, path: _Path) -> None:  # noqa: C901 - one case per node
        if type(x) is not type(y):
            raise _Differ(path, f"{_describe(x)} vs {_describe(y)}")
        if isinstance(x, Var):
            self.use(x, y, path)
            return
        if isinstance(x, Constructor):
            if not _same_ctor(x, y):
                raise _Differ(path, f"{_describe(x)} vs {_describe(y)}")
            return
        if isinstance(x, _VALUE_NODES):
            if x != y:
                raise _Differ(path, f"{_describe(x)} vs {_describe(y)}")
            return
        if isinstance(x, Constant):
            self.constant(x, y, path)
            return
        if isinstance(x, Tuple) and not x.fields and not y.fields:
            return  # the empty tuple is a constant, not a graph node (TupleNode::SEqualReduce)
        if isinstance(x, TupleGetItem):  # not a graph node either: compared wherever met
            if x.index != y.index:
                raise _Differ(path, f"projection .{x.index} vs .{y.index}")
            self.stack.append(("expr", x.tuple_value, y.tuple_value, _Path(path, "tuple_value")))
            return
        if id(x) in self.lmap or id(y) in self.rmap:
            if self.lmap.get(id(x)) is y and self.rmap.get(id(y)) is x:
                return  # this pair was compared already
            raise _Differ(path, f"sharing differs: this {type(x).__name__} is paired elsewhere "
                                "with a different node")
        self.pair(x, y)
        push = self.stack.append
        if isinstance(x, Let):
            push(("expr", x.body, y.body, _Path(path, "body")))
            push(("expr", x.value, y.value, _Path(path, "value")))
            push(("bind", x.var, y.var, _Path(path, "var")))
        elif isinstance(x, Call):
            self.call_attrs(x, y, path)
            if len(x.args) != len(y.args):
                raise _Differ(path, f"{len(x.args)} vs {len(y.args)} arguments")
            # type arguments are not compared for primitive ops (CallNode::SEqualReduce)
            if not self.ignore and not isinstance(x.op, Op) and x.type_args != y.type_args:
                raise _Differ(path, "type arguments differ")
            for i in reversed(range(len(x.args))):
                push(("expr", x.args[i], y.args[i], _Path(path, f"args[{i}]")))
            push(("expr", x.op, y.op, _Path(path, "op")))
        elif isinstance(x, Tuple):
            if len(x.fields) != len(y.fields):
                raise _Differ(path, f"tuple of {len(x.fields)} vs {len(y.fields)} fields")
            for i in reversed(range(len(x.fields))):
                push(("expr", x.fields[i], y.fields[i], _Path(path, f"fields[{i}]")))
        elif isinstance(x, If):
            push(("expr", x.false_branch, y.false_branch, _Path(path, "false_branch")))
            push(("expr", x.true_branch, y.true_branch, _Path(path, "true_branch")))
            push(("expr", x.cond, y.cond, _Path(path, "cond")))
        elif isinstance(x, Function):
            self.function_header(x, y, path)
            push(("expr", x.body, y.body, _Path(path, "body")))
            for i in reversed(range(len(x.params))):
                push(("bind", x.params[i], y.params[i], _Path(path, f"params[{i}]")))
        elif isinstance(x, RefCreate):
            push(("expr", x.value, y.value, _Path(path, "value")))
        elif isinstance(x, RefRead):
            push(("expr", x.ref, y.ref, _Path(path, "ref")))
        elif isinstance(x, RefWrite):
            push(("expr", x.value, y.value, _Path(path, "value")))
            push(("expr", x.ref, y.ref, _Path(path, "ref")))
        elif isinstance(x, Match):
            if x.complete != y.complete:
                raise _Differ(path, "match vs match?")
            if len(x.clauses) != len(y.clauses):
                raise _Differ(path, f"{len(x.clauses)} vs {len(y.clauses)} clauses")
            for i in reversed(range(len(x.clauses))):
                cp = _Path(path, f"clauses[{i}]")
                push(("expr", x.clauses[i].rhs, y.clauses[i].rhs, _Path(cp, "rhs")))
                push(("pattern", x.clauses[i].lhs, y.clauses[i].lhs, _Path(cp, "lhs")))
            push(("expr", x.data, y.data, _Path(path, "data")))
        else:
            raise _Differ(path, f"cannot compare {type(x).__name__}")

    def constant(self, x: Constant, y: Constant, path: _Path) -> None:
        a, b = x.data, y.data
        if a.dtype != b.dtype:
            raise _Differ(path, f"constant of dtype {a.dtype} vs {b.dtype}")
        if a.shape != b.shape:
            raise _Differ(path, f"constant of shape {a.shape} vs {b.shape}")
        if a.tobytes() != b.tobytes():
            raise _Differ(path, f"constant values differ: {a!r} vs {b!r}")

    def function_header(self, x: Function, y: Function, path: _Path) -> None:
        if len(x.params) != len(y.params):
            raise _Differ(path, f"{len(x.params)} vs {len(y.params)} parameters")
        if x.type_params != y.type_params:
            raise _Differ(path, "type parameters differ")
        if not self.ignore and x.ret_type != y.ret_type:
            raise _Differ(path, f"return type {_ann(x.ret_type)} vs {_ann(y.ret_type)}")
        self.attr_items(list(x.attrs.items_), list(y.attrs.items_), path)

    def call_attrs(self, x: Call, y: Call, path: _Path) -> None:
        kx, ix = effective_call_attrs(x.op, x.attrs)
        ky, iy = effective_call_attrs(y.op, y.attrs)
        if kx != ky and kx is not None and ky is not None:
            raise _Differ(path, f"attrs type {kx} vs {ky}")
        self.attr_items(ix, iy, path)

    def attr_items(self, ix: list[tuple[str, Any]], iy: list[tuple[str, Any]],
                   path: _Path) -> None:
        dx, dy = dict(ix), dict(iy)
        if sorted(dx) != sorted(dy):
            raise _Differ(path, f"attribute names {sorted(dx)} vs {sorted(dy)}")
        for k in sorted(dx, reverse=True):
            vx, vy = dx[k], dy[k]
            if isinstance(vx, Expr) or isinstance(vy, Expr):
                self.stack.append(("expr", vx, vy, _Path(path, f"attrs.{k}")))
            elif attr_norm(vx) != attr_norm(vy):
                raise _Differ(_Path(path, f"attrs.{k}"), f"{k}={vx!r} vs {k}={vy!r}")

    def pattern(self, x: Pattern, y: Pattern, path: _Path) -> None:
        if type(x) is not type(y):
            raise _Differ(path, f"pattern {type(x).__name__} vs {type(y).__name__}")
        if isinstance(x, PatternWildcard):
            return
        if isinstance(x, PatternVar):
            self.bind(x.var, y.var, path)
            return
        if isinstance(x, PatternConstructor):
            if not _same_ctor(x.constructor, y.constructor):  # type: ignore[attr-defined]
                raise _Differ(path, f"pattern {x.constructor.name_hint} vs "
                                    f"{y.constructor.name_hint}")  # type: ignore[attr-defined]
        if isinstance(x, (PatternConstructor, PatternTuple)):
            py = y.patterns  # type: ignore[attr-defined]
            if len(x.patterns) != len(py):
                raise _Differ(path, f"{len(x.patterns)} vs {len(py)} sub-patterns")
            for i in reversed(range(len(x.patterns))):
                self.stack.append(("pattern", x.patterns[i], py[i], _Path(path, f"[{i}]")))
            return
        raise _Differ(path, f"cannot compare pattern {type(x).__name__}")


def _diff(a: Any, b: Any, ignore_annotations: bool) -> _Differ | None:
    eq = _Equal(ignore_annotations)
    try:
        eq.run(a, b)
    except _Differ as d:
        return d
    return None


def alpha_equal(a: Module | Expr, b: Module | Expr, ignore_annotations: bool = False) -> bool:
    """True when a and b are the same program up to renaming (and sharing corresponds)."""
    return _diff(a, b, ignore_annotations) is None


def assert_alpha_equal(a: Module | Expr, b: Module | Expr,
                       ignore_annotations: bool = False) -> None:
    """Raise AssertionError naming the path of the first difference."""
    d = _diff(a, b, ignore_annotations)
    if d is not None:
        raise AssertionError(f"not alpha-equal at {d.path.render()}: {d.message}")

