"""TVM's two historical Relay DCEs: the §4.1 peer tests, the purity rules, and deep/shared programs.

Each §4.1 case is rewritten from the notes' description (not copied from TVM): a program, the
expected output of the post-#9542 `purity` DCE (TVM v0.19's expectation), and, where the pre-#9542
`assume-pure` DCE differs, its own expected output.
"""

from __future__ import annotations

import pytest

from aliaslog.relay.dce import relay_dce as dce
from extractor.relay.alpha import assert_alpha_equal
from extractor.relay.ast import (
    Call,
    Function,
    Let,
    Module,
    Op,
    TensorType,
    Tuple,
    Var,
    const,
    let_chain,
)
from extractor.relay.errors import RelayTypeError
from extractor.relay.parser import parse, parse_file
from extractor.relay.transforms.dead_code import MAX_CALL_DEPTH, purity_dce
from extractor.relay.typeinfer import infer_types
from tests.support import paths

HEADER = '#[version = "0.0.5"]\n'


def _mod(text: str) -> Module:
    return parse(HEADER + text)


def _check(before: str, after: str, mode: str, inline_once: bool) -> Module:
    """DCE `before` and compare with `after` up to alpha-renaming (annotations aside)."""
    got = dce(_mod(before), mode=mode, inline_once=inline_once)
    assert_alpha_equal(got, _mod(after), ignore_annotations=True)
    return got


# ------------------------------------------------------------------ §4.1 peer tests (11 of 12)

SAME = object()  # assume-pure gives the same output as purity

# name: (before, purity's expected output, assume-pure's expected output or SAME, inline_once)
PEER_CASES: dict[str, tuple[str, str, object, bool]] = {
    "test_dead_let": (
        "def @main(%z: int32) { let %x = 1; %z }",
        "def @main(%z: int32) { %z }",
        SAME,
        False,
    ),
    "test_one_live_let": (
        "def @main(%z: int32) { let %x = 1; let %y = 2; %x + %x }",
        "def @main(%z: int32) { let %x = 1; %x + %x }",
        SAME,
        False,
    ),
    "test_nested_let": (
        # %b is used only by the dead %a: counted lazily, it is dead too
        "def @main(%d: int32) { let %b = %d; let %a = %b; let %c = %d; %c }",
        "def @main(%d: int32) { let %c = %d; %c }",
        SAME,
        False,
    ),
    "test_live_recursion": (
        """
        def @main() -> float32 {
          let %loop = fn (%n: int32, %acc: float32) -> float32 {
            if (%n == 0) { %acc } else { %loop(%n - 1, log(%acc)) }
          };
          %loop(3, 100f)
        }
        """,
        """
        def @main() -> float32 {
          let %loop = fn (%n: int32, %acc: float32) -> float32 {
            if (%n == 0) { %acc } else { %loop(%n - 1, log(%acc)) }
          };
          %loop(3, 100f)
        }
        """,
        SAME,
        False,
    ),
    "test_dead_recursion": (
        """
        def @main() -> () {
          let %loop = fn (%n: int32, %acc: float32) -> float32 {
            if (%n == 0) { %acc } else { %loop(%n - 1, log(%acc)) }
          };
          ()
        }
        """,
        "def @main() -> () { () }",
        SAME,
        False,
    ),
    "test_add_with_let": (
        "def @main() { (let %a = 1; 3) + 2 }",
        "def @main() { 3 + 2 }",
        SAME,
        False,
    ),
    "test_tuple_get_item": (
        "def @main() { let %a = 7; (1, 2, 3, 4).0 }",
        "def @main() { (1, 2, 3, 4).0 }",
        SAME,
        False,
    ),
    "test_inline_into_function": (
        """
        def @main() {
          let %x = 1 + 1;
          let %f = fn (%y: int32) -> int32 { let %z = %y + %y; %x + %z };
          (%f(2), %f(3))
        }
        """,
        # %z is inlined within the closure; %x is not inlined into it (scope rule)
        """
        def @main() {
          let %x = 1 + 1;
          let %f = fn (%y: int32) -> int32 { %x + (%y + %y) };
          (%f(2), %f(3))
        }
        """,
        # CalcDep had no scope rule: %x is inlined into the closure
        """
        def @main() {
          let %f = fn (%y: int32) -> int32 { (1 + 1) + (%y + %y) };
          (%f(2), %f(3))
        }
        """,
        True,
    ),
    "test_impure_op": (
        """
        extern type Storage
        def @main() -> int32 {
          let %size: int64 = cast(1024, dtype="int64");
          let %align: int64 = cast(64, dtype="int64");
          let %s: Storage = memory.alloc_storage(%size, 64i64, %align);
          let %_ = memory.kill(%s);
          0
        }
        """,
        # alloc_storage (size, shape, alignment; the shape a literal here, TVM's test uses a
        # meta constant) is pure and inlined; memory.kill is stateful and stays in place
        """
        extern type Storage
        def @main() -> int32 {
          let %_ = memory.kill(memory.alloc_storage(cast(1024, dtype="int64"), 64i64,
                                                    cast(64, dtype="int64")));
          0
        }
        """,
        """
        extern type Storage
        def @main() -> int32 { 0 }
        """,
        True,
    ),
    "test_impure_func": (
        """
        extern type Storage
        def @f() -> int32 {
          let %size: int64 = cast(1024, dtype="int64");
          let %align: int64 = cast(64, dtype="int64");
          let %s: Storage = memory.alloc_storage(%size, 64i64, %align);
          let %_ = memory.kill(%s);
          0
        }
        def @main() -> int32 { let %y = @f(); 0 }
        """,
        """
        extern type Storage
        def @f() -> int32 {
          let %_ = memory.kill(memory.alloc_storage(cast(1024, dtype="int64"), 64i64,
                                                    cast(64, dtype="int64")));
          0
        }
        def @main() -> int32 { let %y = @f(); 0 }
        """,
        """
        extern type Storage
        def @f() -> int32 { 0 }
        def @main() -> int32 { 0 }
        """,
        True,
    ),
    "test_refs": (
        """
        def @f(%r) -> int32 {
          let %v = ref_read(%r);
          let %u = ref_write(%r, %v + 1);
          %v
        }
        def @main() -> int32 {
          let %r = ref(0);
          let %y = @f(%r);
          let %z = @f(%r);
          %z
        }
        """,
        """
        def @f(%r) -> int32 {
          let %v = ref_read(%r);
          let %u = ref_write(%r, %v + 1);
          %v
        }
        def @main() -> int32 {
          let %r = ref(0);
          let %y = @f(%r);
          let %z = @f(%r);
          %z
        }
        """,
        # the write, and the first call (whose result is unused), are gone
        """
        def @f(%r) -> int32 { ref_read(%r) }
        def @main() -> int32 { @f(ref(0)) }
        """,
        True,
    ),
}


