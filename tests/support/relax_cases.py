"""Machine-readable descriptions of the Relax miscompilations reproduced on apache-tvm 0.27.

Each `RelaxCase` names a TVMScript module in tests/data/relax/cases, the TVM passes that turn
it into the miscompiling module, inputs, the correct and the observed (buggy) behaviour, and
the bug class that `aliaslog check` must report.  The TVM imports are local to the helpers so
the table itself can be read without TVM installed.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from extractor.relax_pipeline import DEFAULT_PIPELINE, make_pass

from . import paths

if TYPE_CHECKING:
    import tvm

CASE_DIR = paths.DATA / "relax" / "cases"

Klass = Literal[
    "inplace-live",  # an in-place/DPS write whose target may alias a value used afterwards
    "inplace-param",  # an in-place write into a function parameter (the caller's tensor)
    "inplace-const",  # an in-place write into a module constant
    "storage-reuse",  # a result aliases an argument whose storage is reused while it is live
    "removed-impure",  # a pass removed an impure call (compare `before` with `after`)
    "dead-effect-chain",  # dead effectful code after lowering that a precise DCE removes
]
CheckOn = Literal["before", "after", "pair"]
# outputs: the function's outputs (tuples flattened); inputs_after: the argument tensors after
# one call; counter: side-effect counter after one call; repeat: outputs of `repeat` calls on
# one VM, copied after each call; kept_by_dce: which `dead_bindings` are still in the module.
Observe = Literal["outputs", "inputs_after", "counter", "repeat", "kept_by_dce"]

PassFactory = Callable[[], "list[tvm.transform.Pass]"]

@dataclass(frozen=True)
class CleanControl:
    """A look-alike module that must not be flagged and that every pass leaves correct."""

    module: str
    expected: Any
    func: str = "main"


@dataclass(frozen=True)
class RelaxCase:
    """One reproduced miscompilation: where it lives, how to trigger it, what to flag."""

    case_id: str
    file: str
    module: str
    klass: Klass
    check_on: CheckOn
    passes: PassFactory
    inputs: Callable[[], list[np.ndarray]]
    expected: Any
    buggy: Any
    description: str
    func: str = "main"
    observe: Observe = "outputs"
    # How the test confirms `expected`: "before" (run the module without `passes`),
    # "skip:<Pass>" (relax.build with the default pipeline minus that pass), "passes" (apply
    # `expected_passes` instead), "numpy" (only `reference`), "drop-dead" (removing the
    # `dead_bindings` by hand leaves the outputs unchanged).
    expected_via: str = "before"
    expected_passes: PassFactory | None = None
    reference: Callable[..., Any] | None = None
    cleans: tuple[CleanControl, ...] = ()
    dead_bindings: tuple[str, ...] = ()
    repeat: int = 1
    counter: str = "CALLS"
    # `aliaslog audit`: the TVM passes (names) given before relax.build's default pipeline,
    # and the pass the audit must name as introducing the finding ("input": the module is
    # unsafe as written; None: not a pipeline case)
    audit_passes: tuple[str, ...] = ()
    guilty: str | None = None

    @property
    def path(self) -> Path:
        """Absolute path of the TVMScript file, so callers need not know CASE_DIR."""
        return CASE_DIR / self.file


# ---------------------------------------------------------------------------------------------
# Pass factories (zero-argument so that importing this table does not import TVM).


def _transforms(*names: str) -> PassFactory:
    """Build a factory for relax.transform passes by name, created fresh on every call."""

    def make() -> list[tvm.transform.Pass]:
        from tvm import relax

        return [getattr(relax.transform, n)() for n in names]

    return make


def _no_passes() -> list[tvm.transform.Pass]:
    """The module miscompiles under plain relax.build, with no extra pass."""
    return []


def _inplace_then_zero_pipeline() -> list[tvm.transform.Pass]:
    """Case 07's opt-in in-place pass followed by the "zero" pipeline (FoldConstant inside)."""
    from tvm import relax

    return [relax.transform.DataflowUseInplaceCalls(), relax.get_pipeline("zero")]


