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
