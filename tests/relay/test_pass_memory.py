"""Structural guards for the passes' scaling: shared solved types, no cyclic garbage, GC state.

These assert behaviour (object identity, reference cycles, the collector's state), never time;
benchmarks/mlp_chain.py measures the timings.
"""

from __future__ import annotations

import gc

import pytest

from aliaslog.relay.dce import relay_dce as dce
from extractor.relay.ast import Let, let_chain
from extractor.relay.parser import parse, parse_file
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.typeinfer import infer_types
from extractor.runtime import gc_paused


def _tuple_chain(n: int) -> str:
    """A let chain of n bindings whose body (and so every let) has an n-field tuple type."""
    lines = ['#[version = "0.0.5"]', "def @main(%x: Tensor[(2), float32]) {"]
    for i in range(n):
        lines.append(f"  let %v{i} = add(%x, %x);")
    lines.append("  (" + ", ".join(f"%v{i}" for i in range(n)) + ")")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_lets_of_one_chain_share_one_zonked_type():
    typed = infer_types(parse(_tuple_chain(50)))
    lets, _ = let_chain(typed.module.functions["main"].body)
    assert len(lets) == 50 and all(isinstance(x, Let) for x in lets)
    first = typed.type_of(lets[0])
    assert len(first.fields) == 50  # type: ignore[attr-defined]
    # the body's type is zonked once and shared, not rebuilt per let (that was quadratic)
    assert all(typed.type_of(x) is first for x in lets)


@pytest.fixture
def no_gc():
    """Collector off and empty, so a pass's leftover cycles can be counted."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def test_passes_leave_no_cyclic_garbage(seed_path, no_gc):
    mod = parse_file(seed_path)
    assert gc.collect() == 0
    typed = infer_types(mod)
    assert gc.collect() == 0, "infer_types left reference cycles behind"
    grad = gradient_module(typed.module)
    assert gc.collect() == 0, "gradient_module left reference cycles behind"
    dce(grad, mode="purity")
    dce(grad, mode="assume-pure")
    assert gc.collect() == 0, "dce left reference cycles behind"


def test_gc_paused_restores_the_collector():
    was = gc.isenabled()
    gc.enable()
    try:
        with gc_paused():
            assert not gc.isenabled()
            with gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled(), "a nested pause must not re-enable the collector"
        assert gc.isenabled()
        with pytest.raises(ValueError), gc_paused():
            raise ValueError
        assert gc.isenabled(), "an exception must not leave the collector off"
        gc.disable()
        with gc_paused():
            pass
        assert not gc.isenabled(), "a collector the caller turned off stays off"
    finally:
        if was:
            gc.enable()
        else:
            gc.disable()


def test_passes_keep_the_callers_collector_state(seed_path):
    assert gc.isenabled()
    grad = gradient_module(infer_types(parse_file(seed_path)).module)
    dce(grad)
    assert gc.isenabled()


def test_survivors_of_a_pause_are_frozen_only_inside_a_job():
    """A job freezes what its passes leave alive; when it ends the collector sees it again."""
    from extractor.runtime import survivors_frozen

    was = gc.isenabled()
    gc.enable()
    try:
        kept = []
        with gc_paused():
            kept.append([object() for _ in range(100)])
        assert gc.get_freeze_count() == 0, "outside a job nothing is frozen"
        gc.collect()
        with survivors_frozen():
            with gc_paused():
                kept.append([object() for _ in range(100)])
                cycle: list = []
                cycle.append(cycle)
                del cycle
            assert gc.get_freeze_count() >= 100
            with survivors_frozen():  # nested: the outer job ends the freeze
                pass
            assert gc.get_freeze_count() >= 100
        assert gc.get_freeze_count() == 0
        assert gc.collect() >= 1, "a cycle made in a job is collected after it"
    finally:
        if not was:
            gc.disable()