_LOWER_THEN_DCE = _transforms(
    "ToNonDataflow",
    "RemovePurityChecking",
    "CallTIRRewrite",
    "StaticPlanBlockMemory",
    "LowerAllocTensor",
    "KillAfterLastUse",
    "DeadCodeElimination",
)
_DCE = _transforms("DeadCodeElimination")
_INPLACE = _transforms("DataflowUseInplaceCalls")


def _arange4() -> list[np.ndarray]:
    """x = [0, 1, 2, 3], the input every numeric case uses."""
    return [np.arange(4, dtype="float32")]


def _f32(*values: float) -> np.ndarray:
    """A float32 vector literal."""
    return np.array(values, dtype="float32")


def _twice_x_times_succ(x: np.ndarray) -> list[np.ndarray]:
    """a = 2x; d = a * (a + 1): the value-semantics result of cases 05, 06 and 11."""
    a = x + x
    return [a * (a + 1)]


_CASE15_CONST = np.array([[1, 2, 3], [4, 5, 6]], "int32")
_FLIP_CLEAN = CleanControl("Clean", [_f32(0, 10, 12, 6)])  # a * (flip(a) + 1), a = 2x
_GOOD = [_f32(0, 6, 20, 42)]
_BAD = [_f32(1, 9, 25, 49)]

# ---------------------------------------------------------------------------------------------

_CASE05_OPS = (
    ("a", "BeforeNoGrad", "grad.no_grad(a)"),
    ("b", "BeforeAstype", "astype(a, float32)"),
    ("c", "BeforeMultiplyOne", "multiply(a, 1.0)"),
    ("d", "BeforeBroadcastTo", "broadcast_to(a, (4,))"),
)
_CASE06_OPS = (
    ("a", "BeforeAstype", "astype(a, float32)"),
    ("b", "BeforeBroadcastTo", "broadcast_to(a, (4,))"),
    ("c", "BeforeStridedSlice", "strided_slice(a, 0:4)"),
    ("d", "BeforeConcat", "concat((a,))"),
    ("e", "BeforeTile", "tile(a, [1])"),
    ("f", "BeforeRepeat", "repeat(a, 1)"),
    ("g", "BeforeLayoutTransform", "layout_transform(a, i -> i)"),
    ("h", "BeforeCollapseSumTo", "collapse_sum_to(a, (4,))"),
    ("i", "BeforeReshape", "reshape(a, (4,))"),
    ("j", "BeforeMultiplyOne", "multiply(a, 1.0)"),
    ("k", "BeforeAddZero", "add(a, 0.0)"),
)

