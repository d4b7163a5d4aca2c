"""Run Soufflé's own test suite through the embedded engine and classify every test.

Usage: python conformance/souffle_suite.py --clone PATH [--ref 2.5] [--category C ...]
                                          [--test NAME ...] [--timeout S] [-v]

PATH is a git clone (bare or not) of souffle-lang/souffle; the tests are read from it at run
time, at tag --ref, and never copied anywhere but a temporary directory. The harness is
Soufflé's own (`cmake/SouffleTests.cmake`, `cmake/check_test_results.py`): a test is run as
`souffle -D <out> -F <test>/facts <test>/<name>.dl` (facts dir per multi-test, `-I` per
INCLUDE_DIRS); a positive test passes when it succeeds, the set of `*.csv` files it writes
equals the test's own `*.csv` set, each is equal after the harness's sort (rows right-stripped,
natural order), and its standard output (`.printsize`, `IO=stdout`) equals `<name>.out` after
sorting. A negative test (`negative_test`, `NEGATIVE`) expects the run to fail. Standard error
(`<name>.err`: Soufflé's warnings and error texts) is not compared.

Classes, per category:
  pass                     positive test, outputs identical
  wrong answer             positive test, some output differs               (must be 0)
  crash                    an exception other than a located engine error   (must be 0)
  timeout                  the run took longer than --timeout
  rejected-unsupported     a located "unsupported Soufflé construct" error
  rejected-invalid         negative test, rejected with a located error, as Soufflé rejects it
  accepted-invalid         negative test that the embedded engine accepts
  rejected-valid           positive test rejected as invalid (not "unsupported")  (must be 0)
  unlocated                rejected without file:line:col                   (must be 0)
  unavailable              a file of the test is missing from the clone
Categories with no Datalog-level tests (interface, provenance, profile, ...) are listed as not
applicable. Nothing here asserts; the counts are printed (and with -v each test's class).
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aliaslog.engines import EngineError, solve  # noqa: E402
from aliaslog.engines.dialect import load_program  # noqa: E402

CATEGORIES = ("evaluation", "semantic", "syntactic", "example")
NOT_APPLICABLE = {
    "interface": "C++ drivers linked against the generated program",
    "libsouffle_interface": "C++ unit tests of libsouffle",
    "provenance": "`souffle -t explain` sessions",
    "profile": "the profiler's text UI",
    "scheduler": "the auto-scheduler's profile-guided plans",
    "link": "linking compiled programs",
    "swig": "SWIG bindings",
}
CLASSES = ("pass", "wrong answer", "crash", "timeout", "rejected-unsupported",
           "rejected-invalid", "accepted-invalid", "rejected-valid", "unlocated", "unavailable")
LOCATED = re.compile(r"^\S+:\d+:\d+: ", re.M)


@dataclass
class Case:
    """One registered test: where it lives and how Soufflé's harness runs it."""

    category: str
    name: str
    negative: bool = False
    facts_dir: str = "facts"
    multi: bool = False
    include_dirs: list[str] = field(default_factory=list)
    stdout: bool = False  # run with `-D-`: every output relation printed, no CSV file

    @property
    def label(self) -> str:
        return self.name + (f"[{self.facts_dir}]" if self.multi else "")


# --- reading the clone --------------------------------------------------------------------------


def git(clone: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(clone), *args], check=True,
                          capture_output=True).stdout


def registered(clone: Path, ref: str, category: str) -> list[Case]:
    """The tests a category's CMakeLists.txt registers on Linux, in its order."""
    text = git(clone, "show", f"{ref}:tests/{category}/CMakeLists.txt").decode()
    text = re.sub(r"#[^\n]*", "", text)
    cases: list[Case] = []
    active = [True]
    in_function = False
    for fn, args in _calls(text):
        if fn in ("function", "endfunction"):
            in_function = fn == "function"
            continue
        if in_function:
            continue
        if fn == "if":
            active.append(active[-1] and _condition(" ".join(args)))
            continue
        if fn == "else":
            active[-1] = not active[-1] and all(active[:-1])
            continue
        if fn == "endif":
            active.pop()
            continue
        if not active[-1] or not args:
            continue
        if fn in ("positive_test", "souffle_positive_test"):
            cases.append(Case(category, args[0]))
        elif fn == "positive_output_stdout_test":
            cases.append(Case(category, args[0], stdout=True))
        elif fn in ("negative_test", "souffle_negative_test"):
            cases.append(Case(category, args[0], negative=True))
        elif fn == "souffle_positive_functor_test":
            cases.append(Case(category, args[0]))
        elif fn == "souffle_run_test":
            name = args[args.index("TEST_NAME") + 1]
            incs = _multi(args, "INCLUDE_DIRS")
            cases.append(Case(category, name, negative="NEGATIVE" in args, include_dirs=incs))
        elif fn == "souffle_positive_multi_test":
            name = args[args.index("TEST_NAME") + 1]
            for d in _multi(args, "FACTS_DIR_NAMES"):
                cases.append(Case(category, name, facts_dir=d, multi=True))
    return cases


