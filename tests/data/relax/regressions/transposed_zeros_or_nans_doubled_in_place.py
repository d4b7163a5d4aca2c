"""A unit-dimension transpose of a reshape of x - x (a view at the legalized point: its elements
are x - x's) added to itself in place: 0 and NaN stay, so the tuple field naming x - x is no
stale read.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: de65b3762c (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[transposed_zeros_or_nans_doubled_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1900612  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}, {'var': 'v15', 'op': 'tuple', 'args': ['v0', 'x0', 'v0'], 'attr': {}}, {'var': 'v16', 'op': 'reshape', 'args': ['v0'], 'attr': {'shape': [1, 6]}}, {'var': 'v17', 'op': 'permute', 'args': ['v16'], 'attr': {}}, {'var': 'v18', 'op': 'inplace', 'args': ['v17', 'v17'], 'attr': {'kernel': 'addto', 'plain': False}}, {'var': 'v21', 'op': 'get', 'args': ['v15'], 'attr': {'index': 0}}], 'outputs': ['v21']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_6x1(a: T.Buffer((6, 1), "float32"), b: T.Buffer((6, 1), "float32")):
        for i0, i1 in T.grid(6, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @R.function
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.subtract(x0, x0)
            v15 = (v0, x0, v0,)
            v16 = R.reshape(v0, R.shape([1, 6]))
            v17 = R.permute_dims(v16)
            v18 = R.call_tir_inplace(cls.addto_6x1, (v17, v17,), inplace_indices=[0], out_ty=R.Tensor((6, 1), "float32"))
            v21 = v15[0]
            R.output(v21)
        return v21
