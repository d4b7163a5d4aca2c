"""VerifiedInplace wrote a kernel's output into its input although a view of that input, made
after the call, is returned: the view names the old value.

Fuzzer counterexample (broken, variant verified): run 1: output 0 is [[-8.0, 16.0], [-8.0,
12.0], [0.0, -16.0]], expected [[-4.0, 8.0], [-4.0, 6.0], [0.0, -8.0]].

Hash: b306dd860c (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[verified_inplace_writes_a_tensor_viewed_afterwards]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'broken'
VARIANT = 'verified'
SEED = 1005435  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'multiply', 'k': 2.0}}, {'var': 'v2', 'op': 'call_tir', 'args': ['v0'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v3', 'op': 'view_off', 'args': ['v0'], 'attr': {'shape': [3, 2], 'offset': 0}}], 'outputs': ['v3']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function
    def main(x1: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.multiply(x1, R.const(2.0, "float32"))
            v2 = R.call_tir(cls.scale2_6, (v0,), out_ty=R.Tensor((6,), "float32"))
            v3 = R.memory.view(v0, R.shape([3, 2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            R.output(v3)
        return v3
