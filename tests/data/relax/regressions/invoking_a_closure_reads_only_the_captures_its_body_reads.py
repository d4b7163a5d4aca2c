"""Invoking a closure reads what it captured only where its function reads that captured
parameter: DataflowUseInplaceCalls writes a captured tensor in place before the closure is
invoked, but the body only multiplies the capture by a literal zero (folded: no load).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 28f040de8d (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[invoking_a_closure_reads_only_the_captures_its_body_reads]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 2200027  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v2', 'op': 'scalar', 'args': ['x0'], 'attr': {'fn': 'multiply', 'k': 2.0}}, {'var': 'v10', 'op': 'closure', 'args': ['v2'], 'attr': {'fn': 'c4', 'inner': False}}, {'var': 'v13', 'op': 'binop', 'args': ['v2', 'v2'], 'attr': {'fn': 'multiply'}}, {'var': 'v15', 'op': 'invoke', 'args': ['v10', 'v13'], 'attr': {}}, {'var': 'v16', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'multiply'}}], 'outputs': ['v16'], 'functions': [{'name': 'c4', 'kind': 'closure', 'params': [{'name': 'p5', 'shape': [2, 3]}, {'name': 'p6', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v7', 'op': 'scalar', 'args': ['p6'], 'attr': {'fn': 'multiply', 'k': 0.0}}], 'outputs': ['p5'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @R.function(private=True)
    def c4(p5: R.Tensor((2, 3), "float32"), p6: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        v7 = R.multiply(p6, R.const(0.0, "float32"))
        return p5

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v2 = R.multiply(x0, R.const(2.0, "float32"))
            v10 = R.make_closure(cls.c4, (v2,))
            v13 = R.multiply(v2, v2)
            v15 = R.invoke_pure_closure(v10, (v13, ), ty_args=(R.Tensor((2, 3), "float32"),))
            v16 = R.multiply(x0, x0)
            R.output(v16)
        return v16
