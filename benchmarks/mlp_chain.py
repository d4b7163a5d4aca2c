"""Time parse → infer_types → gradient → infer_types → purity DCE → evaluate on MLP chains.

Usage: python benchmarks/mlp_chain.py [--full] [--sizes N ...] [--repeat K] [--shared-weights]

`mlp_chain(n)` writes a Relay text program (v0.0.5) of about n operator calls: dense → bias_add
→ relu/tanh repeated, then log_softmax and nn.cross_entropy_with_logits to a scalar loss. Shapes
are tiny (batch 2, width 4) so the numerics cost nothing and the timings measure the passes.
Each row gives seconds per stage (best of --repeat runs); the ratio columns divide by the
previous (half-size) row of the same run, so a linear stage shows ~2.0 and a stage within the
1.3×-per-doubling budget (per op) shows ≤ 2.6 (= 2 × 1.3). This is a benchmark: it prints
numbers and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aliaslog.relay.dce import relay_dce  # noqa: E402
from extractor.relay.interpreter import evaluate, random_inputs  # noqa: E402
from extractor.relay.parser import parse  # noqa: E402
from extractor.relay.transforms.gradient import gradient_module  # noqa: E402
from extractor.relay.typeinfer import infer_types  # noqa: E402
from extractor.runtime import recursion_limit  # noqa: E402

BATCH = 2
WIDTH = 4
OPS_PER_LAYER = 3  # dense, bias_add, activation
TAIL_OPS = 2  # log_softmax, cross_entropy_with_logits

STAGES = ("parse", "infer", "grad", "infer_grad", "dce", "eval")


def mlp_chain(n_ops: int, shared_weights: bool = False) -> str:
    """A Relay program of ~n_ops calls (3 per layer + 2 for the loss) returning a scalar loss."""
    layers = max(1, (n_ops - TAIL_OPS) // OPS_PER_LAYER)
    tensor = f"Tensor[({BATCH}, {WIDTH}), float32]"
    weight = f"Tensor[({WIDTH}, {WIDTH}), float32]"
    bias = f"Tensor[({WIDTH}), float32]"
    params = [f"%x: {tensor}", f"%y: {tensor}"]
    n_weights = 1 if shared_weights else layers
    for i in range(n_weights):
        params.append(f"%w{i}: {weight}")
        params.append(f"%b{i}: {bias}")
    lines = ['#[version = "0.0.5"]', f"def @main({', '.join(params)}) -> float32 {{"]
    prev = "%x"
    for i in range(layers):
        w = 0 if shared_weights else i
        act = "nn.relu" if i % 2 == 0 else "tanh"
        lines.append(f"  let %d{i} = nn.dense({prev}, %w{w}, units={WIDTH});")
        lines.append(f"  let %a{i} = nn.bias_add(%d{i}, %b{w});")
        lines.append(f"  let %h{i} = {act}(%a{i});")
        prev = f"%h{i}"
    lines.append(f"  let %logp = nn.log_softmax({prev});")
    lines.append("  let %loss = nn.cross_entropy_with_logits(%logp, %y);")
    lines.append("  %loss")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        out = None
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run_pipeline(n_ops: int, shared_weights: bool = False, repeat: int = 1) -> dict[str, float]:
    """Seconds of each stage of the pipeline on mlp_chain(n_ops), best of `repeat` runs."""
    text = mlp_chain(n_ops, shared_weights)
    secs: dict[str, float] = {}
    r = repeat
    secs["parse"], mod = _timed(lambda: parse(text, f"mlp_chain_{n_ops}"), r)
    secs["infer"], typed = _timed(lambda: infer_types(mod), r)  # type: ignore[arg-type]
    primal = typed.module  # type: ignore[attr-defined]
    secs["grad"], grad = _timed(lambda: gradient_module(primal), r)
    secs["infer_grad"], _ = _timed(lambda: infer_types(grad), r)  # type: ignore[arg-type]
    secs["dce"], _ = _timed(lambda: relay_dce(grad, mode="purity"), r)  # type: ignore[arg-type]
    args = random_inputs(grad.functions["main"], 0)  # type: ignore[attr-defined]
    secs["eval"], _ = _timed(lambda: evaluate(grad, args), r)  # type: ignore[arg-type]
    return secs


def main(argv: list[str] | None = None) -> int:
    """Print the per-stage timings and doubling ratios for each size."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also run N = 6400 and 10000")
    ap.add_argument("--sizes", type=int, nargs="+", help="explicit sizes (overrides defaults)")
    ap.add_argument("--repeat", type=int, default=1, help="best of K runs per stage")
    ap.add_argument("--shared-weights", action="store_true",
                    help="one weight/bias pair for every layer (few parameters)")
    ns = ap.parse_args(argv)
    sizes = ns.sizes or [100, 200, 400, 800, 1600, 3200]
    if ns.full and not ns.sizes:
        sizes += [6400, 10000]
    head = f"{'N':>6} " + " ".join(f"{s:>10}" for s in STAGES)
    print("seconds per stage")
    print(head)
    print("-" * len(head))
    rows: list[tuple[int, dict[str, float]]] = []
    with recursion_limit(10000):
        for n in sizes:
            secs = run_pipeline(n, ns.shared_weights, max(1, ns.repeat))
            print(f"{n:>6} " + " ".join(f"{secs[s]:>10.3f}" for s in STAGES), flush=True)
            rows.append((n, secs))
    print("\ntime ratio vs the previous N (in brackets: per-op ratio, time ratio / size ratio)")
    print(f"{'N':>6} " + " ".join(f"{s:>13}" for s in STAGES))
    for (n0, prev), (n, secs) in zip(rows, rows[1:], strict=False):
        cells = []
        for s in STAGES:
            r = secs[s] / prev[s] if prev[s] > 0 else float("nan")
            cells.append(f"{f'{r:.2f} ({r * n0 / n:.2f})':>13}")
        print(f"{n:>6} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