CASES: list[RelaxCase] = [
    RelaxCase(
        case_id="02a",
        file="case02_dce_inplace_read_after.py",
        module="Before",
        klass="inplace-live",
        check_on="before",
        passes=_DCE,
        inputs=_arange4,
        expected=[_f32(2, 6, 10, 14)],
        buggy=[_f32(0, 4, 8, 12)],
        reference=lambda x: [2 * (2 * x + 1)],
        cleans=(CleanControl("Clean", [_f32(2, 6, 10, 14)]),),
        description="call_tir_inplace writes `a`, which is read afterwards; DCE deletes the "
        "unused write because call_tir_inplace is registered pure",
        audit_passes=('DeadCodeElimination',),
        guilty='input',
    ),
    RelaxCase(
        case_id="02b",
        file="case02_dce_inplace_read_after.py",
        module="Before",
        func="mutates_param",
        klass="inplace-param",
        check_on="before",
        passes=_no_passes,
        inputs=_arange4,
        observe="inputs_after",
        expected=[_f32(0, 1, 2, 3)],
        buggy=[_f32(1, 2, 3, 4)],
        expected_via="numpy",
        reference=lambda x: [x],
        cleans=(CleanControl("Clean", [_f32(0, 1, 2, 3)], func="mutates_param"),),
        description="a pure-annotated function writes its parameter in place, changing the "
        "caller's tensor",
        audit_passes=(),
        guilty='input',
    ),
    RelaxCase(
        case_id="03",
        file="case03_remove_unused_outputs_impure.py",
        module="Before",
        klass="removed-impure",
        check_on="pair",
        passes=_transforms("RemoveUnusedOutputs"),
        inputs=lambda: [np.array([1, 2], dtype="float32")],
        observe="counter",
        expected=1,
        buggy=0,
        cleans=(CleanControl("Clean", 1),),
        description="RemoveUnusedOutputs drops the call to an impure private function whose "
        "tuple result is entirely unused (DCE alone keeps it)",
        audit_passes=('RemoveUnusedOutputs',),
        guilty='RemoveUnusedOutputs',
    ),
    RelaxCase(
        case_id="04a",
        file="case04_cse_merges_inplace_target.py",
        module="Before",
        klass="inplace-live",
        check_on="after",
        passes=_transforms("DataflowUseInplaceCalls", "EliminateCommonSubexpr"),
        inputs=_arange4,
        expected=[_f32(1, 3, 5, 7), _f32(0, 2, 4, 6)],
        buggy=[_f32(1, 3, 5, 7), _f32(1, 3, 5, 7)],
        reference=lambda x: [2 * x + 1, 2 * x],
        cleans=(CleanControl("Clean", [_f32(1, 3, 5, 7), _f32(0, 3, 6, 9)]),),
        description="DataflowUseInplaceCalls writes `a` in place for `c = a + 1`; CSE then "
        "rewrites the equal `b` to `a`, so the returned `b` is overwritten",
        audit_passes=('DataflowUseInplaceCalls', 'EliminateCommonSubexpr'),
        guilty='EliminateCommonSubexpr',
    ),
    RelaxCase(
        case_id="04b",
        file="case04_cse_merges_inplace_target.py",
        module="BeforeHand",
        klass="inplace-live",
        check_on="after",
        passes=_transforms("EliminateCommonSubexpr"),
        inputs=_arange4,
        expected=[_f32(1, 3, 5, 7), _f32(0, 2, 4, 6)],
        buggy=[_f32(1, 3, 5, 7), _f32(1, 3, 5, 7)],
        reference=lambda x: [2 * x + 1, 2 * x],
        cleans=(CleanControl("CleanHand", [_f32(1, 3, 5, 7), _f32(0, 3, 6, 9)]),),
        description="a contract-valid hand-written call_tir_inplace on `a`; CSE merges the "
        "equal `b` into `a`, which is live after the write",
        audit_passes=('EliminateCommonSubexpr',),
        guilty='EliminateCommonSubexpr',
    ),
    *[
        RelaxCase(
            case_id="05" + letter,
            file="case05_inplace_through_identity_ops.py",
            module=module,
            klass="inplace-live",
            check_on="after",
            passes=_INPLACE,
            inputs=_arange4,
            expected=_GOOD,
            buggy=_BAD,
            reference=_twice_x_times_succ,
            cleans=(_FLIP_CLEAN, CleanControl("CleanReshape", _GOOD)),
            description=f"DataflowUseInplaceCalls treats b = {op} as fresh and writes it in "
            "place; lowering makes b an alias of `a`, which is read afterwards",
            audit_passes=("DataflowUseInplaceCalls",),
            # no_grad is a view as written; the copies become views in RewriteDataflowReshape
            guilty="DataflowUseInplaceCalls" if letter == "a" else "RewriteDataflowReshape",
        )
        for letter, module, op in _CASE05_OPS
    ],
    *[
        RelaxCase(
            case_id="06" + letter,
            file="case06_build_inplace_on_view.py",
            module=module,
            klass="inplace-live",
            check_on="before",
            passes=_no_passes,
            inputs=_arange4,
            expected=_GOOD,
            buggy=_BAD,
            expected_via="skip:RewriteDataflowReshape",
            reference=_twice_x_times_succ,
            cleans=(_FLIP_CLEAN,),
            description=f"user call_tir_inplace on the dead b = {op}; the default build turns "
            "b into a view of `a` (RewriteDataflowReshape), which is read afterwards",
            # R.reshape is a view as written (the VM's reshape shares its input's memory)
            guilty="input" if letter == "i" else "RewriteDataflowReshape",
        )
        for letter, module, op in _CASE06_OPS
    ],
    RelaxCase(
        case_id="07",
        file="case07_inplace_into_constant.py",
        module="Before",
        klass="inplace-const",
        check_on="after",
        passes=_inplace_then_zero_pipeline,
        inputs=lambda: [np.ones(4, dtype="float32")],
        observe="repeat",
        repeat=3,
        expected=[np.full(4, 3.0, "float32")] * 3,
        buggy=[np.full(4, v, "float32") for v in (3.0, 4.0, 5.0)],
        reference=lambda x: [x + 2] * 3,
        cleans=(CleanControl("Clean", [np.full(4, 3.0, "float32")] * 3),),
        description="DataflowUseInplaceCalls writes the constant-only `a = c1 + c2` in place; "
        "FoldConstant makes `a` a module constant, which every call then overwrites (the "
        "IRModule's own constant: a second build of the same module continues at 6, 7, 8)",
        audit_passes=('DataflowUseInplaceCalls', 'zero'),
        guilty='FoldConstant',
    ),
    RelaxCase(
        case_id="08",
        file="case08_packed_alias_storage_reuse.py",
        module="Before",
        klass="storage-reuse",
        check_on="before",
        passes=_no_passes,
        inputs=_arange4,
        expected=[_f32(0, 3, 8, 15)],
        buggy=[_f32(0, 2, 8, 18)],
        expected_via="skip:StaticPlanBlockMemory",
        reference=lambda x: [2 * x + x * x],
        cleans=(CleanControl("Clean", [_f32(0, 5, 12, 21)]),),
        description="call_pure_packed(identity, a) returns `a`; StaticPlanBlockMemory reuses "
        "a's storage for `c = x * x` while the alias `b` is still live",
        audit_passes=(),
        guilty='StaticPlanBlockMemory',
    ),
    RelaxCase(
        case_id="09",
        file="case09_purity_trusted.py",
        module="Before",
        klass="removed-impure",
        check_on="pair",
        passes=_DCE,
        inputs=lambda: [np.ones(2, dtype="float32")],
        observe="counter",
        expected=2,
        buggy=0,
        cleans=(CleanControl("Clean", 2),),
        description="DCE deletes an unused call_pure_packed around an effectful packed function "
        "and an unused call to a force_pure function that runs call_packed",
        audit_passes=('DeadCodeElimination',),
        guilty='DeadCodeElimination',
    ),
    RelaxCase(
        case_id="10",
        file="case10_dead_dps_after_lowering.py",
        module="Before",
        klass="dead-effect-chain",
        check_on="after",
        passes=_LOWER_THEN_DCE,
        inputs=lambda: [np.ones(16, dtype="float32")],
        observe="counter",
        expected=0,
        buggy=1,
        expected_via="passes",
        expected_passes=_DCE,
        cleans=(CleanControl("Clean", 1),),
        description="a dead call_tir and a dead call_dps_packed become alloc/kernel/kill "
        "chains after lowering; DCE keeps them and the dead packed call still runs",
    ),
    RelaxCase(
        case_id="11",
        file="case11_tuple_get_item_not_a_use.py",
        module="Before",
        klass="inplace-live",
        check_on="after",
        passes=_INPLACE,
        inputs=_arange4,
        expected=_GOOD,
        buggy=_BAD,
        reference=_twice_x_times_succ,
        cleans=(CleanControl("Clean", [_f32(0, 8, 24, 48)]),),
        description="DataflowUseInplaceCalls does not count `t[0]` as a use of `a`, so "
        "`b = a + 1` overwrites `a` before `c = t[0]` reads it",
        audit_passes=('DataflowUseInplaceCalls',),
        guilty='DataflowUseInplaceCalls',
    ),
    RelaxCase(
        case_id="13",
        file="case13_dce_keeps_dead_effects.py",
        module="Before",
        klass="dead-effect-chain",
        check_on="after",
        passes=_DCE,
        inputs=_arange4,
        observe="kept_by_dce",
        dead_bindings=("storage", "tensor", "_killed", "_checked", "_cast"),
        expected=(),
        buggy=("storage", "tensor", "_killed", "_checked", "_cast"),
        expected_via="drop-dead",
        cleans=(CleanControl("Clean", [_f32(0, 2, 4, 6)]),),
        description="DCE keeps a dead alloc_storage/alloc_tensor/kill_tensor chain, "
        "assert_op(True) and an unused match_cast",
    ),
]

