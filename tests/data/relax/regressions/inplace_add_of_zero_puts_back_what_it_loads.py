"""DataflowUseInplaceCalls writes the dead v12 + 0 into v12, which a returned tuple holds; TE
makes the kernel a[i] = a[i], which changes nothing, so no write clobbers v12.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: a53355a8be (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[inplace_add_of_zero_puts_back_what_it_loads]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 1500519  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v12', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}, {'var': 'v15', 'op': 'tuple', 'args': ['x0', 'x0', 'v12'], 'attr': {}}, {'var': 'v16', 'op': 'scalar', 'args': ['v12'], 'attr': {'fn': 'add', 'k': 0.0}}], 'outputs': ['v15']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v12 = R.subtract(x0, x0)
            v15 = (x0, x0, v12,)
            v16 = R.add(v12, R.const(0.0, "float32"))
            R.output(v15)
        return v15
