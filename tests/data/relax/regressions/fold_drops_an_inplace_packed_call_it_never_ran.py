"""FoldConstant runs a kernel that zeroes a folded constant's input, and drops as unused the in-
place packed call that would read it: that read never happens, so the module checked for
compile-time writes is the one the pass ran (fuzz_relax._ran), with its constants as the pass
was given them (_as_given).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant fold: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 8a90dc181b (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[fold_drops_an_inplace_packed_call_it_never_ran]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'fold'
SEED = 2400024  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [1, 6], 'values': [2.0, -1.0, -1.0, 2.0, -2.0, 3.0]}}, {'var': 'v5', 'op': 'call_tir', 'args': ['v0'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v7', 'op': 'call_tir', 'args': ['v5'], 'attr': {'kernel': 'dirty', 'plain': False}}, {'var': 'v11', 'op': 'inplace_packed', 'args': ['v5', 'v0'], 'attr': {'fn': 'acc_ip'}}], 'outputs': ['v7']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dirty_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @T.prim_func(private=True, s_tir=True)
    def scale2_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function
    def main(x1: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.const(np.array([[2.0, -1.0, -1.0, 2.0, -2.0, 3.0]], "float32"))
            v5 = R.call_tir(cls.scale2_1x6, (v0,), out_ty=R.Tensor((1, 6), "float32"))
            v7 = R.call_tir(cls.dirty_1x6, (v5,), out_ty=R.Tensor((1, 6), "float32"))
            v11 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v5, v0, inplace_indices=[1], ty_args=(R.Tensor((1, 6), "float32"),))
            R.output(v7)
        return v7
