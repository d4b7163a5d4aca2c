"""DataflowUseInplaceCalls makes `v3 = add(v0, v0)` write `v0`, which the returned tuple
`v1` holds: TVM's pass does not count the function's result as a use, and neither did
aliaslog's check of the pass output.

Fuzzer counterexample (missed, variant inplace): run 1: output 1 is [16.0, 0.0, -8.0, 0.0, 8.0,
-12.0], expected [8.0, 0.0, -4.0, 0.0, 4.0, -6.0].

Hash: 09f4818906 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[inplace_pass_clobbers_tuple_returned]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
SEED = 39  # the oracle's inputs
VARIANT = 'inplace'
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'add'}}, {'var': 'v1', 'op': 'tuple', 'args': ['x0', 'v0'], 'attr': {}}, {'var': 'v3', 'op': 'binop', 'args': ['v0', 'v0'], 'attr': {'fn': 'add'}}, {'var': 'v6', 'op': 'reshape', 'args': ['v3'], 'attr': {'shape': [2, 3]}}], 'outputs': ['v1', 'v6']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.add(x0, x0)
            v1 = (x0, v0,)
            v3 = R.add(v0, v0)
            v6 = R.reshape(v3, R.shape([2, 3]))
            R.output(v1, v6)
        return (v1, v6)
