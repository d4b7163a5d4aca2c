"""A copy kernel of a constant that relax.build makes a view (and a reshape, a view op, at the
lowered point) reads nothing: a writes function filling that view writes the constant, in every
call with the same values, and nothing loads the constant: no inplace-const.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-const, but no read in any VM run sees another value than value semantics.

Hash: 8e12089af2 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[constant_viewed_by_an_identity_copy_and_filled_by_a_packed_call]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2300070  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v8', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [-3.0, 1.0, -1.0, -2.0, -1.0, 1.0]}}, {'var': 'v10', 'op': 'const', 'args': [], 'attr': {'shape': [1, 6], 'values': [2.0, 0.0, 3.0, -1.0, 2.0, 3.0]}}, {'var': 'v12', 'op': 'reshape', 'args': ['v8'], 'attr': {'shape': [1, 6]}}, {'var': 'v13', 'op': 'call_tir', 'args': ['v10'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v14', 'op': 'packed', 'args': ['v12', 'v13'], 'attr': {'fn': 'writer'}}], 'outputs': ['v14']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v8 = R.const(np.array([-3.0, 1.0, -1.0, -2.0, -1.0, 1.0], "float32"))
            v10 = R.const(np.array([[2.0, 0.0, 3.0, -1.0, 2.0, 3.0]], "float32"))
            v12 = R.reshape(v8, R.shape([1, 6]))
            v13 = R.call_tir(cls.copy_1x6, (v10,), out_ty=R.Tensor((1, 6), "float32"))
            v14 = R.call_pure_packed("aliaslog.fuzz.writer", v12, v13, ty_args=R.Tensor((1, 6), "float32"))
            R.output(v14)
        return v14
