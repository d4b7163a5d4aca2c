"""Issue 12 items 3 and 4 on small modules: what opaque calls return, vm.builtin.copy, kernels
that are not s_tir blocks, packed calls from TIR, partial verdicts, findings merged by memory,
and internal errors that never look like findings. Each module's hazard is shown on the VM."""

from __future__ import annotations

import runpy

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from aliaslog.cli import main  # noqa: E402
from aliaslog.relax import analyze_relax, check_module  # noqa: E402
from extractor.effect_table import ExtractError  # noqa: E402
from extractor.kernel_access import load_tir_effects, written_params  # noqa: E402
from extractor.relax_facts import extract_relax  # noqa: E402
from extractor.relax_load import load_relax_module, to_point  # noqa: E402
from tests.support import paths  # noqa: E402
from tests.support.options import EMBEDDED  # noqa: E402

DATA = paths.DATA / "relax" / "soundness"
OPAQUE = DATA / "opaque_tuple_rearranged.py"
VM_COPY = DATA / "vm_copy_storage_reuse.py"
PLAIN = DATA / "plain_primfuncs.py"
TIR_CALLS = DATA / "tir_packed_calls.py"
LAZY = DATA / "lazy_params_get_set.py"
ALIAS_PARAM = DATA / "inplace_through_param_alias.py"
VIEW_OF_RETURNED = DATA / "inplace_into_a_view_of_a_returned_argument.py"
HELPER = DATA / "helper_write_then_opaque_call.py"
CASE06 = DATA.parent / "cases" / "case06_build_inplace_on_view.py"


def run(mod: tvm.IRModule, *inputs: np.ndarray) -> np.ndarray:
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    return vm["main"](*(tvm.runtime.tensor(x) for x in inputs)).numpy()


def kinds(mod: tvm.IRModule, **options: object) -> set[str]:
    return {v.kind for v in check_module(mod, engine=EMBEDDED, **options).violations
            if v.severity == "error"}


# ------------------------------------------------------------------ item 3: opaque results


def test_opaque_call_may_return_any_element_of_its_tuple(tmp_path):
    runpy.run_path(str(OPAQUE))  # registers the packed function
    x, y = np.arange(4, dtype="float32"), np.ones(4, dtype="float32")
    n = 2 * y
    before, clean = load_relax_module(OPAQUE, "Before"), load_relax_module(OPAQUE, "Clean")
    assert not np.array_equal(run(before, x, y), (n + 1) + n)  # the VM shows the hazard
    assert np.array_equal(run(clean, x, y), 2 * (n + 1))
    assert "inplace-live" in kinds(before)
    assert "inplace-live" in kinds(clean)  # opaque: swap may keep m and n and read them later
    table = tmp_path / "t.tsv"
    table.write_text("aliaslog.test.swap\talias\n")  # described: returns parts, keeps nothing
    assert "inplace-live" in kinds(before, op_effects=[str(table)])
    assert kinds(clean, op_effects=[str(table)]) == set()


def test_every_field_of_an_opaque_result_may_be_any_argument():
    res = analyze_relax(load_relax_module(OPAQUE, "Before"), engine=EMBEDDED)
    ids = res.extraction.ids
    var = {str(b.var.name): ids.id(b.var) for b in ids.binding_of.values()}
    pts = {}
    for n, o in res.relations["pts"]:
        pts.setdefault(n, set()).add(o)
    assert pts[var["m"]] | pts[var["n"]] <= pts[var["b"]]  # a[0] may be m or n (TVM agrees)


def test_a_write_into_a_view_is_no_storage_reuse_of_the_view_itself(tmp_path):
    """The view's object has two possible bases (the argument the packed function returns,
    and its own result): both are the object written, not another tensor in the storage."""
    runpy.run_path(str(VIEW_OF_RETURNED))  # registers the packed function
    x = np.arange(4, dtype="float32")
    before = load_relax_module(VIEW_OF_RETURNED, "Before")
    assert np.array_equal(run(before, x), x + (2 * x + 2))
    table = tmp_path / "t.tsv"
    table.write_text("aliaslog.test.bump\treads=0 writes=0 returns=0\n")
    assert kinds(before, op_effects=[str(table)]) == set()


def test_vm_builtin_copy_returns_its_argument():
    x = np.arange(4, dtype="float32")
    before = load_relax_module(VM_COPY, "Before")
    assert not np.array_equal(run(before, x), 2 * x + x * x)  # storage reused while v lives
    assert "storage-reuse" in kinds(before)
    clean = load_relax_module(VM_COPY, "Clean")
    assert np.array_equal(run(clean, x), 4 * x + x * x)
    assert kinds(clean) == set()


# --------------------------------------------------- item 4: kernels that are not s_tir


