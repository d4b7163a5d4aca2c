"""A tuple made after an in-place write holds the written tensor's old name, and nobody reads the
tuple: making a tuple reads no memory (check reported inplace-live).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports inplace-live, but no
read in any VM run sees another value than value semantics.

Hash: c968074dc0 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dead_tuple_of_a_value_written_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1004005  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}, {'var': 'v3', 'op': 'inplace_packed', 'args': ['v0'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v5', 'op': 'tuple', 'args': ['v3', 'v0'], 'attr': {}}], 'outputs': ['v3']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.subtract(x0, x0)
            v3 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v0, inplace_indices=[0], ty_args=(R.Tensor((1, 6), "float32"),))
            v5 = (v3, v0,)
            R.output(v3)
        return v3
