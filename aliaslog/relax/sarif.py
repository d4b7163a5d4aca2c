"""SARIF 2.1.0 for `check` and `audit` (`--format sarif`): what GitHub code scanning and most
CI annotators read. One rule per check kind; each result located in the user's file (a line
where the binding has one there); the fingerprint a baseline uses as its partial fingerprint;
points TVM's pipeline did not reach, or passes aliaslog could not analyse, as notifications.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .analysis import KIND_TEXT, WARNINGS, Place
from .baseline import fingerprint

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
EFFECT_TEXT = {
    "removed-impure": "a pass removed a call with an observable effect",
    "reordered-impure": "a pass moved a call with an observable effect past another",
}


def _rules() -> list[dict[str, Any]]:
    out = []
    for kind, text in {**KIND_TEXT, **EFFECT_TEXT}.items():
        out.append({"id": kind, "name": "".join(w.capitalize() for w in kind.split("-")),
                    "shortDescription": {"text": text},
                    "defaultConfiguration": {"level": "warning" if kind in WARNINGS
                                             else "error"}})
    return out


def _location(place: Place | None, file: str, role: str) -> dict[str, Any]:
    """A location in the user's file: with the line where the binding has one in it."""
    physical: dict[str, Any] = {"artifactLocation": {"uri": Path(file).as_posix()}}
    if place is not None and place.line and place.source == Path(file).name:
        physical["region"] = {"startLine": int(place.line)}
    out: dict[str, Any] = {"physicalLocation": physical}
    if place is not None:
        out["message"] = {"text": f"{role}: `{place.name}` in @{place.function}"}
    return out


def _places(finding: Any) -> list[tuple[str, Place | None]]:
    if hasattr(finding, "site"):
        return [("site", finding.site), ("value", finding.var)]
    return [("before", finding.before), ("after", finding.after)]


def sarif_log(findings: list[Any], file: str, *, version: str,
              notes: list[str] = (), known: set[str] | None = None) -> dict[str, Any]:
    """The SARIF log of `check` or `audit` findings on `file` (Violation, EffectChange or
    AuditFinding); `known`: the fingerprints of a baseline (results get a baselineState)."""
    results = []
    for f in findings:
        inner = getattr(f, "finding", f)
        places = [(r, p) for r, p in _places(inner) if p is not None]
        text = inner.describe().splitlines()[0].split(": ", 1)[-1]
        if hasattr(f, "introduced_by"):
            text += f" (introduced by {f.introduced_by})"
        result: dict[str, Any] = {
            "ruleId": inner.kind, "level": "warning" if inner.severity == "warning" else "error",
            "message": {"text": text},
            "locations": [_location(places[0][1] if places else None, file, places[0][0]
                                    if places else "site")],
            "partialFingerprints": {"aliaslog/v1": fingerprint(f)},
        }
        if len(places) > 1:
            result["relatedLocations"] = [{"id": k, **_location(p, file, r)}
                                          for k, (r, p) in enumerate(places[1:], 1)]
        if known is not None:
            result["baselineState"] = "unchanged" if fingerprint(f) in known else "new"
        results.append(result)
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notes:
        invocation["toolExecutionNotifications"] = [
            {"level": "warning", "message": {"text": n}} for n in notes]
    return {"$schema": SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "aliaslog", "version": version,
                                          "rules": _rules()}},
                      "invocations": [invocation],
                      "artifacts": [{"location": {"uri": Path(file).as_posix()}}],
                      "results": results}]}
