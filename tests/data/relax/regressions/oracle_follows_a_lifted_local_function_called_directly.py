"""LambdaLift lifts a local function that uses none of its captures to a direct call of main_v9:
the oracle maps it back to the spec's function and gives it the captures it is not passed.

Fuzzer counterexample (oracle, variant dce): KeyError: 'main_v9'.

Hash: 0e2dd6af60 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[oracle_follows_a_lifted_local_function_called_directly]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'oracle'
VARIANT = 'dce'
SEED = 1003298  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}, {'name': 'x1', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x1'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v1', 'op': 'packed', 'args': ['x1', 'x1'], 'attr': {'fn': 'writer'}}, {'var': 'v9', 'op': 'closure', 'args': ['x1'], 'attr': {'fn': 'c2', 'inner': True}}, {'var': 'v10', 'op': 'invoke', 'args': ['v9', 'v1'], 'attr': {'direct': True}}, {'var': 'v11', 'op': 'permute', 'args': ['v1'], 'attr': {}}, {'var': 'v12', 'op': 'inplace_packed', 'args': ['v11'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v13', 'op': 'call_tir', 'args': ['v11'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v14', 'op': 'packed', 'args': ['v13'], 'attr': {'fn': 'vmcopy'}}, {'var': 'v15', 'op': 'inplace_packed', 'args': ['v13'], 'attr': {'fn': 'mystery_ip'}}, {'var': 'v16', 'op': 'const', 'args': [], 'attr': {'shape': [2, 3], 'values': [-1.0, 0.0, 2.0, 0.0, 0.0, -3.0]}}], 'outputs': ['v0', 'v10', 'v12', 'v14', 'v15', 'v16'], 'functions': [{'name': 'c2', 'kind': 'closure', 'params': [{'name': 'p3', 'shape': [1, 6]}, {'name': 'p4', 'shape': [1, 6]}], 'dataflow': False, 'stmts': [{'var': 'v5', 'op': 'call_tir', 'args': ['p3'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v6', 'op': 'inplace', 'args': ['v5', 'p4'], 'attr': {'kernel': 'addto', 'plain': False}}, {'var': 'v7', 'op': 'inplace_packed', 'args': ['v5'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v8', 'op': 'scalar', 'args': ['v7'], 'attr': {'fn': 'multiply', 'k': -1.0}}], 'outputs': ['v8'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def addto_1x6(a: T.Buffer((1, 6), "float32"), b: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def copy_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def copy_6x1(a: T.Buffer((6, 1), "float32"), out: T.Buffer((6, 1), "float32")):
        for i0, i1 in T.grid(6, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @R.function
    def main(x0: R.Tensor((2, 3), "float32"), x1: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add_one_1x6, (x1,), out_ty=R.Tensor((1, 6), "float32"))
            v1 = R.call_pure_packed("aliaslog.fuzz.writer", x1, x1, ty_args=R.Tensor((1, 6), "float32"))
            @R.function
            def v9(p3: R.Tensor((1, 6), "float32")) -> R.Tensor((1, 6), "float32"):
                v5 = R.call_tir(cls.copy_1x6, (p3,), out_ty=R.Tensor((1, 6), "float32"))
                v6 = R.call_tir_inplace(cls.addto_1x6, (v5, x1,), inplace_indices=[0], out_ty=R.Tensor((1, 6), "float32"))
                v7 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v5, inplace_indices=[0], ty_args=(R.Tensor((1, 6), "float32"),))
                v8 = R.multiply(v7, R.const(-1.0, "float32"))
                return v8
            v10 = v9(v1)
            v11 = R.permute_dims(v1)
            v12 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v11, inplace_indices=[0], ty_args=(R.Tensor((6, 1), "float32"),))
            v13 = R.call_tir(cls.copy_6x1, (v11,), out_ty=R.Tensor((6, 1), "float32"))
            v14 = R.call_pure_packed("vm.builtin.copy", v13, ty_args=R.Tensor((6, 1), "float32"))
            v15 = R.call_inplace_packed("aliaslog.fuzz.mystery_ip", v13, inplace_indices=[0], ty_args=(R.Tensor((6, 1), "float32"),))
            v16 = R.const(np.array([[-1.0, 0.0, 2.0], [0.0, 0.0, -3.0]], "float32"))
            R.output(v0, v10, v12, v14, v15, v16)
        return (v0, v10, v12, v14, v15, v16)
