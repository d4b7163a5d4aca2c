"""Outside a dataflow block an in-place packed call writes a tensor, and an add nothing uses reads
it afterwards: TVM's VM runs the add, but its result reaches no one, so neither check nor the
fuzzer's oracle counts the read (the same add made an output is caught).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 74252cf153 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dead_kernel_reads_a_tensor_written_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v1', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'add', 'k': 2.0}}, {'var': 'v2', 'op': 'inplace_packed', 'args': ['v1'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v3', 'op': 'binop', 'args': ['v1', 'v1'], 'attr': {'fn': 'add'}}], 'outputs': ['v2']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x1: R.Tensor((6,), "float32")):
        cls = Module
        v1 = R.add(x1, R.const(2.0, "float32"))
        v2 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v1, inplace_indices=[0], ty_args=(R.Tensor((6,), "float32"),))
        v3 = R.add(v1, v1)
        return v2
