"""Dynamic oracle: what interpreter runs really do, as ground truth for the static analysis.

Two kinds of truth: which cells variables held (observed accesses and aliases must be a
subset of the static ones), and which bindings runs show to be removable (the analysis's
DCE recall is measured against them). Both run the analysed program itself (its A-normal form,
`analysis_program(mod)` or `result.extraction.module`), so that every node a run touches is one
the analysis has an id for.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from extractor.relay import ast as A
from extractor.relay.interpreter import (
    Closure,
    ConstructorValue,
    RefCell,
    eval_expr,
    evaluate,
    random_inputs,
)

from .analysis import AnalysisResult

CLOSURE_CALLS = 2  # each returned closure is called this many times when observing a result
MAX_CLOSURE_DEPTH = 3  # closures returned by closures are followed this deep

Observation = list[tuple[str, Any]]
Hooks = dict[str, Any]  # observer= and on_bind= for the interpreter


def observe_result(mod: A.Module, value: Any, seed: int, hooks: Hooks | None = None,
                   prepared: bool = False) -> Observation:
    """Everything a caller of the entry can see of its result.

    Tensors, tuple and constructor shapes, the contents of cells, and the results of calling
    every returned closure twice on seeded arguments (so a cell that escapes through a
    closure is observed the way a caller could observe it).
    """
    out: Observation = []
    open_cells: set[int] = set()

    def walk(v: Any, depth: int) -> None:
        if isinstance(v, np.ndarray):
            out.append(("tensor", v))
        elif isinstance(v, tuple):
            out.append(("tuple", len(v)))
            for x in v:
                walk(x, depth)
        elif isinstance(v, ConstructorValue):
            out.append(("ctor", v.constructor.name_hint))
            for x in v.fields:
                walk(x, depth)
        elif isinstance(v, RefCell):
            if id(v) in open_cells:
                out.append(("cycle", None))
                return
            open_cells.add(id(v))
            out.append(("ref", None))
            walk(v.value, depth)
            open_cells.discard(id(v))
        elif isinstance(v, Closure):
            out.append(("closure", len(v.func.params)))
            if depth >= MAX_CLOSURE_DEPTH:
                return
            for k in range(CLOSURE_CALLS):
                walk(call_closure(mod, v, random_inputs(v.func, seed + 100 * (k + 1)), hooks,
                                  prepared), depth + 1)
        else:
            raise TypeError(f"unexpected value {v!r}")

    walk(value, 0)
    return out


def call_closure(mod: A.Module, clo: Closure, args: Sequence[Any], hooks: Hooks | None = None,
                 prepared: bool = False) -> Any:
    """Apply a closure value to argument values, as a caller of the entry would."""
    f = A.Var("f")
    xs = [A.Var(f"a{i}") for i in range(len(args))]
    env = {f: clo, **dict(zip(xs, args, strict=True))}
    return eval_expr(A.Call(f, tuple(xs)), mod, env, prepared=prepared, **(hooks or {}))


def run_observed(mod: A.Module, seed: int, entry: str = "main", hooks: Hooks | None = None,
                 prepared: bool = False) -> Observation:
    """Evaluate the entry on the seed's inputs and observe the result (hooks: interpreter's).

    With `prepared`, mod is run as it is (an analysed program, whose nodes the hooks name);
    otherwise it is prepared first, as the debug executor does.
    """
    fn = mod.functions[entry]
    value = evaluate(mod, random_inputs(fn, seed), entry=entry, prepared=prepared,
                     **(hooks or {}))
    return observe_result(mod, value, seed, hooks, prepared)


def difference(got: Observation, want: Observation) -> str | None:
    """None when bit-identical (structure, dtypes, shapes, values); else what differs."""
    if [k for k, _ in got] != [k for k, _ in want]:
        return "result structure differs"
    for i, ((kind, a), (_, b)) in enumerate(zip(got, want, strict=True)):
        if kind != "tensor":
            if a != b:
                return f"item {i} ({kind}) differs: {a!r} != {b!r}"
            continue
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"tensor {i} type differs"
        if not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
            return f"tensor {i} values differ"
    return None


def perturb(v: Any) -> Any:
    """A different value of the same type, or None when v holds no tensor to change.

    Floats get x*1.37 plus a different offset per element, so that neither a zero, nor a
    uniform shift (which softmax ignores), nor a scaling (which relu keeps) goes unnoticed;
    integers get +1, booleans are negated; tuples change element-wise.
    """
    if isinstance(v, np.ndarray):
        if v.dtype.kind == "f":
            offset = 0.29 + 0.5 * np.sin(np.arange(v.size, dtype=np.float64) + 1.0)
            return (v * 1.37 + offset.reshape(v.shape)).astype(v.dtype)
        if v.dtype.kind in "iu":
            return (v + 1).astype(v.dtype)
        if v.dtype.kind == "b":
            return ~v
        return None
    if isinstance(v, tuple):
        parts = [perturb(x) for x in v]
        if all(p is None for p in parts):
            return None
        return tuple(x if p is None else p for x, p in zip(v, parts, strict=True))
    return None


def perturbation_live(mod: A.Module, seeds: Sequence[int], entry: str = "main"
                      ) -> tuple[set[int], set[int]]:
    """(live, perturbable): Let ids the runs' results depend on, dynamically.

    Perturbing a let changes the value it binds (a tensor, or a tuple of them) and the
    content of every cell written or created while its value is evaluated (a ref_write, or
    a call whose callee writes); it is live when that changes a result. Effects are
    perturbed per evaluation, so a call that makes a cell nobody reads stays dead even if
    the same `ref(...)` is live elsewhere. This is dynamic dependence, not output equality:
    a binding whose removal happens to change nothing (a zero gradient added into a zero
    cell) is live.
    """
    want = [run_observed(mod, s, entry, prepared=True) for s in seeds]
    lets = [e for f in mod.functions.values() for e in A.post_order(f) if isinstance(e, A.Let)]
    live: set[int] = set()
    perturbable: set[int] = set()
    for let in lets:
        state = {"active": 0, "hit": False}

        def on_enter(b: A.Let, let: A.Let = let, state: dict = state) -> None:
            if b is let:
                state["active"] += 1

        def on_bind(b: A.Let, v: Any, let: A.Let = let, state: dict = state) -> Any:
            if b is not let:
                return v
            state["active"] -= 1
            p = perturb(v)
            if p is None:
                return v
            state["hit"] = True
            return p

        def observer(event: str, node: A.Expr, cell: Any, state: dict = state) -> None:
            if state["active"] > 0 and event in ("write", "create"):
                p = perturb(cell.value)
                if p is not None:
                    state["hit"] = True
                    cell.value = p

        hooks = {"on_enter": on_enter, "on_bind": on_bind, "observer": observer}
        for s, w in zip(seeds, want, strict=True):
            state["active"] = 0
            try:
                changed = difference(run_observed(mod, s, entry, hooks, prepared=True),
                                     w) is not None
            except Exception:  # noqa: BLE001 - a run the perturbation breaks depends on it
                changed = True
            if state["hit"]:
                perturbable.add(id(let))
            if changed:
                live.add(id(let))
                break
    return live, perturbable


def oracle_removable(mod: A.Module, seeds: Sequence[int], entry: str = "main",
                     budget: int = 2000) -> set[int]:
    """Ids of the Let nodes the runs show removable: dynamically dead and deletable.

    First the perturbation test (perturbation_live) finds the lets the results depend on;
    the others are then deleted greedily, last first, keeping a deletion when the module is
    still closed (no kept code mentions a removed variable) and every seed's run observes
    exactly what the original does. `budget` bounds the number of deletion trials.
    """
    want = [run_observed(mod, s, entry, prepared=True) for s in seeds]
    live, _ = perturbation_live(mod, seeds, entry)
    lets = [e for f in mod.functions.values() for e in A.post_order(f)
            if isinstance(e, A.Let) and id(e) not in live]
    removed: set[int] = set()
    changed = True
    while changed and budget > 0:
        changed = False
        for let in reversed(lets):
            if id(let) in removed or budget <= 0:
                continue
            trial = remove_lets(mod, removed | {id(let)})
            if any(A.free_vars(f) for f in trial.functions.values()):
                continue
            budget -= 1
            try:
                same = all(difference(run_observed(trial, s, entry, prepared=True), w) is None
                           for s, w in zip(seeds, want, strict=True))
            except Exception:  # noqa: BLE001 - a run that fails is a changed observation
                same = False
            if same:
                removed.add(id(let))
                changed = True
    return removed


class _Remover(A.ExprMutator):
    """Rebuilds a module without some Let nodes (a trial deletion); sharing is preserved."""

    def __init__(self, remove: set[int]) -> None:
        super().__init__()
        self.remove = remove

    def visit_Let(self, e: A.Let) -> A.Expr:
        lets, body = A.let_chain(e)
        parts = [(let, self.visit(let.value)) for let in lets if id(let) not in self.remove]
        out = self.visit(body)
        for old, val in reversed(parts):
            out = old if val is old.value and out is old.body else A.Let(old.var, val, out,
                                                                          span=old.span)
        return out


def remove_lets(mod: A.Module, remove: set[int]) -> A.Module:
    """mod without the Let nodes whose ids are in `remove` (every global function)."""
    remover = _Remover(remove)
    fns = {name: remover.visit(fn) for name, fn in mod.functions.items()}
    return A.Module(fns, mod.type_defs, mod.source_name)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Access:
    """One ref_read / ref_write: the node, the cell (its allocation site and which cell that
    site made, numbered across all runs), the write it saw."""

    node: A.Expr
    site: A.RefCreate
    last_write: A.RefWrite | None  # for reads: the write whose value was read, if any
    cell: int = 0


@dataclass
class Observed:
    """Everything the runs saw, keyed by the analysis' node ids."""

    accesses: list[Access] = field(default_factory=list)

    def holders(self, result: AnalysisResult) -> dict[int, set[str]]:
        """Each cell made in the runs -> ids of the variables through which it was accessed."""
        ids = result.extraction.ids
        out: dict[int, set[str]] = {}
        for a in self.accesses:
            ref = a.node.ref  # type: ignore[attr-defined]
            if isinstance(ref, A.Var):
                out.setdefault(a.cell, set()).add(ids.id(ref))
        return out

    def alias_pairs(self, result: AnalysisResult) -> set[tuple[str, str]]:
        """Ordered pairs of distinct variables seen holding the same cell (the same cell at
        run time, not two cells of one allocation site)."""
        return {(a, b) for vs in self.holders(result).values() for a in vs for b in vs if a != b}


