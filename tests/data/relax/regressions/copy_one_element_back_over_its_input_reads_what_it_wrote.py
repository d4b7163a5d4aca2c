"""A lowered copy kernel writes its 3x2 output one element before its input in one storage (the
input a packed call's alias of x + 1). Its loops run in memory order, so each element would be
read before the one over it is written; but TVM tells LLVM a kernel's buffers do not alias, and
the VM loads input element 3 after storing output element 4 over it. write-overlap now allows a
destination over its input only from the input's first byte.

Fuzzer counterexample (missed, variant as-written): run 2: output 1 is [[5.0, 5.0], [2.0, 4.0],
[4.0, 5.0]], expected [[5.0, 5.0], [2.0, -1.0], [4.0, 5.0]].

Hash: 5d780e01a4 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[copy_one_element_back_over_its_input_reads_what_it_wrote]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 2100992  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 48}}, {'var': 'v1', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 4, 'shape': [3, 2]}}, {'var': 'v2', 'op': 'dps', 'args': ['x0', 'v1'], 'attr': {'kernel': 'add_one'}}, {'var': 'v3', 'op': 'packed', 'args': ['v1'], 'attr': {'fn': 'ident'}}, {'var': 'v4', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v5', 'op': 'split', 'args': ['x0'], 'attr': {'axis': 1, 'sections': 2}}, {'var': 'v6', 'op': 'get', 'args': ['v5'], 'attr': {'index': 1}}, {'var': 'v7', 'op': 'alloc', 'args': ['v4'], 'attr': {'offset': 8, 'shape': [3, 1]}}, {'var': 'v8', 'op': 'dps', 'args': ['v6', 'v7'], 'attr': {'kernel': 'copy'}}, {'var': 'v9', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v10', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 28, 'shape': [3, 1]}}, {'var': 'v11', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 0, 'shape': [3, 2]}}, {'var': 'v12', 'op': 'storage', 'args': [], 'attr': {'size': 48}}, {'var': 'v13', 'op': 'alloc', 'args': ['v9'], 'attr': {'offset': 36, 'shape': [3, 1]}}, {'var': 'v14', 'op': 'alloc', 'args': ['v4'], 'attr': {'offset': 40, 'shape': [3, 1]}}, {'var': 'v15', 'op': 'dps', 'args': ['v6', 'v10'], 'attr': {'kernel': 'scale2'}}, {'var': 'v16', 'op': 'dps', 'args': ['v3', 'v11'], 'attr': {'kernel': 'copy'}}, {'var': 'v17', 'op': 'dps', 'args': ['v7', 'v13'], 'attr': {'kernel': 'scale2'}}, {'var': 'v18', 'op': 'dps', 'args': ['v13', 'v14'], 'attr': {'kernel': 'add_one'}}], 'outputs': ['v10', 'v11', 'v14'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x1(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 1), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 1), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def copy_3x1(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 1), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 1), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def copy_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def scale2_3x1(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 1), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 1), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(pure=False)
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([48]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.memory.alloc_tensor(v0, R.prim_value(4), R.shape([3, 2]), R.dtype("float32"))
        v2 = cls.add_one_3x2(x0, v1)
        v3 = R.call_pure_packed("aliaslog.fuzz.ident", v1, ty_args=R.Tensor((3, 2), "float32"))
        v4 = R.memory.alloc_storage(R.shape([72]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v5 = R.split(x0, indices_or_sections=2, axis=1)
        v6 = v5[1]
        v7 = R.memory.alloc_tensor(v4, R.prim_value(8), R.shape([3, 1]), R.dtype("float32"))
        v8 = cls.copy_3x1(v6, v7)
        v9 = R.memory.alloc_storage(R.shape([72]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v10 = R.memory.alloc_tensor(v0, R.prim_value(28), R.shape([3, 1]), R.dtype("float32"))
        v11 = R.memory.alloc_tensor(v0, R.prim_value(0), R.shape([3, 2]), R.dtype("float32"))
        v12 = R.memory.alloc_storage(R.shape([48]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v13 = R.memory.alloc_tensor(v9, R.prim_value(36), R.shape([3, 1]), R.dtype("float32"))
        v14 = R.memory.alloc_tensor(v4, R.prim_value(40), R.shape([3, 1]), R.dtype("float32"))
        v15 = cls.scale2_3x1(v6, v10)
        v16 = cls.copy_3x2(v3, v11)
        v17 = cls.scale2_3x1(v7, v13)
        v18 = cls.add_one_3x1(v13, v14)
        return (v10, v11, v14)
