"""A packed function described by result=(0.1,0.0) (swap) returns the second split part as its
field 0; the first part is written in place afterwards, and only the swapped field 0 is
returned: it names no written memory.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 21c115537c (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[swap_result_field_is_not_the_part_written]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1800134  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'split', 'args': ['x0'], 'attr': {'axis': 1, 'sections': 2}}, {'var': 'v2', 'op': 'get', 'args': ['v1'], 'attr': {'index': 0}}, {'var': 'v3', 'op': 'packed', 'args': ['v1'], 'attr': {'fn': 'swap'}}, {'var': 'v5', 'op': 'get', 'args': ['v3'], 'attr': {'index': 0}}, {'var': 'v11', 'op': 'inplace_packed', 'args': ['v2'], 'attr': {'fn': 'mystery_ip'}}], 'outputs': ['v5']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.split(x0, indices_or_sections=2, axis=1)
            v2 = v1[0]
            v3 = R.call_pure_packed("aliaslog.fuzz.swap", v1, ty_args=R.Tuple(R.Tensor((3, 1), "float32"), R.Tensor((3, 1), "float32")))
            v5 = v3[0]
            v11 = R.call_inplace_packed("aliaslog.fuzz.mystery_ip", v2, inplace_indices=[0], ty_args=(R.Tensor((3, 1), "float32"),))
            R.output(v5)
        return v5
