"""relax.build's default pipeline (apache-tvm 0.27, CPU), by pass name: one list for the
extraction points, the memory planner's view and the tests (no TVM import until a pass is made).
"""

from __future__ import annotations

from typing import Any

# relax.pipeline.default_build_pipeline, in order.
DEFAULT_PIPELINE = (
    "DispatchSampling", "DispatchSortScan", "LegalizeOps", "RewriteDataflowReshape",
    "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
    "RewriteCUDAGraph", "LowerAllocTensor", "KillAfterLastUse", "LowerRuntimeBuiltin",
    "ComputePrimValue", "VMShapeLower", "AttachGlobalSymbol",
)


def passes_through(last: str, skip: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The default pipeline's pass names up to and including `last`, without `skip`."""
    return tuple(n for n in DEFAULT_PIPELINE[:DEFAULT_PIPELINE.index(last) + 1]
                 if n not in skip)


def make_pass(name: str) -> Any:
    """A pass of relax.build's pipeline by name (relax.backend first, then relax.transform)."""
    from tvm import relax
    from tvm.relax import backend

    return (getattr(backend, name, None) or getattr(relax.transform, name))()


def run_passes(mod: Any, names: tuple[str, ...] | list[str], target: str = "llvm") -> Any:
    """`mod` through the named passes, under `target`, in a pass context of its own: an
    instrument of the caller's (an audit) does not see aliaslog's own lowering."""
    import tvm

    with tvm.transform.PassContext(), tvm.target.Target(target):
        return tvm.transform.Sequential([make_pass(n) for n in names])(mod)


def views_ahead(mod: Any, after: frozenset[str], target: str = "llvm") -> set[Any]:
    """The variables whose bindings relax.build's RewriteDataflowReshape, not run on `mod` yet
    (`after`: the passes that have), makes a reshape: a view of the input, computing nothing.
    Empty when that pass has run, or when the pipeline up to it fails (relax.build would too)."""
    import tvm
    from tvm import relax

    names = tuple(n for n in passes_through("RewriteDataflowReshape") if n not in after)
    if "RewriteDataflowReshape" not in names:
        return set()
    try:
        out = run_passes(mod, names, target)
    except Exception:  # noqa: BLE001 - the build fails: there is no VM to be precise about
        return set()
    reshape = tvm.ir.Op.get("relax.reshape")
    found: set[Any] = set()

    def visit(e: Any) -> None:
        if isinstance(e, relax.SeqExpr):
            found.update(b.var for block in e.blocks for b in block.bindings
                         if isinstance(b.value, relax.Call) and b.value.op.same_as(reshape))

    for _, fn in out.functions.items():
        if isinstance(fn, relax.Function):
            relax.analysis.post_order_visit(fn, visit)
    return found
