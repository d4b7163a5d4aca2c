"""VerifiedInplace and `aliaslog inplace` / `memory` (issue 29), each claim checked on TVM's VM:
the kernel analysis against in-place kernels run for real, the refusals of every in-place
miscompilation TVM makes, identical results on the fixture models, and the memory plan."""

from __future__ import annotations

import json
import runpy
from typing import Any

import numpy as np
import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from aliaslog.cli import main  # noqa: E402
from aliaslog.relax.inplace_rewrite import CallTir, inplace_call, inplace_kernel  # noqa: E402
from aliaslog.relax.memory_plan import plan, planned_sizes  # noqa: E402
from aliaslog.relax.memory_report import memory_report  # noqa: E402
from aliaslog.relax.verified_inplace import (  # noqa: E402
    VerifiedInplace,
    inplace_pipeline,
    verified_inplace,
)
from extractor.kernel_access import inplace_refusal  # noqa: E402
from extractor.relax_load import load_relax_module, load_relax_modules  # noqa: E402
from extractor.relax_pipeline import make_pass  # noqa: E402
from tests.support import paths  # noqa: E402
from tests.support.options import EMBEDDED  # noqa: E402
from tests.support.relax_cases import (  # noqa: E402
    CASES,
    load_case,
    load_namespace,
    observe,
    same,
)

KERNELS = paths.DATA / "relax" / "inplace" / "kernels.py"
FIXTURES = ("bert", "gpt2", "resnet", "vit")


def _kernel_cases() -> list[tuple[str, int, int, str | None]]:
    ns = runpy.run_path(str(KERNELS))
    return [(k, o, i, want) for k, cases in ns["EXPECT"].items() for o, i, want in cases]


def _vm_call(mod: tvm.IRModule, inputs: list[np.ndarray]) -> list[np.ndarray]:
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    args = [tvm.runtime.tensor(x.copy()) for x in inputs]
    out = vm["main"](*args)
    return [out.numpy()] if hasattr(out, "numpy") else [o.numpy() for o in out]


def _module_calling(kernel: Any, inplace: int | None) -> tvm.IRModule:
    """main(x...) = call_tir(kernel, x...), a kernel with one output (its last parameter), or
    the in-place form writing the output into input `inplace`."""
    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{k}", relax.TensorType([int(d) for d in p.ty.shape], "float32"))
              for k, p in enumerate(kernel.params[:-1])]
    out_ty = relax.TensorType([int(d) for d in kernel.params[-1].ty.shape], "float32")
    with bb.function("main", params):
        call = relax.call_tir(bb.add_func(kernel, "k"), relax.Tuple(params), out_ty)
        if inplace is not None:
            ct = CallTir.of(bb.normalize(call))
            assert ct is not None
            gv = bb.add_func(inplace_kernel(kernel, len(params), [inplace]), "k_inplace")
            call = inplace_call(ct, gv, [inplace])
        bb.emit_func_output(bb.emit(call))
    return bb.get()


@pytest.mark.parametrize(("kernel", "out", "inp", "want"), _kernel_cases(),
                         ids=lambda v: str(v))
def test_kernel_analysis(kernel: str, out: int, inp: int, want: str | None) -> None:
    pf = load_relax_modules(KERNELS)["Kernels"][kernel]
    got = inplace_refusal(pf, out, inp)
    if want is None:
        assert got is None
    else:
        assert got is not None and want in got


@pytest.mark.parametrize("kernel", ["elementwise", "exp_then_transpose", "softmax_like",
                                    "transpose", "shift", "matmul"])
def test_kernel_analysis_agrees_with_the_vm(kernel: str) -> None:
    """Where the analysis says safe, the in-place kernel computes what the original does on the
    VM; where it refuses because of element order, running it in place really differs."""
    pf = load_relax_modules(KERNELS)["Kernels"][kernel]
    out = len(pf.params) - 1
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal([int(d) for d in p.ty.shape]).astype("float32")
              for p in pf.params[:out]]
    want = _vm_call(_module_calling(pf, None), inputs)
    got = _vm_call(_module_calling(pf, 0), inputs)
    agrees = all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(want, got, strict=True))
    assert agrees == (inplace_refusal(pf, out, 0) is None)


