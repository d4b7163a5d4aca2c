"""After DataflowUseInplaceCalls and FoldConstant, 2c - c is computed in place into the constant c
(both folded constants): the kernel, run on the known bytes, stores exactly c's bytes, and
nothing else writes c, so no call ever sees another value: no inplace-const.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace+fold: check
reported inplace-const, but no read in any VM run sees another value than value semantics.

Hash: b3b8c334cb (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[constant_updated_in_place_with_the_bytes_it_holds]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace+fold'
SEED = 2100604  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}, {'name': 'x1', 'shape': [2, 3]}, {'name': 'x2', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [-2.0, -2.0, -3.0, 1.0, 2.0, 0.0]}}, {'var': 'v2', 'op': 'binop', 'args': ['v1', 'v1'], 'attr': {'fn': 'add'}}, {'var': 'v30', 'op': 'view_off', 'args': ['v2'], 'attr': {'shape': [3], 'offset': 0}}, {'var': 'v31', 'op': 'binop', 'args': ['v2', 'v1'], 'attr': {'fn': 'subtract'}}], 'outputs': ['v31'], 'functions': [{'name': 'c3', 'kind': 'closure', 'params': [{'name': 'p4', 'shape': [3, 2]}, {'name': 'p5', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [], 'outputs': ['p5'], 'ncap': 1}, {'name': 'c13', 'kind': 'closure', 'params': [{'name': 'p14', 'shape': [3, 2]}, {'name': 'p15', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [], 'outputs': ['p14'], 'ncap': 1}, {'name': 'h24', 'kind': 'helper', 'params': [{'name': 'p25', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v27', 'op': 'binop', 'args': ['p25', 'p25'], 'attr': {'fn': 'multiply'}}], 'outputs': ['v27']}]}


@I.ir_module(s_tir=True)
class Module:
    @R.function(private=True)
    def h24(p25: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        cls = Module
        with R.dataflow():
            v27 = R.multiply(p25, p25)
            R.output(v27)
        return v27

    @R.function
    def main(x0: R.Tensor((1, 6), "float32"), x1: R.Tensor((2, 3), "float32"), x2: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.const(np.array([[-2.0, -2.0], [-3.0, 1.0], [2.0, 0.0]], "float32"))
            v2 = R.add(v1, v1)
            v30 = R.memory.view(v2, R.shape([3]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v31 = R.subtract(v2, v1)
            R.output(v31)
        return v31
