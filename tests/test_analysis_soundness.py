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

Header lines (leading `//` comments):
  // what: <one line>                 required
  // transform: gradient | gradient2 | training-step I J...   optional
  // expect-dead: %a %b               lets the analysis must remove
  // expect-kept: %c                  lets every sound DCE must keep
  // expect-dead-flow: %w1            lets a flow-sensitive analysis must also remove
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from aliaslog.dce import relay_dce as dce
from aliaslog.options import AnalysisOptions
from aliaslog.oracle import (
    Observation,
    difference,
)
from aliaslog.oracle import run_observed as run
from aliaslog.scenario import count_lets
from extractor.relay.ast import (
    Expr,
    ExprMutator,
    Let,
    Module,
    free_vars,
    let_chain,
    post_order,
)
from extractor.relay.parser import parse, parse_file
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.transforms.training import training_step
from extractor.relay.typeinfer import infer_types

DATA = Path(__file__).parent / "data" / "analysis"
PROGRAMS = sorted(DATA.glob("*.relay"))
IDS = [p.stem for p in PROGRAMS]

# For a (2, 3) float tensor followed by a bool, seed 0 draws False and seed 2 draws True, so the
# programs that branch on a %flag input run both branches.
SEEDS = (0, 2)

TRANSFORMS = ("gradient", "gradient2", "training-step")
HEADER_KEYS = ("what", "transform", "expect-dead", "expect-kept", "expect-dead-flow")



# ----------------------------------------------------------------------------------- headers


@dataclass(frozen=True)
class Header:
    """What a corpus program says about itself: its purpose, transform and expectations."""

    what: str
    transform: str | None
    transform_args: tuple[int, ...]
    expect_dead: tuple[str, ...]
    expect_kept: tuple[str, ...]
    expect_dead_flow: tuple[str, ...]


def read_header(text: str, source: str = "<program>") -> Header:
    """Parse the leading `// key: value` lines; unknown keys and malformed names are errors."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.startswith("//"):
            break
        key, sep, value = line[2:].partition(":")
        key = key.strip()
        if not sep or key not in HEADER_KEYS:
            raise ValueError(f"{source}: unknown header line {line!r} (keys: {HEADER_KEYS})")
        if key in fields:
            raise ValueError(f"{source}: header {key!r} given twice")
        fields[key] = value.strip()
    if not fields.get("what"):
        raise ValueError(f"{source}: missing '// what:' header")

    def names(key: str) -> tuple[str, ...]:
        out = tuple(fields.get(key, "").split())
        for n in out:
            if not n.startswith("%") or len(n) < 2:
                raise ValueError(f"{source}: {key} names let vars as %name, got {n!r}")
        return tuple(n[1:] for n in out)

    transform, args = None, ()
    if "transform" in fields:
        kind, *rest = fields["transform"].split()
        if kind not in TRANSFORMS:
            raise ValueError(f"{source}: unknown transform {kind!r} (known: {TRANSFORMS})")
        if (kind == "training-step") != bool(rest):
            raise ValueError(f"{source}: only training-step takes arguments (gradient indices)")
        transform, args = kind, tuple(int(a) for a in rest)
    return Header(fields["what"], transform, args, names("expect-dead"), names("expect-kept"),
                  names("expect-dead-flow"))


# ----------------------------------------------------------------------------- build and run


def build(path: Path) -> tuple[Header, Module]:
    """Parse, type-infer and transform a corpus program as its header says."""
    header = read_header(path.read_text(), path.name)
    mod = infer_types(parse_file(path)).module
    if header.transform == "gradient":
        mod = gradient_module(mod)
    elif header.transform == "gradient2":
        mod = gradient_module(gradient_module(mod))
    elif header.transform == "training-step":
        mod = training_step(mod, header.transform_args)
    return header, mod


def assert_same_observation(got: Observation, want: Observation, what: str) -> None:
    """Bit-identical: same structure, and every tensor equal in dtype, shape and values."""
    diff = difference(got, want)
    assert diff is None, f"{what}: {diff}"


@dataclass
class Built:
    """A corpus program ready to check: header, transformed module, baseline observations."""

    header: Header
    module: Module
    baseline: dict[int, Observation]


@functools.cache
def built(path: Path) -> Built:
    """Build and run a program once per test session (the baseline every DCE must match)."""
    header, mod = build(path)
    return Built(header, mod, {seed: run(mod, seed) for seed in SEEDS})


@functools.cache
def pruned_by(path: Path, mode: str, flow_sensitive: bool = False) -> Module:
    """The built program after one DCE mode, computed once per session (tests compare modes)."""
    mod = built(path).module
    if flow_sensitive:
        return dce(mod, mode=mode, options=AnalysisOptions(liveness="flow-sensitive"))
    return dce(mod, mode=mode)


def let_names(mod: Module) -> Counter[str]:
    """How many let bindings carry each name, over every global function."""
    return Counter(n.var.name_hint for fn in mod.functions.values() for n in post_order(fn)
                   if isinstance(n, Let))


class _DropLets(ExprMutator):
    """Removes every let whose var has one of the given names, keeping the rest in place."""

    def __init__(self, names: set[str]) -> None:
        super().__init__()
        self.names = names

    def visit_Let(self, e: Let) -> Expr:
        lets, body = let_chain(e)
        kept = [(let, self.visit(let.value)) for let in lets if let.var.name_hint not in self.names]
        out = self.visit(body)
        for let, value in reversed(kept):
            out = Let(let.var, value, out, span=let.span)
        return out


def drop_lets(mod: Module, names: set[str]) -> Module | None:
    """mod without the named lets, or None when a removed var is still referenced."""
    mutator = _DropLets(names)
    fns = {name: mutator.visit(fn) for name, fn in mod.functions.items()}
    if any(free_vars(fn) for fn in fns.values()):
        return None
    return Module(fns, mod.type_defs, mod.source_name)  # type: ignore[arg-type]


def check_dce_result(b: Built, pruned: Module, mode: str) -> None:
    """The DCE'd module type-checks, keeps the header's must-keep lets and changes no output."""
    infer_types(pruned)
    names = let_names(pruned)
    lost = [n for n in b.header.expect_kept if n not in names]
    assert not lost, f"{mode} DCE removed lets that must stay: {lost}"
    for seed in SEEDS:
        assert_same_observation(run(pruned, seed), b.baseline[seed], f"{mode}, seed {seed}")


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