def observe(mod: A.Module, seeds: Iterable[int], entry: str = "main") -> Observed:
    """Run `entry` on seeded random inputs, then call every returned closure as a caller
    would (observe_result), and record every cell access of both."""
    obs = Observed()
    for seed in seeds:
        recorder = _Recorder(obs.accesses, first_cell=len(obs.accesses))
        run_observed(mod, seed, entry, hooks={"observer": recorder.event}, prepared=True)
    return obs


class _Recorder:
    """The interpreter observer of one run: cells by identity, kept alive for the run."""

    def __init__(self, accesses: list[Access], first_cell: int) -> None:
        self.accesses = accesses
        self.site: dict[int, A.RefCreate] = {}
        self.number: dict[int, int] = {}  # id(cell) -> the cell's number, unique across runs
        self.next = first_cell  # past every number of earlier runs: each gave out at most
        # one number per access it recorded
        self.last: dict[int, A.RefWrite] = {}
        self.cells: list[object] = []

    def event(self, event: str, node: A.Expr, cell: object) -> None:
        self.cells.append(cell)
        key = id(cell)
        if event == "create":
            self.site[key] = node  # type: ignore[assignment]
            return
        if key not in self.number:
            self.number[key] = self.next = self.next + 1
        if event == "read":
            self.accesses.append(Access(node, self.site[key], self.last.get(key),
                                        self.number[key]))
        else:
            self.accesses.append(Access(node, self.site[key], None, self.number[key]))
            self.last[key] = node  # type: ignore[assignment]


