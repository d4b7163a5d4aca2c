"""A constant a kernel overwrites in place with x * 0 (the simplified kernel loads nothing of it)
and that is returned in a tuple made after the write holds, in every call, what the write
stores: no inplace-const.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace+fold: check
reported inplace-const, but no read in any VM run sees another value than value semantics.

Hash: ead4f1a5c8 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[constant_zeroed_in_place_and_returned_in_a_tuple_after_the_write]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace+fold'
SEED = 2200073  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [2, 3], 'values': [2.0, 3.0, -2.0, 3.0, -2.0, -2.0]}}, {'var': 'v2', 'op': 'call_tir', 'args': ['v0'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v12', 'op': 'scalar', 'args': ['v0'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v13', 'op': 'split', 'args': ['v2'], 'attr': {'axis': 1, 'sections': 3}}, {'var': 'v14', 'op': 'get', 'args': ['v13'], 'attr': {'index': 1}}], 'outputs': ['v12', 'v14']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.const(np.array([[2.0, 3.0, -2.0], [3.0, -2.0, -2.0]], "float32"))
            v2 = R.call_tir(cls.scale2_2x3, (v0,), out_ty=R.Tensor((2, 3), "float32"))
            v12 = R.multiply(v0, R.const(0.0, "float32"))
            v13 = R.split(v2, indices_or_sections=3, axis=1)
            v14 = v13[1]
            R.output(v12, v14)
        return (v12, v14)
