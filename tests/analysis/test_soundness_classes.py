"""The classes of program in which the analysis once deleted live code (issue "Soundness you can
check"), each as programs with the result TVM v0.19 gives, checked under every variant.

Class 1 - shared graph nodes: TVM's debug executor runs ToANormalForm first, so a `%N` node used
in several places is evaluated once, in the innermost scope common to its uses; the interpreter,
the analysis and DCE must all mean that. Class 2 - 1-closure contexts: a variable captured two
or more closure levels up must have its value in the innermost closure's contexts.
(Classes 3 and 4, Relax, are pinned by the Relax tests.) Class 5 (issue 27) - tag tests below
the top: `Some(Some(_))`, `Cons(_, Cons(_, _))`, `(Some(_), _)` look at the tag of a field,
bound to a variable or not, so the write that decides it decides which arm runs; the programs
are the corpus's match_tag_test_*.relay, checked under all eight variants.
"""

from __future__ import annotations

import numpy as np
import pytest

from aliaslog.cli import main
from aliaslog.options import AnalysisOptions
from aliaslog.relay.analysis import analysis_program, analyze
from aliaslog.relay.dce import remove_relay_bindings
from extractor.relay.ast import Let, post_order
from extractor.relay.interpreter import evaluate, flatten_value, random_inputs
from extractor.relay.parser import parse
from tests.support.corpus import DATA, let_names, read_header
from tests.support.fuzz_checks import VARIANTS, build_program, check_program
from tests.support.options import EMBEDDED

V = '#[version = "0.0.5"]\n'

# (name, program, expected outputs as a function of the first input)
CLASS1 = [
    ("tvm_test_ref",  # tests/python/relay/test_ir_parser.py::test_ref
     V + "def @main(%x: float32) { %0 = ref(%x); ref_write(%0, 1f); ref_read(%0) }",
     lambda x: [1.0]),
    ("read_shared_by_main_and_a_closure",  # bound once, before the closure is made
     V + """def @main(%x: float32) -> (float32, float32) {
  let %c = ref(%x);
  %0 = ref_read(%c);
  let %f = fn () -> float32 { %0 };
  let %w = ref_write(%c, 2f);
  (%0, %f())
}""", lambda x: [x, x]),
    ("write_shared_by_main_and_a_closure",  # runs once: the later write wins
     V + """def @main(%x: float32) -> float32 {
  let %c = ref(%x);
  %0 = ref_write(%c, 2f);
  let %f = fn () -> () { %0 };
  let %w = ref_write(%c, 3f);
  let %u = %f();
  let %v = %0;
  ref_read(%c)
}""", lambda x: [3.0]),
    ("write_shared_by_two_arms",  # the arms meet outside the if: the write runs either way
     V + """def @main(%x: float32) -> float32 {
  let %c = ref(0f);
  %0 = ref_write(%c, %x);
  let %a = if (%x > 0f) { %0 } else { let %b = ref_write(%c, 5f); %0 };
  ref_read(%c)
}""", lambda x: [x if x > 0 else 5.0]),
    ("cell_shared_by_a_let_expression",
     V + """def @main(%x: float32) -> float32 {
  %0 = (let %y = ref(%x); %y);
  ref_write(%0, 1f);
  ref_read(%0)
}""", lambda x: [1.0]),
    ("counter_shared_by_two_closures",  # one cell for both closures, made once
     V + """def @main(%x: float32) -> (float32, float32) {
  %0 = ref(%x);
  let %inc = fn () -> () { ref_write(%0, add(ref_read(%0), 1f)) };
  let %get = fn () -> float32 { ref_read(%0) };
  let %u1 = %inc();
  let %u2 = %inc();
  (%get(), ref_read(%0))
}""", lambda x: [x + 2, x + 2]),
    ("match_arms_share_a_read",  # bound where first used: just before the match, after %w
     V + """type Option[A] {
  Some(A),
  None,
}

def @main(%x: float32) -> float32 {
  let %c = ref(%x);
  %0 = ref_read(%c);
  let %o: Option[float32] = Some(%x);
  let %w = ref_write(%c, 7f);
  match (%o) {
    Some(%s) => add(%s, %0),
    None => %0,
  }
}""", lambda x: [x + 7]),
]

