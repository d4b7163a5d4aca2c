"""Command line: parses arguments and calls the library; user mistakes print located errors."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

import numpy as np

from extractor.diagnostics import LocatedError
from extractor.relay.ast import Expr, Let, Module, Var, post_order
from extractor.runtime import survivors_frozen

from .batch import command as batch_command
from .loading import (
    UsageError,
    load_relay,
    output_dir,
    output_dir_arg,
    output_file_arg,
    publish_facts,
    write_atomically,
    write_text_atomically,
)
from .options import AnalysisOptions, EngineOptions
from .zoo import command as zoo_command


class _RelaxCli:
    """The Relax commands, imported on first use: apache-tvm takes seconds to import."""

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        from .relax import cli_commands

        return getattr(cli_commands, name)


relax_cli = _RelaxCli()

INTERNAL_ERROR = 3  # never 1, which means "findings"


def is_relax_file(path: str) -> bool:
    """TVMScript inputs are Python files; everything else is Relay."""
    return path.endswith(".py")


def _cmd_parse(args: argparse.Namespace) -> int:
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


def _cmd_run(args: argparse.Namespace) -> int:
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


def _cmd_grad(args: argparse.Namespace) -> int:
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


def _cmd_anf(args: argparse.Namespace) -> int:
    from extractor.relay.printer import astext
    from extractor.relay.transforms.anf import to_a_normal_form
    from extractor.relay.typeinfer import infer_types

    anf = to_a_normal_form(_load_checked(args.file)).module
    typed = infer_types(anf) if args.types else None
    _emit(astext(typed.module if typed else anf, types=typed.types if typed else None),
          args.output)
    return 0


def _cmd_dce(args: argparse.Namespace) -> int:
    if is_relax_file(args.file):
        return relax_cli.cmd_dce(args)
    from extractor.relay.printer import astext

    from .dce import relay_dce

    mod = _load_checked(args.file)
    options = _analysis_options(args) if args.mode == "analysis" else {}
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


def _cmd_facts(args: argparse.Namespace) -> int:
    if is_relax_file(args.file):
        return relax_cli.cmd_facts(args)
    from extractor.relay_facts import extract_relay, load_op_effects

    from .analysis import analysis_program

    mod = analysis_program(_load_checked(args.file))
    extraction = extract_relay(mod, args.entry, load_op_effects(*args.op_effects))
    print(publish_facts(extraction.facts, args.output))
    return 0


def _cmd_analyze(args: argparse.Namespace) -> int:
    if is_relax_file(args.file):
        return relax_cli.cmd_analyze(args)
    from .analyze_report import AnalyzeSummary, RemovableBinding
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


def _cmd_explain(args: argparse.Namespace) -> int:
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


def _cmd_annotate(args: argparse.Namespace) -> int:
    import json

    from .annotate import annotated_text, annotation_document

    result = _analyze(args, explain=False)
    if args.json:
        _emit(json.dumps(annotation_document(result, args.file), indent=2), args.output)
    else:
        _emit(annotated_text(result), args.output)
    return 0


def _cmd_precision(args: argparse.Namespace) -> int:
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


def _cmd_demo(args: argparse.Namespace) -> int:
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


def _analysis_arguments(sp: argparse.ArgumentParser) -> None:
    if not any(a.dest == "entry" for a in sp._actions):
        sp.add_argument("--entry", default="main", help="the function the outside world "
                        "calls: its result and parameters are what is observable")
    AnalysisOptions.add_arguments(sp)
    EngineOptions.add_arguments(sp)
    sp.add_argument("--op-effects", action="append", default=[], metavar="FILE",
                    help="extra operator effect table (operator<TAB>effect)")


def _relax_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--module", metavar="NAME",
                    help="Relax: which IRModule of the file (when it defines several)")
    sp.add_argument("--at", default="input", choices=["input", "legalized", "lowered"],
                    help="Relax extraction point: the module as given; relax.build's pipeline "
                         "up to RemovePurityChecking; or through KillAfterLastUse")
    _tir_effects_argument(sp)


def _tir_effects_argument(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--tir-effects", action="append", default=[], metavar="FILE",
                    help="Relax: extra table of packed functions TIR kernels call "
                         "(function<TAB>reads<TAB>writes, argument positions)")


EXIT_STATUSES = """exit status:
  0    success; for check, no violation (warnings count only with --strict)
  1    findings: check found violations, precision found an unsound variant, zoo lost a model
  2    bad input: a file that does not parse or load, a bad option, a TVM pipeline that fails
  3    internal error in aliaslog (one line on stderr; --debug prints the traceback)
  130  interrupted"""


def _version() -> str:
    """The installed distribution's version (the source tree's when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("aliaslog")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    p = argparse.ArgumentParser(
        prog="aliaslog", description="Effect and alias analysis for TVM's Relay and Relax IR.",
        epilog=EXIT_STATUSES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"aliaslog {_version()}")
    p.add_argument("--debug", action="store_true",
                   help="on an internal error, print the Python traceback")
    sub = p.add_subparsers(dest="command", required=True)

    sp = sub.add_parser("parse", help="parse a Relay program and pretty-print it")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    sp.add_argument("--types", action="store_true", help="print inferred types")
    sp.add_argument("--spans", action="store_true",
                    help="print each node's source position as v0.19 does "
                         "(` /* ty=T span=file:line:col */`)")
    sp.set_defaults(func=_cmd_parse)

    sp = sub.add_parser("run", help="evaluate a Relay program with the numpy interpreter")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    src = sp.add_mutually_exclusive_group(required=True)
    src.add_argument("--inputs", help=".npz with arr_0, arr_1, ... in parameter order")
    src.add_argument("--random", type=int, metavar="SEED", help="float32 normal inputs")
    sp.add_argument("--save", metavar="OUT.npz", type=output_file_arg,
                    help="save flattened outputs as arr_0, ...")
    sp.add_argument("--entry", default="main", help="the function to run (default: main)")
    sp.set_defaults(func=_cmd_run)

    sp = sub.add_parser("grad", help="gradient of @main (TVM's relay.transform.gradient)")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    sp.add_argument("-o", "--output", type=output_file_arg,
                    help="write Relay text here instead of stdout")
    sp.add_argument("--entry", default="main",
                    help="the function to differentiate (default: main)")
    sp.add_argument("--types", action="store_true", help="print /* ty=... */ comments")
    sp.add_argument("--spans", action="store_true",
                    help="print source positions (` span=file:line:col`) as v0.19 does")
    sp.add_argument("--mode", choices=["higher-order", "first-order"], default="higher-order",
                    help="higher-order: references and closures, any program (the default); "
                         "first-order: FirstOrderGradient, for dataflow programs, no references")
    sp.add_argument("--training-step", action="store_true",
                    help="a training step instead: @main calls the gradient (as @main_grad) and "
                         "returns the loss and the gradients of the parameters --keep names")
    sp.add_argument("--keep", metavar="NAMES",
                    help="with --training-step: comma-separated parameters whose gradients "
                         "are returned (default: every parameter but the first, the data)")
    sp.set_defaults(func=_cmd_grad)

    sp = sub.add_parser("anf", help="TVM's ToANormalForm of a Relay program: every "
                                    "subexpression let-bound once, where its uses meet")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    sp.add_argument("-o", "--output", help="write Relay text here instead of stdout")
    sp.add_argument("--types", action="store_true", help="infer types and print them")
    sp.set_defaults(func=_cmd_anf)

    sp = sub.add_parser("dce", help="dead-code elimination (Relay text, or Relax TVMScript .py)")
    sp.add_argument("file", help="Relay text or save_json file, or a TVMScript .py file (Relax)")
    _relax_arguments(sp)
    sp.add_argument("--mode", choices=["assume-pure", "purity", "analysis"], default="purity",
                    help="assume-pure: TVM's DCE before PR #9542 (every binding pure); purity: "
                         "TVM's DCE after it (impure bindings kept); analysis: remove exactly "
                         "what aliaslog proves dead (default: purity)")
    sp.add_argument("--inline-once", action="store_true",
                    help="TVM's inline_once: a pure binding used once is inlined at its use "
                         "(assume-pure and purity modes)")
    sp.add_argument("-o", "--output", type=output_file_arg,
                    help="write the program here instead of stdout")
    _analysis_arguments(sp)
    sp.set_defaults(func=_cmd_dce)

    sp = sub.add_parser("facts", help="write the program's Datalog facts (Soufflé TSV)")
    sp.add_argument("file", help="Relay text or save_json file, or a TVMScript .py file (Relax)")
    _relax_arguments(sp)
    sp.add_argument("-o", "--output", required=True, metavar="DIR", type=output_dir_arg,
                    help="the directory of .facts files (replaced if it holds only those)")
    sp.add_argument("--entry", default="main", help="the function the outside world calls "
                    "(default: main)")
    sp.add_argument("--op-effects", action="append", default=[], metavar="FILE",
                    help="extra operator effect table (operator<TAB>effect)")
    sp.set_defaults(func=_cmd_facts)

    sp = sub.add_parser("analyze", help="run the analysis; print counts and metrics")
    sp.add_argument("file", help="Relay text or save_json file, or a TVMScript .py file (Relax)")
    _relax_arguments(sp)
    sp.add_argument("--json", action="store_true",
                    help="print the counts, removable bindings, timings and metrics as JSON")
    sp.add_argument("--keep-files", metavar="DIR", type=output_dir_arg,
                    help="keep the facts/ and out/ (result CSV) directories here")
    _analysis_arguments(sp)
    sp.set_defaults(func=_cmd_analyze)

    sp = sub.add_parser("explain", help="why a binding is kept: the chain to a root")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    sp.add_argument("binding", help="a let-bound variable, e.g. %%x_12, or a graph binding "
                    "as the program prints it, e.g. %%25")
    _analysis_arguments(sp)
    sp.set_defaults(func=_cmd_explain)

    sp = sub.add_parser("annotate", help="the program with every binding marked keep/dead")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    sp.add_argument("--json", action="store_true", help="the machine-readable annotation file")
    sp.add_argument("-o", "--output", type=output_file_arg,
                    help="write the annotated program (or with --json the annotation file) here")
    _analysis_arguments(sp)
    sp.set_defaults(func=_cmd_annotate)

    sp = sub.add_parser("check", help="Relax alias-safety checks; exit 1 on any violation")
    sp.add_argument("file", help="a TVMScript file (a Python file defining an IRModule)")
    sp.add_argument("--after", metavar="AFTER",
                    help="compare with the module after a pass: removed or reordered effects")
    sp.add_argument("--after-module", metavar="NAME", help="which IRModule of AFTER")
    sp.add_argument("--module", metavar="NAME", help="which IRModule of FILE")
    sp.add_argument("--at", default="input,legalized,lowered",
                    help="extraction points to check, comma-separated (default: all three)")
    sp.add_argument("--json", action="store_true",
                    help="print the findings as JSON (kind, severity, bindings, lines, point)")
    sp.add_argument("--strict", action="store_true",
                    help="warnings (purity-asserted) count as violations for the exit status")
    EngineOptions.add_arguments(sp)
    sp.add_argument("--op-effects", action="append", default=[], metavar="FILE",
                    help="extra effect table (name<TAB>effect)")
    _tir_effects_argument(sp)
    sp.set_defaults(func=lambda a: relax_cli.cmd_check(a))

    sp = sub.add_parser("audit", help="Relax: check the module after every pass of TVM's "
                                      "pipeline and name the pass that introduced each finding")
    sp.add_argument("file", help="a TVMScript file (a Python file defining an IRModule)")
    sp.add_argument("--module", metavar="NAME", help="which IRModule of FILE")
    sp.add_argument("--passes", metavar="P1,P2,...",
                    help="TVM passes to apply before the pipeline (relax.transform names, e.g. "
                         "DataflowUseInplaceCalls,EliminateCommonSubexpr, or a pipeline: zero)")
    sp.add_argument("--pipeline", default="default",
                    help="relax.build's pipeline: default, zero, or none (default: default)")
    sp.add_argument("--target", default="llvm", help="TVM target (default: llvm)")
    sp.add_argument("--json", action="store_true",
                    help="print the passes and findings as JSON (check, severity, "
                         "introduced_by, pass_index, bindings)")
    sp.add_argument("-o", "--output", metavar="REPORT.html", type=output_file_arg,
                    help="write an HTML report: the passes, and each finding's TVMScript "
                         "before and after its pass")
    sp.add_argument("--confirm", action="store_true",
                    help="build and run on the VM with and without each guilty pass "
                         "(random inputs, 3 calls) and say whether the results differ")
    EngineOptions.add_arguments(sp)
    sp.add_argument("--op-effects", action="append", default=[], metavar="FILE",
                    help="extra effect table (name<TAB>effect)")
    _tir_effects_argument(sp)
    sp.set_defaults(func=lambda a: relax_cli.cmd_audit(a))

    sp = sub.add_parser("precision", help="cost and precision of each analysis variant, "
                                          "against the dynamic oracle")
    sp.add_argument("paths", nargs="+", help=".relay programs, or directories of them")
    sp.add_argument("--variants", help="comma-separated, e.g. insensitive,1-call,"
                                       "1-closure+fs (default: every context, +fs or not)")
    sp.add_argument("--transform", choices=["none", "gradient", "training-step"],
                    default="none",
                    help="analyse each program's higher-order gradient instead, or a training "
                         "step: @main calls the gradient and returns the loss and the gradients "
                         "of every parameter but the first (the data)")
    sp.add_argument("--seeds", type=int, default=2, help="oracle runs per program")
    sp.add_argument("--out", metavar="DIR", type=output_dir_arg,
                    help="write precision.{csv,json,md,svg} here")
    EngineOptions.add_arguments(sp)
    sp.set_defaults(func=_cmd_precision)

    batch_command.add_parser(sub)
    zoo_command.add_parser(sub)

    sp = sub.add_parser("demo", help="the seed scenario: gradient, DCE modes, output diffs")
    sp.add_argument("file", help="the seed program (tests/data/seed_issue_program.relay)")
    sp.add_argument("--seed", type=int, default=0,
                    help="seed of the random inputs (default: 0)")
    EngineOptions.add_arguments(sp)
    sp.set_defaults(func=_cmd_demo)
    return p


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a scheduler, a CI timeout) stops a command the way Ctrl-C does: the Soufflé it
    runs is killed, outputs are written whole or not at all, a batch can resume."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `aliaslog` console script."""
    args = build_parser().parse_args(argv)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        with survivors_frozen():  # one command: no collector rescans of what its passes built
            return int(args.func(args))
    except LocatedError as err:
        if err.text is None and err.span is not None and Path(err.span.source).is_file():
            err.with_text(Path(err.span.source).read_bytes().decode("utf-8", errors="replace"))
        print(err.render(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - replaces the closed stdout
        return 0
    except Exception as exc:  # noqa: BLE001 - anything else is aliaslog's bug, never a finding
        if args.debug:
            traceback.print_exc()
        first = (str(exc).strip().splitlines() or [""])[0]
        hint = "" if args.debug else " (run `aliaslog --debug ...` for the traceback)"
        print(f"aliaslog: internal error: {type(exc).__name__}: {first}{hint}", file=sys.stderr)
        return INTERNAL_ERROR
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
