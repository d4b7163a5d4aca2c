"""A packed function whose signature says its result is made of its arguments (result=, no reads=)
reads nothing, but its result names their memory: a tuple made after an in-place write, holding
the clobbered old name, given to it and returned, is a stale read (seed 2300053, missed when
signature functions stopped counting as reads, fixed the same day).

Fuzzer counterexample (missed, variant cse): run 1: output 0 is [[5.0, 1.0, 1.0]], expected
[[4.0, 0.0, 0.0]].

Hash: 28f4b62458 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[result_signature_returns_a_tuple_holding_a_clobbered_name]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'cse'
SEED = 2300053  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v8', 'op': 'call', 'args': ['x0', 'x0'], 'attr': {'fn': 'h1'}}, {'var': 'v10', 'op': 'inplace', 'args': ['v8'], 'attr': {'kernel': 'inc', 'plain': False}}, {'var': 'v11', 'op': 'tuple', 'args': ['v10', 'v8'], 'attr': {}}, {'var': 'v12', 'op': 'packed', 'args': ['v11'], 'attr': {'fn': 'nested'}}], 'outputs': ['v12'], 'functions': [{'name': 'h1', 'kind': 'helper', 'params': [{'name': 'p2', 'shape': [3, 2]}, {'name': 'p3', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v4', 'op': 'split', 'args': ['p2'], 'attr': {'axis': 1, 'sections': 2}}, {'var': 'v5', 'op': 'get', 'args': ['v4'], 'attr': {'index': 1}}, {'var': 'v7', 'op': 'permute', 'args': ['v5'], 'attr': {}}], 'outputs': ['v7']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def inc_1x3(a: T.Buffer((1, 3), "float32")):
        for i0, i1 in T.grid(1, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function(private=True)
    def h1(p2: R.Tensor((3, 2), "float32"), p3: R.Tensor((3, 2), "float32")) -> R.Tensor((1, 3), "float32"):
        cls = Module
        v4 = R.split(p2, indices_or_sections=2, axis=1)
        v5 = v4[1]
        v7 = R.permute_dims(v5)
        return v7

    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v8 = cls.h1(x0, x0)
            v10 = R.call_tir_inplace(cls.inc_1x3, (v8,), inplace_indices=[0], out_ty=R.Tensor((1, 3), "float32"))
            v11 = (v10, v8,)
            v12 = R.call_pure_packed("aliaslog.fuzz.nested", v11, ty_args=R.Tuple(R.Tensor((1, 3), "float32"), R.Tuple(R.Tensor((1, 3), "float32"), R.Tensor((1, 3), "float32"))))
            R.output(v12)
        return v12
