"""The printed summary and the JSON of a run: counts per class, per file and per kind, the
failures grouped by cause, what is not expressible and why, and the missing ops / passes."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from .classify import BUG, HARNESS, NOT_TEXT, PASS, SKIP, Check
from .runner import Result

CLASSES = (PASS, BUG, NOT_TEXT, "skipped-needs-*", HARNESS)


def klass(c: Check) -> str:
    return "skipped-needs-*" if c.status.startswith(SKIP) else c.status


def group(c: Check) -> str:
    """The cause group of a failure (what the lead fixes together)."""
    text = c.detail
    rules = (
        (r"MetaRef|metadata|#\[metadata\]", "metadata"),
        (r"sharing differs|structural equality|alpha-equal|alpha-equality",
         "alpha-equality / structural equality"),
        (r"^printer|printer output|printed text", "printer"),
        (r"gradient", "gradient"),
        (r"typeinfer|inferred type|type error", "type inference"),
        (r"interpreter|value differs|runtime error", "interpreter"),
        (r"parser|parse", "parser"),
        (r"timeout", "timeout"),
    )
    for part in (c.cause, text):  # the cause decides; the message only when it does not
        for pat, name in rules:
            if re.search(pat, part):
                return name
    return c.cause or "other"


_CALLEE = re.compile(r"(?<![%@\w.])([a-z_][\w]*(?:\.[a-z_]\w*)*)\(")


def unregistered_ops(checks: list[Check], tvm_ops: frozenset[str]) -> dict[str, int]:
    """v0.19 ops the project does not register, by how many text programs call them (all of
    a program's ops, not only the first its parse stops at)."""
    from . import adapter  # noqa: PLC0415 - the registry as the project has it now

    counts: Counter[str] = Counter()
    for c in checks:
        if c.kind in ("parse", "reject") and c.program:
            names = {m.group(1) for m in _CALLEE.finditer(c.program)}
            counts.update(n for n in names if n in tvm_ops and adapter.lookup(n) is None)
    for c in checks:  # shim runs name the op they stopped at
        if c.kind == "tvm-test" and c.status.startswith(SKIP + "op:"):
            counts[c.status[len(SKIP) + 3:]] += 1
    return dict(counts.most_common())


def summary(res: Result, rev: str, commit: str,
            tvm_ops: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The counts and groupings of a run, as plain data (also the JSON's `summary`)."""
    checks = res.checks
    by_file: dict[str, Counter[str]] = defaultdict(Counter)
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for c in checks:
        by_file[c.file][klass(c)] += 1
        by_kind[c.kind][klass(c)] += 1
    needs = Counter(c.status[len(SKIP):] for c in checks if c.status.startswith(SKIP))
    not_text = Counter(_reason(c.detail) for c in checks if c.status == NOT_TEXT)
    bugs: dict[str, list[Check]] = defaultdict(list)
    for c in checks:
        if c.status in (BUG, HARNESS):
            bugs[group(c) if c.status == BUG else "HARNESS: " + c.cause].append(c)
    return {
        "tvm": {"rev": rev, "commit": commit},
        "files": res.files, "programs": res.programs, "checks": len(checks),
        "classes": dict(Counter(klass(c) for c in checks)),
        "statuses": dict(Counter(c.status for c in checks)),
        "by_file": {f: dict(v) for f, v in sorted(by_file.items())},
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "needs": dict(needs.most_common()),
        "not_expressible": dict(not_text.most_common()),
        "unregistered_ops": unregistered_ops(checks, tvm_ops),
        "failures": {g: [_brief(c) for c in cs]
                     for g, cs in sorted(bugs.items(), key=lambda kv: -len(kv[1]))},
        "tvm_skipped": res.tvm_skipped,
    }


def _reason(detail: str) -> str:
    d = re.sub(r"\s*\[test line.*", "", detail)
    d = re.sub(r"\(.*", "", d).strip()
    return d[:80] or "?"


def _brief(c: Check) -> dict[str, Any]:
    return {"where": f"{c.file.rsplit('/', 1)[-1]}::{c.test}:{c.line}", "kind": c.kind,
            "variant": c.variant, "cause": c.cause, "detail": c.detail[:500]}


def render(s: dict[str, Any]) -> str:
    """The text summary printed at the end of a run."""
    out = [f"TVM {s['tvm']['rev']} ({s['tvm']['commit'][:12]}) Relay tests through aliaslog: "
           f"{s['checks']} checks from {s['files']} test files ({s['programs']} text programs)"]
    for k in CLASSES:
        out.append(f"  {k:<26}{s['classes'].get(k, 0):>6}")
    out.append("\nper kind of check:  " + "  ".join(f"{k}" for k in CLASSES))
    for kind, v in s["by_kind"].items():
        out.append(f"  {kind:<12}" + "".join(f"{v.get(k, 0):>8}" for k in CLASSES))
    out.append("\nper file (pass / bug / not-text / skipped / harness):")
    for f, v in s["by_file"].items():
        out.append(f"  {f.replace('tests/python/relay/', ''):<52}"
                   + "".join(f"{v.get(k, 0):>6}" for k in CLASSES))
    out.append("\nfailures by cause:")
    for g, items in s["failures"].items():
        out.append(f"  {g}: {len(items)}")
        for it in items[:12]:
            v = f" [{it['variant']}]" if it["variant"] else ""
            out.append(f"    {it['where']} {it['kind']}{v}: {it['detail'][:200]}")
        if len(items) > 12:
            out.append(f"    ... {len(items) - 12} more")
    out.append("\nnot expressible as text, by reason:")
    out += [f"  {n:>4}  {r}" for r, n in s["not_expressible"].items()]
    out.append("\nskipped, needs (op:X = an op the project does not register):")
    out += [f"  {n:>4}  {w}" for w, n in s["needs"].items()]
    out.append("\nv0.19 ops the programs call that the project does not register "
               "(programs calling each):")
    out.append("  " + ", ".join(f"{op} {n}" for op, n in s["unregistered_ops"].items())
               if s["unregistered_ops"] else "  none")
    if s["tvm_skipped"]:
        out.append("\nskipped by TVM itself (not run): " + "; ".join(s["tvm_skipped"]))
    return "\n".join(out)