CASES.append(RelaxCase(
    case_id="15",
    file="case15_inplace_pass_writes_bound_constant.py",
    module="Before",
    klass="inplace-const",
    check_on="after",
    passes=_INPLACE,
    inputs=lambda: [np.ones((2, 3), dtype="int32")],
    observe="repeat",
    repeat=3,
    expected=[np.array([[2, 6, 12], [20, 30, 42]], "int32")] * 3,
    buggy=[np.array(v, "int32") for v in ([[2, 6, 12], [20, 30, 42]],
                                          [[6, 42, 156], [420, 930, 1806]],
                                          [[42, 1806, 24492], [176820, 865830, 3263442]])],
    reference=lambda x: [(x + _CASE15_CONST) * _CASE15_CONST] * 3,
    cleans=(CleanControl("Clean", [np.array([[1, 4, 9], [16, 25, 36]], "int32")] * 3),),
    description="DataflowUseInplaceCalls makes q = z * y write into y, which the dataflow "
    "block binds to a module constant (TVM's BasicLiveness test expects q to be eligible): "
    "every call changes the constant",
    audit_passes=("DataflowUseInplaceCalls",),
    guilty="DataflowUseInplaceCalls",
))

CASES += [
    RelaxCase(
        case_id="16",
        file="case16_inplace_pass_clobbers_closure_capture.py",
        module="Before",
        klass="inplace-live",
        check_on="after",
        passes=_INPLACE,
        inputs=_arange4,
        expected=[_f32(0, 6, 12, 18), _f32(0, 3, 6, 9)],
        buggy=[_f32(0, 6, 12, 18), _f32(0, 7, 14, 21)],
        reference=lambda x: [6 * x, 3 * x],
        cleans=(CleanControl("Clean", [_f32(0, 6, 12, 18), _f32(0, 3, 6, 9)]),),
        description="DataflowUseInplaceCalls makes b = a * 3 write `a`, which a closure made "
        "before it has captured; calling the closure afterwards reads the clobbered `a`",
        audit_passes=("DataflowUseInplaceCalls",),
        guilty="DataflowUseInplaceCalls",
    ),
    RelaxCase(
        case_id="17",
        file="case17_unit_transpose_view_written_in_place.py",
        module="Before",
        klass="inplace-live",
        check_on="before",
        passes=_no_passes,
        inputs=lambda: [np.arange(4, dtype="float32").reshape(1, 4)],
        expected=[_f32(1, 3, 5, 7).reshape(4, 1), _f32(0, 4, 16, 36).reshape(1, 4)],
        buggy=[_f32(1, 3, 5, 7).reshape(4, 1), _f32(1, 9, 25, 49).reshape(1, 4)],
        expected_via="skip:RewriteDataflowReshape",
        reference=lambda x: [(2 * x).T + 1, 4 * x * x],
        cleans=(CleanControl("Clean", [_f32(1, 3, 5, 7).reshape(4, 1),
                                       _f32(0, 4, 16, 36).reshape(1, 4)]),),
        description="user call_tir_inplace on the dead b = permute_dims(a) of a (1, 4) tensor: "
        "RewriteDataflowReshape makes the unit-dimension transpose a view of `a`, read after",
        guilty="RewriteDataflowReshape",
    ),
    RelaxCase(
        case_id="18",
        file="case18_planner_reuses_inplace_packed_argument.py",
        module="Before",
        klass="storage-reuse",
        check_on="before",
        passes=_no_passes,
        inputs=_arange4,
        expected=[_f32(1, 4, 9, 16)],
        buggy=[_f32(0, 2, 8, 18)],
        expected_via="skip:StaticPlanBlockMemory",
        reference=lambda x: [2 * x + 1 + x * x],
        cleans=(CleanControl("Clean", [_f32(1, 4, 9, 16)]),),
        description="b = call_inplace_packed(inc, a) returns `a`; once RemovePurityChecking drops "
        "the in-place indices, StaticPlanBlockMemory puts c = x * x in a's storage while b lives",
        guilty="StaticPlanBlockMemory",
    ),
]

