"""VerifiedInplace writes a kernel's output into its input; a later vm.builtin.copy of that input, whose result nobody reads, returns its argument itself and reads nothing. The oracle counted it as a read (broken); it now knows the builtin reads nothing, as the shipped effect table says (view).

Fuzzer counterexample (broken, variant verified): run 1: in main, vm.builtin.copy (for v5) read
v3 as [[2.0, 0.0, 1.0, -6.0, -4.0, -5.0]], expected [[8.0, 4.0, 6.0, -8.0, -4.0, -6.0]].

Hash: bfb86c9ef8 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[verified_inplace_before_a_register_copy_of_its_input]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'broken'
VARIANT = 'verified'
SEED = 1006082  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'astype', 'args': ['x0'], 'attr': {}}, {'var': 'v1', 'op': 'scalar', 'args': ['v0'], 'attr': {'fn': 'add', 'k': 2.0}}, {'var': 'v2', 'op': 'packed', 'args': ['v0'], 'attr': {'fn': 'ident'}}, {'var': 'v3', 'op': 'call_tir', 'args': ['v2'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v4', 'op': 'binop', 'args': ['v3', 'v1'], 'attr': {'fn': 'subtract'}}, {'var': 'v5', 'op': 'packed', 'args': ['v3'], 'attr': {'fn': 'vmcopy'}}, {'var': 'v6', 'op': 'concat1', 'args': ['v4'], 'attr': {}}], 'outputs': ['v6']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.astype(x0, "float32")
            v1 = R.add(v0, R.const(2.0, "float32"))
            v2 = R.call_pure_packed("aliaslog.fuzz.ident", v0, ty_args=R.Tensor((1, 6), "float32"))
            v3 = R.call_tir(cls.scale2_1x6, (v2,), out_ty=R.Tensor((1, 6), "float32"))
            v4 = R.subtract(v3, v1)
            v5 = R.call_pure_packed("vm.builtin.copy", v3, ty_args=R.Tensor((1, 6), "float32"))
            v6 = R.concat((v4,), axis=0)
            R.output(v6)
        return v6
