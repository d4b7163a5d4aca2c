"""Bulk Relay fuzzing (`make fuzz`): seeded random programs through the fuzz checks, in bulk.

`python -m tests.support.fuzz_main --n N [--start SEED] [--variants ...] [--jobs J]` runs the
seeded generator (randprog.py) for seeds start..start+N-1 through the checks of fuzz_checks.py
under each selected analysis variant. A failing program is shrunk (by editing the generator's
recorded choices and replaying them) and saved under tests/data/regressions/, where
tests/analysis/test_fuzz.py replays it on every test run. Exits 1 if any program failed.
With `--jobs J`, J processes check programs; failures are shrunk and saved by the parent.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

from aliaslog.options import AnalysisOptions

from .fuzz_checks import (
    CHECKS,
    VARIANTS,
    Failure,
    check_program,
    have_souffle,
    save_regression,
)
from .randprog import FEATURES, Generator, RandomChooser, replay


def shrink(choices: Sequence[int], fails: Callable[[str], bool], budget: int = 300) -> str:
    """The shortest failing program found by deleting and lowering recorded choices.

    Any choice list replays to a valid program, so every candidate is checkable; `budget`
    bounds the number of (slow) property checks.
    """
    best = list(choices)
    best_text = replay(best)
    tried = {best_text}

    def attempt(cand: list[int]) -> bool:
        nonlocal best, best_text, budget
        text = replay(cand)
        if text in tried or len(text) > len(best_text) or budget <= 0:
            return False
        tried.add(text)
        budget -= 1
        if fails(text):
            best, best_text = cand, text
            return True
        return False

    improved = True
    while improved and budget > 0:
        improved = False
        for size in (32, 8, 2, 1):
            i = 0
            while i < len(best) and budget > 0:
                if attempt(best[:i] + best[i + size:]):
                    improved = True
                else:
                    i += size
        for i in range(len(best)):
            if budget <= 0:
                break
            for v in sorted({0, best[i] // 2, best[i] - 1}):
                if 0 <= v < best[i] and attempt([*best[:i], v, *best[i + 1:]]):
                    improved = True
                    break
    return best_text


def pick_variants(spec: str) -> list[AnalysisOptions]:
    """`all` (VARIANTS), `every` (every variant of AnalysisOptions), or comma-separated
    indices into VARIANTS or variant names (`1-closure+fs`, `2-call+fs`)."""
    if spec == "all":
        return list(VARIANTS)
    if spec == "every":
        return list(AnalysisOptions.variants())
    out = []
    for item in spec.split(","):
        item = item.strip()
        if item.isdigit() and int(item) < len(VARIANTS):
            out.append(VARIANTS[int(item)])
            continue
        named = [v for v in AnalysisOptions.variants() if v.name == item]
        if not named:
            known = ", ".join(f"{i}: {v.name}" for i, v in enumerate(VARIANTS))
            others = ", ".join(v.name for v in AnalysisOptions.variants() if v not in VARIANTS)
            raise SystemExit(f"unknown variant {item!r} (known: {known}; also {others})")
        out.append(named[0])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.support.fuzz_main",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="number of programs (default 100)")
    ap.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--variants", default="all",
                    help="'all' (fuzz_checks.VARIANTS), 'every' (all 8), or comma-separated "
                         "indices into VARIANTS or variant names")
    ap.add_argument("--checks", default=",".join(CHECKS),
                    help=f"comma-separated subset of {','.join(CHECKS)}")
    ap.add_argument("--no-shrink", action="store_true", help="save failing programs unshrunk")
    ap.add_argument("--no-save", action="store_true", help="do not write tests/data/regressions")
    ap.add_argument("--shrink-budget", type=int, default=300,
                    help="property checks spent shrinking one failure (default 300)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes checking programs in parallel (default 1)")
    ap.add_argument("--progress", type=int, default=50,
                    help="print a progress line every K programs (0: never)")
    args = ap.parse_args(argv)
    variants = pick_variants(args.variants)
    checks = [c.strip() for c in args.checks.split(",") if c.strip()]
    bad = [c for c in checks if c not in CHECKS]
    if bad:
        ap.error(f"unknown checks {bad} (known: {', '.join(CHECKS)})")
    if "engines" in checks and not have_souffle():
        print("fuzz: souffle is not on PATH: the engines check is skipped", flush=True)

    start = time.perf_counter()
    gen_time = check_time = 0.0
    features: Counter[str] = Counter()
    failed_programs = 0
    seeds = range(args.start, args.start + args.n)
    work = [(seed, variants, checks) for seed in seeds]
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    try:
        results = pool.imap(_check_seed, work, chunksize=4) if pool else map(_check_seed, work)
        for k, (seed, feats, failures, t_gen, t_check) in enumerate(results, 1):
            gen_time += t_gen
            check_time += t_check
            features.update(feats)
            if failures:
                failed_programs += 1
                chooser = RandomChooser(seed)
                program = Generator(chooser).program()
                report(seed, program.text, chooser.choices, failures, variants, checks, args)
            if args.progress and k % args.progress == 0 and k < args.n:
                elapsed = time.perf_counter() - start
                print(f"fuzz: {k}/{args.n} programs, {failed_programs} failures, "
                      f"{k / elapsed:.1f} programs/s", flush=True)
    finally:
        if pool:
            pool.close()
            pool.join()

    elapsed = time.perf_counter() - start
    n = max(args.n, 1)
    print("fuzz: constructs: " + ", ".join(f"{f} {features[f]}" for f in FEATURES))
    print(f"fuzz: generation {1000 * gen_time / n:.1f} ms/program, checks "
          f"{1000 * check_time / n:.0f} ms/program, {args.n / elapsed:.1f} programs/s")
    print(f"fuzz: {args.n} programs, {len(variants)} variants, {args.jobs} jobs, "
          f"{failed_programs} failures "
          f"({elapsed:.1f} s)")
    return 1 if failed_programs else 0


def _check_seed(job: tuple[int, list[AnalysisOptions], list[str]]
                ) -> tuple[int, list[str], list[Failure], float, float]:
    """Generate and check the program of one seed (in a pool process when --jobs > 1)."""
    seed, variants, checks = job
    t0 = time.perf_counter()
    program = Generator(RandomChooser(seed)).program()
    t1 = time.perf_counter()
    failures = check_program(program.text, variants, checks, name=f"seed {seed}")
    return seed, list(program.features), failures, t1 - t0, time.perf_counter() - t1


def report(seed: int, text: str, choices: list[int], failures: list[Failure],
           variants: list[AnalysisOptions], checks: list[str], args: argparse.Namespace) -> None:
    """Print each distinct failure of one program; shrink and save a reproducer for each."""
    seen: set[tuple[str, str]] = set()
    for f in failures:
        if f.key() in seen:
            continue
        seen.add(f.key())
        print(f"fuzz: seed {seed}: {f.check} ({f.variant}) failed: {f.message[:500]}",
              flush=True)
        if args.no_save:
            continue
        if args.no_shrink:
            small = text
        else:
            opts = [v for v in variants if v.name == f.variant] or variants[:1]
            only = checks if f.check in ("generator", "analysis") else [f.check]

            def fails(candidate: str, key: tuple[str, str] = f.key(),
                      opts: list[AnalysisOptions] = opts, only: list[str] = only) -> bool:
                return any(g.key() == key for g in check_program(candidate, opts, only))

            small = shrink(choices, fails, args.shrink_budget)
        path = save_regression(small, f, f"python -m tests.support.fuzz_main --start {seed} --n 1")
        print(f"fuzz: seed {seed}: saved {len(small.splitlines())}-line reproducer to {path}",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())
