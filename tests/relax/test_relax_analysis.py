"""Relax analysis on real apache-tvm modules: facts, checks on every reproduced bug class,
no false alarm on the clean controls, EffectAwareDCE verified on the VM, engines agreeing."""

from __future__ import annotations

import json
import shutil

import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from aliaslog.cli import main  # noqa: E402
from aliaslog.engines.souffle_backend import souffle_executable  # noqa: E402
from aliaslog.relax import (  # noqa: E402
    EffectAwareDCE,
    analyze_relax,
    check_module,
    compare_modules,
)
from extractor.effect_table import ExtractError  # noqa: E402
from extractor.kernel_access import written_params  # noqa: E402
from extractor.relax_facts import extract_relax  # noqa: E402
from extractor.relax_load import (  # noqa: E402
    load_relax_module,
    load_relax_modules,
    point_passes,
    to_point,
)
from tests.support import paths  # noqa: E402
from tests.support.options import EMBEDDED, SOUFFLE  # noqa: E402
from tests.support.relax_cases import (  # noqa: E402
    CASES,
    RelaxCase,
    activate_packed_funcs,
    apply_passes,
    load_case,
    load_namespace,
    observe,
    same,
)

CASE_DIR = paths.DATA / "relax" / "cases"
CASE02 = CASE_DIR / "case02_dce_inplace_read_after.py"
CASE10 = CASE_DIR / "case10_dead_dps_after_lowering.py"
CONSTRUCTS = paths.DATA / "relax" / "constructs.py"
BY_ID = {c.case_id: c for c in CASES}


def _checked_module(case: RelaxCase) -> tvm.IRModule:
    before = load_case(case)[case.module]
    return before if case.check_on == "before" else apply_passes(before, case.passes())


# ------------------------------------------------------------------------------------ facts


def test_facts_are_deterministic_and_keyed_by_object_not_name():
    lowered = to_point(load_relax_module(CASE02, "Before"), "lowered")
    a, b = extract_relax(lowered), extract_relax(lowered)
    assert a.facts.digest() == b.facts.digest()
    names = [str(bd.var.name) for bd in a.ids.binding_of.values()]
    assert len(names) > len(set(names))  # lowering repeats names (`_`, `storage`) ...
    let_vars = [row[2] for row in a.facts.rows["let_bind"]]
    assert len(let_vars) == len(set(let_vars))  # ... but every binding has its own variable node


def test_extraction_covers_memory_constructs_at_every_point():
    mod = load_relax_module(CASE02, "Before")
    inp = extract_relax(mod).facts.rows
    assert {r[2] for r in inp["mem_write"]} == {"inplace"}
    assert {r[2] for r in inp["view_of"]} == {"in-place output"}
    assert {r[1] for r in inp["alloc_site"]} >= {"param", "constant", "tensor"}
    low = extract_relax(to_point(mod, "lowered"), after=frozenset(point_passes("lowered")))
    low = low.facts.rows
    assert {r[2] for r in low["mem_write"]} == {"dps"}  # CallTIRRewrite's calls fill
    assert {r[2] for r in low["kill"]} == {"tensor", "storage"}
    assert low["in_storage"] and low["tvm_impure"]
    assert {r[1] for r in low["alloc_site"]} >= {"storage", "tensor"}


