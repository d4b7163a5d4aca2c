"""A tensor a function makes once per context (a heap clone) came back as the result of a call
that returns what it is given: the rules named the clone of a context no call reached, and the
read-back refused the points-to (an internal error, on six variants of seed 1300016 while heap
cloning was being built). The VM shows the module's hazard, which check reports.

Hash: 6e57dfbc9f (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[clone_returned_by_a_packed_function_a_closure_writes]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'internal'
VARIANT = 'as-written'
SEED = 1300016  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}, {'name': 'x1', 'shape': [2, 3]}, {'name': 'x2', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [3.0, 3.0, -2.0, -2.0, 1.0, -1.0]}}, {'var': 'v1', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v13', 'op': 'closure', 'args': ['v1', 'x2'], 'attr': {'fn': 'c2', 'inner': False}}, {'var': 'v14', 'op': 'invoke', 'args': ['v13', 'v0'], 'attr': {}}, {'var': 'v15', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [-1.0, -1.0, -3.0, -3.0, 3.0, -3.0]}}, {'var': 'v16', 'op': 'flatten', 'args': ['x0'], 'attr': {}}, {'var': 'v20', 'op': 'call', 'args': ['v1'], 'attr': {'fn': 'h17'}}, {'var': 'v21', 'op': 'concat1', 'args': ['v15'], 'attr': {}}, {'var': 'v22', 'op': 'tuple', 'args': ['v21', 'v21'], 'attr': {}}, {'var': 'v23', 'op': 'reshape', 'args': ['v21'], 'attr': {'shape': [3, 2]}}], 'outputs': ['v14', 'v16', 'v20', 'v22', 'v23'], 'functions': [{'name': 'c2', 'kind': 'closure', 'params': [{'name': 'p3', 'shape': [6]}, {'name': 'p4', 'shape': [6]}, {'name': 'p5', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v6', 'op': 'call_tir', 'args': ['p3'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v7', 'op': 'inplace_packed', 'args': ['v6'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v8', 'op': 'inplace_packed', 'args': ['p3', 'v6'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v9', 'op': 'split', 'args': ['v8'], 'attr': {'axis': 0, 'sections': 2}}, {'var': 'v10', 'op': 'get', 'args': ['v9'], 'attr': {'index': 1}}, {'var': 'v11', 'op': 'call_tir', 'args': ['p4'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v12', 'op': 'binop', 'args': ['p5', 'p5'], 'attr': {'fn': 'add'}}], 'outputs': ['v12'], 'ncap': 2}, {'name': 'h17', 'kind': 'helper', 'params': [{'name': 'p18', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v19', 'op': 'inplace_packed', 'args': ['p18'], 'attr': {'fn': 'inc_ip'}}], 'outputs': ['v19']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function(private=True)
    def c2(p3: R.Tensor((6,), "float32"), p4: R.Tensor((6,), "float32"), p5: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        v6 = R.call_tir(cls.scale2_6, (p3,), out_ty=R.Tensor((6,), "float32"))
        v7 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v6, inplace_indices=[0], ty_args=(R.Tensor((6,), "float32"),))
        v8 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", p3, v6, inplace_indices=[1], ty_args=(R.Tensor((6,), "float32"),))
        v9 = R.split(v8, indices_or_sections=2, axis=0)
        v10 = v9[1]
        v11 = R.call_tir(cls.scale2_6, (p4,), out_ty=R.Tensor((6,), "float32"))
        v12 = R.add(p5, p5)
        return v12

    @R.function(private=True)
    def h17(p18: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        with R.dataflow():
            v19 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", p18, inplace_indices=[0], ty_args=(R.Tensor((6,), "float32"),))
            R.output(v19)
        return v19

    @R.function
    def main(x0: R.Tensor((6,), "float32"), x1: R.Tensor((2, 3), "float32"), x2: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.const(np.array([3.0, 3.0, -2.0, -2.0, 1.0, -1.0], "float32"))
            v1 = R.call_tir(cls.add_one_6, (x0,), out_ty=R.Tensor((6,), "float32"))
            v13 = R.make_closure(cls.c2, (v1, x2,))
            v14 = R.invoke_pure_closure(v13, (v0, ), ty_args=(R.Tensor((2, 3), "float32"),))
            v15 = R.const(np.array([[-1.0, -1.0], [-3.0, -3.0], [3.0, -3.0]], "float32"))
            v16 = R.flatten(x0)
            v20 = cls.h17(v1)
            v21 = R.concat((v15,), axis=0)
            v22 = (v21, v21,)
            v23 = R.reshape(v21, R.shape([3, 2]))
            R.output(v14, v16, v20, v22, v23)
        return (v14, v16, v20, v22, v23)
