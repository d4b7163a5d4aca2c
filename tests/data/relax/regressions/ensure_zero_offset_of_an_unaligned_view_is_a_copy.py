"""ensure_zero_offset of a view 8 bytes into a tensor copies it (vm.builtin.ensure_zero_offset: a
view only at a multiple of 64), so writing the result in place leaves the tensor alone.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: e5f98af21c (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[ensure_zero_offset_of_an_unaligned_view_is_a_copy]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 2400068  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v2', 'op': 'tuple', 'args': ['x0', 'v0'], 'attr': {}}, {'var': 'v3', 'op': 'view_off', 'args': ['v0'], 'attr': {'shape': [2], 'offset': 8}}, {'var': 'v4', 'op': 'zero_off', 'args': ['v3'], 'attr': {}}, {'var': 'v5', 'op': 'binop', 'args': ['v4', 'v4'], 'attr': {'fn': 'subtract'}}], 'outputs': ['v2']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add_one_3x2, (x0,), out_ty=R.Tensor((3, 2), "float32"))
            v2 = (x0, v0,)
            v3 = R.memory.view(v0, R.shape([2]), R.dtype("float32"), relative_byte_offset=R.prim_value(8))
            v4 = R.memory.ensure_zero_offset(v3)
            v5 = R.subtract(v4, v4)
            R.output(v2)
        return v2