def test_reshape_is_a_view_only_where_relax_build_leaves_one():
    """Before LegalizeOps, a reshape bound to a dataflow variable is a view (LegalizeOps makes
    a kernel, RewriteDataflowReshape a view again) and any other is a copy; after it, every
    reshape left is a view."""
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((6,), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                a = R.reshape(x, R.shape([3, 2]))
                b = R.add(a, a)
                R.output(b)
            c = R.reshape(x, R.shape([2, 3]))
            return c

    def views(after: frozenset[str]) -> set[str]:
        ex = extract_relax(Mod, after=after)
        viewed = {r[0] for r in ex.facts.rows["view_of"]}
        return {str(ex.ids.binding_of[r[0]].var.name) for r in ex.facts.rows["let_bind"]
                if r[3] in viewed}

    assert views(frozenset()) == {"a"}
    assert views(frozenset({"LegalizeOps"})) == {"a", "c"}


def test_written_params_reads_the_tir_body():
    mod = load_relax_module(CASE02, "Before")
    assert written_params(mod["inc_inplace"]) == ([0], False)
    legal = to_point(mod, "legalized")
    add = next(gv for gv in legal.get_global_vars() if gv.name_hint == "add")
    assert written_params(legal[add]) == ([2], False)  # add(a, b, out) writes only out



def test_written_params_skips_a_store_of_the_element_just_loaded():
    """`a[i] = a[i]` leaves a as it was; `b[i] = b[3 - i]` moves elements: b is written."""
    from tvm.script import tirx as T

    @T.prim_func(private=True, s_tir=True)
    def puts_back(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("k"):
                vi = T.axis.remap("S", [i])
                a[vi] = a[vi]  # what TE makes of an in-place `a + 0`
                b[vi] = b[3 - vi]

    assert written_params(puts_back) == ([1], False)


def _direct_calls_module() -> tvm.IRModule:
    """main calls an in-place kernel (inc) and a reduction (total, which reads its destination
    after T.init) itself, then reads the tensor inc updated."""
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module(s_tir=True)
    class Mod:
        @T.prim_func(private=True, s_tir=True)
        def inc(a: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.sblock("b"):
                    vi = T.axis.remap("S", [i])
                    a[vi] = a[vi] + T.float32(1)

        @T.prim_func(private=True, s_tir=True)
        def total(a: T.Buffer((4,), "float32"), out: T.Buffer((1,), "float32")):
            for i in range(4):
                with T.sblock("s"):
                    vi = T.axis.remap("R", [i])
                    with T.init():
                        out[0] = T.float32(0)
                    out[0] = out[0] + a[vi]

        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32")):
            cls = Mod
            y = R.add(x, x)
            s = R.builtin.alloc_tensor(R.shape([1]), R.dtype("float32"), R.prim_value(0))
            _ = cls.total(y, s)
            _1 = cls.inc(y)
            z = R.multiply(y, s)
            return z

    return Mod


def test_a_kernel_called_directly_updates_what_it_reads_and_writes():
    """Before CallTIRRewrite a direct call is the program's own: a parameter the kernel reads
    and writes is updated in place (the argument names a destroyed value), one it writes after
    T.init is a destination; after it, the calls are CallTIRRewrite's and fill their
    arguments, whose later reads are the new values."""
    mod = _direct_calls_module()
    kinds = {how for _, _, how in extract_relax(mod).facts.rows["mem_write"]}
    assert kinds == {"inplace"}
    [v] = check_module(mod, ("input",)).violations
    assert (v.kind, v.var.name if v.var else None) == ("inplace-live", "y")
    rewritten = extract_relax(mod, after=frozenset({"CallTIRRewrite"}))
    assert {how for _, _, how in rewritten.facts.rows["mem_write"]} == {"dps"}


def test_the_outputs_of_a_split_are_memory_an_inplace_write_destroys():
    """A call's outputs (the parts `R.split` allocates) run where the call does: each is an
    object the tuple holds, so writing one part in place and reading its old name after is
    found (the points-to core once placed them in the call's "function", and lost them)."""
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module(s_tir=True)
    class Mod:
        @T.prim_func(private=True, s_tir=True)
        def inc(a: T.Buffer((3,), "float32")):
            for i in range(3):
                with T.sblock("b"):
                    vi = T.axis.remap("S", [i])
                    a[vi] = a[vi] + T.float32(1)

        @R.function
        def main(x: R.Tensor((6,), "float32")):
            cls = Mod
            with R.dataflow():
                parts = R.split(x, 2)
                a = parts[0]
                b = R.call_tir_inplace(cls.inc, (a,), out_ty=R.Tensor((3,), "float32"),
                                       inplace_indices=[0])
                c = R.add(a, b)
                R.output(c)
            return c

    [v] = check_module(Mod, ("input",)).violations
    assert (v.kind, v.var.name if v.var else None) == ("inplace-live", "a")


def test_a_module_saved_after_lowering_reads_its_kernels_as_tvm_made_them():
    """A module saved from relax.build's pipeline (here at `lowered`, where KillAfterLastUse
    has left `cls.inc(alloc)` then reads of `alloc`) is checked as given: its functions are
    marked force_pure, so the kernels they call directly are TVM's lowering, whose written
    arguments name the new value."""
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module(s_tir=True)
    class Mod:
        @T.prim_func(private=True, s_tir=True)
        def inc(a: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.sblock("b"):
                    vi = T.axis.remap("S", [i])
                    a[vi] = a[vi] + T.float32(1)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Mod
            with R.dataflow():
                y = R.add(x, x)
                z = R.call_tir_inplace(cls.inc, (y,), inplace_indices=[0],
                                       out_ty=R.Tensor((4,), "float32"))
                w = R.multiply(z, z)
                R.output(w)
            return w

    saved = to_point(Mod, "lowered")
    assert "relax.force_pure" in saved.script()
    assert [v.kind for v in check_module(saved, ("input",)).violations] == []
    assert {how for _, _, how in extract_relax(saved).facts.rows["mem_write"]} == {"dps"}


def test_relax_facts_run_in_souffle_as_they_are(tmp_path):
    if souffle_executable() is None:
        pytest.skip("souffle is not on PATH")
    import subprocess

    from datalog_rules import RELAX_MAIN

    extract_relax(load_relax_module(CASE02, "Before")).facts.write(tmp_path / "facts")
    (tmp_path / "out").mkdir()
    subprocess.run([souffle_executable(), "-F", str(tmp_path / "facts"), "-D",
                    str(tmp_path / "out"), str(RELAX_MAIN)], check=True, timeout=300)
    assert "inplace-live" in (tmp_path / "out" / "violation.csv").read_text()


# ----------------------------------------------------------------------------------- checks


@pytest.mark.parametrize("case", [c for c in CASES if c.klass != "dead-effect-chain"],
                         ids=lambda c: f"case{c.case_id}-{c.klass}")
def test_every_reproduced_bug_class_is_flagged(case: RelaxCase):
    if case.check_on == "pair":
        before = load_case(case)[case.module]
        changes = compare_modules(before, apply_passes(before, case.passes()))
        assert case.klass in {c.kind for c in changes}
        assert all(c.before.line for c in changes)
        return
    violations = check_module(_checked_module(case)).violations
    assert case.klass in {v.kind for v in violations}, [v.describe() for v in violations]


@pytest.mark.parametrize("case", [c for c in CASES if c.cleans], ids=lambda c: f"case{c.case_id}")
def test_clean_controls_give_no_violation(case: RelaxCase):
    mods = load_case(case)
    for clean in case.cleans:
        mod = mods[clean.module]
        checked = mod if case.check_on == "before" else apply_passes(mod, case.passes())
        if case.check_on == "pair":
            assert compare_modules(mod, checked) == []
        else:
            errors = [v for v in check_module(checked).violations if v.severity == "error"]
            assert errors == [], clean.module


def test_a_violation_names_the_bindings_and_their_lines():
    before = load_relax_module(CASE02, "Before")
    [live, param, asserted] = check_module(before, ("input",)).violations
    assert (asserted.kind, asserted.severity) == ("purity-asserted", "warning")
    assert (live.kind, live.site.name, live.var.name) == ("inplace-live", "w", "a")
    assert live.site.source == CASE02.name and live.site.line and live.var.line < live.site.line
    assert (param.kind, param.site.function, param.var.name) == ("inplace-param",
                                                                 "mutates_param", "x")
    text = live.describe()
    assert "`w` in @main" in text and "`a` in @main" in text and "call_tir_inplace" in text


def test_lowered_bindings_without_spans_get_script_lines():
    res = analyze_relax(load_relax_module(CASE02, "Before"), point="lowered")
    [v] = res.violations()
    assert v.site.source == "script" and v.site.line
    line = res.module.script().splitlines()[v.site.line - 1]
    assert "inc_inplace(x)" in line


def test_pass_that_reorders_observable_calls_is_reported():
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Two:
        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32")):
            R.print(x, format="first {}")
            _y = R.call_packed("aliaslog.test.effect", x, ty_args=R.Tensor((2,), "float32"))
            return x

    f = Two["main"]
    [b0, b1] = f.body.blocks[0].bindings
    swapped = Two.clone()
    swapped["main"] = relax.Function(
        f.params, relax.SeqExpr([relax.BindingBlock([b1, b0])], f.body.body), f.ret_ty,
        f.is_pure, f.attrs)
    swapped = relax.transform.Normalize()(swapped)  # a rebuilt SeqExpr has no type until then
    changes = compare_modules(Two, swapped)
    assert [c.kind for c in changes] == ["reordered-impure"]
    assert compare_modules(Two, Two) == []


# -------------------------------------------------------------------------------------- DCE


def _fresh(case: RelaxCase, name: str, passes: bool) -> tvm.IRModule:
    """A case module (newly loaded for case 07: running it overwrites its own constant)."""
    if case.observe == "repeat":
        mods = {k: v for k, v in load_namespace(case, fresh=True).items()
                if isinstance(v, tvm.IRModule)}
        activate_packed_funcs(load_namespace(case))
    else:
        mods = load_case(case)
    return apply_passes(mods[name], case.passes()) if passes else mods[name]


def _dce_modules():
    """(case, label, factory) for every case module, as given and after the case's passes."""
    for case in CASES:
        names = [case.module, *(c.module for c in case.cleans)]
        for name in dict.fromkeys(names):
            yield case, name, False
            if case.check_on != "before" and case.passes():
                yield case, f"{name}+passes", True


@pytest.mark.parametrize("point", ["input", "lowered"])
def test_effect_aware_dce_never_changes_what_the_vm_observes(point):
    checked = 0
    for case, label, passes in _dce_modules():
        name = label.removesuffix("+passes")
        kind = "outputs" if case.observe == "kept_by_dce" else case.observe
        want = observe(case, to_point(_fresh(case, name, passes), point), kind=kind)
        after = tvm.transform.Sequential([EffectAwareDCE()])(
            to_point(_fresh(case, name, passes), point))
        assert relax.analysis.check_well_formed(after)
        got = observe(case, after, kind=kind)
        assert same(want, got), (case.case_id, label, want, got)
        checked += 1
    assert checked >= 30


def test_dce_keeps_what_tvm_dce_wrongly_deletes():
    case = BY_ID["02a"]
    before = load_case(case)[case.module]
    res = analyze_relax(before)
    assert [str(b.var.name) for b in res.removable()] == []
    w = next(bid for bid in res.binding_ids() if str(res.binding(bid).var.name) == "w")
    assert "demanded or unknown effect" in res.why_kept(w)
    assert same(observe(case, EffectAwareDCE()(before)), observe(case, before))
    assert not same(observe(case, relax.transform.DeadCodeElimination()(before)),
                    observe(case, before))
    nine = BY_ID["09"]
    before = load_case(nine)[nine.module]
    assert observe(nine, EffectAwareDCE()(before)) == observe(nine, before) == 2


def test_dce_removes_dead_kernel_chains_after_lowering(tmp_path):
    case = BY_ID["10"]
    lowered = to_point(load_case(case)[case.module], "lowered")
    n = len([b for blk in lowered["main"].body.blocks for b in blk.bindings])
    out = EffectAwareDCE()(lowered)
    m = len([b for blk in out["main"].body.blocks for b in blk.bindings])
    assert m < n  # the dead call_tir's storage, alloc, kernel and kill are gone
    tvm_dce = relax.transform.DeadCodeElimination()(lowered)
    assert sum(len(blk.bindings) for blk in tvm_dce["main"].body.blocks) == n  # keeps all of them
    table = tmp_path / "effects.tsv"
    table.write_text("aliaslog.case10.dps_copy\twrites\n")
    out2 = EffectAwareDCE(op_effects=[str(table)])(lowered)
    m2 = len([b for blk in out2["main"].body.blocks for b in blk.bindings])
    assert m2 < m  # declared destination-passing: the dead packed call's chain goes too
    assert same(observe(case, out2, kind="outputs"), observe(case, lowered, kind="outputs"))
    assert observe(case, out2, kind="counter") == 0 < observe(case, lowered, kind="counter")


@pytest.mark.parametrize("point", ["input", "legalized", "lowered"])
def test_dce_on_every_construct_keeps_outputs_and_effects(point):
    import runpy

    import numpy as np

    ns = runpy.run_path(str(CONSTRUCTS))
    lift = relax.transform.LambdaLift()  # relax.build needs closures lifted to functions
    mod = ns["Module"] if point == "input" else to_point(lift(ns["Module"]), point)
    res = analyze_relax(mod)
    removed = {str(res.binding(b).var.name) for b in res.removable_ids}
    if point == "input":
        assert removed == {"dead", "unused_t", "dead_tir", "dead_then", "dead_clo"}
    assert "n" not in removed and "w" not in removed  # may fail / opaque packed call
    after = EffectAwareDCE()(mod)
    x = np.arange(4, dtype="float32")

    def run(m):
        vm = relax.VirtualMachine(relax.build(lift(m), "llvm"), tvm.cpu())
        out = []
        for flag in (True, False):
            ns["CALLS"]["count"] = 0
            res = vm["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(np.array(flag)))
            out.append((res.numpy(), ns["CALLS"]["count"]))
        return out

    for (a, ca), (b, cb) in zip(run(mod), run(after), strict=True):
        np.testing.assert_array_equal(a, b)
        assert ca == cb == 2  # the DPS packed call and the opaque one both still run


def test_effect_aware_dce_works_inside_sequential():
    mod = load_relax_module(CASE10, "Before")
    seq = tvm.transform.Sequential([relax.transform.LegalizeOps(), EffectAwareDCE(),
                                    relax.transform.ToNonDataflow()])
    out = seq(mod)
    assert relax.analysis.check_well_formed(out)


# ---------------------------------------------------------------------------------- engines


@pytest.mark.skipif(souffle_executable() is None,
                    reason="souffle is not on PATH (put /opt/souffle/bin on PATH to compare)")
@pytest.mark.parametrize("point", ["input", "legalized", "lowered"])
def test_engines_agree_on_every_case_module(point):
    for path in sorted(CASE_DIR.glob("case*.py")):
        for name, mod in sorted(load_relax_modules(path).items()):
            a = analyze_relax(mod, point=point, engine=EMBEDDED)
            b = analyze_relax(mod, point=point, engine=SOUFFLE)
            for rel in set(a.relations) - {"results_of"}:  # each solve's own fresh token
                assert sorted(a.relations[rel]) == sorted(b.relations[rel]), (path.name, name,
                                                                              rel)


# -------------------------------------------------------------------------------------- CLI


def test_cli_check_exit_codes_and_reports(capsys):
    assert main(["check", str(CASE02), "--module", "Before", "--engine", "embedded"]) == 1
    out = capsys.readouterr().out
    assert "inplace-live" in out and "inplace-param" in out and "3 errors" not in out
    assert main(["check", str(CASE02), "--module", "Clean", "--engine", "embedded"]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out
    nine = BY_ID["09"]  # force_pure / call_pure_packed around effects: warnings, or errors
    assert main(["check", str(nine.path), "--module", "Before", "--engine", "embedded"]) == 0
    assert "purity-asserted" in capsys.readouterr().out
    assert main(["check", str(nine.path), "--module", "Before", "--engine", "embedded",
                 "--strict"]) == 1
    out = capsys.readouterr().out
    assert "0 errors, 2 warnings" in out and "--strict" in out  # both calls of case09
    case = BY_ID["03"]
    assert main(["check", str(case.path), "--module", "Before", "--engine", "embedded",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["errors"] == doc["failing"] == 0


def test_cli_check_before_after(tmp_path, capsys):
    case = BY_ID["03"]
    before = load_case(case)[case.module]
    after = apply_passes(before, case.passes())
    header = ("from tvm.script import ir as I\nfrom tvm.script import relax as R\n"
              "from tvm.script import tirx as T\n\n")
    b, a = tmp_path / "before.py", tmp_path / "after.py"
    b.write_text(header + before.script())
    a.write_text(header + after.script())
    assert main(["check", str(b), "--after", str(a), "--engine", "embedded"]) == 1
    out = capsys.readouterr().out
    assert "removed-impure" in out and "before.py -> " in out
    assert main(["check", str(b), "--after", str(b), "--engine", "embedded"]) == 0


def test_cli_relax_analyze_facts_dce(tmp_path, capsys):
    assert main(["analyze", str(CASE10), "--module", "Before", "--at", "lowered", "--json",
                 "--engine", "embedded"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["point"] == "lowered" and doc["removable"] > 0 and doc["metrics"]["kills"] > 0
    assert doc["ir"] == "relax" and len(doc["removable_bindings"]) == doc["removable"]
    assert not {"cells", "ref reads", "ref writes", "strong reads"} & set(doc["metrics"])
    assert main(["facts", str(CASE02), "--module", "Before", "-o", str(tmp_path / "f")]) == 0
    assert (tmp_path / "f" / "mem_write.facts").read_text().count("\n") == 2
    out = tmp_path / "dce.py"
    assert main(["dce", str(CASE10), "--module", "Before", "--at", "lowered", "-o", str(out),
                 "--engine", "embedded"]) == 0
    [mod] = load_relax_modules(out).values()
    assert relax.analysis.check_well_formed(mod)


def test_check_json_is_structured(capsys):
    assert main(["check", str(CASE02), "--module", "Before", "--json", "--at", "input",
                 "--engine", "embedded"]) == 1
    doc = json.loads(capsys.readouterr().out)
    live = next(f for f in doc["findings"] if f["check"] == "inplace-live")
    assert (live["severity"], live["point"]) == ("error", "input")
    site, value = live["bindings"]
    assert (site["role"], site["name"], value["role"], value["name"]) == ("site", "w", "value", "a")
    assert site["source"] == CASE02.name and site["line"] == value["line"] + 1
    assert doc["errors"] == sum(f["severity"] == "error" for f in doc["findings"])
    assert doc["failing"] == doc["errors"]


def test_bad_relax_inputs_are_located_errors(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("import tvm\nx = (\n")
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:" in err and "expected Python" in err and "Traceback" not in err
    none = tmp_path / "none.py"
    none.write_text("x = 1\n")
    with pytest.raises(ExtractError, match="defines a tvm.IRModule"):
        load_relax_modules(none)
    boom = tmp_path / "boom.py"
    boom.write_text("import tvm\n\nraise RuntimeError('no model here')\n")
    assert main(["analyze", str(boom)]) == 2
    err = capsys.readouterr().err
    assert f"{boom}:3:" in err and "no model here" in err
    assert main(["check", str(CASE02)]) == 2  # two modules and no --module
    assert "--module" in capsys.readouterr().err
    assert main(["check", str(CASE02), "--module", "Nope"]) == 2
    assert main(["check", str(CASE02), "--module", "Before", "--at", "later"]) == 2
    assert not list(tmp_path.glob("*.facts"))


def test_unknown_packed_functions_are_opaque_and_tables_refine_them(tmp_path):
    case = BY_ID["08"]
    mod = load_case(case)[case.module]
    res = analyze_relax(mod)
    b = next(bid for bid in res.binding_ids() if str(res.binding(bid).var.name) == "b")
    a_node = res.extraction.ids.id(next(res.binding(x).var for x in res.binding_ids()
                                        if str(res.binding(x).var.name) == "a"))
    b_node = res.extraction.ids.id(res.binding(b).var)
    assert (a_node, b_node) in set(res.relations["may_alias"])  # it may return its argument
    table = tmp_path / "t.tsv"
    table.write_text("aliaslog.case08.identity\tnone\n")
    res2 = analyze_relax(mod, op_effects=[str(table)])
    assert (a_node, b_node) not in set(res2.relations["may_alias"])
    with pytest.raises(ExtractError, match="effect one of"):
        bad = tmp_path / "bad.tsv"
        bad.write_text("x\tsideways\n")
        analyze_relax(mod, op_effects=[str(bad)])
    shutil.rmtree(tmp_path)
