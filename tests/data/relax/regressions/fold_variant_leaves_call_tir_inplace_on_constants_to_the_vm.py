"""A dead call_tir_inplace writes a constant; FoldConstant folds call_tir alone
(fold_constant.cc), so no kernel wrote the constant at compile time, and the module given to it
is not judged for compile-time writes (it was, as if the in-place call had been folded); the
pass drops the dead call.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant fold: check
reported inplace-const and inplace-live, but no read in any VM run sees another value than
value semantics.

Hash: 7fbcceb39d (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[fold_variant_leaves_call_tir_inplace_on_constants_to_the_vm]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'fold'
SEED = 1500443  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v4', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [1.0, -1.0, -2.0, 1.0, -3.0, 3.0]}}, {'var': 'v9', 'op': 'inplace', 'args': ['v4', 'v4'], 'attr': {'kernel': 'addto', 'plain': True}}], 'outputs': ['v4']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True)
    def addto_plain_6(a: T.Buffer((6,), "float32"), b: T.Buffer((6,), "float32")):
        for i0 in range(6):
            a[i0] = a[i0] + b[i0]

    @R.function
    def main(x2: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v4 = R.const(np.array([1.0, -1.0, -2.0, 1.0, -3.0, 3.0], "float32"))
            v9 = R.call_tir_inplace(cls.addto_plain_6, (v4, v4,), inplace_indices=[0], out_ty=R.Tensor((6,), "float32"))
            R.output(v4)
        return v4
