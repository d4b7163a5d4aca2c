"""A local function writes an entry parameter, but nothing invokes it: the write never happens
(check reported inplace-param and write-overlap).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports inplace-param, write-
overlap, but no read in any VM run sees another value than value semantics.

Hash: bc1eaf5ac0 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[write_in_a_local_function_nobody_calls]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1000104  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [2, 3]}, {'name': 'x2', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v5', 'op': 'closure', 'args': ['x2'], 'attr': {'fn': 'c1', 'inner': True}}, {'var': 'v7', 'op': 'binop', 'args': ['x1', 'x2'], 'attr': {'fn': 'multiply'}}], 'outputs': ['v7'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [6]}, {'name': 'p3', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'packed', 'args': ['p3', 'p3'], 'attr': {'fn': 'writer'}}], 'outputs': ['v4'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x1: R.Tensor((2, 3), "float32"), x2: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            @R.function
            def v5(p2: R.Tensor((6,), "float32")) -> R.Tensor((2, 3), "float32"):
                with R.dataflow():
                    v4 = R.call_pure_packed("aliaslog.fuzz.writer", x2, x2, ty_args=R.Tensor((2, 3), "float32"))
                    R.output(v4)
                return v4
            v7 = R.multiply(x1, x2)
            R.output(v7)
        return v7
