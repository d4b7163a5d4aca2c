"""Two views of all the bytes of x - x (0 or NaN); a kernel adds one view to itself in place: the
other view, returned, still holds its values. At the lowered point the kernel's destination is
filled first and its views get its value from there.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 1c3bec70dc (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[whole_views_of_zeros_or_nans_doubled_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1900614  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'tuple', 'args': ['x0', 'x0'], 'attr': {}}, {'var': 'v1', 'op': 'packed', 'args': ['v0'], 'attr': {'fn': 'first'}}, {'var': 'v2', 'op': 'binop', 'args': ['v1', 'v1'], 'attr': {'fn': 'subtract'}}, {'var': 'v5', 'op': 'view_off', 'args': ['v2'], 'attr': {'shape': [2, 3], 'offset': 0}}, {'var': 'v6', 'op': 'view_off', 'args': ['v2'], 'attr': {'shape': [2, 3], 'offset': 0}}, {'var': 'v7', 'op': 'inplace', 'args': ['v5', 'v5'], 'attr': {'kernel': 'addto', 'plain': False}}], 'outputs': ['v6']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def addto_2x3(a_h: T.handle, b_h: T.handle):
        a = T.match_buffer(a_h, (2, 3), "float32", offset_factor=1)
        b = T.match_buffer(b_h, (2, 3), "float32", offset_factor=1)
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + b[v0, v1]

    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = (x0, x0,)
            v1 = R.call_pure_packed("aliaslog.fuzz.first", v0, ty_args=R.Tensor((3, 2), "float32"))
            v2 = R.subtract(v1, v1)
            v5 = R.memory.view(v2, R.shape([2, 3]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v6 = R.memory.view(v2, R.shape([2, 3]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            v7 = R.call_tir_inplace(cls.addto_2x3, (v5, v5,), inplace_indices=[0], out_ty=R.Tensor((2, 3), "float32"))
            R.output(v6)
        return v6
