"""A closure capturing x - x adds the capture to itself in place when invoked: 0 and NaN stay. The
capture's set comes from the make_closure site, and a call whose function writes only by put-
backs changes no byte (quiet).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 4269d5f711 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[closure_doubles_its_zero_or_nan_capture_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2400900  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}, {'name': 'x1', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x1', 'x1'], 'attr': {'fn': 'subtract'}}, {'var': 'v7', 'op': 'closure', 'args': ['v0'], 'attr': {'fn': 'c2', 'inner': False}}, {'var': 'v9', 'op': 'invoke', 'args': ['v7', 'x0'], 'attr': {}}, {'var': 'v10', 'op': 'tuple', 'args': ['v9', 'v0'], 'attr': {}}, {'var': 'v11', 'op': 'packed', 'args': ['v10'], 'attr': {'fn': 'first'}}], 'outputs': ['v11'], 'functions': [{'name': 'c2', 'kind': 'closure', 'params': [{'name': 'p3', 'shape': [6]}, {'name': 'p4', 'shape': [1, 6]}], 'dataflow': False, 'stmts': [{'var': 'v6', 'op': 'inplace', 'args': ['p4', 'p4'], 'attr': {'kernel': 'addto', 'plain': True}}], 'outputs': ['v6'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True)
    def addto_plain_1x6(a: T.Buffer((1, 6), "float32"), b: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            a[i0, i1] = a[i0, i1] + b[i0, i1]

    @R.function(private=True)
    def c2(p3: R.Tensor((6,), "float32"), p4: R.Tensor((1, 6), "float32")) -> R.Tensor((1, 6), "float32"):
        cls = Module
        v6 = R.call_tir_inplace(cls.addto_plain_1x6, (p4, p4,), inplace_indices=[0], out_ty=R.Tensor((1, 6), "float32"))
        return v6

    @R.function
    def main(x0: R.Tensor((6,), "float32"), x1: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.subtract(x1, x1)
            v7 = R.make_closure(cls.c2, (v0,))
            v9 = R.invoke_pure_closure(v7, (x0, ), ty_args=(R.Tensor((1, 6), "float32"),))
            v10 = (v9, v0,)
            v11 = R.call_pure_packed("aliaslog.fuzz.first", v10, ty_args=R.Tensor((1, 6), "float32"))
            R.output(v11)
        return v11
