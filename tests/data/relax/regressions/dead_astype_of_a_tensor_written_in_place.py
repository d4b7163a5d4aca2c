"""An in-place packed call writes a tensor, and an identity astype nothing uses takes it
afterwards: RewriteDataflowReshape makes the astype a view, so the VM reads nothing for it.
Check counted the copy's read.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 24015d85d1 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dead_astype_of_a_tensor_written_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200186  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v3', 'op': 'binop', 'args': ['x1', 'x1'], 'attr': {'fn': 'subtract'}}, {'var': 'v6', 'op': 'inplace_packed', 'args': ['v3'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v7', 'op': 'astype', 'args': ['v3'], 'attr': {}}, {'var': 'v12', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [-3.0, 0.0, 2.0, 2.0, -1.0, 2.0]}}], 'outputs': ['v12']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x1: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v3 = R.subtract(x1, x1)
            v6 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v3, inplace_indices=[0], ty_args=(R.Tensor((6,), "float32"),))
            v7 = R.astype(v3, "float32")
            v12 = R.const(np.array([[-3.0, 0.0], [2.0, 2.0], [-1.0, 2.0]], "float32"))
            R.output(v12)
        return v12