def access_variables(result: AnalysisResult) -> set[str]:
    """Variables the program reads or writes cells through (the oracle can only see those)."""
    ids = result.extraction.ids
    return {ids.id(n.ref) for n in ids.nodes.values()
            if isinstance(n, (A.RefRead, A.RefWrite)) and isinstance(n.ref, A.Var)}


def unsound_findings(result: AnalysisResult, obs: Observed) -> list[str]:
    """Observations the static analysis does not allow; empty when it is sound on these runs.

    Checked: every access is within the reference's points-to set, every observed alias pair
    is a may-alias pair, and every write a demanded read saw is a demanded write.
    """
    ids = result.extraction.ids
    pts: dict[str, set[str]] = {}
    for n, o in result.relations["pts"]:
        pts.setdefault(n, set()).add(o)
    aliases = set(result.relations["may_alias"])
    out = []
    for a in obs.accesses:
        ref_id, site_id = ids.id(a.node.ref), ids.id(a.site)  # type: ignore[attr-defined]
        if site_id not in pts.get(ref_id, set()):
            out.append(f"{result.describe(ids.id(a.node))} touched the cell made by "
                       f"{result.describe(site_id)}, outside its static points-to set")
    # write -> read flows: a demanded read saw a write the analysis calls dead (needs the
    # demand graph, i.e. analyze(..., explain=True))
    demanded = {x for k, x, _ in result.demand.why if k == "used"} | {
        x for k, x, _ in result.demand.roots if k == "used"}
    demanded_writes = {x for k, x, _ in result.demand.why if k == "write"}
    for a in obs.accesses:
        if isinstance(a.node, A.RefRead) and a.last_write is not None \
                and ids.id(a.node) in demanded and ids.id(a.last_write) not in demanded_writes:
            out.append(f"demanded {result.describe(ids.id(a.node))} read the value of "
                       f"{result.describe(ids.id(a.last_write))}, which the analysis calls dead")
    for x, y in sorted(obs.alias_pairs(result) - aliases):
        out.append(f"{result.describe(x)} and {result.describe(y)} held the same cell, but "
                   "are not a static may-alias pair")
    return out
