"""Turn `call_tir` into `call_tir_inplace`: the kernel writes chosen outputs into inputs' memory.

The in-place kernel is the original PrimFunc with each chosen output buffer replaced by its
input buffer and the output parameter dropped (as TVM's DataflowUseInplaceCalls builds its
kernels); the call passes the same arguments and names, per output, the input it writes
(-1: a fresh output, still passed by the VM as a destination).
"""

from __future__ import annotations

from dataclasses import dataclass

import tvm
import tvm_ffi
from tvm import relax, tirx


@dataclass(frozen=True)
class CallTir:
    """A `call_tir` as the rewrite needs it: its kernel, inputs, outputs and symbolic args."""

    call: relax.Call
    kernel: tvm.ir.GlobalVar
    args: list[relax.Expr]
    outputs: list[relax.TensorType]  # one per output, in order
    tir_vars: relax.Expr | None  # symbolic shape arguments (such calls are not rewritten)

    @staticmethod
    def of(call: object) -> CallTir | None:
        """The call's parts, when it is a call_tir of a PrimFunc in the module; else None."""
        if not (isinstance(call, relax.Call) and isinstance(call.op, tvm.ir.Op)
                and str(call.op.name) == "relax.call_tir"):
            return None
        gv, args = call.args[0], call.args[1]
        if not isinstance(gv, tvm.ir.GlobalVar) or not isinstance(args, relax.Tuple):
            return None
        ty = call.ty
        outs = list(ty.fields) if isinstance(ty, tvm.ir.TupleType) else [ty]
        if not all(isinstance(t, relax.TensorType) for t in outs):
            return None
        tir_vars = call.args[2] if len(call.args) > 2 else None
        return CallTir(call, gv, list(args.fields), outs, tir_vars)

    def out_param(self, k: int) -> int:
        """The kernel parameter of output k: after the inputs, before the symbolic args."""
        return len(self.args) + k


def inplace_kernel(pf: tirx.PrimFunc, n_inputs: int, inplace: list[int]) -> tirx.PrimFunc:
    """The kernel with output k (param n_inputs + k) written into param inplace[k] where
    inplace[k] >= 0, and those output params removed."""
    params = list(pf.params)
    subst: dict[object, object] = {}
    dropped: set[int] = set()
    for k, j in enumerate(inplace):
        if j >= 0:
            subst[params[n_inputs + k]] = params[j]
            dropped.add(n_inputs + k)

    def remap(v: tvm.ir.Var) -> tvm.ir.Var:
        for old, new in subst.items():
            if v.same_as(old):
                return new
        return v

    body = tvm_ffi.structural_map(pf.body, [(tvm.ir.Var, remap)])
    kept = [p for i, p in enumerate(params) if i not in dropped]
    return tirx.PrimFunc(kept, body, pf.ret_type, pf.attrs, pf.span)


def inplace_call(ct: CallTir, kernel: tvm.ir.GlobalVar, inplace: list[int]) -> relax.Call:
    """The call_tir_inplace of `kernel` (the in-place kernel of `ct`) that replaces `ct`."""
    out_ty = ct.outputs if len(ct.outputs) > 1 else ct.outputs[0]
    return relax.op.call_tir_inplace(kernel, relax.Tuple(ct.args), inplace, out_ty)
