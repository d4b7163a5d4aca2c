"""VerifiedInplace made `scale2(p2)` write `p2` in place inside a local function (before
LambdaLift) that main invokes with its own parameter `x0`: the invocation was an opaque call
to the analysis, so `p2` pointed to nothing and nothing refused the rewrite; the caller's
tensor changed. Local functions invoked as closures now bind their parameters.

Fuzzer counterexample (broken, variant verified): run 1: output 0 is [[4.0, -4.0, 2.0], [-8.0,
-6.0, -8.0]], expected [[2.0, -2.0, 1.0], [-4.0, -3.0, -4.0]].

Hash: 17f8e688ef (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[verified_inplace_writes_a_local_function_param_bound_to_an_entry_param]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'broken'
VARIANT = 'verified'
SEED = 1000888  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v10', 'op': 'closure', 'args': ['x0'], 'attr': {'fn': 'c1', 'inner': True}}, {'var': 'v20', 'op': 'invoke', 'args': ['v10', 'x0'], 'attr': {}}], 'outputs': ['v20'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [2, 3]}, {'name': 'p3', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v6', 'op': 'call_tir', 'args': ['p2'], 'attr': {'kernel': 'scale2', 'plain': False}}], 'outputs': ['p3'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            @R.function
            def v10(p2: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
                v6 = R.call_tir(cls.scale2_2x3, (p2,), out_ty=R.Tensor((2, 3), "float32"))
                return x0
            v20 = R.invoke_pure_closure(v10, (x0, ), ty_args=(R.Tensor((2, 3), "float32"),))
            R.output(v20)
        return v20
