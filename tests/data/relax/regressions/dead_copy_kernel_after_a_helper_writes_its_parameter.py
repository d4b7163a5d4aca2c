"""A helper writes its parameter in place, then copies it with a call_tir nothing uses
(RewriteDataflowReshape makes the copy a view): the VM computes nothing for it, so it reads
nothing.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 4a91cbcdf0 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dead_copy_kernel_after_a_helper_writes_its_parameter]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200387  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'split', 'args': ['x1'], 'attr': {'axis': 0, 'sections': 3}}, {'var': 'v2', 'op': 'get', 'args': ['v0'], 'attr': {'index': 0}}, {'var': 'v9', 'op': 'call', 'args': ['v2'], 'attr': {'fn': 'h4'}}], 'outputs': ['v9'], 'functions': [{'name': 'h4', 'kind': 'helper', 'params': [{'name': 'p5', 'shape': [2]}], 'dataflow': True, 'stmts': [{'var': 'v7', 'op': 'inplace_packed', 'args': ['p5', 'p5'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v8', 'op': 'call_tir', 'args': ['p5'], 'attr': {'kernel': 'copy', 'plain': False}}], 'outputs': ['v7']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_2(a: T.Buffer((2,), "float32"), out: T.Buffer((2,), "float32")):
        for i0 in range(2):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0]

    @R.function(private=True)
    def h4(p5: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        with R.dataflow():
            v7 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", p5, p5, inplace_indices=[1], ty_args=(R.Tensor((2,), "float32"),))
            v8 = R.call_tir(cls.copy_2, (p5,), out_ty=R.Tensor((2,), "float32"))
            R.output(v7)
        return v7

    @R.function
    def main(x1: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.split(x1, indices_or_sections=3, axis=0)
            v2 = v0[0]
            v9 = cls.h4(v2)
            R.output(v9)
        return v9
