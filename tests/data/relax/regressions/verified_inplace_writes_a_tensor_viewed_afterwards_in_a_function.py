"""The same as verified_inplace_writes_a_tensor_viewed_afterwards, outside a dataflow block.

Fuzzer counterexample (broken, variant verified): run 1: output 0 is [[4.0, -8.0, -16.0],
[-8.0, -16.0, 16.0]], expected [[2.0, -4.0, -8.0], [-4.0, -8.0, 8.0]].

Hash: c1ac9c1cc1 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[verified_inplace_writes_a_tensor_viewed_afterwards_in_a_function]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'broken'
VARIANT = 'verified'
SEED = 1005572  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v11', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'add'}}, {'var': 'v13', 'op': 'call_tir', 'args': ['v11'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v14', 'op': 'view_off', 'args': ['v11'], 'attr': {'shape': [2, 3], 'offset': 0}}], 'outputs': ['v14']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        v11 = R.add(x0, x0)
        v13 = R.call_tir(cls.scale2_6, (v11,), out_ty=R.Tensor((6,), "float32"))
        v14 = R.memory.view(v11, R.shape([2, 3]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
        return v14
