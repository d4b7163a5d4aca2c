"""A helper copies its argument into a fresh tensor and increments it in place; main calls it
twice and returns the first result. The helper's tensor is one object per call site (heap
cloning), so the second call's write is not a write of what the first returned.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 4bfc9af70c (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[helper_called_twice_writes_the_tensor_it_allocates]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200240  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v15', 'op': 'call', 'args': ['x1'], 'attr': {'fn': 'h8'}}, {'var': 'v16', 'op': 'call', 'args': ['x1'], 'attr': {'fn': 'h8'}}], 'outputs': ['v15'], 'functions': [{'name': 'h8', 'kind': 'helper', 'params': [{'name': 'p9', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v10', 'op': 'call_tir', 'args': ['p9'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v11', 'op': 'inplace', 'args': ['v10'], 'attr': {'kernel': 'inc', 'plain': False}}], 'outputs': ['v11']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def inc_3x2(a: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function(private=True)
    def h8(p9: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        cls = Module
        v10 = R.call_tir(cls.copy_3x2, (p9,), out_ty=R.Tensor((3, 2), "float32"))
        v11 = R.call_tir_inplace(cls.inc_3x2, (v10,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
        return v11

    @R.function
    def main(x1: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v15 = cls.h8(x1)
            v16 = cls.h8(x1)
            R.output(v15)
        return v15
