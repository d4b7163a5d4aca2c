"""The module given to FoldConstant is judged only for writes into module constants (what running
a kernel at compile time can do); its run-time hazards are the built module's (check reported
inplace-live on the module before folding, which FoldConstant changed).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant fold (passes:
FoldConstant; then LambdaLift if the module has local functions): check reports inplace-live,
but no read in any VM run sees another value than value semantics.

Hash: 1349447d9a (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[fold_variant_judges_the_module_before_folding_for_constant_writes_only]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'fold'
SEED = 1000018  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [3.0, 1.0, 0.0, 2.0, -2.0, 3.0]}}, {'var': 'v12', 'op': 'packed', 'args': ['v0'], 'attr': {'fn': 'copy'}}, {'var': 'v13', 'op': 'inplace', 'args': ['v12', 'v12'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['v12']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_6(a: T.Buffer((6,), "float32"), b: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                a[v0] = a[v0] + b[v0]

    @R.function
    def main(x1: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.const(np.array([3.0, 1.0, 0.0, 2.0, -2.0, 3.0], "float32"))
            v12 = R.call_pure_packed("aliaslog.fuzz.copy", v0, ty_args=R.Tensor((6,), "float32"))
            v13 = R.call_tir_inplace(cls.addto_6, (v12, v12,), inplace_indices=[0], out_ty=R.Tensor((6,), "float32"))
            R.output(v12)
        return v12