CASES_BY_ID: dict[str, RelaxCase] = {c.case_id: c for c in CASES}


# ---------------------------------------------------------------------------------------------
# Helpers


_NAMESPACES: dict[Path, dict[str, Any]] = {}


def load_namespace(entry: RelaxCase, fresh: bool = False) -> dict[str, Any]:
    """The case file's globals, run once per process (parsing TVMScript is the slow part)."""
    if fresh or entry.path not in _NAMESPACES:
        _NAMESPACES[entry.path] = runpy.run_path(
            str(entry.path), run_name=f"aliaslog_relax_case_{entry.path.stem}"
        )
    return _NAMESPACES[entry.path]


def activate_packed_funcs(ns: dict[str, Any]) -> None:
    """Re-register the file's packed functions, in case another load of it took the names over."""
    import tvm_ffi

    for name, fn in ns.get("PACKED_FUNCS", {}).items():
        tvm_ffi.register_global_func(name, fn, override=True)


def load_case(entry: RelaxCase) -> dict[str, tvm.IRModule]:
    """The IRModules the case file defines, by their Python name (Before, Clean, ...)."""
    import tvm

    ns = load_namespace(entry)
    activate_packed_funcs(ns)
    return {k: v for k, v in ns.items() if isinstance(v, tvm.IRModule)}


