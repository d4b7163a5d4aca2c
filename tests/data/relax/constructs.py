"""Every Relax construct the extractor handles, in one module that builds and runs.

`main` mixes dataflow and plain blocks, a call to a private Relax function, tuples and
TupleGetItem, a match_cast that cannot fail and one that might, call_tir, call_dps_packed,
call_pure_packed, an If with bindings in both branches, a local closure capturing a value,
and dead code of every kind next to live code. CALLS counts the packed function's runs.
"""

import tvm_ffi
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

CALLS = {"count": 0}


def _scale(x: object, out: object) -> None:
    """Destination-passing: out = 3 * x (numpy on the VM's tensors)."""
    CALLS["count"] += 1
    out.copyfrom(x.numpy() * 3)


def _noisy(x: object) -> object:
    """Returns its argument and counts the call: an effect the analysis cannot see through."""
    CALLS["count"] += 1
    return x


PACKED_FUNCS = {"aliaslog.constructs.scale": _scale, "aliaslog.constructs.noisy": _noisy}
for _name, _fn in PACKED_FUNCS.items():
    tvm_ffi.register_global_func(_name, _fn, override=True)


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * T.float32(2)

    @R.function(private=True)
    def helper(a: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"),
                                                        R.Tensor((4,), "float32")):
        b = R.add(a, a)
        dead = R.multiply(a, a)
        return (a, b)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32"), flag: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
        cls = Module
        k = T.int64()
        with R.dataflow():
            t = cls.helper(x)
            u = t[1]
            unused_t = t[0]
            y = R.call_tir(cls.double, (u,), out_ty=R.Tensor((4,), "float32"))
            dead_tir = R.call_tir(cls.double, (x,), out_ty=R.Tensor((4,), "float32"))
            z = R.call_dps_packed("aliaslog.constructs.scale", (y,),
                                  out_ty=R.Tensor((4,), "float32"))
            m = R.match_cast(z, R.Tensor((4,), "float32"))
            n = R.match_cast(z, R.Tensor((k,), "float32"))
            R.output(m, n)
        w = R.call_pure_packed("aliaslog.constructs.noisy", x, ty_args=R.Tensor((4,), "float32"))
        if flag:
            p = R.add(m, x)
            dead_then = R.subtract(m, x)
            r = p
        else:
            q = R.subtract(m, x)
            r = q

        @R.function
        def clo(v: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            s = R.multiply(v, r)
            return s

        dead_clo = clo(x)
        out = clo(r)
        return out
