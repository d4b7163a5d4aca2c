"""After FoldConstant, the writer packed function is given two constants with equal values (a
constant and its folded copy) and fills the second; the VM's executable keeps one copy of
structurally equal constants, so the write changes the tensor it reads too and returns a + 2.
Check took them for two tensors; the harness had judged the module given to FoldConstant for
all its findings, which hid the miss.

Fuzzer counterexample: Missed hazard of the Relax fuzzer on variant fold: the VM read another
value than value semantics and check reported no error.

Hash: 0c97f15307 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[equal_constants_are_one_tensor_in_the_vm]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'fold'
SEED = 1600927  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'tuple', 'args': ['x0', 'x0'], 'attr': {}}, {'var': 'v1', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [2.0, -2.0, 3.0, 2.0, -3.0, 0.0]}}, {'var': 'v2', 'op': 'call_tir', 'args': ['v1'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v3', 'op': 'packed', 'args': ['v1', 'v2'], 'attr': {'fn': 'writer'}}, {'var': 'v4', 'op': 'view_off', 'args': ['v1'], 'attr': {'shape': [4], 'offset': 0}}, {'var': 'v5', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'add'}}, {'var': 'v6', 'op': 'inplace', 'args': ['v3'], 'attr': {'kernel': 'inc', 'plain': False}}, {'var': 'v7', 'op': 'const', 'args': [], 'attr': {'shape': [2, 3], 'values': [0.0, 2.0, 2.0, 2.0, 2.0, -1.0]}}, {'var': 'v12', 'op': 'call', 'args': ['v4'], 'attr': {'fn': 'h8'}}, {'var': 'v13', 'op': 'binop', 'args': ['v7', 'v7'], 'attr': {'fn': 'multiply'}}], 'outputs': ['v0', 'v5', 'v6', 'v12', 'v13'], 'functions': [{'name': 'h8', 'kind': 'helper', 'params': [{'name': 'p9', 'shape': [4]}], 'dataflow': True, 'stmts': [{'var': 'v10', 'op': 'packed', 'args': ['p9'], 'attr': {'fn': 'ident'}}, {'var': 'v11', 'op': 'reshape', 'args': ['v10'], 'attr': {'shape': [4]}}], 'outputs': ['v11']}]}


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
    def h8(p9: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            v10 = R.call_pure_packed("aliaslog.fuzz.ident", p9, ty_args=R.Tensor((4,), "float32"))
            v11 = R.reshape(v10, R.shape([4]))
            R.output(v11)
        return v11

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v0 = (x0, x0,)
            v1 = R.const(np.array([[2.0, -2.0], [3.0, 2.0], [-3.0, 0.0]], "float32"))
            v2 = R.call_tir(cls.copy_3x2, (v1,), out_ty=R.Tensor((3, 2), "float32"))
            v3 = R.call_pure_packed("aliaslog.fuzz.writer", v1, v2, ty_args=R.Tensor((3, 2), "float32"))
            v4 = R.memory.view(v1, R.shape([4]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v5 = R.add(x0, x0)
            v6 = R.call_tir_inplace(cls.inc_3x2, (v3,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
            v7 = R.const(np.array([[0.0, 2.0, 2.0], [2.0, 2.0, -1.0]], "float32"))
            v12 = cls.h8(v4)
            v13 = R.multiply(v7, v7)
            R.output(v0, v5, v6, v12, v13)
        return (v0, v5, v6, v12, v13)
