"""Test fixtures: four models of the Relax zoo written to tests/data/relax, so tests need no torch.

Run `python -m aliaslog.relax.export -o tests/data/relax [--models bert vit resnet gpt2]`
(`make fixtures`) with the `zoo` extra installed (`pip install -e '.[zoo]'`) plus apache-tvm.
The models, the writer and its checks are those of `aliaslog.zoo.relax_models`; this entry
only picks the fixture models, skips the lowered files and the manifest, and names itself in
the file headers, so a regenerated fixture is byte-identical to the committed one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from aliaslog.zoo.relax_models import (
    INSTALL_HINT,
    ModelSpec,
    Provenance,
    Zoo,
    ZooUnavailable,
    export_models,
    metadata_constants,
    render,
    verify_file,
)

__all__ = ["FIXTURE_MODELS", "FIXTURES_PROVENANCE", "ModelSpec", "Zoo", "ZooUnavailable", "main",
           "metadata_constants", "render", "verify_file"]

FIXTURE_MODELS = ("bert", "vit", "resnet", "gpt2")
FIXTURES_PROVENANCE = Provenance(
    "aliaslog.relax.export", "`make fixtures`",
    "python -m aliaslog.relax.export -o tests/data/relax --models {name}",
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options; defaults export every fixture model."""
    ap = argparse.ArgumentParser(
        prog="python -m aliaslog.relax.export",
        description="Write TVMScript Relax fixtures of small random-weight models (needs "
        f"the zoo extra: {INSTALL_HINT}).",
    )
    ap.add_argument("-o", "--out", type=Path, required=True, help="output directory")
    ap.add_argument("--models", nargs="+", choices=FIXTURE_MODELS, default=list(FIXTURE_MODELS))
    ap.add_argument(
        "--check", action="store_true",
        help="also build each model with LLVM and compare its output with torch",
    )
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry: a missing dependency is one line on stderr and exit status 2, no traceback."""
    args = parse_args(argv)
    try:
        entries = export_models(args.out, args.models, lowered=False,
                                provenance=FIXTURES_PROVENANCE, check=args.check)
    except ZooUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for e in entries:
        if not e.ok:
            continue
        f = e.files[0]
        err = "" if e.numerics is None else (
            f", max |tvm - torch| = {e.numerics['max_abs_error']:.2e}"
            f" at output scale {e.numerics['max_abs_output']:.2e}")
        print(f"{e.name}: {f.path} ({f.bytes / 1024:.1f} KiB, {f.bindings} bindings, "
              f"{sum(e.seconds.values()):.1f} s{err})")
    return 0 if all(e.ok for e in entries) else 1


if __name__ == "__main__":
    sys.exit(main())
