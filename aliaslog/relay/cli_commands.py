"""The Relay side of the command line: parse, run, grad, anf, and dce / facts / analyze /
explain / annotate / precision / demo on Relay programs (the parser is `aliaslog.cli`'s)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from extractor.relay.ast import Expr, Let, Module, Var, post_order

from ..loading import (
    UsageError,
    load_relay,
    output_dir,
    publish_facts,
    write_atomically,
    write_text_atomically,
)
from ..options import AnalysisOptions, EngineOptions


def cmd_parse(args: argparse.Namespace) -> int:
    from extractor.relay.printer import astext

    mod = load_relay(args.file)
    if args.types:
        from extractor.relay.typeinfer import infer_types

        typed = infer_types(mod)
        print(astext(typed.module, types=typed.types, spans=args.spans))
    else:
        print(astext(mod, spans=args.spans))
    return 0


def _load_inputs(args: argparse.Namespace, fn: object) -> list[np.ndarray]:
    from extractor.relay.interpreter import random_inputs

    if args.random is not None:
        return random_inputs(fn, args.random)  # type: ignore[arg-type]
    if not Path(args.inputs).is_file():
        raise UsageError(f"{args.inputs}: no such file")
    try:
        with np.load(args.inputs) as data:
            keys = sorted(data.files, key=lambda k: int(k.split("_")[-1]) if "_" in k else 0)
            return [data[k] for k in keys]
    except (OSError, ValueError) as exc:
        raise UsageError(f"{args.inputs}: not an .npz file of input arrays ({exc})") from None


def cmd_run(args: argparse.Namespace) -> int:
    from extractor.relay.interpreter import evaluate, flatten_value
    from extractor.relay.typeinfer import infer_types

    mod = infer_types(load_relay(args.file)).module
    if args.entry not in mod.functions:
        raise UsageError(f"{args.file}: no function @{args.entry}")
    inputs = _load_inputs(args, mod.functions[args.entry])
    outputs = flatten_value(evaluate(mod, inputs, entry=args.entry))
    with np.printoptions(precision=6, suppress=True, threshold=64):
        for i, out in enumerate(outputs):
            print(f"arr_{i}: {out.dtype}{list(out.shape)}\n{out}")
    if args.save:
        arrays = {f"arr_{i}": out for i, out in enumerate(outputs)}

        def save(tmp: str) -> None:
            with open(tmp, "wb") as fh:
                np.savez(fh, **arrays)  # type: ignore[arg-type]

        write_atomically(args.save, save)
    return 0


def cmd_grad(args: argparse.Namespace) -> int:
    from extractor.relay.printer import astext
    from extractor.relay.transforms.gradient import gradient_module
    from extractor.relay.transforms.training import training_step
    from extractor.relay.typeinfer import infer_types

    mod = infer_types(load_relay(args.file)).module
    if args.mode == "first-order":
        from extractor.relay.transforms.first_order_gradient import first_order_gradient_module

        if args.training_step:
            raise UsageError("--training-step builds on the higher-order gradient; it cannot be "
                             "combined with --mode first-order")
        grad = infer_types(first_order_gradient_module(mod, entry=args.entry))
    elif args.training_step:
        if args.entry != "main":
            raise UsageError("--training-step differentiates @main (it wraps it as @main_grad)")
        params = [p.name_hint for p in mod.functions["main"].params] if "main" in \
            mod.functions else []
        wanted = args.keep.split(",") if args.keep else params[1:]
        unknown = [n for n in wanted if n not in params]
        if unknown:
            raise UsageError(f"--keep: @main has no parameter %{unknown[0].lstrip('%')} (its "
                             f"parameters: {', '.join('%' + p for p in params)})")
        grad = infer_types(training_step(mod, [params.index(n) for n in wanted]))
    else:
        grad = infer_types(gradient_module(mod, entry=args.entry))
    text = astext(grad.module, types=grad.types if args.types else None, spans=args.spans)
    _emit(text, args.output)
    return 0


def cmd_anf(args: argparse.Namespace) -> int:
    from extractor.relay.printer import astext
    from extractor.relay.transforms.anf import to_a_normal_form
    from extractor.relay.typeinfer import infer_types

    anf = to_a_normal_form(_load_checked(args.file)).module
    typed = infer_types(anf) if args.types else None
    _emit(astext(typed.module if typed else anf, types=typed.types if typed else None),
          args.output)
    return 0


def cmd_dce(args: argparse.Namespace) -> int:
    from extractor.relay.printer import astext

    from .dce import MODES, relay_dce

    mod = _load_checked(args.file)
    options = _analysis_options(args) if MODES[args.mode].uses_analysis else {}
    out = relay_dce(mod, mode=args.mode, inline_once=args.inline_once, **options)
    _emit(astext(out), args.output)
    print(removal_summary(mod, out, args.mode), file=sys.stderr)
    return 0


def removal_summary(before: Module, after: Module, mode: str) -> str:
    """`dce (mode): removed k of n bindings: %a, %b, ...`: the lets whose variable is gone."""
    from collections import Counter

    def let_names(mod: Module) -> list[str]:
        return [n.var.name_hint for fn in mod.functions.values() for n in post_order(fn)
                if isinstance(n, Let)]

    names = let_names(before)
    left = Counter(let_names(after))  # by name: a pass may rebuild (retype) the variables
    gone = []
    for n in names:
        if left[n] > 0:
            left[n] -= 1
        else:
            gone.append(f"%{n}" if n else "%_")
    lets = names
    names = ", ".join(gone[:12]) + (f", ... ({len(gone) - 12} more)" if len(gone) > 12 else "")
    return (f"dce ({mode}): removed {len(gone)} of {len(lets)} bindings"
            + (f": {names}" if gone else ""))


def _analysis_options(args: argparse.Namespace) -> dict[str, object]:
    """The keyword arguments of `analyze` that a command line gives."""
    return {
        "options": AnalysisOptions.from_args(args),
        "engine": EngineOptions.from_args(args),
        "entry": args.entry,
        "op_effects": args.op_effects,
    }


def _load_checked(path: str):  # type: ignore[no-untyped-def]
    """A Relay module that type-checks: commands that analyse or transform a program refuse an
    ill-typed one with the located type error, before writing anything."""
    from extractor.relay.typeinfer import infer_types

    mod = load_relay(path)
    infer_types(mod)
    return mod


def _analyze(args: argparse.Namespace, explain: bool = True):  # type: ignore[no-untyped-def]
    """The analysis a command asks for; `explain=False` when it never explains a binding (the
    demand graph is the largest output relation)."""
    from .analysis import analyze

    mod = _load_checked(args.file)
    return analyze(mod, keep_files=getattr(args, "keep_files", None), explain=explain,
                   points_to=False,
                   **_analysis_options(args))


def cmd_facts(args: argparse.Namespace) -> int:
    from extractor.relay_facts import extract_relay, load_op_effects

    from .analysis import analysis_program

    mod = analysis_program(_load_checked(args.file))
    extraction = extract_relay(mod, args.entry, load_op_effects(*args.op_effects))
    print(publish_facts(extraction.facts, args.output))
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from ..analyze_report import AnalyzeSummary, RemovableBinding
    from .annotate import binding_entries

    result = _analyze(args, explain=False)
    bindings, removable = 0, []
    for e in binding_entries(result, reasons=False):  # (as the annotation file lists them)
        bindings += 1
        if e["verdict"] == "dead":
            removable.append(RemovableBinding(e["name"], e["function"], e["line"], e["col"]))
    summary = AnalyzeSummary(
        file=args.file, ir="relay", engine=result.engine, timings=result.timings,
        bindings=bindings, removable=removable,
        metrics=result.metrics, label=result.options.name,
        context={"options": result.options.as_json()},
        metrics_heading="metrics (of the program as the debug executor runs it, in A-normal "
                        "form):")
    print(summary.as_json() if args.json else summary.as_text())
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from extractor.relay.printer import astext

    result = _analyze(args)
    wanted = "%" + args.binding.lstrip("%")
    printed: dict[str, Expr] = {}  # names as `parse` / `annotate` / `dce` print them
    astext(result.source, names=printed)
    view = result.source_view()
    by_var = {id(let.var): let for let in view.lets}
    hit = printed.get(wanted)
    if isinstance(hit, Var) and id(hit) in by_var:
        matches: list[Expr] = [by_var[id(hit)]]
    elif hit is not None and view.verdict(hit) is not None:
        matches = [hit]  # a graph binding: a node shared by several uses
    else:
        matches = [let for let in view.lets if f"%{let.var.name_hint}" == wanted]
    if not matches:
        import difflib

        names = sorted({n for n, x in printed.items() if isinstance(x, Var) and id(x) in by_var}
                       | {n for n, x in printed.items() if view.verdict(x) is not None})
        close = difflib.get_close_matches(wanted, names, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"{args.file}: no binding named {wanted}{hint}")
    for node in matches:
        print("\n".join(result.explain(node, wanted)))
    return 0


def cmd_annotate(args: argparse.Namespace) -> int:
    import json

    from .annotate import annotated_text, annotation_document

    result = _analyze(args, explain=False)
    if args.json:
        _emit(json.dumps(annotation_document(result, args.file), indent=2), args.output)
    else:
        _emit(annotated_text(result), args.output)
    return 0


def cmd_precision(args: argparse.Namespace) -> int:
    import csv
    import io
    import json

    from extractor.relay.transforms.gradient import gradient_module
    from extractor.relay.transforms.training import training_step
    from extractor.relay.typeinfer import infer_types

    from .precision import (
        markdown,
        measure,
        relay_files,
        rows_as_dicts,
        summary,
        svg,
    )

    try:
        variants = tuple(AnalysisOptions.parse(v) for v in args.variants.split(",")) \
            if args.variants else AnalysisOptions.variants()
    except ValueError as exc:
        raise UsageError(f"--variants: {exc}") from None
    if args.seeds < 1:
        raise UsageError(f"--seeds {args.seeds}: the oracle needs at least one run per program")
    files = relay_files(args.paths)
    if not files:
        raise UsageError("no .relay programs in " + ", ".join(args.paths))
    rows = []
    for i, path in enumerate(files, 1):
        mod = infer_types(load_relay(path)).module
        if args.transform == "gradient":
            mod = gradient_module(mod)
        elif args.transform == "training-step":  # keep the weights' gradients, drop the data's
            mod = training_step(mod, range(1, len(mod.functions["main"].params)))
        print(f"[{i}/{len(files)}] {path}", file=sys.stderr)
        rows += measure(mod, str(path), variants, tuple(range(args.seeds)),
                        EngineOptions.from_args(args))
    table = summary(rows)
    print(markdown(table))
    unsound = [f"{r.program} [{r.variant}]: {u}" for r in rows for u in r.unsound]
    for line in unsound:
        print("UNSOUND " + line)
    if args.out:
        out = output_dir(args.out)
        dicts = rows_as_dicts(rows)
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(dicts[0]))
        writer.writeheader()
        writer.writerows(dicts)
        write_text_atomically(out / "precision.csv", buf.getvalue())
        write_text_atomically(out / "precision.json", json.dumps(
            {"variants": table, "programs": dicts}, indent=2) + "\n")
        write_text_atomically(out / "precision.md", markdown(table) + "\n")
        write_text_atomically(out / "precision.svg", svg(table) + "\n")
        print(f"-> {out}/precision.{{csv,json,md,svg}}", file=sys.stderr)
    return 1 if unsound else 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .scenario import format_table, run_seed_scenario, run_training_scenario

    mod = load_relay(args.file)
    print(f"seed program: {args.file} (apache/tvm #6803)\n")
    print("1. The issue's script: higher-order gradient, then DCE; the gradient program returns")
    print("   every gradient. Max |output - output without DCE| for each DCE mode:\n")
    result = run_seed_scenario(mod, seed=args.seed, engine=EngineOptions.from_args(args))
    print(format_table(result))
    diffs = result.max_abs_diff("assume-pure")
    bad = [n for n, d in zip(result.names, diffs, strict=True) if d > 0]
    print(f"\n   assume-pure (TVM before #9542) changes {', '.join(bad) or 'nothing'}: the bug.")
    ok = all(max(result.max_abs_diff(m)) == 0 for m in ("purity", "analysis"))
    print("   purity (TVM after #9542) and analysis keep the outputs identical."
          if ok else "   purity or analysis DCE changed outputs: a bug in aliaslog.")

    grads = tuple(range(2, len(mod.functions["main"].params)))
    print("\n2. A training step: @main calls the gradient and keeps only the loss and the")
    print("   weight and bias gradients, throwing the data and label gradients away:\n")
    step = run_training_scenario(mod, grads, seed=args.seed, engine=EngineOptions.from_args(args))
    print(format_table(step))
    print("\n   analysis DCE also removes the dead reads and writes of the data and label")
    print("   gradient cells that purity DCE must keep:")
    for line in step.removed_ref_ops:
        print(f"     {line}")
    print("   `aliaslog explain FILE %name` says why any other binding stays.")
    return 0


def _emit(text: str, output: str | None) -> None:
    if output:
        write_text_atomically(output, text + "\n")
    else:
        print(text)
