"""A closure called twice splits its captured tensor and DataflowUseInplaceCalls writes a part in
place: each call's split makes its own tuple of outputs, so the second call's write is no write
of what the first returned (the outputs' tuple was one object for every context).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 328b0db360 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[closure_called_twice_writes_a_part_of_its_own_split]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 1200908  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v7', 'op': 'closure', 'args': ['x0'], 'attr': {'fn': 'c1', 'inner': False}}, {'var': 'v8', 'op': 'invoke', 'args': ['v7', 'x0'], 'attr': {}}, {'var': 'v9', 'op': 'invoke', 'args': ['v7', 'x0'], 'attr': {}}], 'outputs': ['v8'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [1, 6]}, {'name': 'p3', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'split', 'args': ['p3'], 'attr': {'axis': 1, 'sections': 3}}, {'var': 'v5', 'op': 'get', 'args': ['v4'], 'attr': {'index': 1}}, {'var': 'v6', 'op': 'binop', 'args': ['v5', 'v5'], 'attr': {'fn': 'subtract'}}], 'outputs': ['v6'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @R.function(private=True)
    def c1(p2: R.Tensor((1, 6), "float32"), p3: R.Tensor((1, 6), "float32")) -> R.Tensor((1, 2), "float32"):
        cls = Module
        with R.dataflow():
            v4 = R.split(p3, indices_or_sections=3, axis=1)
            v5 = v4[1]
            v6 = R.subtract(v5, v5)
            R.output(v6)
        return v6

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v7 = R.make_closure(cls.c1, (x0,))
            v8 = R.invoke_pure_closure(v7, (x0, ), ty_args=(R.Tensor((1, 2), "float32"),))
            v9 = R.invoke_pure_closure(v7, (x0, ), ty_args=(R.Tensor((1, 2), "float32"),))
            R.output(v8)
        return v8
