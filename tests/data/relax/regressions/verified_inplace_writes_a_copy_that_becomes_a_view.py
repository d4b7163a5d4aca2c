"""VerifiedInplace, run right after LegalizeOps, made `multiply(v6, 2)` write `v6` in place,
where `v6` is an identity-copy kernel of the parameter `x0`; relax.build's
RewriteDataflowReshape later turns that kernel into a view of `x0`, so the write changed the
caller's tensor. VerifiedInplace now runs RewriteDataflowReshape first and judges the views.

Fuzzer counterexample (broken, variant verified): run 1: in main, subtract (for v12) read x0 as
[[8.0, -8.0, -4.0], [-2.0, 4.0, 6.0]], expected [[4.0, -4.0, -2.0], [-1.0, 2.0, 3.0]].

Hash: 529277d5cd (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[verified_inplace_writes_a_copy_that_becomes_a_view]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'broken'
VARIANT = 'verified'
SEED = 1000153  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v5', 'op': 'closure', 'args': ['x0'], 'attr': {'fn': 'c1', 'inner': True}}, {'var': 'v6', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'copy', 'plain': False}}, {'var': 'v8', 'op': 'scalar', 'args': ['v6'], 'attr': {'fn': 'multiply', 'k': 2.0}}, {'var': 'v12', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}], 'outputs': ['v12'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [2, 3]}, {'name': 'p3', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'inplace', 'args': ['p3'], 'attr': {'kernel': 'inc', 'plain': True}}], 'outputs': ['v4'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1]

    @T.prim_func(private=True)
    def inc_plain_2x3(a: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            a[i0, i1] = a[i0, i1] + T.float32(1)

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            @R.function
            def v5(p2: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
                with R.dataflow():
                    v4 = R.call_tir_inplace(cls.inc_plain_2x3, (x0,), inplace_indices=[0], out_ty=R.Tensor((2, 3), "float32"))
                    R.output(v4)
                return v4
            v6 = R.call_tir(cls.copy_2x3, (x0,), out_ty=R.Tensor((2, 3), "float32"))
            v8 = R.multiply(v6, R.const(2.0, "float32"))
            v12 = R.subtract(x0, x0)
            R.output(v12)
        return v12
