"""A kernel the program calls directly that fills its destination and also stores into its input
(zeroes it): a later call reads the input's destroyed value. The kernel reads and writes that
parameter, so before CallTIRRewrite the call updates it in place.

Fuzzer counterexample (missed, variant as-written): run 1: in main, aliaslog.fuzz.inc_ip (for
v4) read v2 as [-2.5, 0.5, 5.5, 0.5, -2.5, 0.5], expected [-3.0, 0.0, 5.0, 0.0, -3.0, 0.0].

Hash: 7f4c943712 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[lowered_kernel_also_zeroes_an_input_read_later]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 1004730  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}, {'name': 'x1', 'shape': [6]}, {'name': 'x2', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 96}}, {'var': 'v1', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 64, 'shape': [6]}}, {'var': 'v2', 'op': 'call_tir', 'args': ['x2'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v3', 'op': 'dps', 'args': ['v2', 'v1'], 'attr': {'kernel': 'dirty'}}, {'var': 'v4', 'op': 'inplace_packed', 'args': ['v2'], 'attr': {'fn': 'inc_ip'}}], 'outputs': ['v1', 'v4'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def dirty_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] + T.float32(1)
                a[v0] = T.float32(0)

    @R.function(pure=False)
    def main(x0: R.Tensor((1, 6), "float32"), x1: R.Tensor((6,), "float32"), x2: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([96]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.memory.alloc_tensor(v0, R.prim_value(64), R.shape([6]), R.dtype("float32"))
        v2 = R.call_tir(cls.add_one_6, (x2,), out_ty=R.Tensor((6,), "float32"))
        v3 = cls.dirty_6(v2, v1)
        v4 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v2, inplace_indices=[0], ty_args=(R.Tensor((6,), "float32"),))
        return (v1, v4)