# -------------------------------------------------------------------- TVM's miscompilations


def _at_its_place(case_id: str, reports: list) -> list[tvm.transform.Pass]:
    """VerifiedInplace where the issue puts it: after legalization, and after the zero
    pipeline's folding and fusion where the case runs that pipeline."""
    ours = VerifiedInplace(engine=EMBEDDED, on_report=reports.append)
    if case_id == "07":
        return [relax.get_pipeline("zero"), ours]
    return [make_pass("LegalizeOps"), make_pass("RewriteDataflowReshape"), ours]


INPLACE_CASES = [c for c in CASES if c.case_id[:2] in ("05", "07", "11", "15", "16")
                 and c.klass != "removed-impure"]


@pytest.mark.parametrize("case", INPLACE_CASES, ids=lambda c: f"case{c.case_id}")
def test_refuses_every_inplace_miscompilation(case) -> None:
    """The module TVM's DataflowUseInplaceCalls miscompiles stays correct on the VM under
    VerifiedInplace, which refuses the unsafe rewrite and says why."""
    mod = load_namespace(case, fresh=True)[case.module]  # a module no buggy build has run
    reports: list = []
    with tvm.target.Target("llvm"):
        out = tvm.transform.Sequential(_at_its_place(case.case_id, reports))(mod)
    assert same(observe(case, out), case.expected)
    report = reports[-1]
    assert report.refused and all(r.reason for r in report.refused)
    # the binding TVM rewrites and the input it makes it write (memory still in use)
    unsafe = {"05": ("c", "`b`"), "11": ("b", "`a`"), "15": ("q", "`y`"),
              "16": ("b", "`a`")}.get(case.case_id[:2])
    if unsafe is not None:
        binding, written = unsafe
        assert not any(r.binding == binding and written in r.inputs for r in report.rewrites)
        refused = {r.binding: r.reason for r in report.refused}
        rewritten = {r.binding for r in report.rewrites}
        assert binding in rewritten or written in refused.get(binding, ""), report.as_json()


def test_refuses_writing_a_value_folding_would_make_constant() -> None:
    """Case 07 with VerifiedInplace before FoldConstant (the wrong place): still refused."""
    case = next(c for c in CASES if c.case_id == "07")
    mod = load_case(case)[case.module]
    report = verified_inplace(relax.transform.LegalizeOps()(mod), engine=EMBEDDED)
    assert any("constants alone" in r.reason for r in report.refused), report.as_json()
    assert not report.rewrites


# ------------------------------------------------------------------------- fixture models


def _random_inputs(mod: tvm.IRModule, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for p in mod["main"].params:
        shape, dtype = [int(d) for d in p.ty.shape], str(p.ty.dtype)
        if dtype.startswith("int"):
            out.append(rng.integers(0, 8, shape).astype(dtype))
        else:
            out.append(rng.standard_normal(shape).astype(dtype))
    return out


def _runs(vm: relax.VirtualMachine, runs: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
    """Outputs of calls A, B, A on one VM; each call's arguments must come back untouched."""
    got = []
    for inputs in runs:
        args = [tvm.runtime.tensor(x.copy()) for x in inputs]
        out = vm["main"](*args)
        got.append([out.numpy()] if hasattr(out, "numpy") else [o.numpy() for o in out])
        for a, x in zip(args, inputs, strict=True):
            assert np.array_equal(a.numpy(), x), "an argument changed"
    return got


@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize("first", ["default", "zero"])
def test_fixture_models_same_results_less_memory(name: str, first: str) -> None:
    mod = load_relax_module(paths.DATA / "relax" / f"{name}.py")
    a, b = _random_inputs(mod, 1), _random_inputs(mod, 2)
    before = [] if first == "default" else [relax.get_pipeline("zero")]
    reports: list = []
    ours = tvm.transform.Sequential([*before, inplace_pipeline(engine=EMBEDDED,
                                                               on_report=reports.append)])
    theirs = tvm.transform.Sequential([*before, relax.get_pipeline("default")])
    want = _runs(relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline=theirs),
                                      tvm.cpu()), [a, b, a])
    got = _runs(relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline=ours), tvm.cpu()),
                [a, b, a])
    for w, g in zip(want, got, strict=True):
        assert all(np.allclose(x, y, rtol=1e-4, atol=1e-5) for x, y in zip(w, g, strict=True))
    report = reports[-1]
    assert report.rewrites, report.as_json()
    memory = memory_report(mod, first=first, engine=EMBEDDED)
    planned = {v.name: sum(f.planned for f in v.functions.values()) for v in memory.variants}
    assert planned["VerifiedInplace"] <= min(planned["as given"],
                                             planned["DataflowUseInplaceCalls"])