@pytest.mark.parametrize("name", list(PEER_CASES))
def test_peer_purity(name: str) -> None:
    before, after, _, inline_once = PEER_CASES[name]
    out = _check(before, after, "purity", inline_once)
    infer_types(out)  # the result still type-checks (test_live_recursion runs InferType after)


@pytest.mark.parametrize("name", list(PEER_CASES))
def test_peer_assume_pure(name: str) -> None:
    before, after, legacy, inline_once = PEER_CASES[name]
    _check(before, after if legacy is SAME else str(legacy), "assume-pure", inline_once)


def test_peer_purity_without_inline_once_keeps_single_uses() -> None:
    before = PEER_CASES["test_inline_into_function"][0]
    _check(before, before, "purity", False)


DATA = paths.DATA / "relay"
INLINE_ONCE_FILES = {"inline_into_function", "impure_op", "impure_func", "refs"}


@pytest.mark.parametrize(
    "name", sorted(p.name[4:-len(".before.relay")] for p in DATA.glob("dce_*.before.relay"))
)
def test_peer_data_files_purity(name: str) -> None:
    """The parser helper's independent transcription of §4.1 (tests/data/relay/dce_*)."""
    before = parse_file(DATA / f"dce_{name}.before.relay")
    expected = infer_types(parse_file(DATA / f"dce_{name}.after.relay")).module
    got = dce(before, mode="purity", inline_once=name in INLINE_ONCE_FILES)
    assert_alpha_equal(got, expected)  # annotations included: both come from inference


@pytest.mark.parametrize("mode", ["purity", "assume-pure"])
def test_complexity(mode: str) -> None:
    """inception_v3.get_net(1, 1000, (3, 299, 299)) is unchanged by DCE(inline_once=True)."""
    from aliaslog.zoo.relay_models import build_relay

    mod = build_relay("inception_v3")  # type-inferred, as the peer test's InferType leaves it
    got = dce(mod, mode=mode, inline_once=True)
    assert_alpha_equal(got, mod)


# --------------------------------------------------------------------- refs: the seed bug class

