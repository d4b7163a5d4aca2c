"""A local function computes a tensor and, after DataflowUseInplaceCalls, adds it to itself in
place; main invokes it twice, once through invoke_pure_closure and once by name. A closure call
runs its function once per pair of call sites (call_ctx), so each invocation writes the tensor
it made itself.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: a1c78a5d78 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[local_function_invoked_twice_writes_what_it_computes]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 1200561  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v11', 'op': 'closure', 'args': ['x0'], 'attr': {'fn': 'c4', 'inner': True}}, {'var': 'v12', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [3.0, 0.0, 2.0, -1.0, 3.0, -3.0]}}, {'var': 'v13', 'op': 'invoke', 'args': ['v11', 'v12'], 'attr': {}}, {'var': 'v14', 'op': 'invoke', 'args': ['v11', 'v12'], 'attr': {'direct': True}}, {'var': 'v24', 'op': 'const', 'args': [], 'attr': {'shape': [1, 6], 'values': [-2.0, -3.0, 1.0, -3.0, 0.0, -3.0]}}, {'var': 'v25', 'op': 'tuple', 'args': ['v24', 'x0'], 'attr': {}}], 'outputs': ['v13'], 'functions': [{'name': 'c4', 'kind': 'closure', 'params': [{'name': 'p5', 'shape': [3, 2]}, {'name': 'p6', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v7', 'op': 'call_tir', 'args': ['p6'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v10', 'op': 'binop', 'args': ['v7', 'v7'], 'attr': {'fn': 'add'}}], 'outputs': ['v10'], 'ncap': 1}, {'name': 'h17', 'kind': 'helper', 'params': [{'name': 'p18', 'shape': [1, 6]}], 'dataflow': False, 'stmts': [], 'outputs': ['p18']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(private=True)
    def h17(p18: R.Tensor((1, 6), "float32")) -> R.Tensor((1, 6), "float32"):
        cls = Module
        return p18

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            @R.function
            def v11(p5: R.Tensor((3, 2), "float32")) -> R.Tensor((1, 6), "float32"):
                with R.dataflow():
                    v7 = R.call_tir(cls.scale2_1x6, (x0,), out_ty=R.Tensor((1, 6), "float32"))
                    v10 = R.add(v7, v7)
                    R.output(v10)
                return v10
            v12 = R.const(np.array([[3.0, 0.0], [2.0, -1.0], [3.0, -3.0]], "float32"))
            v13 = R.invoke_pure_closure(v11, (v12, ), ty_args=(R.Tensor((1, 6), "float32"),))
            v14 = v11(v12)
            v24 = R.const(np.array([[-2.0, -3.0, 1.0, -3.0, 0.0, -3.0]], "float32"))
            v25 = (v24, x0,)
            R.output(v13)
        return v13
