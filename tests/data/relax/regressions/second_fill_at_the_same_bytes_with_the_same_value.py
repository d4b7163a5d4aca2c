"""Two lowered calls of one kernel on one unchanged input fill two tensors placed at the same
bytes of a storage: the second stores exactly what the first tensor, still returned, holds
there. No storage-reuse.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported storage-reuse, but no read in any VM run sees another value than value semantics.

Hash: f830629779 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[second_fill_at_the_same_bytes_with_the_same_value]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2100810  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v1', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 0, 'shape': [3, 2]}}, {'var': 'v7', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 0, 'shape': [3, 2]}}, {'var': 'v8', 'op': 'dps', 'args': ['x0', 'v1'], 'attr': {'kernel': 'scale2'}}, {'var': 'v9', 'op': 'dps', 'args': ['x0', 'v7'], 'attr': {'kernel': 'scale2'}}], 'outputs': ['v1'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(pure=False)
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([72]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.memory.alloc_tensor(v0, R.prim_value(0), R.shape([3, 2]), R.dtype("float32"))
        v7 = R.memory.alloc_tensor(v0, R.prim_value(0), R.shape([3, 2]), R.dtype("float32"))
        v8 = cls.scale2_3x2(x0, v1)
        v9 = cls.scale2_3x2(x0, v7)
        return v1
