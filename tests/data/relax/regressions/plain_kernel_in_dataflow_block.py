"""A plain (non-s_tir) kernel called by call_tir in a dataflow block: aliaslog's extractor
called has_reshape_pattern on it and aborted with TVM's InternalError (issue 12 item 4).
TVM's own build fails on it too; `check` now gives the input's verdict.

Fuzzer counterexample (internal, variant as-written): InternalError: Check failed:
(func->body->IsInstance<s_tir::SBlockRealizeNode>()) is false:.

Hash: 49eefb722d (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[plain_kernel_in_dataflow_block]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'internal'
SEED = 1  # the oracle's inputs
VARIANT = 'as-written'
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'dirty', 'plain': True}}], 'outputs': ['v1']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True)
    def dirty_plain_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            out[i0, i1] = a[i0, i1] + T.float32(1)
            a[i0, i1] = T.float32(0)

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.call_tir(cls.dirty_plain_2x3, (x0,), out_ty=R.Tensor((2, 3), "float32"))
            R.output(v1)
        return v1
