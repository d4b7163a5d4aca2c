"""x - x holds only 0 and NaN (element sets); a kernel that adds the tensor to itself in place
puts back every element, so the tuple still holding it is no stale read.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 9178227d90 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[zeros_or_nans_doubled_in_place_keep_their_values]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1900998  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v2', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}, {'var': 'v3', 'op': 'tuple', 'args': ['x0', 'v2'], 'attr': {}}, {'var': 'v5', 'op': 'inplace', 'args': ['v2', 'v2'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['v3']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_3x2(a: T.Buffer((3, 2), "float32"), b: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v2 = R.subtract(x0, x0)
            v3 = (x0, v2,)
            v5 = R.call_tir_inplace(cls.addto_3x2, (v2, v2,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
            R.output(v3)
        return v3
