"""A private helper writes its parameter in place; main calls it on one tensor, returns the
result, then calls it on another. With one summary per function the second call wrote both
tensors; a helper called directly now runs once per pair of call sites, so the second call
writes only its own argument.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 46769f42fe (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[helper_writing_its_parameter_called_on_two_tensors]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200327  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'scalar', 'args': ['x0'], 'attr': {'fn': 'add', 'k': 2.0}}, {'var': 'v6', 'op': 'call', 'args': ['v0'], 'attr': {'fn': 'h1'}}, {'var': 'v14', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v15', 'op': 'call', 'args': ['v14'], 'attr': {'fn': 'h1'}}], 'outputs': ['v6'], 'functions': [{'name': 'h1', 'kind': 'helper', 'params': [{'name': 'p2', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v5', 'op': 'inplace', 'args': ['p2'], 'attr': {'kernel': 'inc', 'plain': True}}], 'outputs': ['v5']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True)
    def inc_plain_2x3(a: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            a[i0, i1] = a[i0, i1] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def scale2_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(private=True)
    def h1(p2: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        with R.dataflow():
            v5 = R.call_tir_inplace(cls.inc_plain_2x3, (p2,), inplace_indices=[0], out_ty=R.Tensor((2, 3), "float32"))
            R.output(v5)
        return v5

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        v0 = R.add(x0, R.const(2.0, "float32"))
        v6 = cls.h1(v0)
        v14 = R.call_tir(cls.scale2_2x3, (x0,), out_ty=R.Tensor((2, 3), "float32"))
        v15 = cls.h1(v14)
        return v6