def test_plain_primfuncs_get_a_verdict_at_every_point_tvm_reaches(capsys):
    report = check_module(load_relax_module(PLAIN, "Dataflow"), engine=EMBEDDED)
    assert report.checked == ["input"] and report.failed is not None
    assert report.failed.point == "legalized" and "SBlockRealize" in report.failed.reason
    assert report.not_reached == ["lowered"]
    assert main(["check", str(PLAIN), "--module", "Dataflow", "--engine", "embedded"]) == 0
    out = capsys.readouterr()
    assert "`legalized` not checked" in out.out and "checked at input only" in out.out
    assert "Traceback" not in out.err
    bindings = load_relax_module(PLAIN, "Bindings")
    assert check_module(bindings, engine=EMBEDDED).checked == ["input", "legalized",
                                                                  "lowered"]
    x = np.arange(4, dtype="float32")
    assert np.array_equal(run(bindings, x), x)  # TVM builds and runs it
    res = analyze_relax(bindings, engine=EMBEDDED)
    assert {str(b.var.name) for b in res.removable()} == {"z", "dead"}
    for cmd in (["analyze"], ["dce"]):
        assert main([*cmd, str(PLAIN), "--module", "Bindings", "--engine", "embedded"]) == 0
        assert "Traceback" not in capsys.readouterr().err


def test_a_plain_copy_in_a_dataflow_block_is_a_copy_as_written():
    res = analyze_relax(load_relax_module(PLAIN, "Dataflow"), engine=EMBEDDED)
    assert {w for _, _, w in res.extraction.facts.rows["view_of"]} == set()  # call_tir: fresh


@pytest.mark.parametrize("module", ["BeforeAstype", "BeforeConcat", "BeforeMultiplyOne"])
def test_each_point_tells_the_truth_about_its_own_ir(module):
    """Issue 15 item 2: correct as written, so nothing at `input`; the view RewriteDataflowReshape
    makes is reported at `legalized`, where it exists, and at `lowered`, where the kernel fills
    that view of `alloc` in place and a later kernel reads `alloc`."""
    mod = load_relax_module(CASE06, module)
    assert check_module(mod, ("input",), engine=EMBEDDED).violations == []
    found = check_module(mod, engine=EMBEDDED).violations
    assert [(v.kind, v.point, v.var.name if v.var else None) for v in found] == [
        ("inplace-live", "legalized", "a"), ("inplace-live", "lowered", "alloc")]


def test_sort_family_legalizations_write_only_their_outputs():
    sort = load_relax_module(TIR_CALLS, "Sort")
    assert kinds(sort) == set()
    lowered = to_point(sort, "legalized")
    for gv, f in lowered.functions.items():
        if isinstance(f, tvm.tirx.PrimFunc):
            written, opaque = written_params(f)
            assert not opaque and 0 not in written, gv.name_hint  # the input is only read


def test_undescribed_tir_packed_calls_stay_conservative_and_tables_describe_them(tmp_path):
    custom = load_relax_module(TIR_CALLS, "Custom")
    assert "inplace-param" in kinds(custom)
    table = tmp_path / "tir.tsv"
    table.write_text("aliaslog.test.fill_second\t0\t1\n")
    assert kinds(custom, tir_effects=[str(table)]) == set()
    assert main(["check", str(TIR_CALLS), "--module", "Custom", "--engine", "embedded",
                 "--tir-effects", str(table)]) == 0
    table.write_text("aliaslog.test.fill_second\t1\t0\n")  # a table that says it writes x
    assert "inplace-param" in kinds(custom, tir_effects=[str(table)])
    table.write_text("aliaslog.test.fill_second\t0\t-\n")  # a buffer where none is listed:
    assert "inplace-param" in kinds(custom, tir_effects=[str(table)])  # not this signature


