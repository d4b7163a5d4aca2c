"""`aliaslog audit` (issue 15): every pipeline case names the pass TVM would have to fix, the
VM confirms it, clean look-alikes and real models audit clean, and the instrument works
inside a user's own relax.build."""

from __future__ import annotations

import json

import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from aliaslog.batch.report import render  # noqa: E402
from aliaslog.batch.runner import run_batch  # noqa: E402
from aliaslog.cli import main  # noqa: E402
from aliaslog.relax import AuditInstrument, audit_module  # noqa: E402
from aliaslog.relax.confirm import confirm_report, fresh_constants  # noqa: E402
from extractor.relax_load import load_relax_module  # noqa: E402
from tests.support.options import EMBEDDED  # noqa: E402
from tests.support.paths import DATA as TEST_DATA  # noqa: E402
from tests.support.relax_cases import CASES, CASES_BY_ID, RelaxCase, load_case  # noqa: E402

DATA = TEST_DATA / "relax"
CASE06 = DATA / "cases" / "case06_build_inplace_on_view.py"
CASE15 = DATA / "cases" / "case15_inplace_pass_writes_bound_constant.py"
PIPELINE_CASES = [c for c in CASES if c.guilty is not None]
CONFIRMED = ("04a", "05a", "06a", "07", "08", "11", "15")  # one per pass and bug class


def errors(report) -> list:
    return [f for f in report.findings if f.severity == "error"]


@pytest.mark.parametrize("case", PIPELINE_CASES, ids=lambda c: f"case{c.case_id}")
def test_every_pipeline_case_names_the_pass_that_broke_it(case: RelaxCase):
    report = audit_module(load_case(case)[case.module], case.audit_passes, engine=EMBEDDED)
    named = {f.introduced_by for f in errors(report) if f.check == case.klass}
    assert case.guilty in named, [f.describe() for f in report.findings]
    first = min(f.pass_index for f in errors(report))
    guilty = next(f for f in errors(report) if f.introduced_by == case.guilty)
    assert guilty.pass_index == first  # nothing was wrong before the guilty pass
    if case.guilty != "input":
        assert report.steps[guilty.pass_index - 1].name == case.guilty


@pytest.mark.parametrize("case", [c for c in PIPELINE_CASES if c.cleans],
                         ids=lambda c: f"case{c.case_id}")
def test_clean_look_alikes_audit_clean(case: RelaxCase):
    mods = load_case(case)
    for clean in case.cleans:
        report = audit_module(mods[clean.module], case.audit_passes, engine=EMBEDDED)
        assert errors(report) == [], clean.module
        assert report.failed is None and not any(s.error for s in report.steps)


@pytest.mark.parametrize("case_id", CONFIRMED)
def test_confirm_reproduces_each_miscompilation_on_the_vm(case_id: str):
    case = CASES_BY_ID[case_id]
    mod = load_case(case)[case.module]
    given = fresh_constants(mod)
    report = audit_module(mod, case.audit_passes, engine=EMBEDDED)
    confirm_report(report, given)
    guilty = next(f for f in errors(report) if f.introduced_by == case.guilty)
    verdict = report.confirmations[guilty.ordinal]
    assert (verdict.pass_name, verdict.status) == (case.guilty, "reproduced"), verdict


def test_confirm_on_a_finding_in_the_module_as_given_has_no_pass_to_leave_out():
    case = CASES_BY_ID["02b"]
    mod = load_case(case)[case.module]
    report = audit_module(mod, (), engine=EMBEDDED)
    confirm_report(report, fresh_constants(mod))
    assert {c.status for c in report.confirmations.values()} == {"inconclusive"}


def test_the_instrument_audits_a_users_own_relax_build():
    inst = AuditInstrument(engine=EMBEDDED)
    with tvm.transform.PassContext(instruments=[inst]):
        relax.build(load_relax_module(CASE06, "BeforeAstype"), "llvm")
    assert [(f.check, f.introduced_by) for f in inst.findings] == [
        ("inplace-live", "RewriteDataflowReshape")]
    names = [s.name for s in inst.steps]
    assert names.index("LegalizeOps") < names.index("RewriteDataflowReshape")
    assert not any(s.name.startswith("tirx.") for s in inst.steps)  # TIR half: not looked at


