"""x - x doubled in place (0 and NaN stay), then doubled again through a unit-dimension transpose
of the result, a view at legalized: the second put-back comes after the first, which changed no
byte (relax_checks.dl: PutBacks judged twice).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 886ca4ecf2 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[put_back_twice_the_second_through_a_transposed_view]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 2400021  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}, {'var': 'v8', 'op': 'tuple', 'args': ['v0', 'v0'], 'attr': {}}, {'var': 'v10', 'op': 'inplace', 'args': ['v0', 'v0'], 'attr': {'kernel': 'addto', 'plain': True}}, {'var': 'v18', 'op': 'permute', 'args': ['v10'], 'attr': {}}, {'var': 'v19', 'op': 'inplace', 'args': ['v18', 'v18'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['v8']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_6x1(a: T.Buffer((6, 1), "float32"), b: T.Buffer((6, 1), "float32")):
        for i0, i1 in T.grid(6, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @T.prim_func(private=True)
    def addto_plain_1x6(a: T.Buffer((1, 6), "float32"), b: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            a[i0, i1] = a[i0, i1] + b[i0, i1]

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.subtract(x0, x0)
            v8 = (v0, v0,)
            v10 = R.call_tir_inplace(cls.addto_plain_1x6, (v0, v0,), inplace_indices=[0], out_ty=R.Tensor((1, 6), "float32"))
            v18 = R.permute_dims(v10)
            v19 = R.call_tir_inplace(cls.addto_6x1, (v18, v18,), inplace_indices=[0], out_ty=R.Tensor((6, 1), "float32"))
            R.output(v8)
        return v8
