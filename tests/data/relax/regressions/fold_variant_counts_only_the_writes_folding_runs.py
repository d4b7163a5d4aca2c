"""FoldConstant runs the dirty kernel on a value folded from constants, so the module given to it
is judged for that write; it was judged for all its findings, among them a helper doubling the
entry's parameter in a call the pass dropped as dead, which no VM runs.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant fold: check
reported inplace-live and inplace-param, but no read in any VM run sees another value than
value semantics.

Hash: 9c403883b7 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[fold_variant_counts_only_the_writes_folding_runs]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'fold'
SEED = 1600880  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'call', 'args': ['x0'], 'attr': {'fn': 'h0'}}, {'var': 'v11', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [1.0, -3.0, -3.0, 1.0, -3.0, 3.0]}}, {'var': 'v17', 'op': 'call_tir', 'args': ['v11'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v18', 'op': 'call_tir', 'args': ['v17'], 'attr': {'kernel': 'dirty', 'plain': False}}], 'outputs': ['v18'], 'functions': [{'name': 'h0', 'kind': 'helper', 'params': [{'name': 'p1', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v2', 'op': 'inplace', 'args': ['p1', 'p1'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['p1']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_2x3(a: T.Buffer((2, 3), "float32"), b: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def dirty_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @T.prim_func(private=True, s_tir=True)
    def scale2_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(private=True)
    def h0(p1: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        v2 = R.call_tir_inplace(cls.addto_2x3, (p1, p1,), inplace_indices=[0], out_ty=R.Tensor((2, 3), "float32"))
        return p1

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v4 = cls.h0(x0)
            v11 = R.const(np.array([[1.0, -3.0], [-3.0, 1.0], [-3.0, 3.0]], "float32"))
            v17 = R.call_tir(cls.scale2_3x2, (v11,), out_ty=R.Tensor((3, 2), "float32"))
            v18 = R.call_tir(cls.dirty_3x2, (v17,), out_ty=R.Tensor((3, 2), "float32"))
            R.output(v18)
        return v18
