"""Two views at byte offsets of one tensor go to an opaque packed function, which may return
anything it was given: at the legalized point a view's source may then point to the view
itself, and adding its offset round that cycle never ended (both engines ran out of memory or
time, since before this session). A view in such a cycle may be anywhere in its base
(view_cycle).

Fuzzer counterexample (internal, every variant of seed 1400804 in the 1,000-module campaign at
68d2138): OSError: [Errno 12] Cannot allocate memory.

Hash: 318987863c (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[view_whose_source_may_be_the_view_itself]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'internal'
VARIANT = 'as-written'
SEED = 1400804  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v6', 'op': 'call', 'args': ['v0'], 'attr': {'fn': 'h1'}}, {'var': 'v7', 'op': 'split', 'args': ['v6'], 'attr': {'axis': 1, 'sections': 3}}, {'var': 'v8', 'op': 'get', 'args': ['v7'], 'attr': {'index': 1}}, {'var': 'v9', 'op': 'get', 'args': ['v7'], 'attr': {'index': 2}}, {'var': 'v10', 'op': 'concat1', 'args': ['v6'], 'attr': {}}, {'var': 'v11', 'op': 'inplace', 'args': ['v8'], 'attr': {'kernel': 'inc', 'plain': True}}, {'var': 'v12', 'op': 'view_off', 'args': ['v10'], 'attr': {'shape': [3], 'offset': 8}}, {'var': 'v13', 'op': 'view_off', 'args': ['v10'], 'attr': {'shape': [3], 'offset': 0}}, {'var': 'v14', 'op': 'inplace_packed', 'args': ['v13', 'v12'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v15', 'op': 'binop', 'args': ['v13', 'v13'], 'attr': {'fn': 'add'}}, {'var': 'v16', 'op': 'tuple', 'args': ['v15', 'v14'], 'attr': {}}, {'var': 'v17', 'op': 'astype', 'args': ['v10'], 'attr': {}}, {'var': 'v18', 'op': 'zero_off', 'args': ['v12'], 'attr': {}}, {'var': 'v19', 'op': 'get', 'args': ['v16'], 'attr': {'index': 1}}, {'var': 'v20', 'op': 'inplace', 'args': ['v15', 'v14'], 'attr': {'kernel': 'addto', 'plain': True}}, {'var': 'v21', 'op': 'packed', 'args': ['v16'], 'attr': {'fn': 'mystery'}}, {'var': 'v22', 'op': 'expand', 'args': ['v13'], 'attr': {}}], 'outputs': ['v9', 'v11', 'v17', 'v18', 'v19', 'v20', 'v21', 'v22'], 'functions': [{'name': 'h1', 'kind': 'helper', 'params': [{'name': 'p2', 'shape': [1, 6]}], 'dataflow': False, 'stmts': [{'var': 'v3', 'op': 'call_tir', 'args': ['p2'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v4', 'op': 'inplace', 'args': ['v3', 'v3'], 'attr': {'kernel': 'addto', 'plain': False}}, {'var': 'v5', 'op': 'inplace_packed', 'args': ['p2'], 'attr': {'fn': 'mystery_ip'}}], 'outputs': ['v5']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_1x6(a_h: T.handle, b_h: T.handle):
        a = T.match_buffer(a_h, (1, 6), "float32", offset_factor=1)
        b = T.match_buffer(b_h, (1, 6), "float32", offset_factor=1)
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @T.prim_func(private=True)
    def addto_plain_3(a_h: T.handle, b_h: T.handle):
        a = T.match_buffer(a_h, (3,), "float32", offset_factor=1)
        b = T.match_buffer(b_h, (3,), "float32", offset_factor=1)
        for i0 in range(3):
            a[i0] = a[i0] + b[i0]

    @T.prim_func(private=True, s_tir=True)
    def copy_1x6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (1, 6), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (1, 6), "float32", offset_factor=1)
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True)
    def inc_plain_1x2(a_h: T.handle):
        a = T.match_buffer(a_h, (1, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(1, 2):
            a[i0, i1] = a[i0, i1] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def scale2_1x6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (1, 6), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (1, 6), "float32", offset_factor=1)
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(private=True)
    def h1(p2: R.Tensor((1, 6), "float32")) -> R.Tensor((1, 6), "float32"):
        cls = Module
        v3 = R.call_tir(cls.scale2_1x6, (p2,), out_ty=R.Tensor((1, 6), "float32"))
        v4 = R.call_tir_inplace(cls.addto_1x6, (v3, v3,), inplace_indices=[0], out_ty=R.Tensor((1, 6), "float32"))
        v5 = R.call_inplace_packed("aliaslog.fuzz.mystery_ip", p2, inplace_indices=[0], ty_args=(R.Tensor((1, 6), "float32"),))
        return v5

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.copy_1x6, (x0,), out_ty=R.Tensor((1, 6), "float32"))
            v6 = cls.h1(v0)
            v7 = R.split(v6, indices_or_sections=3, axis=1)
            v8 = v7[1]
            v9 = v7[2]
            v10 = R.concat((v6,), axis=0)
            v11 = R.call_tir_inplace(cls.inc_plain_1x2, (v8,), inplace_indices=[0], out_ty=R.Tensor((1, 2), "float32"))
            v12 = R.memory.view(v10, R.shape([3]), R.dtype("float32"), relative_byte_offset=R.prim_value(8))
            v13 = R.memory.view(v10, R.shape([3]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v14 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v13, v12, inplace_indices=[1], ty_args=(R.Tensor((3,), "float32"),))
            v15 = R.add(v13, v13)
            v16 = (v15, v14,)
            v17 = R.astype(v10, "float32")
            v18 = R.memory.ensure_zero_offset(v12)
            v19 = v16[1]
            v20 = R.call_tir_inplace(cls.addto_plain_3, (v15, v14,), inplace_indices=[0], out_ty=R.Tensor((3,), "float32"))
            v21 = R.call_pure_packed("aliaslog.fuzz.mystery", v16, ty_args=R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")))
            v22 = R.expand_dims(v13, axis=0)
            R.output(v9, v11, v17, v18, v19, v20, v21, v22)
        return (v9, v11, v17, v18, v19, v20, v21, v22)
