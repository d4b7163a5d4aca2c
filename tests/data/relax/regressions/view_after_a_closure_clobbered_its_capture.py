"""A closure whose body clobbers a captured tensor (a kernel storing into its input) is invoked; a
view of that tensor made afterwards reads the clobbered memory.

Fuzzer counterexample (missed, variant as-written): run 1: output 0 is [[0.0, 0.0, 0.0], [0.0,
0.0, 0.0]], expected [[-2.0, -1.0, -2.0], [-1.0, -1.0, -1.0]].

Hash: 7ef1a1e15b (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[view_after_a_closure_clobbered_its_capture]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 1005062  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v9', 'op': 'closure', 'args': ['v0'], 'attr': {'fn': 'c1', 'inner': True}}, {'var': 'v10', 'op': 'invoke', 'args': ['v9', 'x0'], 'attr': {}}, {'var': 'v11', 'op': 'view_off', 'args': ['v0'], 'attr': {'shape': [3, 2], 'offset': 0}}, {'var': 'v13', 'op': 'view_off', 'args': ['v11'], 'attr': {'shape': [2, 3], 'offset': 0}}], 'outputs': ['v13'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [6]}, {'name': 'p3', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v8', 'op': 'call_tir', 'args': ['p3'], 'attr': {'kernel': 'dirty', 'plain': False}}], 'outputs': ['v8'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0]

    @T.prim_func(private=True, s_tir=True)
    def dirty_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] + T.float32(1)
                a[v0] = T.float32(0)

    @R.function
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.call_tir(cls.copy_6, (x0,), out_ty=R.Tensor((6,), "float32"))
        @R.function
        def v9(p2: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
            v8 = R.call_tir(cls.dirty_6, (v0,), out_ty=R.Tensor((6,), "float32"))
            return v8
        v10 = R.invoke_pure_closure(v9, (x0, ), ty_args=(R.Tensor((6,), "float32"),))
        v11 = R.memory.view(v0, R.shape([3, 2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
        v13 = R.memory.view(v11, R.shape([2, 3]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
        return v13
