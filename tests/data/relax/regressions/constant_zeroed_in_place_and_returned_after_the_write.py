"""DataflowUseInplaceCalls writes a constant times 0 into the constant (a kernel that loads
nothing: LegalizeOps folds x * 0), and only the in-place result, returned after the write in
every call, reads it: no read sees the constant's old value.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-const, but no read in any VM run sees another value than value semantics.

Hash: 61c2004f6e (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[constant_zeroed_in_place_and_returned_after_the_write]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 1800198  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [3.0, 1.0, -2.0, -3.0, 0.0, 1.0]}}, {'var': 'v2', 'op': 'scalar', 'args': ['v1'], 'attr': {'fn': 'multiply', 'k': 0.0}}], 'outputs': ['v2']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x2: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.const(np.array([3.0, 1.0, -2.0, -3.0, 0.0, 1.0], "float32"))
            v2 = R.multiply(v1, R.const(0.0, "float32"))
            R.output(v2)
        return v2
