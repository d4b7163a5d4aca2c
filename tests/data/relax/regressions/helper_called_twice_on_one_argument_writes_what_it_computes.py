"""A helper computes a tensor from its argument and doubles it in place; main calls it twice on
the same argument and returns both results: each call writes the tensor it made itself.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant dce: check reported
inplace-live, but no read in any VM run sees another value than value semantics.

Hash: b50e2d48f5 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[helper_called_twice_on_one_argument_writes_what_it_computes]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'dce'
SEED = 1200285  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v8', 'op': 'call', 'args': ['x0'], 'attr': {'fn': 'h2'}}, {'var': 'v13', 'op': 'call', 'args': ['x0'], 'attr': {'fn': 'h2'}}], 'outputs': ['v8', 'v13'], 'functions': [{'name': 'h2', 'kind': 'helper', 'params': [{'name': 'p3', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'permute', 'args': ['p3'], 'attr': {}}, {'var': 'v5', 'op': 'binop', 'args': ['v4', 'v4'], 'attr': {'fn': 'multiply'}}, {'var': 'v7', 'op': 'inplace', 'args': ['v5', 'v5'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['v7']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_6x1(a: T.Buffer((6, 1), "float32"), b: T.Buffer((6, 1), "float32")):
        for i0, i1 in T.grid(6, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @R.function(private=True)
    def h2(p3: R.Tensor((1, 6), "float32")) -> R.Tensor((6, 1), "float32"):
        cls = Module
        with R.dataflow():
            v4 = R.permute_dims(p3)
            v5 = R.multiply(v4, v4)
            v7 = R.call_tir_inplace(cls.addto_6x1, (v5, v5,), inplace_indices=[0], out_ty=R.Tensor((6, 1), "float32"))
            R.output(v7)
        return v7

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v8 = cls.h2(x0)
            v13 = cls.h2(x0)
            R.output(v8, v13)
        return (v8, v13)