def test_the_instrument_audits_a_users_sequential():
    inst = AuditInstrument(engine=EMBEDDED)
    seq = tvm.transform.Sequential([relax.transform.DataflowUseInplaceCalls()])
    with tvm.transform.PassContext(instruments=[inst]):
        seq(load_relax_module(CASE15, "Before"))
    # TVM's own name for DataflowUseInplaceCalls; the command line names it as given
    assert {(f.check, f.introduced_by) for f in errors(inst)} == {
        ("inplace-const", "DataflowInsertInPlaceCalls")}


@pytest.mark.parametrize("name", ["resnet", "vit"])
def test_fixture_models_audit_clean_through_the_default_pipeline(name: str):
    report = audit_module(load_relax_module(DATA / f"{name}.py"), engine=EMBEDDED)
    assert report.failed is None
    assert errors(report) == [] and not any(s.error for s in report.steps)
    assert sum(s.changed for s in report.steps) >= 8  # the pipeline really ran


# ------------------------------------------------------------------------ command line


def test_cli_audit_json_names_the_pass_and_exits_1(capsys):
    code = main(["audit", str(CASE15), "--module", "Before", "--passes",
                 "DataflowUseInplaceCalls", "--json", "--confirm"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert set(out) >= {"file", "target", "passes", "findings"}
    [err] = [f for f in out["findings"] if f["severity"] == "error"]
    assert (err["check"], err["introduced_by"]) == ("inplace-const", "DataflowUseInplaceCalls")
    assert out["passes"][err["pass_index"] - 1]["name"] == "DataflowUseInplaceCalls"
    assert {b["name"] for b in err["bindings"]} == {"q", "y"}
    assert err["confirmation"]["status"] == "reproduced"


def test_cli_audit_clean_module_exits_0_and_writes_html(tmp_path, capsys):
    html = tmp_path / "r.html"
    assert main(["audit", str(CASE06), "--module", "Clean", "-o", str(html)]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out
    assert "RewriteDataflowReshape" in html.read_text()


def test_cli_audit_html_shows_the_script_before_and_after(tmp_path):
    html = tmp_path / "r.html"
    assert main(["audit", str(CASE06), "--module", "BeforeAstype", "-o", str(html)]) == 1
    text = html.read_text()
    assert "before RewriteDataflowReshape" in text and "R.reshape" in text


@pytest.mark.parametrize("argv, message", [
    (["--passes", "NoSuchPass"], "--passes: unknown pass `NoSuchPass`"),
    (["--pipeline", "fast"], "--pipeline: unknown pipeline `fast`"),
    (["--target", "nonsense"], "--target: TVM does not know target `nonsense`"),
    (["--module", "Nope"], "no IRModule named `Nope`"),
])
def test_cli_audit_bad_input_is_a_clear_error(argv, message, capsys, tmp_path):
    html = tmp_path / "r.html"
    base = ["audit", str(CASE06)] + ([] if "--module" in argv else ["--module", "Clean"])
    assert main(base + argv + ["-o", str(html)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not html.exists()


def test_cli_audit_refuses_an_ill_formed_module(capsys):
    assert main(["audit", str(DATA / "ill_formed" / "free_var.py")]) == 2
    err = capsys.readouterr().err
    assert "not well-formed" in err and "Traceback" not in err


def test_batch_audit_gets_a_per_pass_table(tmp_path):
    res = run_batch([str(DATA / "resnet.py")], tmp_path / "out",
                    task_options={"audit": True}, workers=1, progress=False)
    [row] = res.rows
    assert row["status"] == "ok"
    passes = [p["name"] for p in row["audit"]["passes"]]
    assert "StaticPlanBlockMemory" in passes and row["audit"]["findings"] == []
    page = render(res.rows, res.meta)
    assert "Audit, pass by pass" in page and "StaticPlanBlockMemory" in page
