"""A call_tir kernel that also stores 0 into its input is given x * 0 (zeros: TIR folds the
product): the input keeps every byte, a put-back of an input the kernel writes.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 0f884bb330 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[kernel_that_zeroes_its_input_given_zeros]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2400872  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v2', 'op': 'scalar', 'args': ['x2'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v3', 'op': 'call_tir', 'args': ['v2'], 'attr': {'kernel': 'dirty', 'plain': False}}], 'outputs': ['v2']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dirty_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @R.function
    def main(x2: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v2 = R.multiply(x2, R.const(0.0, "float32"))
            v3 = R.call_tir(cls.dirty_3x2, (v2,), out_ty=R.Tensor((3, 2), "float32"))
            R.output(v2)
        return v2
