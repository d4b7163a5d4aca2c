"""A lowered kernel whose destination is allocated 20 bytes into the storage bytes of one of
its inputs: writing the first elements clobbers the input's last ones before they are read.

Fuzzer counterexample (missed, variant as-written): run 1: output 0 is [[-12.0, -3.0, -9.0],
[6.0, 6.0, -15.0]], expected [[-12.0, -3.0, -9.0], [6.0, 6.0, -9.0]].

Hash: fcaca98881 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[kernel_destination_partly_overlaps_its_input_in_a_storage]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 1003181  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v1', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 24, 'shape': [2, 3]}}, {'var': 'v3', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 44, 'shape': [2, 3]}}, {'var': 'v5', 'op': 'dps', 'args': ['x0', 'x0', 'v1'], 'attr': {'kernel': 'sum2'}}, {'var': 'v6', 'op': 'dps', 'args': ['v1', 'x0', 'v3'], 'attr': {'kernel': 'sum2'}}], 'outputs': ['v3'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def sum2_2x3(a_h: T.handle, b_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (2, 3), "float32", offset_factor=1)
        b = T.match_buffer(b_h, (2, 3), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (2, 3), "float32", offset_factor=1)
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + b[v0, v1]

    @R.function(pure=False)
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([72]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.memory.alloc_tensor(v0, R.prim_value(24), R.shape([2, 3]), R.dtype("float32"))
        v3 = R.memory.alloc_tensor(v0, R.prim_value(44), R.shape([2, 3]), R.dtype("float32"))
        v5 = cls.sum2_2x3(x0, x0, v1)
        v6 = cls.sum2_2x3(v1, x0, v3)
        return v3
