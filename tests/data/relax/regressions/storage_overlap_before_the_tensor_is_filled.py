"""A kernel writes storage bytes that a tensor allocated earlier will occupy, before any call
filled that tensor: nothing is destroyed (check reported storage-reuse).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports storage-reuse, but no
read in any VM run sees another value than value semantics.

Hash: 3db97fd74b (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[storage_overlap_before_the_tensor_is_filled]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1000038  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}, {'name': 'x1', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v2', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v4', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 40, 'shape': [1, 6]}}, {'var': 'v5', 'op': 'alloc', 'args': ['v2'], 'attr': {'offset': 36, 'shape': [1, 6]}}, {'var': 'v6', 'op': 'dps', 'args': ['x0', 'v4'], 'attr': {'kernel': 'copy'}}, {'var': 'v7', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 48, 'shape': [3, 2]}}, {'var': 'v8', 'op': 'dps', 'args': ['v4', 'v5'], 'attr': {'kernel': 'dirty'}}, {'var': 'v9', 'op': 'dps', 'args': ['x1', 'v7'], 'attr': {'kernel': 'scale2'}}], 'outputs': ['v7'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_1x6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (1, 6), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (1, 6), "float32", offset_factor=1)
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def dirty_1x6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (1, 6), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (1, 6), "float32", offset_factor=1)
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @T.prim_func(private=True, s_tir=True)
    def scale2_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(pure=False)
    def main(x0: R.Tensor((1, 6), "float32"), x1: R.Tensor((3, 2), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([72]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v2 = R.memory.alloc_storage(R.shape([72]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v4 = R.memory.alloc_tensor(v0, R.prim_value(40), R.shape([1, 6]), R.dtype("float32"))
        v5 = R.memory.alloc_tensor(v2, R.prim_value(36), R.shape([1, 6]), R.dtype("float32"))
        v6 = cls.copy_1x6(x0, v4)
        v7 = R.memory.alloc_tensor(v0, R.prim_value(48), R.shape([3, 2]), R.dtype("float32"))
        v8 = cls.dirty_1x6(v4, v5)
        v9 = cls.scale2_3x2(x1, v7)
        return v7
