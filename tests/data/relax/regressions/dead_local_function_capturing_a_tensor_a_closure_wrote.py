"""A closure writes its captured tensor in place; afterwards a local function that captures the
same tensor is made and never called (after LambdaLift, a make_closure nobody uses): making a
local function or a closure reads none of its captures.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 7fc81c0844 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dead_local_function_capturing_a_tensor_a_closure_wrote]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200562  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}, {'name': 'x2', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x2'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v7', 'op': 'closure', 'args': ['v0'], 'attr': {'fn': 'c1', 'inner': False}}, {'var': 'v8', 'op': 'invoke', 'args': ['v7', 'x0'], 'attr': {}}, {'var': 'v20', 'op': 'closure', 'args': ['v0', 'x0'], 'attr': {'fn': 'c11', 'inner': True}}, {'var': 'v23', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [3.0, 0.0, 0.0, 2.0, 3.0, 0.0]}}], 'outputs': ['v23'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [2, 3]}, {'name': 'p3', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v6', 'op': 'inplace_packed', 'args': ['p3'], 'attr': {'fn': 'inc_ip'}}], 'outputs': ['v6'], 'ncap': 1}, {'name': 'c11', 'kind': 'closure', 'params': [{'name': 'p12', 'shape': [2, 3]}, {'name': 'p13', 'shape': [6]}, {'name': 'p14', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [], 'outputs': ['p13'], 'ncap': 2}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function(private=True)
    def c1(p2: R.Tensor((2, 3), "float32"), p3: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        with R.dataflow():
            v6 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", p3, inplace_indices=[0], ty_args=(R.Tensor((6,), "float32"),))
            R.output(v6)
        return v6

    @R.function
    def main(x0: R.Tensor((2, 3), "float32"), x2: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.call_tir(cls.scale2_6, (x2,), out_ty=R.Tensor((6,), "float32"))
        v7 = R.make_closure(cls.c1, (v0,))
        v8 = R.invoke_pure_closure(v7, (x0, ), ty_args=(R.Tensor((6,), "float32"),))
        @R.function
        def v20(p12: R.Tensor((2, 3), "float32")) -> R.Tensor((6,), "float32"):
            return v0
        v23 = R.const(np.array([3.0, 0.0, 0.0, 2.0, 3.0, 0.0], "float32"))
        return v23
