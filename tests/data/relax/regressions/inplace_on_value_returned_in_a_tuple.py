"""`v7` increments `v0` in place while the returned tuple `v5` still holds `v0`: the
function's result, a tuple of variables, was not a use of them, so the write was missed.

Fuzzer counterexample (missed, variant as-written): run 1: output 0 is [[6.0, 3.0, 0.0, 3.0,
2.0, 2.0]], expected [[5.0, 2.0, -1.0, 2.0, 1.0, 1.0]].

Hash: 1a9dee8520 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[inplace_on_value_returned_in_a_tuple]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
SEED = 52  # the oracle's inputs
VARIANT = 'as-written'
SPEC = {'params': [{'name': 'x1', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x1'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v5', 'op': 'tuple', 'args': ['v0', 'x1'], 'attr': {}}, {'var': 'v7', 'op': 'inplace', 'args': ['v0'], 'attr': {'kernel': 'inc', 'plain': True}}, {'var': 'v8', 'op': 'permute', 'args': ['v7'], 'attr': {}}], 'outputs': ['v5', 'v8']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True)
    def inc_plain_1x6(a: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            a[i0, i1] = a[i0, i1] + T.float32(1)

    @R.function
    def main(x1: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add_one_1x6, (x1,), out_ty=R.Tensor((1, 6), "float32"))
            v5 = (v0, x1,)
            v7 = R.call_tir_inplace(cls.inc_plain_1x6, (v0,), inplace_indices=[0], out_ty=R.Tensor((1, 6), "float32"))
            v8 = R.permute_dims(v7)
            R.output(v5, v8)
        return (v5, v8)
