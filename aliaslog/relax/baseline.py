"""Baselines for `check` and `audit`: findings known today pass; only new ones fail.

A finding's fingerprint is what identifies it across edits that do not touch it: its check
kind, its function and the memory at stake as `check` identifies it (an entry parameter by
function and position, a module constant by its contents, memory from outside; otherwise the
variable at risk), and for `audit` the pass that introduced it. Lines are not part of it, so a
finding survives line moves and unrelated edits. A baseline file is JSON: the fingerprints,
each with the finding's text for people.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..loading import UsageError, write_text_atomically
from .analysis import Violation
from .checks import EffectChange

FORMAT = "aliaslog-baseline/1"


def _plain(v: Any) -> Any:
    """A key as JSON-able nested lists."""
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return v if isinstance(v, (str, int, float, bool)) or v is None else str(v)


def identity(finding: Any) -> list[Any]:
    """What identifies a finding (of check: Violation or EffectChange; of audit: AuditFinding)."""
    if isinstance(finding, Violation):
        return _plain(finding.key())
    if isinstance(finding, EffectChange):
        return [finding.kind, finding.function, finding.call]
    inner = getattr(finding, "finding", None)  # an AuditFinding
    if inner is not None:
        return [*identity(inner), "introduced by", finding.introduced_by]
    raise TypeError(f"not a finding: {type(finding).__name__}")


def fingerprint(finding: Any) -> str:
    """A short stable hash of the finding's identity."""
    text = json.dumps(identity(finding), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def write_baseline(path: str, findings: Iterable[Any]) -> int:
    """Write the findings' fingerprints to `path`; returns how many."""
    rows = []
    for f in findings:
        text = f.describe().splitlines()[0]
        rows.append({"fingerprint": fingerprint(f), "check": f.kind if hasattr(f, "kind")
                     else f.check, "identity": identity(f), "text": text})
    rows = sorted({r["fingerprint"]: r for r in rows}.values(), key=lambda r: r["fingerprint"])
    write_text_atomically(path, json.dumps({"format": FORMAT, "findings": rows}, indent=2) + "\n")
    return len(rows)


def load_baseline(path: str) -> set[str]:
    """The fingerprints a baseline file lists; a clear error for anything else."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--baseline {path}: cannot read it: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if hasattr(exc, "lineno") else ""
        raise UsageError(f"--baseline {path}: expected a baseline that --write-baseline "
                         f"wrote (JSON){where}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(
            doc.get("findings"), list):
        raise UsageError(f"--baseline {path}: expected a baseline that --write-baseline wrote "
                         f"(format {FORMAT})")
    return {str(r.get("fingerprint")) for r in doc["findings"] if isinstance(r, dict)}


def split(findings: list[Any], known: set[str]) -> tuple[list[Any], list[Any]]:
    """(new, known) findings against a baseline's fingerprints."""
    new = [f for f in findings if fingerprint(f) not in known]
    old = [f for f in findings if fingerprint(f) in known]
    return new, old