CLASS2 = [
    ("outer_cell_stored_three_levels_down",  # %c and %x are captured three closures down
     V + """def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  let %c = ref(%x);
  let %d = ref(%x);
  let %mk = fn () -> fn () -> () {
    fn () -> () {
      let %l = ref(%d);
      let %w = ref_write(%l, %c);
      let %l2 = (%l,).0;
      ref_write(ref_read(%l2), negative(%x))
    }
  };
  let %g = %mk();
  let %u = %g();
  ref_read(%c)
}""", lambda x: [-x]),
    ("closure_stored_in_a_cell_two_levels_down",
     V + """def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  let %c = ref(%x);
  let %k = ref(fn () -> () { () });
  let %mk = fn () -> fn () -> () {
    fn () -> () {
      let %w = ref_write(%k, fn () -> () { ref_write(%c, tanh(%x)) });
      ()
    }
  };
  let %u = %mk()();
  let %v = ref_read(%k)();
  ref_read(%c)
}""", lambda x: [np.tanh(x)]),
]


def _run(text: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    mod = parse(text)
    args = random_inputs(mod.functions["main"], 0)
    return flatten_value(evaluate(mod, args)), args


@pytest.mark.parametrize("name,text,want", CLASS1 + CLASS2, ids=[c[0] for c in CLASS1 + CLASS2])
def test_interpreter_gives_tvms_result(name: str, text: str, want) -> None:
    got, args = _run(text)
    expected = want(args[0])
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, np.asarray(e, dtype=g.dtype), rtol=1e-6)


@pytest.mark.parametrize("name,text,want", CLASS1 + CLASS2, ids=[c[0] for c in CLASS1 + CLASS2])
def test_every_variant_stays_sound(name: str, text: str, want) -> None:
    """Analysis DCE keeps every observation and the oracle's accesses are static ones."""
    failures = check_program(text, VARIANTS, ("dce", "oracle"), name=name)
    assert not failures, "\n".join(f"{f.variant}: {f.message}" for f in failures)


def test_a_shared_node_is_one_binding_of_the_analysed_program() -> None:
    """A DAG of `%k = add(%k-1, %k-1)` is one binding per node in what the analysis sees."""
    lines = ["  %0 = add(%x, %x);"] + [f"  %{k} = add(%{k - 1}, %{k - 1});" for k in range(1, 40)]
    mod = parse(V + "def @main(%x: float32) {\n" + "\n".join(lines) + "\n  %39\n}\n")
    lets = [n for n in post_order(analysis_program(mod).functions["main"]) if isinstance(n, Let)]
    assert len(lets) == 40  # graph bindings are no lets: the body needs no alias


CLASS5 = sorted(DATA.glob("match_tag_test_*.relay"))
EVERY_VARIANT = AnalysisOptions.variants()


@pytest.mark.parametrize("opts", EVERY_VARIANT, ids=lambda o: o.name)
@pytest.mark.parametrize("path", CLASS5, ids=lambda p: p.stem)
def test_a_tag_test_keeps_the_write_that_decides_it(path, opts) -> None:
    """Every variant keeps the writes that decide a tested tag (and the arm's write), drops the
    writes of fields no pattern tests or binds, and its DCE changes no observation."""
    text = path.read_text()
    header = read_header(text, path.name)
    names = let_names(remove_relay_bindings(analyze(build_program(text, str(path)), opts,
                                                    engine=EMBEDDED)))
    assert [n for n in header.expect_kept if not names[n]] == []
    assert [n for n in header.expect_dead if names[n]] == []
    failures = check_program(text, [opts], ("dce", "oracle"), name=path.name)
    assert not failures, "\n".join(f"{f.variant}: {f.message}" for f in failures)


def test_explain_walks_from_a_tested_field_to_the_match(capsys) -> None:
    """`explain` on the deciding write names the tested field and the match that tests it."""
    path = DATA / "match_tag_test_nested_option.relay"
    assert main(["explain", str(path), "%wbox", "--engine", "embedded"]) == 0
    out = capsys.readouterr().out
    assert "because field 0 of Some(...) (line 14) is used" in out
    assert "because evaluating a match (line 15) has a demanded effect" in out
    assert out.rstrip().endswith("(the entry's result)")
