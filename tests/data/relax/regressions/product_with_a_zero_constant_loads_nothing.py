"""x * 0 with a literal scalar zero: LegalizeOps makes the zero an immediate and TIR folds the
product to 0, so the kernel never loads x and its use after an in-place write into x is no
read.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 04f35ae3ab (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[product_with_a_zero_constant_loads_nothing]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1900403  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v3', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'add'}}, {'var': 'v4', 'op': 'view_off', 'args': ['v3'], 'attr': {'shape': [2], 'offset': 16}}, {'var': 'v5', 'op': 'view_off', 'args': ['v3'], 'attr': {'shape': [2], 'offset': 0}}, {'var': 'v6', 'op': 'inplace_packed', 'args': ['v5', 'v4'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v9', 'op': 'scalar', 'args': ['v3'], 'attr': {'fn': 'multiply', 'k': 0.0}}], 'outputs': ['v9']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v3 = R.add(x0, x0)
            v4 = R.memory.view(v3, R.shape([2]), R.dtype("float32"), relative_byte_offset=R.prim_value(16))
            v5 = R.memory.view(v3, R.shape([2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v6 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v5, v4, inplace_indices=[1], ty_args=(R.Tensor((2,), "float32"),))
            v9 = R.multiply(v3, R.const(0.0, "float32"))
            R.output(v9)
        return v9