def apply_passes(mod: tvm.IRModule, passes: Sequence[tvm.transform.Pass]) -> tvm.IRModule:
    """Apply the passes in order, as the user of TVM would."""
    import tvm

    return tvm.transform.Sequential(list(passes))(mod)


def pipeline_without(skip: str) -> tvm.transform.Pass:
    """The 0.27 default build pipeline with one pass left out, to show which pass is the culprit."""
    import tvm

    if skip not in DEFAULT_PIPELINE:
        raise ValueError(f"{skip} is not a pass of the default build pipeline")
    names = [n for n in DEFAULT_PIPELINE if n != skip]

    @tvm.transform.module_pass(opt_level=0, name=f"DefaultPipelineWithout{skip}")
    def _pipeline(mod: tvm.IRModule, _ctx: tvm.transform.PassContext) -> tvm.IRModule:
        return tvm.transform.Sequential([make_pass(n) for n in names])(mod)

    return _pipeline


def _flatten(value: Any) -> list[np.ndarray]:
    """VM results as a flat list of numpy arrays (a Tensor, or nested tuples of them)."""
    import tvm

    if isinstance(value, tvm.runtime.Tensor):
        return [value.numpy()]
    out: list[np.ndarray] = []
    for item in value:
        out.extend(_flatten(item))
    return out


def _vm(mod: tvm.IRModule, skip: str | None) -> Any:
    """Compile for llvm and load into a VirtualMachine on the CPU."""
    import tvm
    from tvm import relax

    pipeline: Any = "default" if skip is None else pipeline_without(skip)
    ex = relax.build(mod, "llvm", relax_pipeline=pipeline)
    return relax.VirtualMachine(ex, tvm.cpu())


def build_and_run(
    mod: tvm.IRModule,
    inputs: Sequence[np.ndarray],
    func: str = "main",
    skip: str | None = None,
) -> list[np.ndarray]:
    """relax.build(mod, "llvm") + VM; run `func` once on copies of `inputs`; outputs flattened."""
    import tvm

    vm = _vm(mod, skip)
    return _flatten(vm[func](*[tvm.runtime.tensor(np.array(a)) for a in inputs]))