def _calls(text: str) -> list[tuple[str, list[str]]]:
    """CMake commands `name(args...)` in order, with balanced parentheses in the arguments."""
    calls = []
    end = 0
    for m in re.finditer(r"(\w+)\s*\(", text):
        if m.start() < end:
            continue  # a parenthesis inside the previous command's arguments
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        end = i
        calls.append((m.group(1).lower(), text[m.end():i - 1].replace("(", " ( ")
                      .replace(")", " ) ").split()))
    return calls


def _multi(args: list[str], key: str) -> list[str]:
    if key not in args:
        return []
    out = []
    for a in args[args.index(key) + 1:]:
        if a.isupper():
            break
        out.append(a)
    return out


def _condition(cond: str) -> bool:
    """The `if (...)` guards of Soufflé's test lists, as they evaluate on Linux with zlib/sqlite."""
    cond = cond.strip()
    if cond == "FALSE":
        return False
    if "CMAKE_SYSTEM_NAME" in cond:
        return not cond.startswith("NOT")  # `NOT ... MATCHES "Linux"` is false here
    if "MSVC" in cond:
        return cond.startswith("NOT")
    return True  # SOUFFLE_USE_ZLIB, SOUFFLE_USE_SQLITE: the reference build has both


def materialise(clone: Path, ref: str, category: str, root: Path) -> set[str]:
    """Write every blob of tests/<category> under root; returns the paths missing in the clone."""
    listing = git(clone, "ls-tree", "-r", ref, f"tests/{category}/").decode().splitlines()
    entries = [(ln.split("\t")[0].split()[2], ln.split("\t")[1]) for ln in listing
               if ln.split()[1] == "blob"]
    proc = subprocess.Popen(["git", "-C", str(clone), "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    missing: set[str] = set()
    for sha, path in entries:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if header[-1] == b"missing":
            missing.add(path)
            continue
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    proc.stdin.close()
    proc.wait()
    return missing


# --- running one test ---------------------------------------------------------------------------


def harness_sorted(text: str) -> list[str]:
    """check_test_results.py's sort: rows right-stripped, natural order on integer cells."""
    def key(row: str) -> list[str]:
        return [f"{int(c):0>20d}" if re.fullmatch(r"\d+", c) else c for c in row.split("\t")]
    return sorted((row.rstrip() for row in text.splitlines()), key=key)


def run_case(case: Case, test_dir: Path, work: Path) -> tuple[str, str]:
    """(class, detail) of one test run through the embedded engine."""
    data_dir = test_dir / case.facts_dir if case.multi else test_dir
    facts = test_dir / case.facts_dir
    if not facts.is_dir():
        facts = work / "no-facts"
        facts.mkdir()
    out = work / "out"
    try:
        res = solve(test_dir / f"{case.name}.dl", facts, out, engine="embedded",
                    include_dirs=[test_dir / d for d in case.include_dirs], timeout=3600)
    except EngineError as exc:
        text = exc.render()
        first = text.splitlines()[0] if text else exc.message
        if exc.span is None and not LOCATED.search(text):
            return "unlocated", first
        if "unsupported" in first:
            return "rejected-unsupported", first
        return ("rejected-invalid" if case.negative else "rejected-valid"), first
    except Exception:  # noqa: BLE001 - any other escape is what this class counts
        return "crash", traceback.format_exc(limit=-3).strip().splitlines()[-1]
    if case.negative:
        return "accepted-invalid", "Soufflé rejects this program"
    want = sorted(p.name for p in data_dir.glob("*.csv"))
    got = sorted(p.name for p in out.glob("*.csv")) if out.is_dir() else []
    printed = res.printed
    if case.stdout:  # `-D-`: Soufflé prints what it would have written, with a header
        rels = load_program(test_dir / f"{case.name}.dl").relations
        printed += "".join(f"---------------\n{name[:-4]}\n"
                           + "\t".join(rels[name[:-4]].attrs) + "\n===============\n"
                           f"{(out / name).read_text()}===============\n" for name in got)
        got = []
    if want != got:
        return "wrong answer", f"output files {got} != expected {want}"
    for name in want:
        a = harness_sorted((data_dir / name).read_text(errors="surrogateescape"))
        b = harness_sorted((out / name).read_text(errors="surrogateescape"))
        if a != b:
            return "wrong answer", f"{name}: {_first_difference(a, b)}"
    expected_out = test_dir / f"{case.name}.out"
    if harness_sorted(expected_out.read_text() if expected_out.exists() else "") != \
            harness_sorted(printed):
        return "wrong answer", f"standard output differs: {printed[:200]!r}"
    return "pass", ""


def _first_difference(want: list[str], got: list[str]) -> str:
    extra = sorted(set(got) - set(want))
    lost = sorted(set(want) - set(got))
    return (f"{len(want)} rows expected, {len(got)} produced; "
            f"missing {lost[:2]!r}, unexpected {extra[:2]!r}")


def _child(case: Case, test_dir: Path, conn) -> None:
    with tempfile.TemporaryDirectory(prefix="suite-") as work:
        try:
            conn.send(run_case(case, test_dir, Path(work)))
        except BaseException as exc:  # noqa: BLE001
            conn.send(("crash", f"{type(exc).__name__}: {exc}"))


def run_isolated(case: Case, test_dir: Path, timeout: float) -> tuple[str, str, float]:
    """run_case in a forked child, so a hang or a crash of the process is one test's result."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    t0 = time.perf_counter()
    proc = ctx.Process(target=_child, args=(case, test_dir, child))
    proc.start()
    child.close()
    if parent.poll(timeout):
        try:
            cls, detail = parent.recv()
        except EOFError:
            cls, detail = "crash", f"the engine process died (exit code {proc.exitcode})"
    else:
        cls, detail = "timeout", f"no result within {timeout:g} s"
    proc.kill()
    proc.join()
    return cls, detail, time.perf_counter() - t0


# --- driver -------------------------------------------------------------------------------------


def run_suite(clone: Path, ref: str = "2.5", categories: list[str] | None = None,
              tests: list[str] | None = None, timeout: float = 120, verbose: bool = False,
              ) -> dict[str, Counter]:
    """Classify every registered test of the categories; returns the counts per category."""
    totals: dict[str, Counter] = {}
    with tempfile.TemporaryDirectory(prefix="souffle-suite-") as tmp:
        root = Path(tmp)
        for category in categories or list(CATEGORIES):
            missing = materialise(clone, ref, category, root)
            counts: Counter = Counter()
            for case in registered(clone, ref, category):
                if tests and case.name not in tests:
                    continue
                prefix = f"tests/{category}/{case.name}/"
                lost = sorted(m for m in missing if m.startswith(prefix))
                if lost:
                    cls, detail, secs = "unavailable", f"missing in the clone: {lost}", 0.0
                else:
                    cls, detail, secs = run_isolated(case, root / prefix, timeout)
                counts[cls] += 1
                if verbose or cls in ("wrong answer", "crash", "timeout", "rejected-valid",
                                      "unlocated"):
                    print(f"{category}/{case.label}: {cls} ({secs:.1f} s) {detail}", flush=True)
            totals[category] = counts
            print(f"{category}: {sum(counts.values())} tests: " + ", ".join(
                f"{c} {counts[c]}" for c in CLASSES if counts[c]), flush=True)
    return totals


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clone", type=Path, required=True, help="git clone of souffle-lang/souffle")
    ap.add_argument("--ref", default="2.5")
    ap.add_argument("--category", nargs="*", default=list(CATEGORIES))
    ap.add_argument("--test", nargs="*", default=None, help="only these test names")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every test's class")
    args = ap.parse_args(argv)
    totals = run_suite(args.clone, args.ref, args.category, args.test, args.timeout,
                       args.verbose)
    print()
    print("| category | tests | " + " | ".join(CLASSES) + " |")
    print("|---|---:|" + "---:|" * len(CLASSES))
    for category, counts in totals.items():
        print(f"| {category} | {sum(counts.values())} | "
              + " | ".join(str(counts[c]) for c in CLASSES) + " |")
    for category, why in NOT_APPLICABLE.items():
        print(f"not applicable: tests/{category} ({why})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
