"""`aliaslog zoo relay|relax -o DIR`: write a model zoo for `aliaslog batch` to analyse."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..loading import UsageError, output_dir_arg


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `zoo` with its two kinds."""
    sp = sub.add_parser("zoo", help="write a model zoo: Relay (TVM's relay.testing models, plain "
                                    "and after gradient) or Relax (HF models via torch.export)")
    sp.add_argument("kind", choices=["relay", "relax"],
                    help="relay: the tvm.relay.testing workloads; relax: Hugging Face models")
    sp.add_argument("-o", "--output", required=True, metavar="DIR", type=output_dir_arg,
                    help="the directory the models are written to")
    sp.add_argument("--models", help="comma-separated subset (default: all)")
    sp.add_argument("--no-gradient", action="store_true",
                    help="relay: skip the gradient and training-step workloads")
    sp.add_argument("--no-run", action="store_true",
                    help="relay: do not run each workload once in the interpreter")
    sp.add_argument("--no-lowered", action="store_true",
                    help="relax: skip the lowered versions")
    sp.add_argument("--check", action="store_true",
                    help="relax: also build each model with LLVM and compare with torch")
    sp.set_defaults(func=cmd_zoo)


def cmd_zoo(args: argparse.Namespace) -> int:
    """Write the zoo; exit 1 when some model failed (it is reported, the rest is written)."""
    names = [n.strip() for n in args.models.split(",") if n.strip()] if args.models else None
    out = Path(args.output)
    if args.kind == "relay":
        from .relay_models import RELAY_MODELS, write_relay_zoo

        _check_names(names, RELAY_MODELS)
        entries = write_relay_zoo(out, names, gradient=not args.no_gradient,
                                  run=not args.no_run)
    else:
        from .relax_models import RELAX_MODELS, ZooUnavailable, write_relax_zoo

        _check_names(names, RELAX_MODELS)
        try:
            entries = write_relax_zoo(out, names, lowered=not args.no_lowered,
                                      check=args.check)
        except ZooUnavailable as exc:
            raise UsageError(str(exc)) from None
    failed = [e for e in entries if e.error]
    for e in entries:
        print(e.describe())
    print(f"{len(entries) - len(failed)}/{len(entries)} models written to {out} "
          f"(manifest: {out / 'zoo.json'})", file=sys.stderr)
    return 1 if failed else 0


def _check_names(names: list[str] | None, known: object) -> None:
    bad = [n for n in names or () if n not in known]  # type: ignore[operator]
    if bad:
        raise UsageError(f"--models: unknown model {', '.join(bad)} (known: "
                         f"{', '.join(known)})")  # type: ignore[call-overload]
