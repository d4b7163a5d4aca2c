"""A reshape in a dataflow block whose result is an output of the block (not a dataflow variable):
RewriteDataflowReshape leaves it the copying kernel LegalizeOps made, so a later in-place write
of its input does not change it (check reported inplace-live).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports inplace-live, but no
read in any VM run sees another value than value semantics.

Hash: 91fd51f170 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[reshape_bound_to_a_dataflow_output_is_a_copy]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1003017  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'call_tir', 'args': ['x1'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v10', 'op': 'reshape', 'args': ['v1'], 'attr': {'shape': [3, 2]}}, {'var': 'v20', 'op': 'inplace', 'args': ['v1'], 'attr': {'kernel': 'inc', 'plain': False}}], 'outputs': ['v10']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def inc_1x6(a: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function
    def main(x1: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.call_tir(cls.add_one_1x6, (x1,), out_ty=R.Tensor((1, 6), "float32"))
            v10 = R.reshape(v1, R.shape([3, 2]))
            v20 = R.call_tir_inplace(cls.inc_1x6, (v1,), inplace_indices=[0], out_ty=R.Tensor((1, 6), "float32"))
            R.output(v10)
        return v10
