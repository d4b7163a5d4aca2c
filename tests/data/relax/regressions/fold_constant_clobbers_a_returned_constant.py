"""The same as fold_constant_runs_a_kernel_that_writes_the_constant, in a dataflow block,
the clobbered constant returned inside a tuple.

Fuzzer counterexample (missed, variant fold): run 1: output 1 is [[0.0, 0.0, 0.0], [0.0, 0.0,
0.0]], expected [[0.0, 3.0, -3.0], [-1.0, -3.0, -1.0]].

Hash: f7ec5dc486 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[fold_constant_clobbers_a_returned_constant]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'fold'
SEED = 1006  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v2', 'op': 'const', 'args': [], 'attr': {'shape': [2, 3], 'values': [0.0, 3.0, -3.0, -1.0, -3.0, -1.0]}}, {'var': 'v6', 'op': 'call_tir', 'args': ['v2'], 'attr': {'kernel': 'dirty', 'plain': False}}, {'var': 'v8', 'op': 'tuple', 'args': ['v6', 'v2'], 'attr': {}}], 'outputs': ['v8']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dirty_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @R.function
    def main(x1: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v2 = R.const(np.array([[0.0, 3.0, -3.0], [-1.0, -3.0, -1.0]], "float32"))
            v6 = R.call_tir(cls.dirty_2x3, (v2,), out_ty=R.Tensor((2, 3), "float32"))
            v8 = (v6, v2,)
            R.output(v8)
        return v8
