"""Lowered, addto(a, b) runs with b a view of a's very bytes: a[i] = a[i] + b[i] reads both where
it writes, before the store, so the overlap is safe; the kernel analysis refused any read of
the written buffer.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant dce: check reported
write-overlap, but no read in any VM run sees another value than value semantics.

Hash: 2c36a63abd (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[accumulation_over_a_view_of_its_own_output]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'dce'
SEED = 1200495  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'split', 'args': ['x2'], 'attr': {'axis': 0, 'sections': 3}}, {'var': 'v3', 'op': 'get', 'args': ['v1'], 'attr': {'index': 1}}, {'var': 'v12', 'op': 'view_off', 'args': ['v3'], 'attr': {'shape': [2], 'offset': 0}}, {'var': 'v13', 'op': 'inplace', 'args': ['v3', 'v12'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['v13']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_2(a_h: T.handle, b_h: T.handle):
        a = T.match_buffer(a_h, (2,), "float32", offset_factor=1)
        b = T.match_buffer(b_h, (2,), "float32", offset_factor=1)
        for i0 in range(2):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                a[v0] = a[v0] + b[v0]

    @R.function
    def main(x2: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.split(x2, indices_or_sections=3, axis=0)
            v3 = v1[1]
            v12 = R.memory.view(v3, R.shape([2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v13 = R.call_tir_inplace(cls.addto_2, (v3, v12,), inplace_indices=[0], out_ty=R.Tensor((2,), "float32"))
            R.output(v13)
        return v13
