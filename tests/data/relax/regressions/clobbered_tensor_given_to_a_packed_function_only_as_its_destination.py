"""A tensor written in place is then given to a packed function (effect: writes) only as the
destination it fills: the function does not read it.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports inplace-live, but no
read in any VM run sees another value than value semantics.

Hash: 446635e4d1 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[clobbered_tensor_given_to_a_packed_function_only_as_its_destination]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1005217  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}, {'name': 'x2', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v1', 'op': 'scalar', 'args': ['x2'], 'attr': {'fn': 'multiply', 'k': 2.0}}, {'var': 'v4', 'op': 'inplace_packed', 'args': ['v1'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v6', 'op': 'packed', 'args': ['x0', 'v1'], 'attr': {'fn': 'writer'}}], 'outputs': ['v6']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((3, 2), "float32"), x2: R.Tensor((3, 2), "float32")):
        cls = Module
        v1 = R.multiply(x2, R.const(2.0, "float32"))
        v4 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v1, inplace_indices=[0], ty_args=(R.Tensor((3, 2), "float32"),))
        v6 = R.call_pure_packed("aliaslog.fuzz.writer", x0, v1, ty_args=R.Tensor((3, 2), "float32"))
        return v6
