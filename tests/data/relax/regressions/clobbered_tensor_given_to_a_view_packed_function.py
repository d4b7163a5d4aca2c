"""A tensor written in place is then given to a packed function whose result is a view of its
argument (effect: view): making the view reads nothing.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports inplace-live, write-
overlap, but no read in any VM run sees another value than value semantics.

Hash: 3755da6665 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[clobbered_tensor_given_to_a_view_packed_function]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1005513  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v2', 'op': 'packed', 'args': ['v0'], 'attr': {'fn': 'vmcopy'}}, {'var': 'v3', 'op': 'flatten', 'args': ['x0'], 'attr': {}}, {'var': 'v4', 'op': 'call_tir', 'args': ['v2'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v5', 'op': 'inplace', 'args': ['v4'], 'attr': {'kernel': 'inc', 'plain': False}}, {'var': 'v6', 'op': 'packed', 'args': ['v4'], 'attr': {'fn': 'ident'}}], 'outputs': ['v3']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def inc_3x2(a: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add_one_3x2, (x0,), out_ty=R.Tensor((3, 2), "float32"))
            v2 = R.call_pure_packed("vm.builtin.copy", v0, ty_args=R.Tensor((3, 2), "float32"))
            v3 = R.flatten(x0)
            v4 = R.call_tir(cls.add_one_3x2, (v2,), out_ty=R.Tensor((3, 2), "float32"))
            v5 = R.call_tir_inplace(cls.inc_3x2, (v4,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
            v6 = R.call_pure_packed("aliaslog.fuzz.ident", v4, ty_args=R.Tensor((3, 2), "float32"))
            R.output(v3)
        return v3
