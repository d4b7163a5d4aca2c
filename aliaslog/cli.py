"""Command line: parses arguments and calls the library; user mistakes print located errors.

Each IR's commands are in its package (`relay.cli_commands`, `relax.cli_commands`); `dce`,
`facts` and `analyze` take either, by the file's suffix.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

from extractor.diagnostics import LocatedError
from extractor.runtime import survivors_frozen

from .arguments import module_argument, op_effects_argument, tir_effects_argument
from .batch import command as batch_command
from .loading import output_dir_arg, output_file_arg
from .options import AnalysisOptions, EngineOptions
from .relay import cli_commands as relay_cli
from .relay.dce import MODES as DCE_MODES
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


def _by_ir(command: str) -> Callable[[argparse.Namespace], int]:
    """A command of both IRs: the Relax one for a TVMScript file, else the Relay one."""

    def run(args: argparse.Namespace) -> int:
        cli = relax_cli if is_relax_file(args.file) else relay_cli
        return int(getattr(cli, command)(args))

    return run


def _analysis_arguments(sp: argparse.ArgumentParser) -> None:
    if not any(a.dest == "entry" for a in sp._actions):
        sp.add_argument("--entry", default="main", help="the function the outside world "
                        "calls: its result and parameters are what is observable")
    AnalysisOptions.add_arguments(sp)
    EngineOptions.add_arguments(sp)
    op_effects_argument(sp)


def _relax_arguments(sp: argparse.ArgumentParser) -> None:
    module_argument(sp)
    sp.add_argument("--at", default="input", choices=["input", "legalized", "lowered"],
                    help="Relax extraction point: the module as given; relax.build's pipeline "
                         "up to RemovePurityChecking; or through KillAfterLastUse")
    tir_effects_argument(sp)


def _ci_arguments(sp: argparse.ArgumentParser) -> None:
    """What `check` and `audit` share for CI: output format, baselines, declared state."""
    sp.add_argument("--format", choices=["text", "json", "sarif"], default="text",
                    help="text (default), json (kind, severity, bindings, lines, point; audit "
                         "adds introduced_by, pass_index), or sarif (SARIF 2.1.0)")
    sp.add_argument("--json", dest="format", action="store_const", const="json",
                    help="the same as --format json")
    sp.add_argument("--baseline", metavar="FILE",
                    help="findings listed in FILE are known: reported, but only new ones fail")
    sp.add_argument("--write-baseline", metavar="FILE", type=output_file_arg,
                    help="write the findings found now to FILE (a baseline for --baseline)")
    _state_arguments(sp)


def _state_arguments(sp: argparse.ArgumentParser) -> None:
    """What the caller declares about entry functions (`check`, `audit`, Relax `explain`)."""
    sp.add_argument("--mutable", metavar="FUNC:PARAM,...", default="",
                    help="Relax: entry parameters that are state updated in place (a KV "
                         "cache): writes into them are intended; stale reads of them still fail")
    sp.add_argument("--once", metavar="FUNC,...", default="",
                    help="Relax: entry functions called once per loaded module (initializers): "
                         "a constant they write is no stale read of a later call")


def _memory_arguments(sp: argparse.ArgumentParser) -> None:
    """What `inplace` and `memory` share: the module, donations, target, engine, tables."""
    sp.add_argument("file", help="a TVMScript file (a Python file defining an IRModule)")
    module_argument(sp)
    sp.add_argument("--donate", metavar="FUNC:PARAM,...", default="",
                    help="entry parameters whose tensors the caller gives up, so they may be "
                         "written in place (e.g. main:x)")
    sp.add_argument("--pipeline", default="default", choices=["default", "zero"],
                    help="what runs before relax.build's default pipeline: nothing (default), "
                         "or relax's zero pipeline (legalize, fold, fuse)")
    sp.add_argument("--target", default="llvm", help="TVM target (default: llvm)")
    EngineOptions.add_arguments(sp)
    op_effects_argument(sp)
    tir_effects_argument(sp)


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
    sp.set_defaults(func=relay_cli.cmd_parse)

    sp = sub.add_parser("run", help="evaluate a Relay program with the numpy interpreter")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    src = sp.add_mutually_exclusive_group(required=True)
    src.add_argument("--inputs", help=".npz with arr_0, arr_1, ... in parameter order")
    src.add_argument("--random", type=int, metavar="SEED", help="float32 normal inputs")
    sp.add_argument("--save", metavar="OUT.npz", type=output_file_arg,
                    help="save flattened outputs as arr_0, ...")
    sp.add_argument("--entry", default="main", help="the function to run (default: main)")
    sp.set_defaults(func=relay_cli.cmd_run)

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
    sp.set_defaults(func=relay_cli.cmd_grad)

    sp = sub.add_parser("anf", help="TVM's ToANormalForm of a Relay program: every "
                                    "subexpression let-bound once, where its uses meet")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    sp.add_argument("-o", "--output", help="write Relay text here instead of stdout")
    sp.add_argument("--types", action="store_true", help="infer types and print them")
    sp.set_defaults(func=relay_cli.cmd_anf)

    sp = sub.add_parser("dce", help="dead-code elimination (Relay text, or Relax TVMScript .py)")
    sp.add_argument("file", help="Relay text or save_json file, or a TVMScript .py file (Relax)")
    _relax_arguments(sp)
    sp.add_argument("--mode", choices=list(DCE_MODES), default="purity",
                    help="; ".join(f"{name}: {m.help}" for name, m in DCE_MODES.items())
                    + " (default: purity)")
    sp.add_argument("--inline-once", action="store_true",
                    help="TVM's inline_once: a pure binding used once is inlined at its use "
                         "(assume-pure and purity modes)")
    sp.add_argument("-o", "--output", type=output_file_arg,
                    help="write the program here instead of stdout")
    _analysis_arguments(sp)
    sp.set_defaults(func=_by_ir("cmd_dce"))

    sp = sub.add_parser("facts", help="write the program's Datalog facts (Soufflé TSV)")
    sp.add_argument("file", help="Relay text or save_json file, or a TVMScript .py file (Relax)")
    _relax_arguments(sp)
    sp.add_argument("-o", "--output", required=True, metavar="DIR", type=output_dir_arg,
                    help="the directory of .facts files (replaced if it holds only those)")
    sp.add_argument("--entry", default="main", help="the function the outside world calls "
                    "(default: main)")
    op_effects_argument(sp)
    sp.set_defaults(func=_by_ir("cmd_facts"))

    sp = sub.add_parser("analyze", help="run the analysis; print counts and metrics")
    sp.add_argument("file", help="Relay text or save_json file, or a TVMScript .py file (Relax)")
    _relax_arguments(sp)
    sp.add_argument("--json", action="store_true",
                    help="print the counts, removable bindings, timings and metrics as JSON")
    sp.add_argument("--keep-files", metavar="DIR", type=output_dir_arg,
                    help="keep the facts/ and out/ (result CSV) directories here")
    _analysis_arguments(sp)
    sp.set_defaults(func=_by_ir("cmd_analyze"))

    sp = sub.add_parser("explain", help="why a binding is kept: the chain to a root (Relax: "
                                        "and the chain behind each finding that names it)")
    sp.add_argument("file", help="Relay text or save_json file, or a TVMScript .py file (Relax)")
    sp.add_argument("binding", help="a let-bound variable, e.g. %%x_12, or a graph binding "
                    "as the program prints it, e.g. %%25; Relax: a variable, e.g. b or "
                    "main:b")
    _relax_arguments(sp)
    sp.add_argument("--save-points", metavar="DIR", type=output_dir_arg,
                    help="Relax: write the IR at --at to DIR/<point>.py and cite its lines "
                         "where a binding does not survive from the module as given")
    _state_arguments(sp)
    _analysis_arguments(sp)
    sp.set_defaults(func=_by_ir("cmd_explain"))

    sp = sub.add_parser("annotate", help="the program with every binding marked keep/dead")
    sp.add_argument("file", help="Relay text (v0.0.5) or save_json file")
    sp.add_argument("--json", action="store_true", help="the machine-readable annotation file")
    sp.add_argument("-o", "--output", type=output_file_arg,
                    help="write the annotated program (or with --json the annotation file) here")
    _analysis_arguments(sp)
    sp.set_defaults(func=relay_cli.cmd_annotate)

    sp = sub.add_parser("check", help="Relax alias-safety checks; exit 1 on any violation")
    sp.add_argument("file", help="a TVMScript file (a Python file defining an IRModule)")
    sp.add_argument("--after", metavar="AFTER",
                    help="compare with the module after a pass: removed or reordered effects")
    module_argument(sp, "--after-module", "AFTER")
    module_argument(sp)
    sp.add_argument("--at", default="input,legalized,lowered",
                    help="extraction points to check, comma-separated (default: all three)")
    sp.add_argument("--strict", action="store_true",
                    help="warnings (purity-asserted) count as violations for the exit status")
    sp.add_argument("--save-points", metavar="DIR", type=output_dir_arg,
                    help="write the IR of each later point to DIR/<point>.py and cite its lines "
                         "where a finding's binding does not survive from the module as given")
    _ci_arguments(sp)
    EngineOptions.add_arguments(sp)
    op_effects_argument(sp)
    tir_effects_argument(sp)
    sp.set_defaults(func=lambda a: relax_cli.cmd_check(a))

    sp = sub.add_parser("audit", help="Relax: check the module after every pass of TVM's "
                                      "pipeline and name the pass that introduced each finding")
    sp.add_argument("file", help="a TVMScript file (a Python file defining an IRModule)")
    module_argument(sp)
    sp.add_argument("--passes", metavar="P1,P2,...",
                    help="TVM passes to apply before the pipeline (relax.transform names, e.g. "
                         "DataflowUseInplaceCalls,EliminateCommonSubexpr, or a pipeline: zero)")
    sp.add_argument("--pipeline", default="default",
                    help="relax.build's pipeline: default, zero, or none (default: default)")
    sp.add_argument("--target", default="llvm", help="TVM target (default: llvm)")
    _ci_arguments(sp)
    sp.add_argument("-o", "--output", metavar="REPORT.html", type=output_file_arg,
                    help="write an HTML report: the passes, and each finding's TVMScript "
                         "before and after its pass")
    sp.add_argument("--confirm", action="store_true",
                    help="build and run on the VM with and without each guilty pass "
                         "(random inputs, 3 calls) and say whether the results differ")
    EngineOptions.add_arguments(sp)
    op_effects_argument(sp)
    tir_effects_argument(sp)
    sp.set_defaults(func=lambda a: relax_cli.cmd_audit(a))

    sp = sub.add_parser("inplace", help="Relax: make call_tir write an input in place wherever "
                                        "aliaslog proves it safe (VerifiedInplace)")
    _memory_arguments(sp)
    sp.add_argument("-o", "--output", metavar="OUT.py", type=output_file_arg,
                    help="write the rewritten module as a loadable TVMScript file")
    sp.add_argument("--json", action="store_true",
                    help="print inplace_calls, rewrites, refused (binding, reason) and the "
                         "memory figures as JSON")
    sp.set_defaults(func=lambda a: relax_cli.cmd_inplace(a))

    sp = sub.add_parser("memory", help="Relax: planned and peak storage per function, as given, "
                                       "after DataflowUseInplaceCalls and with VerifiedInplace")
    _memory_arguments(sp)
    sp.add_argument("--json", action="store_true", help="print the report as JSON")
    sp.set_defaults(func=lambda a: relax_cli.cmd_memory(a))

    sp = sub.add_parser("precision", help="cost and precision of each analysis variant, "
                                          "against the dynamic oracle")
    sp.add_argument("paths", nargs="+", help=".relay programs, or directories of them")
    sp.add_argument("--variants", help="comma-separated, e.g. insensitive,1-call,"
                                       "1-closure+fs,combined+heap+fs (default: every "
                                       "variant: each context, +heap or not but for "
                                       "insensitive, +fs or not)")
    sp.add_argument("--transform", choices=["none", "gradient", "training-step"],
                    default="none",
                    help="analyse each program's higher-order gradient instead, or a training "
                         "step: @main calls the gradient and returns the loss and the gradients "
                         "of every parameter but the first (the data)")
    sp.add_argument("--seeds", type=int, default=2, help="oracle runs per program")
    sp.add_argument("--out", metavar="DIR", type=output_dir_arg,
                    help="write precision.{csv,json,md,svg} here")
    EngineOptions.add_arguments(sp)
    sp.set_defaults(func=relay_cli.cmd_precision)

    batch_command.add_parser(sub)
    zoo_command.add_parser(sub)

    sp = sub.add_parser("demo", help="the seed scenario: gradient, DCE modes, output diffs")
    sp.add_argument("file", help="the seed program (tests/data/seed_issue_program.relay)")
    sp.add_argument("--seed", type=int, default=0,
                    help="seed of the random inputs (default: 0)")
    EngineOptions.add_arguments(sp)
    sp.set_defaults(func=relay_cli.cmd_demo)
    return p


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a scheduler, a CI timeout) stops a command the way Ctrl-C does: the Soufflé it
    runs is killed, outputs are written whole or not at all, a batch can resume."""
    raise KeyboardInterrupt


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of subcommand `name` (the top-level one when there is none)."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return action.choices.get(name, parser)
    return parser


class _Lowercase(logging.Formatter):
    """`warning: ...`: aliaslog's warnings look like its errors."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


def _log_to_stderr() -> None:
    """Warnings go to stderr, once, unless the caller (a test, an embedding app) set up
    logging itself."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_Lowercase())
        root.addHandler(handler)
        root.setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `aliaslog` console script."""
    _log_to_stderr()
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # the subcommand's usage, not the top level's, says what it takes
        sub = _subparser(parser, args.command)
        sub.error(f"unrecognized arguments: {' '.join(extra)}")
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