def test_planned_sizes_match_tvms_estimate() -> None:
    """The planned bytes are what TVM's estimate_memory_usage counts with planning."""
    mod = load_relax_module(paths.DATA / "relax" / "resnet.py")
    planned = plan(mod)
    ours = planned_sizes(planned)
    from aliaslog.relax.memory_report import tvm_estimate
    theirs = tvm_estimate(planned)
    # TVM prints gigabytes to four significant digits
    assert abs(ours["main"] - theirs["main"]["with_planning"]) <= 1e-3 * ours["main"]


# ------------------------------------------------------------------------------------ CLI


def test_cli_inplace_writes_a_loadable_module(tmp_path, capsys) -> None:
    src = paths.DATA / "relax" / "trust" / "helpers.py"
    out = tmp_path / "out.py"
    assert main(["inplace", str(src), "--module", "KernelTwice", "-o", str(out), "--json",
                 "--engine", "embedded"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"inplace_calls", "refused", "memory"} <= set(doc)
    rewritten = load_relax_module(out)
    assert relax.analysis.check_well_formed(rewritten)
    x = np.arange(4, dtype="float32")
    want = _vm_call(load_relax_modules(src)["KernelTwice"], [x])
    assert np.allclose(_vm_call(rewritten, [x])[0], want[0])


def test_cli_donate_is_checked(capsys) -> None:
    src = paths.DATA / "relax" / "trust" / "helpers.py"
    assert main(["inplace", str(src), "--module", "KernelTwice", "--donate", "main"]) == 2
    assert "FUNC:PARAM" in capsys.readouterr().err
    assert main(["inplace", str(src), "--module", "KernelTwice", "--donate", "main:nope"]) == 2
    assert "no parameter `nope`" in capsys.readouterr().err


def test_cli_memory_json(capsys) -> None:
    src = paths.DATA / "relax" / "trust" / "helpers.py"
    assert main(["memory", str(src), "--module", "KernelTwice", "--json",
                 "--engine", "embedded"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["variants"]) == {"as given", "DataflowUseInplaceCalls", "VerifiedInplace"}
    fn = doc["variants"]["as given"]["functions"]["main"]
    assert {"planned_bytes", "peak_bytes", "tvm_estimate_bytes"} <= set(fn)


def test_a_donated_parameter_may_be_written() -> None:
    """--donate main:x: the caller gives x up, so `a = x + y` may write it; the results stay
    the same, and x (the caller's tensor, given up) is what changes."""
    mod = relax.transform.LegalizeOps()(load_relax_module(paths.DATA / "relax" / "inplace" /
                                                          "chain.py"))
    kept = verified_inplace(mod, engine=EMBEDDED)
    assert "a" not in {r.binding for r in kept.rewrites}
    given = verified_inplace(mod, donate=[("main", "x")], engine=EMBEDDED)
    assert ("a", ("`x`",)) in {(r.binding, r.inputs) for r in given.rewrites}
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 3)).astype("float32"), rng.standard_normal(3).astype("float32")
    want = _vm_call(mod, [x, y])
    got = _vm_call(given.module, [x, y])
    assert all(np.allclose(a, b, rtol=1e-5) for a, b in zip(want, got, strict=True))
