"""A kernel called directly whose destination starts 20 bytes before its input in one storage:
written in memory order, each output element covers input elements already read.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports write-overlap, but no
read in any VM run sees another value than value semantics.

Hash: ae468b42f7 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[kernel_destination_starts_before_its_input_in_a_storage]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1004355  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 96}}, {'var': 'v1', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 32, 'shape': [3, 2]}}, {'var': 'v4', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 12, 'shape': [3, 2]}}, {'var': 'v5', 'op': 'call_tir', 'args': ['x2'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v6', 'op': 'dps', 'args': ['v5', 'v1'], 'attr': {'kernel': 'dirty'}}, {'var': 'v8', 'op': 'dps', 'args': ['v1', 'v4'], 'attr': {'kernel': 'scale2'}}], 'outputs': ['v4'], 'lowered': True}


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
    def dirty_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
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
    def main(x2: R.Tensor((3, 2), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([96]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.memory.alloc_tensor(v0, R.prim_value(32), R.shape([3, 2]), R.dtype("float32"))
        v4 = R.memory.alloc_tensor(v0, R.prim_value(12), R.shape([3, 2]), R.dtype("float32"))
        v5 = R.call_tir(cls.add_one_3x2, (x2,), out_ty=R.Tensor((3, 2), "float32"))
        v6 = cls.dirty_3x2(v5, v1)
        v8 = cls.scale2_3x2(v1, v4)
        return v4
