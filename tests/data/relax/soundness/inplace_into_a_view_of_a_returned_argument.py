"""An in-place packed function that returns its argument, a view of its result, and a kernel
that adds into that view in place (DataflowUseInplaceCalls' rewrite of `x + v`).

`bump` adds 2 to its argument in place and returns it, so `v` is `a`, and the view `w` is
`a`'s bytes. Lowered, `w` is the only tensor in that storage: the kernel writing into it
destroys nothing another tensor holds. The view's object may lie in `a`'s storage or be the
packed function's own result (`returns=0` is a may), and a storage overlap with itself is no
reuse. `r` is x + (2x + 2).
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@tvm_ffi.register_global_func("aliaslog.test.bump", override=True)
def _bump(a: object) -> object:
    """Add 2 to `a` in place and return it (the object itself)."""
    import numpy as np

    a.copyfrom(a.numpy() + np.float32(2))  # type: ignore[attr-defined]
    return a


@I.ir_module
class Before:
    @T.prim_func(private=True, s_tir=True)
    def add_into(x: T.Buffer((4,), "float32"), w: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                w[v] = x[v] + w[v]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Before
        with R.dataflow():
            a = R.add(x, x)
            v = R.call_inplace_packed("aliaslog.test.bump", a, inplace_indices=[0],
                                      ty_args=(R.Tensor((4,), "float32"),))
            w = R.memory.view(v, R.shape([4]), R.dtype("float32"), relative_byte_offset=0)
            r = R.call_tir_inplace(cls.add_into, (x, w), inplace_indices=[1],
                                   out_ty=R.Tensor((4,), "float32"))
            R.output(r)
        return r
