"""FoldConstant drops a dead in-place call whose argument may be a constant, without running it:
no constant changed during the pass, so the module given to it has no compile-time write to
judge (check reported inplace-const on it).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant fold (passes:
FoldConstant; then LambdaLift if the module has local functions): check reports inplace-const,
but no read in any VM run sees another value than value semantics.

Hash: 56759926b6 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[fold_variant_judges_constant_writes_only_when_folding_made_one]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'fold'
SEED = 1003081  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}, {'name': 'x1', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v2', 'op': 'const', 'args': [], 'attr': {'shape': [2, 3], 'values': [3.0, 3.0, 2.0, 1.0, 0.0, -3.0]}}, {'var': 'v3', 'op': 'tuple', 'args': ['v2', 'x1'], 'attr': {}}, {'var': 'v7', 'op': 'packed', 'args': ['v3'], 'attr': {'fn': 'first'}}, {'var': 'v8', 'op': 'tuple', 'args': ['x1', 'x0'], 'attr': {}}, {'var': 'v9', 'op': 'inplace', 'args': ['v7', 'v7'], 'attr': {'kernel': 'addto', 'plain': False}}, {'var': 'v11', 'op': 'get', 'args': ['v8'], 'attr': {'index': 1}}], 'outputs': ['v11']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_2x3(a: T.Buffer((2, 3), "float32"), b: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @R.function
    def main(x0: R.Tensor((2, 3), "float32"), x1: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v2 = R.const(np.array([[3.0, 3.0, 2.0], [1.0, 0.0, -3.0]], "float32"))
            v3 = (v2, x1,)
            v7 = R.call_pure_packed("aliaslog.fuzz.first", v3, ty_args=R.Tensor((2, 3), "float32"))
            v8 = (x1, x0,)
            v9 = R.call_tir_inplace(cls.addto_2x3, (v7, v7,), inplace_indices=[0], out_ty=R.Tensor((2, 3), "float32"))
            v11 = v8[1]
            R.output(v11)
        return v11
