"""The seed scenario (apache/tvm #6803): gradient, then each DCE, then compare outputs to no DCE."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from extractor.relay.ast import Let, Module, RefRead, RefWrite, TupleType, post_order
from extractor.relay.interpreter import evaluate, flatten_value, random_inputs
from extractor.relay.transforms.gradient import gradient_module
from extractor.relay.transforms.training import training_step
from extractor.relay.typeinfer import infer_types

from ..options import DEFAULT_ENGINE, EngineOptions
from .analysis import analyze
from .dce import MODES, relay_dce

BASELINE = "none"


@dataclass
class ScenarioResult:
    """Outputs of the gradient program under each DCE mode, and how many bindings each removed."""

    names: list[str]
    outputs: dict[str, list[np.ndarray]] = field(default_factory=dict)
    bindings: dict[str, int] = field(default_factory=dict)
    ref_ops: dict[str, int] = field(default_factory=dict)
    removed_ref_ops: list[str] = field(default_factory=list)

    def max_abs_diff(self, mode: str) -> list[float]:
        """Per output, the largest absolute difference from the no-DCE run."""
        base = self.outputs[BASELINE]
        return [
            float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0
            for a, b in zip(self.outputs[mode], base, strict=True)
        ]


def count_lets(mod: Module) -> int:
    """Let bindings in every global function (shared nodes counted once)."""
    return sum(
        sum(isinstance(n, Let) for n in post_order(fn)) for fn in mod.functions.values()
    )


def count_ref_ops(mod: Module) -> int:
    """ref_read and ref_write nodes in every global function."""
    return sum(
        sum(isinstance(n, (RefRead, RefWrite)) for n in post_order(fn))
        for fn in mod.functions.values()
    )


def output_names(mod: Module, entry: str = "main") -> list[str]:
    """Names for the flattened outputs of a primal program's gradient: result, then d<param>."""
    fn = infer_types(mod).module.functions[entry]
    ret = fn.ret_type
    primal_names = ["result"]
    if isinstance(ret, TupleType):
        primal_names = [f"result.{i}" for i in range(len(ret.fields))]
    return primal_names + [f"d{p.name_hint}" for p in fn.params]


def compare_dce(
    program: Module, names: list[str], seed: int = 0, modes: tuple[str, ...] = tuple(MODES),
    engine: EngineOptions = DEFAULT_ENGINE,
) -> ScenarioResult:
    """Run program on seeded random inputs with no DCE and after each DCE mode."""
    args = random_inputs(program.functions["main"], seed)
    result = ScenarioResult(names)
    result.outputs[BASELINE] = flatten_value(evaluate(program, args))
    result.bindings[BASELINE] = count_lets(program)
    result.ref_ops[BASELINE] = count_ref_ops(program)
    for mode in modes:
        options = {"engine": engine} if MODES[mode].uses_analysis else {}
        pruned = relay_dce(program, mode=mode, **options)
        result.outputs[mode] = flatten_value(evaluate(pruned, args))
        result.bindings[mode] = count_lets(pruned)
        result.ref_ops[mode] = count_ref_ops(pruned)
    return result


def run_seed_scenario(
    mod: Module, seed: int = 0, modes: tuple[str, ...] = tuple(MODES),
    engine: EngineOptions = DEFAULT_ENGINE,
) -> ScenarioResult:
    """The issue's script: differentiate @main, then compare each DCE with none."""
    primal = infer_types(mod).module
    return compare_dce(gradient_module(primal), output_names(primal), seed, modes, engine)


def removed_ref_ops(program: Module, engine: EngineOptions = DEFAULT_ENGINE) -> list[str]:
    """`%name = ref_read(...)` / `ref_write(...)` bindings the analysis proves removable."""
    result = analyze(program, engine=engine, explain=False, points_to=False)
    return [
        f"%{let.var.name_hint} = {type(let.value).__name__.replace('Ref', 'ref_').lower()}(...)"
        for let in result.removable()
        if isinstance(let.value, (RefRead, RefWrite))
    ]


def run_training_scenario(
    mod: Module, keep_grads: tuple[int, ...], seed: int = 0, modes: tuple[str, ...] = tuple(MODES),
    engine: EngineOptions = DEFAULT_ENGINE,
) -> ScenarioResult:
    """A training step that keeps the loss and some gradients: where dead ref writes appear."""
    primal = infer_types(mod).module
    params = primal.functions["main"].params
    names = ["loss"] + [f"d{params[i].name_hint}" for i in keep_grads]
    step = training_step(primal, keep_grads)
    result = compare_dce(step, names, seed, modes, engine)
    result.removed_ref_ops = removed_ref_ops(step, engine)
    return result


def format_table(result: ScenarioResult) -> str:
    """Max |output - no-DCE output| per output and mode, plus bindings kept, as a text table."""
    modes = [m for m in result.outputs if m != BASELINE]
    width = max(12, *(len(m) for m in modes))
    name_w = max(23, *(len(n) + 2 for n in result.names))
    head = f"{'output':<{name_w}}" + "".join(f"{m:>{width + 2}}" for m in modes)
    lines = [head, "-" * len(head)]
    diffs = {m: result.max_abs_diff(m) for m in modes}
    for i, name in enumerate(result.names):
        row = f"{name:<{name_w}}"
        for m in modes:
            d = diffs[m][i]
            row += f"{('0' if d == 0 else f'{d:.3e}'):>{width + 2}}"
        lines.append(row)
    lines.append("-" * len(head))
    total = result.bindings[BASELINE]
    row = f"{'bindings kept':<{name_w}}"
    for m in modes:
        row += f"{f'{result.bindings[m]}/{total}':>{width + 2}}"
    lines.append(row)
    row = f"{'ref reads+writes kept':<{name_w}}"
    for m in modes:
        row += f"{f'{result.ref_ops[m]}/{result.ref_ops[BASELINE]}':>{width + 2}}"
    lines.append(row)
    return "\n".join(lines)
