"""Two fills of the same bytes of a storage by the same kernel from v6, the result of an in-place
packed call: v6 names the value that call wrote, so the call is no change of v6's input since,
and the second fill stores what the first holds (fills_same).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported storage-reuse, but no read in any VM run sees another value than value semantics.

Hash: 1c30a7c639 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[same_kernel_fills_the_same_bytes_from_an_inplace_result]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2100810  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v1', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 0, 'shape': [3, 2]}}, {'var': 'v5', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v6', 'op': 'inplace_packed', 'args': ['v5', 'v5'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v7', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 0, 'shape': [3, 2]}}, {'var': 'v8', 'op': 'dps', 'args': ['v6', 'v1'], 'attr': {'kernel': 'scale2'}}, {'var': 'v9', 'op': 'dps', 'args': ['v6', 'v7'], 'attr': {'kernel': 'scale2'}}], 'outputs': ['v1'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

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
        v5 = R.call_tir(cls.add_one_3x2, (x0,), out_ty=R.Tensor((3, 2), "float32"))
        v6 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v5, v5, inplace_indices=[1], ty_args=(R.Tensor((3, 2), "float32"),))
        v7 = R.memory.alloc_tensor(v0, R.prim_value(0), R.shape([3, 2]), R.dtype("float32"))
        v8 = cls.scale2_3x2(v6, v1)
        v9 = cls.scale2_3x2(v6, v7)
        return v1