def test_unused_ref_write_removed_by_assume_pure_kept_by_purity() -> None:
    before = """
    def @main(%x: float32) -> float32 {
      let %r = ref(0f);
      let %_ = ref_write(%r, %x * 2f);
      %x
    }
    """
    _check(before, before, "purity", False)
    inlined = """
    def @main(%x: float32) -> float32 { let %_ = ref_write(ref(0f), %x * 2f); %x }
    """
    _check(before, inlined, "purity", True)  # the cell, used once and pure, is inlined
    for inline_once in (False, True):
        _check(before, "def @main(%x: float32) -> float32 { %x }", "assume-pure", inline_once)


def test_dead_ref_read_kept_by_purity() -> None:
    before = """
    def @main(%x: float32) -> float32 {
      let %r = ref(%x);
      let %v = ref_read(%r);
      let %dead = %x + 1f;
      %x
    }
    """
    after = """
    def @main(%x: float32) -> float32 {
      let %r = ref(%x);
      let %v = ref_read(%r);
      %x
    }
    """
    _check(before, after, "purity", False)
    _check(before, "def @main(%x: float32) -> float32 { %x }", "assume-pure", False)


def test_dead_ref_create_is_pure() -> None:
    _check("def @main() -> int32 { let %r = ref(1); 0 }", "def @main() -> int32 { 0 }",
           "purity", False)


# ------------------------------------------------------------------------- purity rules A-F

def test_rule_a_closure_result_inherits_callee_call_purity() -> None:
    pure = """
    def @main() -> int32 {
      let %k = fn (%a: int32) -> fn (int32) -> int32 { fn (%b: int32) -> int32 { %a + %b } };
      let %h = %k(1);
      let %u = %h(2);
      0
    }
    """
    _check(pure, "def @main() -> int32 { 0 }", "purity", False)
    impure = """
    def @main(%r: ref(int32)) -> int32 {
      let %k = fn (%a: int32) -> fn (int32) -> () { fn (%b: int32) -> () { ref_write(%r, %b) } };
      let %h = %k(1);
      let %u = %h(2);
      0
    }
    """
    _check(impure, impure, "purity", False)
    _check(impure, "def @main(%r: ref(int32)) -> int32 { 0 }", "assume-pure", False)


def test_rule_b_higher_order_parameter_is_call_impure() -> None:
    before = "def @main(%g: fn (int32) -> int32) -> int32 { let %y = %g(1); 0 }"
    _check(before, before, "purity", True)
    _check(before, "def @main(%g: fn (int32) -> int32) -> int32 { 0 }", "assume-pure", True)


def test_rule_c_function_projected_from_tuple_is_call_impure() -> None:
    before = """
    def @main() -> int32 {
      let %p = (fn (%a: int32) -> int32 { %a }, 1);
      let %f = %p.0;
      let %y = %f(2);
      0
    }
    """
    _check(before, before, "purity", False)
    _check(before, "def @main() -> int32 { 0 }", "assume-pure", False)


def test_rule_d_function_read_from_ref_is_call_impure() -> None:
    before = """
    def @main() -> int32 {
      let %r = ref(fn (%a: int32) -> int32 { %a });
      let %f = ref_read(%r);
      let %y = %f(2);
      0
    }
    """
    _check(before, before, "purity", False)


def test_rule_e_function_pattern_var_is_call_impure() -> None:
    before = """
    type Box { MkBox(fn (int32) -> int32) }
    def @main() -> int32 {
      let %b = MkBox(fn (%a: int32) -> int32 { %a });
      match (%b) {
        MkBox(%f) => { let %y = %f(2); 0 },
      }
    }
    """
    _check(before, before, "purity", False)
    after = """
    type Box { MkBox(fn (int32) -> int32) }
    def @main() -> int32 {
      let %b = MkBox(fn (%a: int32) -> int32 { %a });
      match (%b) {
        MkBox(%f) => { 0 },
      }
    }
    """
    _check(before, after, "assume-pure", False)


def test_rule_f_extern_global_is_call_impure() -> None:
    before = """
    def @ext(%x: int32, Extern=1) -> int32 { %x }
    def @ident(%x: int32) -> int32 { %x }
    def @main() -> int32 { let %y = @ext(1); let %z = @ident(1); 0 }
    """
    after = """
    def @ext(%x: int32, Extern=1) -> int32 { %x }
    def @ident(%x: int32) -> int32 { %x }
    def @main() -> int32 { let %y = @ext(1); 0 }
    """
    _check(before, after, "purity", False)


