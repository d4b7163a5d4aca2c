"""A kernel fills what ensure_zero_offset returns for a tensor at storage offset 0: the tensor
itself, so the older name reads the new bytes (aliaslog saw a fresh destination).

Fuzzer counterexample (missed, variant as-written): run 1: output 0 is [[0.0, -6.0, 3.0],
[-6.0, 3.0, 12.0]], expected [[0.0, -4.0, 2.0], [-4.0, 2.0, 8.0]].

Hash: 04ef0674d9 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[kernel_fills_ensure_zero_offset_of_a_filled_tensor_at_offset_0]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 2500825  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 48}}, {'var': 'v4', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 0, 'shape': [2, 3]}}, {'var': 'v5', 'op': 'dps', 'args': ['x0', 'x0', 'v4'], 'attr': {'kernel': 'sum2'}}, {'var': 'v6', 'op': 'zero_off', 'args': ['v4'], 'attr': {}}, {'var': 'v7', 'op': 'dps', 'args': ['x0', 'v4', 'v6'], 'attr': {'kernel': 'sum2'}}], 'outputs': ['v4'], 'lowered': True}


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
        v0 = R.memory.alloc_storage(R.shape([48]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v4 = R.memory.alloc_tensor(v0, R.prim_value(0), R.shape([2, 3]), R.dtype("float32"))
        v5 = cls.sum2_2x3(x0, x0, v4)
        v6 = R.memory.ensure_zero_offset(v4)
        v7 = cls.sum2_2x3(x0, v4, v6)
        return v4
