"""Soundness and precision of every DCE mode on the analysis corpus (tests/data/analysis).

Each program is parsed, type-inferred, transformed as its header says, and evaluated on seeded
random inputs; every DCE mode must give bit-identical observations (DCE never changes numerics),
a module that still type-checks, and keep the header's expect-kept lets (any sound DCE must, so
this is checked for "purity" too). For mode "analysis" the expect-dead lets must be gone and it
must remove at least as many lets as "purity"; the flow-sensitive variant must also remove the
expect-dead-flow lets and at least as many lets as the flow-insensitive one. The headers are
themselves checked on the interpreter: deleting the expect-dead lets by hand changes nothing, and
deleting an unused expect-kept let (a write, an effectful call) changes some observation.

An observation walks the result: tensors, tuple and constructor shapes, the contents of cells,
and the results of calling every returned closure twice on seeded tensor arguments (so a cell
that escapes through a closure is observed the way a caller could observe it).
"""

from __future__ import annotations

import numpy as np
import pytest

from aliaslog.relay.dce import relay_dce as dce
from aliaslog.relay.scenario import count_lets
from extractor.relay.parser import parse
from extractor.relay.typeinfer import infer_types
from tests.support.corpus import (
    IDS,
    PROGRAMS,
    SEEDS,
    TRANSFORMS,
    assert_same_observation,
    built,
    check_dce_result,
    drop_lets,
    let_names,
    pruned_by,
    read_header,
    run,
)

# ------------------------------------------------------------------------------------ tests


def test_corpus_is_complete():
    """At least 32 programs, covering every transform and every kind of expectation."""
    headers = [read_header(p.read_text(), p.name) for p in PROGRAMS]
    assert len(PROGRAMS) >= 32
    assert {h.transform for h in headers} >= {None, *TRANSFORMS}
    assert any(h.expect_dead for h in headers)
    assert any(h.expect_kept for h in headers)
    assert any(h.expect_dead_flow for h in headers)


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_header_names_real_lets(path):
    """Every name in an expectation is exactly one let of the built program, in one list."""
    b = built(path)
    h = b.header
    names = let_names(b.module)
    listed = [*h.expect_dead, *h.expect_kept, *h.expect_dead_flow]
    assert len(listed) == len(set(listed)), "a name appears in two expectation lists"
    for n in listed:
        assert names[n] == 1, f"%{n} should name exactly one let, found {names[n]}"


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_program_parses_and_evaluates(path):
    """No program in the corpus may error; the baseline observation is deterministic."""
    b = built(path)
    for seed in SEEDS:
        assert b.baseline[seed], "empty observation"
        for kind, a in b.baseline[seed]:
            if kind == "tensor" and a.dtype.kind == "f":
                assert np.isfinite(a).all(), "non-finite outputs make the comparison weak"
        assert_same_observation(run(b.module, seed), b.baseline[seed], f"rerun, seed {seed}")


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_expectations_hold_dynamically(path):
    """The headers are right on the interpreter: deleting the expect-dead lets (with or without
    expect-dead-flow) changes nothing, and deleting any one expect-kept let whose var is unused
    (a write, an effectful call) changes the observation for some seed."""
    b = built(path)
    h = b.header
    for dead in {frozenset(h.expect_dead), frozenset((*h.expect_dead, *h.expect_dead_flow))}:
        if not dead:
            continue
        pruned = drop_lets(b.module, set(dead))
        assert pruned is not None, f"an expect-dead let is used by a live one: {sorted(dead)}"
        infer_types(pruned)
        for seed in SEEDS:
            assert_same_observation(run(pruned, seed), b.baseline[seed], f"without {set(dead)}")
    for name in h.expect_kept:
        pruned = drop_lets(b.module, {name})
        if pruned is None:
            continue  # its var is used: removing it is not even well-formed
        changed = False
        for seed in SEEDS:
            try:
                assert_same_observation(run(pruned, seed), b.baseline[seed], "")
            except AssertionError:
                changed = True
        assert changed, f"%{name} is expect-kept but removing it changes no observation"


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_purity_dce_is_sound(path):
    """TVM's post-#9542 DCE keeps every ref op and unknown call: outputs must not change."""
    b = built(path)
    check_dce_result(b, pruned_by(path, "purity"), "purity")


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_analysis_dce_is_sound_and_precise(path):
    """Analysis-guided DCE: sound, removes every expect-dead let, and beats the purity DCE."""
    b = built(path)
    pruned = pruned_by(path, "analysis")
    check_dce_result(b, pruned, "analysis")
    names = let_names(pruned)
    kept = [n for n in b.header.expect_dead if n in names]
    assert not kept, f"analysis DCE kept lets that are dead: {kept}"
    assert count_lets(pruned) <= count_lets(pruned_by(path, "purity"))


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_flow_sensitive_analysis_dce(path):
    """The flow-sensitive variant: sound, at least as precise, and removes expect-dead-flow."""
    b = built(path)
    pruned = pruned_by(path, "analysis", flow_sensitive=True)
    check_dce_result(b, pruned, "analysis (flow-sensitive)")
    names = let_names(pruned)
    kept = [n for n in (*b.header.expect_dead, *b.header.expect_dead_flow) if n in names]
    assert not kept, f"flow-sensitive analysis DCE kept lets that are dead: {kept}"
    assert count_lets(pruned) <= count_lets(pruned_by(path, "analysis"))


# --------------------------------------------------------------------- harness self-checks


def test_read_header_rejects_typos():
    with pytest.raises(ValueError, match="unknown header"):
        read_header("// what: x\n// expect-daed: %a\n")
    with pytest.raises(ValueError, match="%name"):
        read_header("// what: x\n// expect-dead: a\n")
    with pytest.raises(ValueError, match="missing"):
        read_header("// expect-dead: %a\n")
    with pytest.raises(ValueError, match="unknown transform"):
        read_header("// what: x\n// transform: grad\n")
    h = read_header("// what: x\n// transform: training-step 2 3\n// expect-kept: %a %b\n"
                    '#[version = "0.0.5"]\n// not a header\n')
    assert h.transform_args == (2, 3) and h.expect_kept == ("a", "b")


def test_observation_sees_a_dropped_write_through_a_returned_closure():
    """The oracle is strong enough: removing a write only a returned closure reads is caught."""
    src = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) -> fn () -> Tensor[(2, 3), float32] {
  let %r = ref(zeros_like(%x));
  let %w = ref_write(%r, %x);
  fn () -> Tensor[(2, 3), float32] { ref_read(%r) }
}
"""
    mod = infer_types(parse(src)).module
    pruned = dce(mod, mode="assume-pure")  # the unsound pre-#9542 DCE drops %w
    assert "w" not in let_names(pruned)
    with pytest.raises(AssertionError, match="values differ"):
        assert_same_observation(run(pruned, 0), run(mod, 0), "assume-pure")
