"""VerifiedInplace raised TVM's InternalError from inside the pass: it runs
RewriteDataflowReshape first, which cannot take a kernel without block structure (a plain
PrimFunc; relax.build fails on the module the same way). The pass now judges such a module as
it is.

Fuzzer counterexample (internal, variant verified): InternalError: Check failed:
(func->body->IsInstance<s_tir::SBlockRealizeNode>()) is false:.

Hash: 06e5d09e50 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[verified_inplace_on_a_kernel_without_blocks]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'internal'
VARIANT = 'verified'
SEED = 1001024  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v8', 'op': 'closure', 'args': ['x1'], 'attr': {'fn': 'c2', 'inner': False}}, {'var': 'v11', 'op': 'tuple', 'args': ['x1', 'x1'], 'attr': {}}], 'outputs': ['v11'], 'functions': [{'name': 'c2', 'kind': 'closure', 'params': [{'name': 'p3', 'shape': [1, 6]}, {'name': 'p4', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v6', 'op': 'call_tir', 'args': ['p4'], 'attr': {'kernel': 'copy', 'plain': True}}, {'var': 'v7', 'op': 'inplace_packed', 'args': ['v6', 'v6'], 'attr': {'fn': 'acc_ip'}}], 'outputs': ['v7'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True)
    def copy_plain_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            out[i0, i1] = a[i0, i1]

    @R.function(private=True)
    def c2(p3: R.Tensor((1, 6), "float32"), p4: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        cls = Module
        with R.dataflow():
            v6 = R.call_tir(cls.copy_plain_3x2, (p4,), out_ty=R.Tensor((3, 2), "float32"))
            v7 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v6, v6, inplace_indices=[1], ty_args=(R.Tensor((3, 2), "float32"),))
            R.output(v7)
        return v7

    @R.function
    def main(x1: R.Tensor((3, 2), "float32")):
        cls = Module
        v8 = R.make_closure(cls.c2, (x1,))
        v11 = (x1, x1,)
        return v11
