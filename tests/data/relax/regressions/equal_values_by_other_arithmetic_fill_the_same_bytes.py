"""Two lowered kernels fill the same bytes of one storage, one with 2 * v and the other with v +
v: equal values by other arithmetic. Each kernel's per-element tree, in a canonical form only
exact IEEE rewrites make, is its output's term, so the second fill is seen to store what the
bytes hold (campaign seed 1900087).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported storage-reuse, but no read in any VM run sees another value than value semantics.

Hash: c164741d77 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[equal_values_by_other_arithmetic_fill_the_same_bytes]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1900087  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 48}}, {'var': 'v1', 'op': 'reshape', 'args': ['x0'], 'attr': {'shape': [2, 3]}}, {'var': 'v2', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 24, 'shape': [2, 3]}}, {'var': 'v3', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 24, 'shape': [2, 3]}}, {'var': 'v4', 'op': 'dps', 'args': ['v1', 'v2'], 'attr': {'kernel': 'scale2'}}, {'var': 'v5', 'op': 'dps', 'args': ['v1', 'v1', 'v3'], 'attr': {'kernel': 'sum2'}}], 'outputs': ['v2'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_2x3(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (2, 3), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (2, 3), "float32", offset_factor=1)
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

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
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([48]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.reshape(x0, R.shape([2, 3]))
        v2 = R.memory.alloc_tensor(v0, R.prim_value(24), R.shape([2, 3]), R.dtype("float32"))
        v3 = R.memory.alloc_tensor(v0, R.prim_value(24), R.shape([2, 3]), R.dtype("float32"))
        v4 = cls.scale2_2x3(v1, v2)
        v5 = cls.sum2_2x3(v1, v1, v3)
        return v2
