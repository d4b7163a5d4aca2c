"""Case 10: dead DPS calls survive lowering as alloc / kernel / kill chains.

`dead1` (call_tir) and `dead2` (call_dps_packed) are unused.  DCE removes them before
lowering, but after CallTIRRewrite, StaticPlanBlockMemory and KillAfterLastUse they are
impure PrimFunc / packed calls writing fresh allocations that are then killed, and DCE keeps
all of it; the dead packed call still runs (CALLS["count"] == 1).  In `Clean` the packed
call's output is used, so nothing is dead.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

CALLS = {"count": 0}


@tvm_ffi.register_global_func("aliaslog.case10.dps_copy", override=True)
def _dps_copy(src: object, dst: object) -> None:
    """Copy src into the destination buffer and count the call (a DPS packed function)."""
    CALLS["count"] += 1
    dst.copyfrom(src.numpy())  # type: ignore[attr-defined]


# Name -> registered function, so a loader can re-register them onto this file's CALLS.
PACKED_FUNCS = {"aliaslog.case10.dps_copy": _dps_copy}


@I.ir_module
class Before:
    @T.prim_func(s_tir=True)
    def double(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32"):
        cls = Before
        with R.dataflow():
            _dead1 = R.call_tir(cls.double, (x,), R.Tensor((16,), "float32"))
            _dead2 = R.call_dps_packed("aliaslog.case10.dps_copy", (x,), R.Tensor((16,), "float32"))
            y = R.call_tir(cls.double, (x,), R.Tensor((16,), "float32"))
            R.output(y)
        return y


@I.ir_module
class Clean:
    @T.prim_func(s_tir=True)
    def double(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32"):
        cls = Clean
        with R.dataflow():
            copied = R.call_dps_packed("aliaslog.case10.dps_copy", (x,), R.Tensor((16,), "float32"))
            y = R.call_tir(cls.double, (copied,), R.Tensor((16,), "float32"))
            R.output(y)
        return y
