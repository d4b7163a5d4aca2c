"""A view of a tensor made after the tensor was written in place names the tensor's old value, as
a copy would: reading it sees the clobbered memory.

Fuzzer counterexample (missed, variant as-written): run 1: output 0 is [[6.0, 2.0], [5.0, 4.0],
[0.0, 4.0]], expected [[5.0, 1.0], [4.0, 3.0], [-1.0, 3.0]].

Hash: e891006d9b (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[view_made_after_an_inplace_write_of_its_source]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 1005042  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v7', 'op': 'call_tir', 'args': ['x2'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v8', 'op': 'inplace', 'args': ['v7'], 'attr': {'kernel': 'inc', 'plain': True}}, {'var': 'v17', 'op': 'view_off', 'args': ['v7'], 'attr': {'shape': [3, 2], 'offset': 0}}], 'outputs': ['v17']}


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

    @T.prim_func(private=True)
    def inc_plain_3x2(a_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            a[i0, i1] = a[i0, i1] + T.float32(1)

    @R.function
    def main(x2: R.Tensor((3, 2), "float32")):
        cls = Module
        v7 = R.call_tir(cls.add_one_3x2, (x2,), out_ty=R.Tensor((3, 2), "float32"))
        v8 = R.call_tir_inplace(cls.inc_plain_3x2, (v7,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
        v17 = R.memory.view(v7, R.shape([3, 2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
        return v17
