"""TVM's planner puts a transpose's output in the storage of a tensor whose last use is making a
view nobody reads: making the view reads no memory, so nothing sees the clobbered bytes (check
reported storage-reuse at the lowered point).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports storage-reuse, but no
read in any VM run sees another value than value semantics.

Hash: fc1af75d2f (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[making_a_view_reads_no_memory]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1003154  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'add', 'k': 2.0}}, {'var': 'v2', 'op': 'binop', 'args': ['v0', 'v0'], 'attr': {'fn': 'add'}}, {'var': 'v3', 'op': 'scalar', 'args': ['v0'], 'attr': {'fn': 'multiply', 'k': 1.0}}, {'var': 'v7', 'op': 'permute', 'args': ['v2'], 'attr': {}}, {'var': 'v8', 'op': 'view_off', 'args': ['v0'], 'attr': {'shape': [6], 'offset': 0}}], 'outputs': ['v3']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x1: R.Tensor((3, 2), "float32")):
        cls = Module
        v0 = R.add(x1, R.const(2.0, "float32"))
        v2 = R.add(v0, v0)
        v3 = R.multiply(v0, R.const(1.0, "float32"))
        v7 = R.permute_dims(v2)
        v8 = R.memory.view(v0, R.shape([6]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
        return v3
