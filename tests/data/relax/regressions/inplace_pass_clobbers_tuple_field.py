"""DataflowUseInplaceCalls makes `v10 = v1 + 2` write `v1`, a field of the returned tuple
`v4` (the same class as inplace_pass_clobbers_tuple_returned, through a scalar operand).

Fuzzer counterexample (missed, variant inplace): run 1: output 0 is [[2.0, 2.0, 2.0], [2.0,
2.0, 2.0]], expected [[0.0, -0.0, -0.0], [0.0, 0.0, 0.0]].

Hash: 77f5f3a5b0 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[inplace_pass_clobbers_tuple_field]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
SEED = 23  # the oracle's inputs
VARIANT = 'inplace'
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}, {'name': 'x1', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v4', 'op': 'tuple', 'args': ['v1', 'x0'], 'attr': {}}, {'var': 'v7', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [1.0, -3.0, 3.0, 0.0, -2.0, 2.0]}}, {'var': 'v10', 'op': 'scalar', 'args': ['v1'], 'attr': {'fn': 'add', 'k': 2.0}}, {'var': 'v11', 'op': 'expand', 'args': ['v7'], 'attr': {}}], 'outputs': ['v4', 'v11']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((2, 3), "float32"), x1: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.multiply(x1, R.const(0.0, "float32"))
            v4 = (v1, x0,)
            v7 = R.const(np.array([1.0, -3.0, 3.0, 0.0, -2.0, 2.0], "float32"))
            v10 = R.add(v1, R.const(2.0, "float32"))
            v11 = R.expand_dims(v7, axis=0)
            R.output(v4, v11)
        return (v4, v11)
