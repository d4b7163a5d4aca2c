"""A private helper given x - x multiplies its parameter by an identity astype of itself in place
(DataflowUseInplaceCalls): 0 and NaN stay. The parameter's set comes from the one call site
(param_sets.py), and the caller's tensor holds its value until that call.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: e7d8848234 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[helper_multiplies_its_zero_or_nan_parameter_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 2400021  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}, {'var': 'v7', 'op': 'call', 'args': ['v0', 'v0'], 'attr': {'fn': 'h1'}}, {'var': 'v18', 'op': 'permute', 'args': ['v0'], 'attr': {}}, {'var': 'v19', 'op': 'inplace', 'args': ['v18', 'v18'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['v19'], 'functions': [{'name': 'h1', 'kind': 'helper', 'params': [{'name': 'p2', 'shape': [1, 6]}, {'name': 'p3', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'astype', 'args': ['p3'], 'attr': {}}, {'var': 'v6', 'op': 'binop', 'args': ['p3', 'v4'], 'attr': {'fn': 'multiply'}}], 'outputs': ['v6']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_6x1(a: T.Buffer((6, 1), "float32"), b: T.Buffer((6, 1), "float32")):
        for i0, i1 in T.grid(6, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @R.function(private=True)
    def h1(p2: R.Tensor((1, 6), "float32"), p3: R.Tensor((1, 6), "float32")) -> R.Tensor((1, 6), "float32"):
        cls = Module
        with R.dataflow():
            v4 = R.astype(p3, "float32")
            v6 = R.multiply(p3, v4)
            R.output(v6)
        return v6

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.subtract(x0, x0)
            v7 = cls.h1(v0, v0)
            v18 = R.permute_dims(v0)
            v19 = R.call_tir_inplace(cls.addto_6x1, (v18, v18,), inplace_indices=[0], out_ty=R.Tensor((6, 1), "float32"))
            R.output(v19)
        return v19