def test_bad_tir_effect_tables_are_located_errors(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("# ok\ntvm.contrib.sort.sort\treads\twrites\n")
    with pytest.raises(ExtractError, match="argument positions"):
        load_tir_effects(str(bad))
    assert main(["check", str(TIR_CALLS), "--module", "Sort", "--tir-effects", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:1" in err and "Traceback" not in err


# -------------------------------------------------- item 4: false alarms on TVM's outputs


def test_storage_reused_while_a_packed_function_keeps_the_tensor():
    mod = load_relax_module(LAZY)
    [v] = check_module(mod, engine=EMBEDDED).violations  # nothing else (see the file)
    assert (v.kind, v.var.name, v.point) == ("storage-reuse", "_s0", "lowered")
    store = runpy.run_path(str(LAZY))["STORE"]  # the packed functions now use this dict
    x0, x1 = np.arange(8, dtype="int32"), np.arange(8, 16, dtype="int32")
    store.update({0: tvm.runtime.tensor(x0), 1: tvm.runtime.tensor(x1)})
    relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"]()
    assert np.array_equal(store[3].numpy(), x1 * 3)
    assert np.array_equal(store[2].numpy(), x1 * 3)  # the kept t0 = x0 + 1 was overwritten


def test_findings_merge_by_the_memory_at_stake():
    report = check_module(load_relax_module(ALIAS_PARAM), engine=EMBEDDED)
    by_kind: dict[str, list] = {}
    for v in report.violations:
        by_kind.setdefault(v.kind, []).append(v)
    [param] = by_kind["inplace-param"]  # `gv0 = x` at input, `x` at lowered: one finding
    assert param.var.name == "x" and param.obj == "parameter `x`"
    assert len(by_kind["inplace-live"]) == 1
    x = np.arange(4, dtype="float32")
    arg = tvm.runtime.tensor(x)
    vm = relax.VirtualMachine(relax.build(load_relax_module(ALIAS_PARAM), "llvm"), tvm.cpu())
    vm["main"](arg)
    assert not np.array_equal(arg.numpy(), x)  # the caller's tensor changed


# ----------------------------------------------------------------- internal errors


def test_internal_errors_exit_3_with_one_line(monkeypatch, capsys):
    from aliaslog.relax import cli_commands

    def boom(_args: object) -> int:
        raise RuntimeError("something aliaslog did not expect\nsecond line")

    monkeypatch.setattr(cli_commands, "cmd_check", boom)
    assert main(["check", str(OPAQUE)]) == 3
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "aliaslog: internal error: RuntimeError: something aliaslog did not expect "
        "(run `aliaslog --debug ...` for the traceback)"]
    assert main(["--debug", "check", str(OPAQUE)]) == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "boom" in err


def test_help_documents_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for status in ("0 ", "1 ", "2 ", "3 ", "130"):
        assert f"\n  {status}" in out
    assert "--debug" in out


def test_extraction_keeps_alias_bindings_off_the_parameter():
    ex = extract_relax(load_relax_module(ALIAS_PARAM))
    x = next(n for n, o in ex.ids.nodes.items() if getattr(o, "name", None) == "x")
    assert x not in ex.ids.node_binding  # `gv0 = x` does not make x a binding's value


def test_a_helper_write_before_an_opaque_call_is_not_after_it():
    """Issue 27: a write in a helper (or closure) whose every call runs before the opaque call
    that is given its memory cannot change what the opaque call keeps; a call after it can."""
    ns = runpy.run_path(str(HELPER))  # registers aliaslog.test.keep, which fills ns["KEPT"]
    x = np.arange(4, dtype="float32")
    for name, later in (("Before", False), ("Again", True)):
        mod = ns[name]
        ns["KEPT"].clear()
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
        out = vm["main"](tvm.runtime.tensor(x))
        given = (out if name == "Before" else out[0]).numpy()
        assert np.array_equal(given, 2 * x + 1)  # what the opaque call was given
        kept = ns["KEPT"][0].numpy()  # ... and what it holds once main returned
        assert np.array_equal(kept, 2 * x + 2 if later else 2 * x + 1)
        assert ("inplace-live" in kinds(mod)) == later


def test_a_helper_filling_new_memory_again_leaves_what_an_opaque_call_kept():
    """Issue 27: lowered, each call of the helper allocates its own storage and fills it; the
    second call's write cannot reach the first result, which the opaque call keeps alive."""
    ns = runpy.run_path(str(HELPER))
    x = np.arange(4, dtype="float32")
    mod = ns["FreshTwice"]
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    vm["main"](tvm.runtime.tensor(x))
    assert np.array_equal(ns["KEPT"][0].numpy(), 2 * x)
    assert check_module(mod, engine=EMBEDDED).checked == ["input", "legalized", "lowered"]
    assert kinds(mod) == set()


def test_an_opaque_call_in_a_helper_called_before_a_write_is_before_it():
    """Issue 27: the helper holding the opaque call runs before the write and again after;
    the first call's keep sees the write change what it holds."""
    ns = runpy.run_path(str(HELPER))
    x = np.arange(4, dtype="float32")
    vm = relax.VirtualMachine(relax.build(ns["KeptTwice"], "llvm"), tvm.cpu())
    vm["main"](tvm.runtime.tensor(x))
    assert np.array_equal(ns["KEPT"][0].numpy(), 2 * x + 1)  # given 2x, changed under it
    assert "inplace-live" in kinds(ns["KeptTwice"])


def test_a_recursive_run_fills_new_memory_that_no_earlier_run_gave_away():
    """Issue 27: each run of `loop` gives its caller's tensor to an opaque function that keeps
    it, then allocates and fills its own. The kept tensors hold what they were given; the
    opaque call, before this run's allocation, was given another run's memory."""
    ns = runpy.run_path(str(DATA / "recursive_alloc_kept.py"))
    x = np.arange(4, dtype="float32")
    vm = relax.VirtualMachine(relax.build(ns["Countdown"], "llvm"), tvm.cpu())
    assert np.array_equal(vm["main"](tvm.runtime.tensor(x)).numpy(), 8 * x)
    assert [int(t.numpy()) for t in ns["KEPT"]] == [3, 2, 1, 0]
    result = check_module(ns["Countdown"], engine=EMBEDDED)
    assert result.checked == ["input", "legalized", "lowered"]
    assert kinds(ns["Countdown"]) == set()
