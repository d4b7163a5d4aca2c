"""`writer(v2, v2)` writes its destination, which is also its input, then reads the input
again: a destination-passing packed call whose destination overlaps another argument
(call_pure_packed hides the write from TVM).

Fuzzer counterexample (missed, variant as-written): run 1: output 0 is [[1.0, -1.0, 1.0], [1.0,
1.0, 6.0]], expected [[0.0, -2.0, 0.0], [0.0, 0.0, 5.0]].

Hash: ad0938265a (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dps_destination_is_its_input]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
SEED = 36  # the oracle's inputs
VARIANT = 'as-written'
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v2', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v3', 'op': 'packed', 'args': ['v2', 'v2'], 'attr': {'fn': 'writer'}}], 'outputs': ['v3']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        v2 = R.call_tir(cls.copy_2x3, (x0,), out_ty=R.Tensor((2, 3), "float32"))
        v3 = R.call_pure_packed("aliaslog.fuzz.writer", v2, v2, ty_args=R.Tensor((2, 3), "float32"))
        return v3
