"""A helper without a dataflow block reshapes its argument, and the caller writes the result in
place: relax.build legalizes that reshape into a copying kernel (RewriteDataflowReshape makes
views only of reshapes bound to dataflow variables), so the caller's tensor is not written
(check reported inplace-live).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports inplace-live, write-
overlap, but no read in any VM run sees another value than value semantics.

Hash: 7133d61ddf (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[reshape_outside_a_dataflow_block_is_a_copy]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1000019  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v5', 'op': 'call', 'args': ['v0'], 'attr': {'fn': 'h1'}}, {'var': 'v15', 'op': 'inplace_packed', 'args': ['v5', 'v5'], 'attr': {'fn': 'acc_ip'}}], 'outputs': ['v0'], 'functions': [{'name': 'h1', 'kind': 'helper', 'params': [{'name': 'p2', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v3', 'op': 'reshape', 'args': ['p2'], 'attr': {'shape': [2, 3]}}], 'outputs': ['v3']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] + T.float32(1)

    @R.function(private=True)
    def h1(p2: R.Tensor((6,), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        v3 = R.reshape(p2, R.shape([2, 3]))
        return v3

    @R.function
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.call_tir(cls.add_one_6, (x0,), out_ty=R.Tensor((6,), "float32"))
        v5 = cls.h1(v0)
        v15 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v5, v5, inplace_indices=[1], ty_args=(R.Tensor((2, 3), "float32"),))
        return v0
