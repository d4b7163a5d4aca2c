"""TVM v0.19's own Relay tests through the project (conformance/relay_tvm_tests.py).

The classification rules are checked always (no TVM needed). The run itself is opt-in: set
ALIASLOG_TVM_CLONE to a git mirror of apache/tvm that has the v0.19.0 tag. It must not crash
the harness, and a check it calls `pass` must really depend on the project: breaking the
project's alpha-equality, type inference or interpreter must turn those checks into failures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.relay_tvm import adapter
from conformance.relay_tvm.classify import (
    BUG,
    HARNESS,
    NOT_TEXT,
    PASS,
    SKIP,
    Needs,
    NotExpressible,
    classify_error,
)
from conformance.relay_tvm.discover import discover
from conformance.relay_tvm.metadata import metadata_section
from conformance.relay_tvm.static_meta import MetaEntry
from tests.support.paths import REPO

CLONE = os.environ.get("ALIASLOG_TVM_CLONE")
needs_clone = pytest.mark.skipif(
    not CLONE, reason="set ALIASLOG_TVM_CLONE to a git mirror of apache/tvm (tag v0.19.0) to "
                      "run TVM's Relay tests through the project")
STATUSES = (PASS, BUG, NOT_TEXT, HARNESS)

# ------------------------------------------------------------------ classification rules


def test_an_unregistered_op_is_skipped_and_named() -> None:
    err = adapter.ParseError("unknown operator `cumsum`; did you mean `sum`?")
    assert classify_error(err, "parser")[0] == SKIP + "op:cumsum"
    err = adapter.RelayTypeError("operator nn.pad has no type relation")
    assert classify_error(err, "typeinfer")[0] == SKIP + "type-relation:nn.pad"


def test_a_project_error_is_a_bug_and_the_harness_reasons_are_not() -> None:
    status, cause, _ = classify_error(adapter.RelayTypeError("expected int32"), "typeinfer")
    assert (status, cause) == (BUG, "typeinfer")
    assert classify_error(NotExpressible("TIR"), "")[0] == NOT_TEXT
    assert classify_error(Needs("pass:PlanDevices"), "")[0] == SKIP + "pass:PlanDevices"


_SOURCE = '''
import pytest
import tvm
from tvm import relay
SEMVER = '#[version = "0.0.5"]\\n'
OPS = ["add", "multiply"]

def parse_module(code):
    return tvm.relay.parse(SEMVER + code)

def test_wrapped():
    parse_module("def @f(%x: int32) { %x }")

def test_loop():
    for op in OPS:
        tvm.relay.parse_expr("{}(1, 2)".format(op))

def test_raises():
    with pytest.raises(tvm.error.DiagnosticError):
        tvm.relay.parse_expr("let x = 1; ()")

def test_runtime_text():
    text = SEMVER
    text += "def @g() { 0 }"
    tvm.relay.fromtext(text)
'''


def test_discovery_folds_wrappers_loops_and_raises() -> None:
    progs, _ = discover("t.py", _SOURCE)
    by_test = {}
    for p in progs:
        by_test.setdefault(p.test, []).append(p)
    (w,) = by_test["test_wrapped"]
    assert w.kind == "module" and w.text == '#[version = "0.0.5"]\ndef @f(%x: int32) { %x }'
    assert w.typechecked_by_test  # tvm.relay.parse runs InferType
    assert sorted(p.text for p in by_test["test_loop"]) == ["add(1, 2)", "multiply(1, 2)"]
    (r,) = by_test["test_raises"]
    assert r.expect_error and r.kind == "expr"
    (t,) = by_test["test_runtime_text"]
    assert t.text == '#[version = "0.0.5"]\ndef @g() { 0 }'  # `+=` folded


def test_the_metadata_the_harness_writes_is_tvms_format() -> None:
    meta = {"relay.Constant": [MetaEntry("relay.Constant", {"value": [64, 2],
                                                            "dtype": "int64"})]}
    text = '#[version = "0.0.5"]\ndef @main() { meta[relay.Constant][0] }\n' + \
        metadata_section(meta)
    const = adapter.parse(text)["main"].body
    assert const.data.dtype == "int64" and const.data.tolist() == [64, 2]


# ----------------------------------------------------------------------------- the run


@needs_clone
def test_the_script_runs_without_harness_errors(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [sys.executable, str(REPO / "conformance" / "relay_tvm_tests.py"), "--tvm", CLONE,
         "--jobs", "1", "--json", str(out), "--files", "test_ir_parser.py",
         "test_pass_dead_code_elimination.py", "test_pass_gradient.py"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    checks = json.loads(out.read_text())["checks"]
    assert checks and not [c for c in checks if c["status"] == HARNESS]
    assert all(c["status"] in STATUSES or c["status"].startswith(SKIP) for c in checks)
    assert any(c["status"] == PASS for c in checks)


def _statuses(files: list[str]) -> dict[tuple[str, str, str, str], str]:
    from conformance.relay_tvm.runner import run

    res = run(CLONE, files=files, jobs=1, transcriptions=False)  # type: ignore[arg-type]
    # no line: a failing test reports the line that failed
    return {(c.file, c.test, c.kind, c.variant + c.program): c.status for c in res.checks}


@needs_clone
def test_a_pass_depends_on_the_project(monkeypatch: pytest.MonkeyPatch) -> None:
    files = ["test_ir_parser.py", "test_pass_gradient.py"]
    good = _statuses(files)

    def never(*a: object, **k: object) -> None:
        raise AssertionError("broken on purpose")

    monkeypatch.setattr(adapter, "assert_alpha_equal", never)
    monkeypatch.setattr(adapter, "alpha_equal", lambda *a, **k: False)
    monkeypatch.setattr(adapter, "evaluate", lambda *a, **k: (_ for _ in ()).throw(
        adapter.EvalError("broken on purpose")))
    broken = _statuses(files)
    passed = [k for k, s in good.items() if s == PASS]
    assert [k for k in passed if k[2] == "roundtrip" and broken.get(k) == PASS] == []
    for file, test in (("test_ir_parser.py", "test_bin_op"), ("test_ir_parser.py", "test_let"),
                       ("test_pass_gradient.py", "test_add"),
                       ("test_pass_gradient.py", "test_check_grad"),
                       ("test_pass_gradient.py", "test_ref")):
        was = [k for k in passed if k[0].endswith(file) and k[1] == test and k[2] == "tvm-test"]
        assert was and all(broken.get(k) == BUG for k in was), test
