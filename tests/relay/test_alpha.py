"""alpha_equal follows assert_structural_equal(map_free_vars=True): renaming, free vars, sharing."""

from __future__ import annotations

import numpy as np
import pytest

from extractor.relay.alpha import alpha_equal, assert_alpha_equal
from extractor.relay.ast import (
    Attrs,
    Call,
    Clause,
    Constant,
    Constructor,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    Module,
    Op,
    PatternConstructor,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    TensorType,
    Tuple,
    TupleGetItem,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    const,
)

T = TensorType((3,), "float32")
A = TypeVar("A")
CONS = Constructor("Cons", (A, TypeCall("List", (A,))), "List", 0)
NIL = Constructor("Nil", (), "List", 1)


def add(a, b):  # noqa: ANN001, ANN201
    return Call(Op("add"), (a, b))


def neg(a):  # noqa: ANN001, ANN201
    return Call(Op("negative"), (a,))


# --------------------------------------------------------------------------------- positive


def test_bound_variables_compare_up_to_renaming() -> None:
    x, y, u, v = Var("x", T), Var("y"), Var("a", T), Var("b")
    f1 = Function((x,), Let(y, neg(x), add(y, x)))
    f2 = Function((u,), Let(v, neg(u), add(v, u)))
    assert alpha_equal(f1, f2)
    assert_alpha_equal(f1, f2)


def test_free_variables_are_paired_on_first_encounter() -> None:
    a, b, c, d = Var("a"), Var("b"), Var("c"), Var("d")
    assert alpha_equal(add(a, b), add(c, d))
    assert alpha_equal(add(a, a), add(c, c))


def test_pattern_variables_are_binders() -> None:
    h1, h2, xs = Var("h"), Var("k"), Var("xs")
    m1 = Match(xs, (Clause(PatternConstructor(CONS, (PatternVar(h1), PatternWildcard())), h1),
                    Clause(PatternWildcard(), Call(NIL, ()))))
    m2 = Match(xs, (Clause(PatternConstructor(CONS, (PatternVar(h2), PatternWildcard())), h2),
                    Clause(PatternWildcard(), Call(NIL, ()))))
    assert alpha_equal(m1, m2)


def test_sharing_on_both_sides_is_equal() -> None:
    x1, x2 = Var("x"), Var("x")
    n1, n2 = neg(x1), neg(x2)
    assert alpha_equal(Function((x1,), add(n1, n1)), Function((x2,), add(n2, n2)))


def test_constants_values_not_identity_and_scalars_may_be_shared() -> None:
    c = const(1.0)
    assert alpha_equal(add(c, c), add(const(1.0), const(1.0)))  # constants are not graph nodes
    assert alpha_equal(const(np.arange(4, dtype="int64")), const(np.arange(4, dtype="int64")))


def test_default_attrs_equal_missing_attrs() -> None:
    x = Var("x")
    explicit = Call(Op("sum"), (x,), Attrs.of("relay.attrs.ReduceAttrs", axis=None,
                                               keepdims=False, exclude=False))
    implicit = Call(Op("sum"), (x,))
    assert alpha_equal(explicit, implicit)
    dense1 = Call(Op("nn.dense"), (x, x), Attrs.of("relay.attrs.DenseAttrs", units=None))
    assert alpha_equal(dense1, Call(Op("nn.dense"), (x, x)))
    lst = Call(Op("transpose"), (x,), Attrs.of(None, axes=[1, 0]))
    tup = Call(Op("transpose"), (x,), Attrs.of("relay.attrs.TransposeAttrs", axes=(1, 0)))
    assert alpha_equal(lst, tup)


def test_modules_by_name() -> None:
    x, y = Var("x"), Var("y")
    td = TypeData("List", (A,), (CONS, NIL))
    m1 = Module({"main": Function((x,), Call(GlobalVar("f"), (x,))),
                 "f": Function((y,), y)}, {"List": td})
    x2, y2 = Var("p"), Var("q")
    m2 = Module({"f": Function((y2,), y2),
                 "main": Function((x2,), Call(GlobalVar("f"), (x2,)))}, {"List": td})
    assert alpha_equal(m1, m2)
    m3 = Module({"main": Function((x2,), Call(GlobalVar("g"), (x2,))), "f": Function((y2,), y2)},
                {"List": td})
    assert not alpha_equal(m1, m3)
    assert not alpha_equal(m1, Module(m1.functions, {}))