def binding_names(mod: tvm.IRModule, func: str = "main") -> list[str]:
    """Names of the bindings of a Relax function, in order, to see what a pass kept."""
    from tvm import relax

    f = mod[func]
    assert isinstance(f, relax.Function)
    return [b.var.name for blk in f.body.blocks for b in blk.bindings]


def drop_bindings(mod: tvm.IRModule, names: Sequence[str], func: str = "main") -> tvm.IRModule:
    """Remove the named top-level bindings of `func`: what a precise DCE would do."""
    from tvm import relax

    f = mod[func]
    assert isinstance(f, relax.Function)
    drop = set(names)
    blocks = [
        (relax.DataflowBlock if isinstance(b, relax.DataflowBlock) else relax.BindingBlock)(
            [x for x in b.bindings if x.var.name not in drop]
        )
        for b in f.body.blocks
    ]
    body = relax.SeqExpr(blocks, f.body.body)
    out = mod.clone()
    out[func] = relax.Function(f.params, body, f.ret_ty, f.is_pure, f.attrs, f.span)
    return relax.transform.Normalize()(out)  # the rebuilt SeqExpr has no type until normalized


def observe(
    entry: RelaxCase,
    mod: tvm.IRModule,
    func: str | None = None,
    kind: Observe | None = None,
    skip: str | None = None,
) -> Any:
    """What the case measures on `mod` (see `Observe`), comparable with expected/buggy."""
    import tvm

    kind = kind or entry.observe
    func = func or entry.func
    inputs = entry.inputs()
    if kind == "kept_by_dce":
        present = set(binding_names(mod, func))
        return tuple(n for n in entry.dead_bindings if n in present)
    if kind == "outputs":
        return build_and_run(mod, inputs, func, skip)
    counters = None
    if kind == "counter":  # make sure the registered functions count into this namespace
        ns = load_namespace(entry)
        activate_packed_funcs(ns)
        counters = ns[entry.counter]
    vm = _vm(mod, skip)
    args = [tvm.runtime.tensor(np.array(a)) for a in inputs]
    if kind == "inputs_after":
        vm[func](*args)
        return [a.numpy() for a in args]
    if kind == "repeat":
        return [_flatten(vm[func](*args))[0] for _ in range(entry.repeat)]
    if counters is not None:
        counters["count"] = 0
        vm[func](*args)
        return int(counters["count"])
    raise ValueError(f"unknown observation kind {kind!r}")


def same(a: Any, b: Any) -> bool:
    """Compare observations: arrays elementwise (float tolerance), everything else by ==."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        return a_arr.shape == b_arr.shape and bool(np.allclose(a_arr, b_arr))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


# ---------------------------------------------------------------------------------------------
# The table of TVM bugs in docs/tvm-bugs.md


def _value_text(v: Any) -> str:
    """An observation, short: arrays as lists, counters and names as they are."""
    if isinstance(v, np.ndarray):
        return str(v.flatten().tolist()) if v.size <= 6 else f"{v.shape} array"
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, np.ndarray) for x in v):
        return "; ".join(_value_text(x) for x in v)
    return str(v)


def bugs_markdown() -> str:
    """The miscompilations a TVM pass makes of a module that is correct as written: the pass,
    the module, what happens, and the VM's evidence (correct vs observed), one row a case."""
    rows = ["| case | pass | module | what happens | on the VM: correct / observed |",
            "|---|---|---|---|---|"]
    for c in CASES:
        if c.guilty in (None, "input"):
            continue
        module = f"`{c.file}` `{c.module}`"
        rows.append(f"| {c.case_id} | {c.guilty} | {module} | {c.description} | "
                    f"{_value_text(c.expected)} / {_value_text(c.buggy)} |")
    return "\n".join(rows)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m tests.support.relax_cases --markdown")
    print(bugs_markdown())
