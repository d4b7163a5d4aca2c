"""A local function writes a tensor in place and then takes an identity astype of it that nothing
uses: RewriteDataflowReshape makes the astype a view, so the VM reads nothing for it, in a
function body as in main.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 770501749c (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dead_astype_in_a_local_function_after_it_writes]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200427  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}, {'name': 'x1', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v8', 'op': 'closure', 'args': ['x1'], 'attr': {'fn': 'c1', 'inner': True}}, {'var': 'v10', 'op': 'split', 'args': ['x0'], 'attr': {'axis': 0, 'sections': 3}}, {'var': 'v12', 'op': 'get', 'args': ['v10'], 'attr': {'index': 1}}, {'var': 'v14', 'op': 'invoke', 'args': ['v8', 'x0'], 'attr': {}}], 'outputs': ['v12'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [3, 2]}, {'name': 'p3', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'call_tir', 'args': ['p2'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v5', 'op': 'inplace', 'args': ['v4', 'p3'], 'attr': {'kernel': 'addto', 'plain': True}}, {'var': 'v6', 'op': 'astype', 'args': ['v4'], 'attr': {}}, {'var': 'v7', 'op': 'reshape', 'args': ['p3'], 'attr': {'shape': [3, 2]}}], 'outputs': ['v7'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True)
    def addto_plain_3x2(a: T.Buffer((3, 2), "float32"), b: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            a[i0, i1] = a[i0, i1] + b[i0, i1]

    @R.function
    def main(x0: R.Tensor((3, 2), "float32"), x1: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            @R.function
            def v8(p2: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
                with R.dataflow():
                    v4 = R.call_tir(cls.add_one_3x2, (p2,), out_ty=R.Tensor((3, 2), "float32"))
                    v5 = R.call_tir_inplace(cls.addto_plain_3x2, (v4, x1,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
                    v6 = R.astype(v4, "float32")
                    v7 = R.reshape(x1, R.shape([3, 2]))
                    R.output(v7)
                return v7
            v10 = R.split(x0, indices_or_sections=3, axis=0)
            v12 = v10[1]
            v14 = R.invoke_pure_closure(v8, (x0, ), ty_args=(R.Tensor((3, 2), "float32"),))
            R.output(v12)
        return v12
