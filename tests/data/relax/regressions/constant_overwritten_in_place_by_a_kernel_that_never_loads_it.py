"""DataflowUseInplaceCalls writes a dead c * 0 into the constant c; TVM's kernel stores zeros
without loading c, and nothing else reads c, so no call sees the constant changed
(kernel_unread, read_base).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-const, but no read in any VM run sees another value than value semantics.

Hash: ee5f1e5cfc (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[constant_overwritten_in_place_by_a_kernel_that_never_loads_it]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 1200981  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v14', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [-3.0, 1.0, -1.0, 2.0, 0.0, -1.0]}}, {'var': 'v15', 'op': 'scalar', 'args': ['v14'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v16', 'op': 'split', 'args': ['x0'], 'attr': {'axis': 1, 'sections': 3}}, {'var': 'v17', 'op': 'get', 'args': ['v16'], 'attr': {'index': 1}}], 'outputs': ['v17']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v14 = R.const(np.array([-3.0, 1.0, -1.0, 2.0, 0.0, -1.0], "float32"))
            v15 = R.multiply(v14, R.const(0.0, "float32"))
            v16 = R.split(x0, indices_or_sections=3, axis=1)
            v17 = v16[1]
            R.output(v17)
        return v17
