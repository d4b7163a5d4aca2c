"""The analysis corpus (tests/data/analysis): header expectations, build, run, observe.

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

from aliaslog.options import AnalysisOptions
from aliaslog.relay.dce import relay_dce as dce
from aliaslog.relay.oracle import (
    Observation,
    difference,
)
from aliaslog.relay.oracle import run_observed as run
from extractor.relay.ast import (
    Expr,
    ExprMutator,
    Let,
    Module,
    free_vars,
    let_chain,
    post_order,
)
from extractor.relay.parser import parse_file
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.transforms.training import training_step
from extractor.relay.typeinfer import infer_types

from . import paths

DATA = paths.DATA / "analysis"
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
