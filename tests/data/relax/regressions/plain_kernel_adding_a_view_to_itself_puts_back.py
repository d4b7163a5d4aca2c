"""A plain-loop kernel adds a view of x - x (0 or NaN) to a second view of the same bytes in
place: it changes no byte, so neither the returned view (inplace-live) nor the kernel reading
memory it writes (write-overlap, lowered) is a hazard.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, write-overlap, but no read in any VM run sees another value than
value semantics.

Hash: 4f964dc3a5 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[plain_kernel_adding_a_view_to_itself_puts_back]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1900850  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'flatten', 'args': ['x2'], 'attr': {}}, {'var': 'v2', 'op': 'binop', 'args': ['v1', 'v1'], 'attr': {'fn': 'subtract'}}, {'var': 'v8', 'op': 'view_off', 'args': ['v2'], 'attr': {'shape': [3, 2], 'offset': 0}}, {'var': 'v9', 'op': 'view_off', 'args': ['v2'], 'attr': {'shape': [3, 2], 'offset': 0}}, {'var': 'v10', 'op': 'inplace', 'args': ['v8', 'v9'], 'attr': {'kernel': 'addto', 'plain': True}}], 'outputs': ['v9']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True)
    def addto_plain_3x2(a_h: T.handle, b_h: T.handle):
        a = T.match_buffer(a_h, (3, 2), "float32", offset_factor=1)
        b = T.match_buffer(b_h, (3, 2), "float32", offset_factor=1)
        for i0, i1 in T.grid(3, 2):
            a[i0, i1] = a[i0, i1] + b[i0, i1]

    @R.function
    def main(x2: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.flatten(x2)
            v2 = R.subtract(v1, v1)
            v8 = R.memory.view(v2, R.shape([3, 2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v9 = R.memory.view(v2, R.shape([3, 2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v10 = R.call_tir_inplace(cls.addto_plain_3x2, (v8, v9,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
            R.output(v9)
        return v9
