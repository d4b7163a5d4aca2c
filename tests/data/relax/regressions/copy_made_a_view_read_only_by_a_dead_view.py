"""An identity astype (a view once RewriteDataflowReshape runs) of a tensor written in place,
passed only to no_grad (itself a view) whose result nobody uses: the VM reads nothing, so there
is no stale read.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 6d95b17a08 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[copy_made_a_view_read_only_by_a_dead_view]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1900143  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}, {'name': 'x1', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v8', 'op': 'call_tir', 'args': ['x1'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v11', 'op': 'inplace', 'args': ['v8', 'v8'], 'attr': {'kernel': 'addto', 'plain': False}}, {'var': 'v13', 'op': 'astype', 'args': ['v8'], 'attr': {}}, {'var': 'v17', 'op': 'no_grad', 'args': ['v13'], 'attr': {}}], 'outputs': ['v0']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_3x2(a: T.Buffer((3, 2), "float32"), b: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @T.prim_func(private=True, s_tir=True)
    def scale2_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function
    def main(x0: R.Tensor((6,), "float32"), x1: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.scale2_6, (x0,), out_ty=R.Tensor((6,), "float32"))
            v8 = R.call_tir(cls.scale2_3x2, (x1,), out_ty=R.Tensor((3, 2), "float32"))
            v11 = R.call_tir_inplace(cls.addto_3x2, (v8, v8,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
            v13 = R.astype(v8, "float32")
            v17 = R.grad.no_grad(v13)
            R.output(v0)
        return v0
