"""After FoldConstant the writer packed function is given two inline constants and fills the
second (its destination) on every call; nothing loads that constant, so no call sees it changed
(an inline constant given only as a destination is no read).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant fold: check
reported inplace-const, but no read in any VM run sees another value than value semantics.

Hash: aba6823d67 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[packed_function_fills_an_inline_constant_nothing_reads]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'fold'
SEED = 1600412  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [-1.0, 2.0, 0.0, 2.0, -2.0, 3.0]}}, {'var': 'v1', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [-3.0, 1.0, 2.0, -3.0, -1.0, -3.0]}}, {'var': 'v7', 'op': 'packed', 'args': ['v0', 'v1'], 'attr': {'fn': 'writer'}}], 'outputs': ['v7']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x1: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.const(np.array([[-1.0, 2.0], [0.0, 2.0], [-2.0, 3.0]], "float32"))
            v1 = R.const(np.array([[-3.0, 1.0], [2.0, -3.0], [-1.0, -3.0]], "float32"))
            v7 = R.call_pure_packed("aliaslog.fuzz.writer", v0, v1, ty_args=R.Tensor((3, 2), "float32"))
            R.output(v7)
        return v7