def test_impure_global_via_recursion_is_impure() -> None:
    before = """
    def @tick(%r: ref(int32), %n: int32) -> () {
      if (%n == 0) { () } else { let %w = ref_write(%r, %n); @tick(%r, %n - 1) }
    }
    def @main(%r: ref(int32)) -> int32 { let %t = @tick(%r, 3); let %d = 5; 0 }
    """
    after = """
    def @tick(%r: ref(int32), %n: int32) -> () {
      if (%n == 0) { () } else { let %w = ref_write(%r, %n); @tick(%r, %n - 1) }
    }
    def @main(%r: ref(int32)) -> int32 { let %t = @tick(%r, 3); 0 }
    """
    _check(before, after, "purity", False)


def _nested_adds(depth: int) -> str:
    expr = "%x"
    for _ in range(depth):
        expr = f"add({expr}, 1)"
    return f"def @main(%x: int32) -> int32 {{ let %deep = {expr}; 0 }}"


def test_calls_nested_deeper_than_limit_assumed_impure() -> None:
    at_limit = _nested_adds(MAX_CALL_DEPTH)
    _check(at_limit, "def @main(%x: int32) -> int32 { 0 }", "purity", False)
    too_deep = _nested_adds(MAX_CALL_DEPTH + 1)
    _check(too_deep, too_deep, "purity", False)
    _check(too_deep, "def @main(%x: int32) -> int32 { 0 }", "assume-pure", False)


# ------------------------------------------------------------------- sharing and deep programs

def test_shared_graph_node_counts_as_two_uses_and_stays_shared() -> None:
    mod = _mod("""
    def @main(%a: int32) {
      let %x = %a + 1;
      %0 = %x * 2;
      let %dead = 5;
      (%0, %0)
    }
    """)
    for mode in ("purity", "assume-pure"):
        out = dce(mod, mode=mode, inline_once=True)
        lets, body = let_chain(out["main"].body)
        assert [let.var.name_hint for let in lets] == ["x"], mode  # %x is reached twice
        assert isinstance(body, Tuple) and body.fields[0] is body.fields[1], mode


def test_inlining_keeps_shared_nodes_shared() -> None:
    mod = _mod("def @main(%a: int32) { %0 = %a * 2; let %t = (%0, %0); %t }")
    for mode in ("purity", "assume-pure"):
        body = dce(mod, mode=mode, inline_once=True)["main"].body
        assert isinstance(body, Tuple) and body.fields[0] is body.fields[1], mode


def test_unchanged_function_is_returned_as_is() -> None:
    mod = _mod(PEER_CASES["test_live_recursion"][0])
    assert dce(mod, mode="assume-pure")["main"] is mod["main"]


def _chain(n: int) -> Module:
    """fn (%x0) { let %x1 = %x0 + 1; ... let %xn = %x(n-1) + 1; let %dead = 0; %xn }."""
    t = TensorType((), "int32")
    xs = [Var(f"x{i}", t) for i in range(n + 1)]
    add = Op("add")
    body: object = Let(Var("dead", t), const(0), xs[n])
    for i in range(n, 0, -1):
        body = Let(xs[i], Call(add, (xs[i - 1], const(1))), body)  # type: ignore[arg-type]
    return Module({"main": Function((xs[0],), body, t)})  # type: ignore[arg-type]


def test_20000_let_chain() -> None:
    n = 20_000
    mod = _chain(n)
    typed = infer_types(mod)
    runs = {
        "assume-pure": lambda inline_once: dce(mod, "assume-pure", inline_once),
        "purity": lambda inline_once: purity_dce(typed.module, typed.type_of, inline_once),
    }
    for mode, run in runs.items():
        kept, final = let_chain(run(False)["main"].body)
        assert len(kept) == n and isinstance(final, Var) and final.name_hint == f"x{n}", mode
        inlined = run(True)["main"].body
        depth = 0
        while isinstance(inlined, Call):  # every single-use let was inlined: one nested call
            inlined, depth = inlined.args[0], depth + 1
        assert depth == n, mode


# ------------------------------------------------------------------------------------- modes

def test_unknown_modes_name_the_valid_ones() -> None:
    mod = _mod("def @main() { 0 }")
    for mode in ("pure", "Analysis"):
        with pytest.raises(ValueError, match="'assume-pure', 'purity', 'analysis'"):
            dce(mod, mode=mode)


def test_var_bound_by_two_lets_is_a_located_error() -> None:
    """FindDef's invariant (each var bound once) becomes a RelayTypeError, not a crash."""
    t = TensorType((), "int32")
    x = Var("x", t)
    body = Let(x, const(1), Let(x, const(2), x))
    with pytest.raises(RelayTypeError, match="bound by more than one let"):
        dce(Module({"main": Function((), body, t)}), mode="assume-pure")
