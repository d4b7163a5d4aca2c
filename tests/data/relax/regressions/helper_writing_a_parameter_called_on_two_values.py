"""A helper writes its second parameter in place; main calls it once on a copy a helper made and
once on another tensor, whose result it returns: each call writes only what its own call site
passes.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant dce: check reported
inplace-live, but no read in any VM run sees another value than value semantics.

Hash: ee103b2392 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[helper_writing_a_parameter_called_on_two_values]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'dce'
SEED = 1200139  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v6', 'op': 'call', 'args': ['v0'], 'attr': {'fn': 'h1'}}, {'var': 'v11', 'op': 'call', 'args': ['v6', 'v6'], 'attr': {'fn': 'h7'}}, {'var': 'v12', 'op': 'call', 'args': ['v11', 'v0'], 'attr': {'fn': 'h7'}}], 'outputs': ['v12'], 'functions': [{'name': 'h1', 'kind': 'helper', 'params': [{'name': 'p2', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v5', 'op': 'packed', 'args': ['p2'], 'attr': {'fn': 'copy'}}], 'outputs': ['v5']}, {'name': 'h7', 'kind': 'helper', 'params': [{'name': 'p8', 'shape': [6]}, {'name': 'p9', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v10', 'op': 'inplace_packed', 'args': ['p9'], 'attr': {'fn': 'inc_ip'}}], 'outputs': ['v10']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function(private=True)
    def h1(p2: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        with R.dataflow():
            v5 = R.call_pure_packed("aliaslog.fuzz.copy", p2, ty_args=R.Tensor((6,), "float32"))
            R.output(v5)
        return v5

    @R.function(private=True)
    def h7(p8: R.Tensor((6,), "float32"), p9: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        with R.dataflow():
            v10 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", p9, inplace_indices=[0], ty_args=(R.Tensor((6,), "float32"),))
            R.output(v10)
        return v10

    @R.function
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.scale2_6, (x0,), out_ty=R.Tensor((6,), "float32"))
            v6 = cls.h1(v0)
            v11 = cls.h7(v6, v6)
            v12 = cls.h7(v11, v0)
            R.output(v12)
        return v12
