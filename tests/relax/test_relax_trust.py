"""No miss, no false alarm on the classes of issue 27 (tests/data/relax/trust/).

Every module there comes with what it does and what aliaslog must say (its file's `EXPECT`):
its value semantics (`reference`), whether TVM's VM departs from them (`hazard`: an output or
an argument differs on one of three calls A, B, A), the error kinds `check` reports, and the
error findings `audit` reports with the pass that introduces each. Each is checked here: the
VM is the ground truth, so an expected-clean module that the VM shows unsafe fails, and so does
a finding on a module the VM shows safe.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from aliaslog.relax import audit_module, check_module  # noqa: E402
from extractor.relax_load import load_relax_modules  # noqa: E402
from tests.support import paths  # noqa: E402
from tests.support.options import EMBEDDED  # noqa: E402

TRUST = paths.DATA / "relax" / "trust"


def _cases() -> list[tuple[Path, str]]:
    out = []
    for path in sorted(TRUST.glob("*.py")):
        expect = runpy.run_path(str(path))["EXPECT"]
        out += [(path, name) for name in expect]
    return out


CASES = _cases()


def _expect(path: Path, name: str) -> dict[str, Any]:
    ns = runpy.run_path(str(path))  # also registers the file's packed functions
    return ns["EXPECT"][name]


def _effects(path: Path) -> list[str]:
    """The file's effect table for its packed functions (`<stem>.effects.tsv`), if any."""
    table = path.with_suffix(".effects.tsv")
    return [str(table)] if table.exists() else []


def _vm_departs(mod: tvm.IRModule, reference: Any, passes: tuple[str, ...]) -> str | None:
    """How three calls (A, B, A) on TVM's VM differ from the reference semantics, or None."""
    if passes:
        mod = tvm.transform.Sequential([getattr(relax.transform, p)() for p in passes])(mod)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    rng = np.random.default_rng(7)
    shapes = [[int(d) for d in p.ty.shape] for p in mod["main"].params]
    a = [rng.standard_normal(s).astype("float32") for s in shapes]
    b = [rng.standard_normal(s).astype("float32") for s in shapes]
    for run, inputs in enumerate((a, b, a), 1):
        args = [tvm.runtime.tensor(x.copy()) for x in inputs]
        got = vm["main"](*args)
        got = [g.numpy() for g in got] if isinstance(got, (list, tuple, tvm.ir.Array)) \
            else [got.numpy()]
        want = reference(*inputs)
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            if not np.allclose(g, w, rtol=1e-5, atol=1e-5):
                return f"run {run}: output {i}"
        for i, (arg, x) in enumerate(zip(args, inputs, strict=True)):
            if not np.array_equal(arg.numpy(), x):
                return f"run {run}: argument {i} changed"
    return None


@pytest.mark.parametrize(("path", "name"), CASES, ids=[f"{p.stem}-{n}" for p, n in CASES])
def test_vm_ground_truth(path: Path, name: str) -> None:
    expect = _expect(path, name)
    mod = load_relax_modules(path)[name]
    departs = _vm_departs(mod, expect["reference"], expect.get("vm_passes", ()))
    assert (departs is not None) == expect["hazard"], departs


@pytest.mark.parametrize(("path", "name"), CASES, ids=[f"{p.stem}-{n}" for p, n in CASES])
def test_check(path: Path, name: str) -> None:
    expect = _expect(path, name)
    report = check_module(load_relax_modules(path)[name], engine=EMBEDDED,
                          op_effects=_effects(path))
    errors = {v.kind for v in report.violations if v.severity == "error"}
    assert errors == expect["check"], [v.describe() for v in report.violations]
    if "warnings" in expect:
        warnings = {v.kind for v in report.violations if v.severity != "error"}
        assert warnings == expect["warnings"], [v.describe() for v in report.violations]


@pytest.mark.parametrize(("path", "name"), CASES, ids=[f"{p.stem}-{n}" for p, n in CASES])
def test_audit(path: Path, name: str) -> None:
    expect = _expect(path, name)
    report = audit_module(load_relax_modules(path)[name], passes=expect.get("passes", ()),
                          engine=EMBEDDED, op_effects=_effects(path))
    assert report.failed is None or expect.get("audit_fails"), report.failed
    found = {(f.check, f.introduced_by) for f in report.errors}
    assert found == expect["audit"], [f.describe() for f in report.findings]
    if "warnings" in expect:
        warnings = {f.check for f in report.findings if f.severity != "error"}
        assert warnings == expect["warnings"], [f.describe() for f in report.findings]
