"""A kernel increments a tensor in place; a closure made afterwards captures the tensor's older
name twice and returns it (vm.builtin.copy returns its argument itself): the closure holds the
older name, whose value the write destroyed.

Fuzzer counterexample (missed, variant as-written): run 1: output 1 is [[0.0, -2.0], [5.0,
4.0], [3.0, -2.0]], expected [[-1.0, -3.0], [4.0, 3.0], [2.0, -3.0]].

Hash: 5ea4730a14 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[closure_made_after_an_in_place_write_returns_the_written_capture]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 1400195  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}, {'name': 'x1', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [0.0, 2.0, -2.0, 2.0, -3.0, 2.0]}}, {'var': 'v1', 'op': 'call_tir', 'args': ['x1'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v2', 'op': 'inplace', 'args': ['v1'], 'attr': {'kernel': 'inc', 'plain': False}}, {'var': 'v3', 'op': 'view_off', 'args': ['v2'], 'attr': {'shape': [1, 3], 'offset': 8}}, {'var': 'v11', 'op': 'closure', 'args': ['v1', 'v1'], 'attr': {'fn': 'c4', 'inner': False}}, {'var': 'v12', 'op': 'invoke', 'args': ['v11', 'x0'], 'attr': {}}, {'var': 'v13', 'op': 'split', 'args': ['v0'], 'attr': {'axis': 0, 'sections': 2}}, {'var': 'v14', 'op': 'get', 'args': ['v13'], 'attr': {'index': 0}}, {'var': 'v15', 'op': 'get', 'args': ['v13'], 'attr': {'index': 1}}], 'outputs': ['v3', 'v12', 'v14', 'v15'], 'functions': [{'name': 'c4', 'kind': 'closure', 'params': [{'name': 'p5', 'shape': [2, 3]}, {'name': 'p6', 'shape': [3, 2]}, {'name': 'p7', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v8', 'op': 'astype', 'args': ['p6'], 'attr': {}}, {'var': 'v9', 'op': 'binop', 'args': ['v8', 'v8'], 'attr': {'fn': 'multiply'}}, {'var': 'v10', 'op': 'packed', 'args': ['p7'], 'attr': {'fn': 'vmcopy'}}], 'outputs': ['v10'], 'ncap': 2}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def inc_3x2(a_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function(private=True)
    def c4(p5: R.Tensor((2, 3), "float32"), p6: R.Tensor((3, 2), "float32"), p7: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        cls = Module
        v8 = R.astype(p6, "float32")
        v9 = R.multiply(v8, v8)
        v10 = R.call_pure_packed("vm.builtin.copy", p7, ty_args=R.Tensor((3, 2), "float32"))
        return v10

    @R.function
    def main(x0: R.Tensor((2, 3), "float32"), x1: R.Tensor((3, 2), "float32")):
        cls = Module
        v0 = R.const(np.array([0.0, 2.0, -2.0, 2.0, -3.0, 2.0], "float32"))
        v1 = R.call_tir(cls.copy_3x2, (x1,), out_ty=R.Tensor((3, 2), "float32"))
        v2 = R.call_tir_inplace(cls.inc_3x2, (v1,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
        v3 = R.memory.view(v2, R.shape([1, 3]), R.dtype("float32"), relative_byte_offset=R.prim_value(8))
        v11 = R.make_closure(cls.c4, (v1, v1,))
        v12 = R.invoke_pure_closure(v11, (x0, ), ty_args=(R.Tensor((3, 2), "float32"),))
        v13 = R.split(v0, indices_or_sections=2, axis=0)
        v14 = v13[0]
        v15 = v13[1]
        return (v3, v12, v14, v15)
