"""In-place calls, planned and peak memory with TVM's and aliaslog's in-place passes, per model.

Usage: python benchmarks/bench_inplace.py MODEL.py|DIR ... [--first default,zero] [--out F.md]

For every model file (a TVMScript file defining one IRModule; a directory stands for its
`*.py` files, as `aliaslog zoo relax -o DIR` writes them) and every `first` pipeline (default:
nothing before relax.build's default pipeline; zero: relax's zero pipeline first), three
variants go through relax.build: (a) the default pipeline, (b) DataflowUseInplaceCalls first,
(c) VerifiedInplace after RewriteDataflowReshape. The row gives, for each: in-place calls,
planned bytes (every alloc_storage and unplanned alloc_tensor at StaticPlanBlockMemory) and
peak live bytes of @main; VerifiedInplace's refusals by reason; its seconds beside relax.build's;
and whether (a) and (c) agree on TVM's VM: identical outputs and untouched arguments over three
calls A, B, A with random inputs. The summary gives the median reduction of (c) against the
better of (a) and (b). Prints a markdown table (and writes it to --out).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tvm  # noqa: E402
from tvm import relax  # noqa: E402

from aliaslog.relax.memory_report import memory_report  # noqa: E402
from aliaslog.relax.verified_inplace import inplace_pipeline  # noqa: E402
from extractor.relax_load import load_relax_modules  # noqa: E402

_NAME = re.compile(r"`[^`]*`: ")  # the argument a reason is about
_WORDS = re.compile(r"`[^`]*`|\d+")  # names and sizes, to group reasons by kind


def model_files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        out += sorted(q for q in p.glob("*.py") if not q.name.endswith(".lowered.py")) \
            if p.is_dir() else [p]
    return out


def _inputs(mod: tvm.IRModule, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for p in mod["main"].params:
        shape, dtype = [int(d) for d in p.ty.shape], str(p.ty.dtype)
        out.append(rng.integers(0, 8, shape).astype(dtype) if dtype.startswith(("int", "uint"))
                   else rng.standard_normal(shape).astype(dtype))
    return out


def _calls(mod: tvm.IRModule, pipeline: tvm.transform.Pass) -> tuple[list, float, bool]:
    """Outputs of calls A, B, A; the build's seconds; whether every argument came back."""
    t0 = time.perf_counter()
    ex = relax.build(mod, "llvm", relax_pipeline=pipeline)
    seconds = time.perf_counter() - t0
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a, b = _inputs(mod, 1), _inputs(mod, 2)
    outs, untouched = [], True
    for inputs in (a, b, a):
        args = [tvm.runtime.tensor(x.copy()) for x in inputs]
        got = vm["main"](*args)
        outs.append([got.numpy()] if hasattr(got, "numpy") else [g.numpy() for g in got])
        untouched &= all(np.array_equal(t.numpy(), x) for t, x in zip(args, inputs, strict=True))
    return outs, seconds, untouched


def _same(a: list, b: list) -> bool:
    return all(np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True)
               for p, q in zip(a, b, strict=True) for x, y in zip(p, q, strict=True))


def measure(path: Path, first: str) -> dict:
    """One row: the three variants of one model after `first`."""
    (name, mod), = load_relax_modules(path).items()
    report = memory_report(mod, first=first)
    before = [] if first == "default" else [relax.get_pipeline(first)]
    theirs = tvm.transform.Sequential([*before, relax.get_pipeline("default")])
    ours = tvm.transform.Sequential([*before, inplace_pipeline()])
    want, build_s, _ = _calls(mod, theirs)
    got, _, untouched = _calls(mod, ours)
    row = {"model": path.stem, "first": first, "build_s": build_s,
           "pass_s": report.inplace.seconds, "vm_same": _same(want, got) and untouched}
    for v in report.variants:
        fm = v.functions.get("main")
        row[v.name] = (v.inplace_calls, fm.planned if fm else 0, fm.peak if fm else 0)
    reasons: Counter[str] = Counter()
    for r in report.inplace.refused:
        for part in r.reason.split("; "):
            reasons[_WORDS.sub("_", _NAME.sub("", part))] += 1
    row["refused"] = reasons
    return row


def table(rows: list[dict]) -> str:
    head = ("| model | first | (a) planned / peak B | (b) DUIC: calls, planned / peak B | "
            "(c) Verified: calls, planned / peak B | pass s / build s | VM same |")
    lines = [head, "|" + "---|" * 7]
    for r in rows:
        a, b, c = r["as given"], r["DataflowUseInplaceCalls"], r["VerifiedInplace"]
        lines.append(f"| {r['model']} | {r['first']} | {a[1]:,} / {a[2]:,} | "
                     f"{b[0]}, {b[1]:,} / {b[2]:,} | {c[0]}, {c[1]:,} / {c[2]:,} | "
                     f"{r['pass_s']:.2f} / {r['build_s']:.2f} | "
                     f"{'yes' if r['vm_same'] else 'NO'} |")
    cuts = [1 - r["VerifiedInplace"][1] / min(r["as given"][1], r["DataflowUseInplaceCalls"][1])
            for r in rows if min(r["as given"][1], r["DataflowUseInplaceCalls"][1]) > 0]
    lower = sum(r["VerifiedInplace"][1] < min(r["as given"][1], r["DataflowUseInplaceCalls"][1])
                for r in rows)
    never_higher = all(r["VerifiedInplace"][1] <= min(r["as given"][1],
                                                      r["DataflowUseInplaceCalls"][1])
                       for r in rows)
    reasons: Counter[str] = Counter()
    for r in rows:
        reasons.update(r["refused"])
    lines += ["", f"planned bytes of (c) against the better of (a) and (b): never higher: "
                  f"{'yes' if never_higher else 'NO'}; strictly lower on {lower} of {len(rows)}; "
                  f"median reduction {statistics.median(cuts):.1%}" if cuts else "",
              "", "refusals by reason: " + "; ".join(f"{n} x {why}"
                                                      for why, n in reasons.most_common())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--first", default="default,zero")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    rows = []
    for path in model_files(args.paths):
        for first in args.first.split(","):
            rows.append(measure(path, first))
            print(f"[{path.stem} {first}] done", file=sys.stderr)
    text = table(rows)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if all(r["vm_same"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
