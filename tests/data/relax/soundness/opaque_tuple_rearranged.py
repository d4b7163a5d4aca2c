"""An opaque packed call may return its tuple argument's elements in any arrangement.

`swap` returns `(t[1], t[0])`, so `b = a[0]` is `n`: the in-place increment of `b` changes
`n`, which is read afterwards, and `r` is 2(n+1) instead of (n+1) + n (issue 12 item 3).
In `Clean`, nothing reads `m` or `n` after the write: clean once `swap` is described as an
`alias` function (opaque, it may keep them and read them later).
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@tvm_ffi.register_global_func("aliaslog.test.swap", override=True)
def _swap(t: object) -> object:
    """Return the pair's elements the other way round (the objects themselves)."""
    return (t[1], t[0])  # type: ignore[index]


@I.ir_module
class Before:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                a[v] = a[v] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = Before
        with R.dataflow():
            m = R.add(x, x)
            n = R.add(y, y)
            t = (m, n)
            a = R.call_pure_packed("aliaslog.test.swap", t,
                                   ty_args=R.Tuple(R.Tensor((4,), "float32"),
                                                   R.Tensor((4,), "float32")))
            b = a[0]
            w = R.call_tir_inplace(cls.inc, (b,), inplace_indices=[0],
                                   out_ty=R.Tensor((4,), "float32"))
            r = R.add(w, n)
            R.output(r)
        return r


@I.ir_module
class Clean:
    @T.prim_func(private=True, s_tir=True)
    def inc(a: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                v = T.axis.remap("S", [i])
                a[v] = a[v] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = Clean
        with R.dataflow():
            m = R.add(x, x)
            n = R.add(y, y)
            t = (m, n)
            a = R.call_pure_packed("aliaslog.test.swap", t,
                                   ty_args=R.Tuple(R.Tensor((4,), "float32"),
                                                   R.Tensor((4,), "float32")))
            b = a[0]
            w = R.call_tir_inplace(cls.inc, (b,), inplace_indices=[0],
                                   out_ty=R.Tensor((4,), "float32"))
            r = R.add(w, w)
            R.output(r)
        return r
