"""Relay dead-code elimination: every mode behind one entry point, and the analysis's own.

`relay_dce` runs a mode of `MODES`, the one table the CLI (`dce --mode`), the batch and the
demo read: "assume-pure" and "purity" are TVM's DCE before and after apache/tvm PR #9542
(`extractor.relay.transforms.dead_code`, part of the Relay language); "analysis" removes
exactly the bindings aliaslog's analysis proves dead. A new mode is one entry there. The Relax
DCE is `aliaslog.relax.dce.EffectAwareDCE`.

The analysis decides on the program's A-normal form (one binding per subexpression, a shared
node bound once, where its uses meet), so that is what the removable bindings are removed from;
what is left is then folded back toward the program as written: a binding the normal form made
up for a subexpression used once, as the next thing evaluated where it is used, goes back into
that use (ToANormalForm undone on a tree), and a constructor TVM's EtaExpand wrapped in a
function is a constructor again. What stays let-bound is what must be for the program to keep
its meaning: a node still used twice, or one whose evaluation would otherwise move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from extractor.relay import ast as A
from extractor.relay.transforms.dead_code import assume_pure_dce, purity_dce
from extractor.relay.transforms.prepare import Prepared
from extractor.relay.typeinfer import Typed, infer_types
from extractor.runtime import run_deep

from .analysis import AnalysisResult, analyze


@dataclass(frozen=True)
class Mode:
    """One DCE mode: what it does (the CLI's help) and how it runs."""

    help: str
    run: Callable[..., A.Module]  # (mod, inline_once, typed, result, analysis options)
    uses_analysis: bool = False  # takes the analysis options (variant, engine, entry, ...)


def _assume_pure(mod: A.Module, inline_once: bool, typed: Typed | None,
                 result: AnalysisResult | None, **_: Any) -> A.Module:
    return assume_pure_dce(mod, inline_once)


def _purity(mod: A.Module, inline_once: bool, typed: Typed | None,
            result: AnalysisResult | None, **_: Any) -> A.Module:
    typed = typed if typed is not None else infer_types(mod)
    return purity_dce(typed.module, typed.type_of, inline_once)


def _analysis(mod: A.Module, inline_once: bool, typed: Typed | None,
              result: AnalysisResult | None, **analysis_options: Any) -> A.Module:
    """Rounds of analysis and removal until a round removes nothing: a removed write can leave
    the cell it wrote and the calls that fed it dead (demand reaches a callee's parameter from
    every call site, removable calls included), so one run is a fixpoint of `dce`."""
    options = {"options": result.options} if result is not None else {}
    options.update(analysis_options)
    folded = False  # mod is a round's output (in folded form)
    while True:
        if result is None:
            result = analyze(mod, explain=False, points_to=False, **options)
        removable = bool(result.analysed_removable())
        if folded and not removable:
            return mod
        mod, result, folded = remove_relay_bindings(result), None, True
        if not removable:
            return mod


MODES: dict[str, Mode] = {
    "assume-pure": Mode("TVM's DCE before PR #9542 (every binding pure)", _assume_pure),
    "purity": Mode("TVM's DCE after it (impure bindings kept)", _purity),
    "analysis": Mode("remove exactly what aliaslog proves dead", _analysis, uses_analysis=True),
}


def relay_dce(
    mod: A.Module, mode: str = "purity", inline_once: bool = False, *,
    typed: Typed | None = None, result: AnalysisResult | None = None, **analysis_options: Any
) -> A.Module:
    """Dead-code-eliminate every global function of mod in one of the `MODES`.

    `inline_once` is TVM's (assume-pure and purity); `analysis_options` (options, engine,
    entry, op_effects) go to `analyze` in a mode that uses the analysis. What a caller has
    already computed is not computed again: `typed`, mod's type inference (purity), and
    `result`, its analysis (analysis).
    """
    if mode not in MODES:
        raise ValueError(
            f"unknown DCE mode {mode!r}: valid modes are {', '.join(repr(m) for m in MODES)}")
    return MODES[mode].run(mod, inline_once, typed, result, **analysis_options)


def remove_relay_bindings(result: AnalysisResult) -> A.Module:
    """The analysed program without the bindings `result` marks removable, folded back."""
    assert result.prepared is not None, "remove_relay_bindings needs a result of analyze()"
    dead = {id(let) for let in result.analysed_removable()}
    return fold(result.extraction.module, result.prepared, dead)


def fold(mod: A.Module, prepared: Prepared, dead: set[int]) -> A.Module:
    """mod (in A-normal form) without the Lets in `dead`, its single-use temporaries folded."""
    uses = _count_uses(mod, dead)
    folder = _Folder(prepared, dead, uses)
    fns = {name: run_deep(lambda fn=fn: folder.function(fn)) for name, fn in mod.functions.items()}
    return A.Module(fns, mod.type_defs, mod.source_name)  # type: ignore[arg-type]


def _count_uses(mod: A.Module, dead: set[int]) -> dict[int, int]:
    """How often each variable is used in what survives (a dead let's value does not)."""
    uses: dict[int, int] = {}
    stack: list[A.Expr] = list(mod.functions.values())
    while stack:
        e = stack.pop()
        if isinstance(e, A.Var):
            uses[id(e)] = uses.get(id(e), 0) + 1
        elif isinstance(e, A.Let):
            lets, body = A.let_chain(e)
            stack.extend(let.value for let in lets if id(let) not in dead)
            stack.append(body)
        elif isinstance(e, A.Function):
            stack.append(e.body)
        else:
            stack.extend(A.children(e))
    return uses


def _operands(e: A.Expr) -> list[A.Expr]:
    """The atoms evaluating e reads, in evaluation order (arguments before the callee)."""
    if isinstance(e, A.Call):
        return [*e.args, e.op]
    if isinstance(e, A.Tuple):
        return list(e.fields)
    if isinstance(e, A.TupleGetItem):
        return [e.tuple_value]
    if isinstance(e, A.RefCreate):
        return [e.value]
    if isinstance(e, A.RefRead):
        return [e.ref]
    if isinstance(e, A.RefWrite):
        return [e.ref, e.value]
    if isinstance(e, A.If):
        return [e.cond]
    if isinstance(e, A.Match):
        return [e.data]
    if isinstance(e, A.Var):
        return [e]
    return []


def _with_operands(e: A.Expr, new: list[A.Expr]) -> A.Expr:
    """e with its operands (as `_operands` lists them) replaced."""
    if isinstance(e, A.Call):
        return A.Call(new[-1], tuple(new[:-1]), e.attrs, e.type_args, span=e.span)
    if isinstance(e, A.Tuple):
        return A.Tuple(tuple(new), span=e.span)
    if isinstance(e, A.TupleGetItem):
        return A.TupleGetItem(new[0], e.index, span=e.span)
    if isinstance(e, A.RefCreate):
        return A.RefCreate(new[0], span=e.span)
    if isinstance(e, A.RefRead):
        return A.RefRead(new[0], span=e.span)
    if isinstance(e, A.RefWrite):
        return A.RefWrite(new[0], new[1], span=e.span)
    if isinstance(e, A.If):
        return A.If(new[0], e.true_branch, e.false_branch, span=e.span)
    if isinstance(e, A.Match):
        return A.Match(new[0], e.clauses, e.complete, span=e.span)
    return new[0]  # an alias `let %a = %t`: the value itself


class _Folder:
    """Rebuilds each let list without dead bindings, folding temporaries into their one use."""

    def __init__(self, prepared: Prepared, dead: set[int], uses: dict[int, int]) -> None:
        self.prov = prepared.anf.provenance
        self.eta = prepared.eta
        self.dead = dead
        self.uses = uses

    def function(self, fn: A.Function) -> A.Function:
        return replace(fn, body=self.block(fn.body))

    def inner(self, e: A.Expr) -> A.Expr:
        """A value with the let lists nested in it (arms, function bodies) folded too."""
        if isinstance(e, A.If):
            return A.If(e.cond, self.block(e.true_branch), self.block(e.false_branch),
                        span=e.span)
        if isinstance(e, A.Match):
            clauses = tuple(A.Clause(c.lhs, self.block(c.rhs), span=c.span) for c in e.clauses)
            return A.Match(e.data, clauses, e.complete, span=e.span)
        if isinstance(e, A.Function) and not e.attrs.get("Primitive"):
            return self.function(e)
        return e

    def block(self, e: A.Expr) -> A.Expr:
        lets, body = A.let_chain(e)
        lets = [let for let in lets if id(let) not in self.dead]
        here = {id(a) for let in lets for a in _operands(let.value) if isinstance(a, A.Var)}
        here.add(id(body))
        out: list[tuple[A.Let, A.Expr]] = []  # the lets that stay, with their new values
        pending: list[tuple[A.Var, A.Expr, A.Let]] = []  # folded temporaries awaiting their use

        def flush() -> None:
            out.extend((let, value) for _, value, let in pending)
            pending.clear()

        def consume(value: A.Expr) -> A.Expr:
            """Fold the operands that are the latest pending temporaries, in order."""
            ops = _operands(value)
            waiting = {id(v) for v, _, _ in pending}
            temps = [a for a in ops if id(a) in waiting]
            if not temps:
                return value
            k = len(temps)
            if [id(v) for v, _, _ in pending[-k:]] != [id(a) for a in temps]:
                flush()  # folding would reorder evaluation: keep them all let-bound
                return value
            folded = {id(v): val for v, val, _ in pending[-k:]}
            del pending[-k:]
            return _with_operands(value, [folded.get(id(a), a) for a in ops])

        for let in lets:
            value = consume(self.inner(let.value))
            origin = self.prov.origin.get(id(let))
            if origin is not None and id(origin.source) in self.eta:
                value = self.eta[id(origin.source)]
            v = let.var
            if self.prov.is_temp(v) and self.uses.get(id(v), 0) == 1 and id(v) in here:
                pending.append((v, value, let))
            else:
                flush()
                out.append((let, value))
        result = body
        if pending and pending[-1][0] is body:
            result = pending.pop()[1]
        flush()
        for let, value in reversed(out):
            result = A.Let(let.var, value, result, span=let.span)
        return result
