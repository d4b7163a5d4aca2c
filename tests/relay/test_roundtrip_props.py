"""Property tests: random well-scoped Relay modules survive text and JSON round trips.

For every generated module m: parse(astext(m)) ~ m, load_json(save_json(m)) ~ m and
parse(astext(m)) ~ load_json(save_json(m)), where ~ is alpha-equivalence with graph sharing.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from extractor.relay import ops
from extractor.relay.alpha import assert_alpha_equal
from extractor.relay.ast import (
    EMPTY_ATTRS,
    Attrs,
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
    TypeData,
    TypeVar,
    Var,
)
from extractor.relay.json_io import load_json, save_json
from extractor.relay.parser import parse
from extractor.relay.printer import astext

A = TypeVar("A")
CONS = Constructor("Cons", (A, TypeCall("List", (A,))), "List", 0)
NIL = Constructor("Nil", (), "List", 1)
LIST = TypeData("List", (A,), (CONS, NIL))
SOME = Constructor("Some", (A,), "Option", 0)
NONE = Constructor("None_", (), "Option", 1)
OPTION = TypeData("Option", (A,), (SOME, NONE))

NAMES = ["x", "x", "y", "", "1a", "x1", "a.b", "p", "x_1", "grad/w", "v"]
T = TensorType((5, 10), "float32")
TYPES: list[Type] = [
    T, TensorType((20,), "float32"), TensorType((), "float32"), TensorType((None, 3), "int64"),
    TensorType((), "bool"), TupleType(()), TupleType((T,)), TupleType((T, TensorType((), "int32"))),
    FuncType((T,), T), FuncType((), TupleType(())), RefType(T),
    RefType(FuncType((), TupleType(()))),
    TypeCall("List", (T,)), TypeCall("Option", (TensorType((), "int32"),)), IncompleteType(),
]

# op name -> attribute values to draw from (a missing field keeps its default)
OP_ATTRS: dict[str, dict[str, list[Any]]] = {
    "add": {}, "multiply": {}, "negative": {}, "zeros_like": {}, "collapse_sum_like": {},
    "where": {},
    "nn.dense": {"units": [None, 4, 20], "out_dtype": ["", "float16"]},
    "sum": {"axis": [None, (1,), (-1, 0)], "keepdims": [False, True], "exclude": [False, True]},
    "nn.bias_add": {"axis": [1, -1, 3]},
    "transpose": {"axes": [None, (1, 0)]},
    "cast": {"dtype": ["float16", "int32"]},
    "nn.batch_norm": {"epsilon": [1e-5, 2e-05, 0.1, 1e-3], "scale": [True, False]},
    "clip": {"a_min": [-1.0, 0.0, -0.5], "a_max": [6.0, 1.5, 1e30]},
    "take": {"axis": [None, 0, 1], "mode": ["clip", "wrap", "fast"], "batch_dims": [0, 1]},
    "nn.conv2d": {"padding": [(0, 0), (1, 1, 1, 1)], "data_layout": ["NCHW", "NHWC"],
                  "channels": [None, 8], "kernel_size": [None, (3, 3)], "groups": [1, 2]},
    "shape_of": {"dtype": ["int32", "int64"]},
    "zeros": {"shape": [(2, 3), ()], "dtype": ["float32", "int8"]},
    "nn.dropout": {"rate": [0.5, 0.25]},
    "expand_dims": {"axis": [0, -1], "num_newaxis": [1, 2]},
    "strided_slice": {"begin": [(0,), (1, 2)], "end": [(3,), (4, 5)], "strides": [None, (1,)]},
}
OP_NAMES = sorted(OP_ATTRS)

SCALARS: list[tuple[Any, str]] = [
    (0.1, "float32"), (-2.5, "float32"), (1e-5, "float32"), (3.0, "float32"),
    (float("inf"), "float32"), (float("-inf"), "float32"), (float("nan"), "float32"),
    (1 / 3, "float32"), (3.0, "float16"), (0.1, "float16"), (2.5, "float64"), (0.1, "float64"),
    (42, "int32"), (-7, "int32"), (42, "int64"), (-(2**40), "int64"), (True, "bool"),
    (False, "bool"), (5, "int8"), (-0.0, "float32"), (1e30, "float32"),
]


class Gen:
    """Draws a random well-scoped program; remembers earlier nodes so that some get shared."""

    def __init__(self, data: st.DataObject | random.Random, depth: int = 6) -> None:
        self.data = data
        self.depth = depth
        self.pool: list[tuple[Expr, frozenset[int]]] = []  # node, ids of the vars it needs

    def int(self, lo: int, hi: int) -> int:
        if isinstance(self.data, random.Random):
            return self.data.randint(lo, hi)
        return self.data.draw(st.integers(lo, hi))

    def pick(self, seq: list[Any]) -> Any:
        return seq[self.int(0, len(seq) - 1)]

    def var(self) -> Var:
        ann = self.pick(TYPES) if self.int(0, 2) == 0 else None
        return Var(self.pick(NAMES), ann)

    def const(self) -> Constant:
        if self.int(0, 5) == 0:
            dtype = self.pick(["float32", "int32", "bool", "float16", "int64"])
            shape = self.pick([(2,), (2, 3), (0,), (1, 1, 2)])
            arr = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape) * 1.5 - 1
            return Constant(arr.astype(dtype))
        value, dtype = self.pick(SCALARS)
        return Constant(np.asarray(value, dtype=dtype))

    def keep(self, e: Expr, needs: frozenset[int]) -> tuple[Expr, frozenset[int]]:
        self.pool.append((e, needs))
        return e, needs

    def expr(self, scope: list[Var], depth: int) -> tuple[Expr, frozenset[int]]:
        """An expression using only vars in scope, with the ids of the vars it uses."""
        if depth <= 0 or self.int(0, 7) == 0:
            if scope and self.int(0, 1) == 0:
                v = self.pick(scope)
                return v, frozenset({id(v)})
            return self.const(), frozenset()
        kind = self.int(0, 13)
        d = depth - 1
        if kind == 0:  # let
            v = self.var()
            value, nv = self.expr(scope, d)
            body, nb = self.expr([*scope, v], d)
            return self.keep(Let(v, value, body), nv | (nb - {id(v)}))
        if kind == 1:  # tuple
            parts = [self.expr(scope, d) for _ in range(self.int(0, 3))]
            return self.keep(Tuple(tuple(p for p, _ in parts)), _union(n for _, n in parts))
        if kind == 2:  # projection (of a tuple literal or anything else)
            if self.int(0, 1):
                inner, n = self.expr(scope, d)
            else:
                a, na = self.expr(scope, d)
                b, nb = self.expr(scope, d)
                inner, n = self.keep(Tuple((a, b)), na | nb)
            return self.keep(TupleGetItem(inner, self.int(0, 1)), n)
        if kind == 3:  # operator call
            return self.op_call(scope, d)
        if kind == 4:  # if
            c, nc = self.expr(scope, d)
            t, nt = self.expr(scope, d)
            f, nf = self.expr(scope, d)
            return self.keep(If(c, t, f), nc | nt | nf)
        if kind == 5:  # function literal, maybe called
            fn, n = self.function(scope, d)
            self.keep(fn, n)
            if self.int(0, 1):
                args = [self.expr(scope, d) for _ in fn.params]
                return self.keep(Call(fn, tuple(a for a, _ in args)),
                                 n | _union(m for _, m in args))
            return fn, n
        if kind == 6:  # references
            r, nr = self.expr(scope, d)
            which = self.int(0, 2)
            if which == 0:
                return self.keep(RefCreate(r), nr)
            if which == 1:
                return self.keep(RefRead(r), nr)
            v, nv = self.expr(scope, d)
            return self.keep(RefWrite(r, v), nr | nv)
        if kind == 7:  # match
            return self.match(scope, d)
        if kind == 8:  # constructor calls
            if self.int(0, 1):
                h, nh = self.expr(scope, d)
                t, nt = self.expr(scope, d)
                return self.keep(Call(CONS, (h, t)), nh | nt)
            return self.keep(Call(self.pick([NIL, NONE]), ()), frozenset())
        if kind == 9:  # call of the global function
            a, n = self.expr(scope, d)
            return self.keep(Call(GlobalVar("g"), (a,)), n)
        if kind == 10:  # call of a variable (closure call)
            f, nf = self.expr(scope, d)
            args = [self.expr(scope, d) for _ in range(self.int(0, 2))]
            return self.keep(Call(f, tuple(a for a, _ in args)), nf | _union(m for _, m in args))
        if kind == 11:  # the same node twice in one call
            a, n = self.expr(scope, d)
            return self.keep(Call(Op("add"), (a, a)), n)
        # reuse an earlier node whose variables are all in scope
        ids = {id(v) for v in scope}
        cands = [(e, n) for e, n in self.pool if n <= ids]
        if cands:
            return self.pick(cands)
        return self.expr(scope, d)

    def function(self, scope: list[Var], d: int) -> tuple[Function, frozenset[int]]:
        params = [self.var() for _ in range(self.int(0, 2))]
        body, nb = self.expr([*scope, *params], d)
        ret = self.pick(TYPES) if self.int(0, 2) == 0 else None
        attrs = Attrs.of(Primitive=1) if self.int(0, 4) == 0 else EMPTY_ATTRS
        return Function(tuple(params), body, ret, (), attrs), nb - {id(p) for p in params}

    def op_call(self, scope: list[Var], d: int) -> tuple[Expr, frozenset[int]]:
        name = self.pick(OP_NAMES)
        opdef = ops.lookup(name)
        assert opdef is not None and opdef.num_inputs is not None
        args = [self.expr(scope, d) for _ in range(opdef.num_inputs)]
        items = []
        for field, choices in OP_ATTRS[name].items():
            if self.int(0, 2):
                items.append((field, self.pick(choices)))
        attrs = Attrs(tuple(items), opdef.attrs_type_key) if opdef.attrs_type_key else EMPTY_ATTRS
        return self.keep(Call(Op(name), tuple(a for a, _ in args), attrs),
                         _union(n for _, n in args))

    def pattern(self, bound: list[Var], depth: int) -> Pattern:
        k = self.int(0, 4 if depth > 0 else 1)
        if k == 0:
            return PatternWildcard()
        if k == 1:
            v = self.var()
            bound.append(v)
            return PatternVar(v)
        if k == 2:
            return PatternConstructor(CONS, (self.pattern(bound, depth - 1),
                                             self.pattern(bound, depth - 1)))
        if k == 3:
            return PatternConstructor(self.pick([NIL, NONE]), ())
        subs = tuple(self.pattern(bound, depth - 1) for _ in range(self.int(2, 3)))
        return PatternTuple(subs)

    def match(self, scope: list[Var], d: int) -> tuple[Expr, frozenset[int]]:
        data, n = self.expr(scope, d)
        clauses = []
        for _ in range(self.int(1, 3)):
            bound: list[Var] = []
            lhs = self.pattern(bound, 2)
            rhs, nr = self.expr([*scope, *bound], d)
            n = n | (nr - {id(v) for v in bound})
            clauses.append(Clause(lhs, rhs))
        return self.keep(Match(data, tuple(clauses), bool(self.int(0, 1))), n)

    def module(self) -> Module:
        g_param = self.var()
        g_body, _ = self.expr([g_param], 3)
        g = Function((g_param,), g_body, self.pick(TYPES) if self.int(0, 1) else None)
        self.pool.clear()
        params = [self.var() for _ in range(self.int(0, 3))]
        body, _ = self.expr(params, self.depth)
        main = Function(tuple(params), body)
        return Module({"main": main, "g": g}, {"List": LIST, "Option": OPTION})


def _union(sets: Any) -> frozenset[int]:
    out: frozenset[int] = frozenset()
    for s in sets:
        out |= s
    return out


_PHASES = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]
_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]


@settings(max_examples=150, deadline=None, phases=_PHASES, suppress_health_check=_SLOW)
@given(st.data())
def test_text_and_json_round_trips(data: st.DataObject) -> None:
    m = Gen(data).module()
    text = astext(m)
    parsed = parse(text)
    assert_alpha_equal(m, parsed)
    loaded = load_json(save_json(m))
    assert isinstance(loaded, Module)
    assert_alpha_equal(m, loaded)
    assert_alpha_equal(parsed, loaded)
    # printing is a fixed point once the names are the printer's own
    assert astext(parsed) == astext(loaded)


@settings(max_examples=60, deadline=None, phases=_PHASES, suppress_health_check=_SLOW)
@given(st.data())
def test_printed_text_is_stable(data: st.DataObject) -> None:
    m = Gen(data).module()
    once = astext(m)
    assert astext(parse(once)) == astext(parse(astext(parse(once))))


@settings(max_examples=100, deadline=None, phases=_PHASES, suppress_health_check=_SLOW)
@given(st.integers(0, 2**32 - 1))
def test_round_trips_on_larger_programs(seed: int) -> None:
    """Uniform draws from a seeded RNG give bigger programs than shrink-friendly draws do."""
    m = Gen(random.Random(seed), depth=8).module()
    parsed = parse(astext(m))
    loaded = load_json(save_json(m))
    assert_alpha_equal(m, parsed)
    assert_alpha_equal(m, loaded)
    assert_alpha_equal(parsed, loaded)