def test_long_let_chains_compare_iteratively() -> None:
    def chain(n: int, tag: str) -> Function:
        x = Var("x")
        vs = [Var(f"{tag}{i}") for i in range(n)]
        body: object = vs[-1]
        for i in reversed(range(n)):
            body = Let(vs[i], neg(vs[i - 1] if i else x), body)  # type: ignore[arg-type]
        return Function((x,), body)  # type: ignore[arg-type]

    assert alpha_equal(chain(20_000, "a"), chain(20_000, "b"))
    assert not alpha_equal(chain(20_000, "a"), chain(19_999, "a"))


# --------------------------------------------------------------------------------- negative


def test_bijection_on_bound_variables() -> None:
    x, y, u, v = Var("x"), Var("y"), Var("u"), Var("v")
    assert not alpha_equal(Function((x, y), x), Function((u, v), v))


def test_free_variables_must_pair_consistently() -> None:
    a, b, c = Var("a"), Var("b"), Var("c")
    assert not alpha_equal(add(a, b), add(c, c))
    assert not alpha_equal(add(c, c), add(a, b))


def test_bound_vs_free() -> None:
    x, y, z = Var("x"), Var("y"), Var("z")
    assert not alpha_equal(Function((x,), x), Function((y,), z))


def test_sharing_must_correspond() -> None:
    x1, x2 = Var("x"), Var("x")
    n1 = neg(x1)
    shared = Function((x1,), add(n1, n1))
    unshared = Function((x2,), add(neg(x2), neg(x2)))
    assert not alpha_equal(shared, unshared)
    assert not alpha_equal(unshared, shared)
    with pytest.raises(AssertionError, match=r"args\[1\].*sharing differs"):
        assert_alpha_equal(shared, unshared)


def test_annotations_compared_unless_ignored() -> None:
    x, y = Var("x", T), Var("x")
    f1, f2 = Function((x,), x), Function((y,), y)
    assert not alpha_equal(f1, f2)
    assert alpha_equal(f1, f2, ignore_annotations=True)
    assert not alpha_equal(Function((x,), x, T), Function((x,), x))
    with pytest.raises(AssertionError, match=r"params\[0\].*type annotation"):
        assert_alpha_equal(f1, f2)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (const(1.0), const(2.0)),
        (const(1.0), const(1.0, "float64")),
        (const(np.zeros(2, "float32")), const(np.zeros(3, "float32"))),
        (TupleGetItem(Tuple((const(1),)), 0), TupleGetItem(Tuple((const(1),)), 1)),
        (Call(Op("add"), (const(1), const(2))), Call(Op("subtract"), (const(1), const(2)))),
        (Call(Op("sum"), (const(1),), Attrs.of(None, keepdims=True)), Call(Op("sum"), (const(1),))),
        (Call(Op("clip"), (const(1),), Attrs.of(None, a_min=0.0, a_max=1.0)),
         Call(Op("clip"), (const(1),), Attrs.of(None, a_min=0, a_max=1.0))),
        (Tuple(()), Tuple((Tuple(()),))),
        (If(const(True), const(1), const(2)), If(const(True), const(2), const(1))),
        (RefCreate(const(1)), RefRead(const(1))),
        (Match(const(1), (), True), Match(const(1), (), False)),
        (GlobalVar("f"), GlobalVar("g")),
        (Call(NIL, ()), Call(CONS, ())),
    ],
)
def test_differences_are_found(a, b) -> None:  # noqa: ANN001
    assert not alpha_equal(a, b)
    assert not alpha_equal(b, a)


def test_first_difference_path_is_named() -> None:
    x, y = Var("x"), Var("y")
    f1 = Function((x,), Let(y, neg(x), Tuple((y, add(y, const(1.0))))))
    x2, y2 = Var("x"), Var("y")
    f2 = Function((x2,), Let(y2, neg(x2), Tuple((y2, add(y2, const(2.0))))))
    with pytest.raises(AssertionError) as info:
        assert_alpha_equal(f1, f2)
    msg = str(info.value)
    assert "root.body.body.fields[1].args[1]" in msg and "constant values differ" in msg


def test_constant_nan_compares_bitwise() -> None:
    assert alpha_equal(Constant(np.asarray(np.nan, "float32")),
                       Constant(np.asarray(np.nan, "float32")))
