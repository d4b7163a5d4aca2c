"""FoldConstant evaluates `v6 = call_tir(dirty, (v0,))` at compile time, and the kernel
zeroes its input, the module constant `v0`, so `v5 = flatten(v0)` reads zeros. The folded
module keeps no trace of the write: the module given to FoldConstant is the one to check
(it has the write into a constant).

Fuzzer counterexample (missed, variant fold): run 1: output 0 is [0.0, 0.0, 0.0, 0.0, 0.0,
0.0], expected [3.0, -1.0, 3.0, -2.0, 1.0, 0.0].

Hash: 023008fe50 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[fold_constant_runs_a_kernel_that_writes_the_constant]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'fold'
SEED = 1681  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [3.0, -1.0, 3.0, -2.0, 1.0, 0.0]}}, {'var': 'v5', 'op': 'flatten', 'args': ['v0'], 'attr': {}}, {'var': 'v6', 'op': 'call_tir', 'args': ['v0'], 'attr': {'kernel': 'dirty', 'plain': False}}], 'outputs': ['v5']}


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
    def main(x1: R.Tensor((3, 2), "float32")):
        cls = Module
        v0 = R.const(np.array([[3.0, -1.0], [3.0, -2.0], [1.0, 0.0]], "float32"))
        v5 = R.flatten(v0)
        v6 = R.call_tir(cls.dirty_3x2, (v0,), out_ty=R.Tensor((3, 2), "float32"))
        return v5
