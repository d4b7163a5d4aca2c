"""A lowered kernel that fills its destination and also stores 0 into its input, given x * 0 (all
zeros: the product with a literal zero is folded), changes no byte of that input, though it
fills another tensor: the write is judged per target, and the returned input is no stale value.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 4895254afb (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[kernel_zeroing_its_zero_input_while_filling_another_tensor]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2100030  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 96}}, {'var': 'v2', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 48, 'shape': [2, 3]}}, {'var': 'v5', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v9', 'op': 'dps', 'args': ['v5', 'v2'], 'attr': {'kernel': 'dirty'}}], 'outputs': ['v5'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dirty_2x3(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (2, 3), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (2, 3), "float32", offset_factor=1)
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @R.function(pure=False)
    def main(x1: R.Tensor((2, 3), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([96]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v2 = R.memory.alloc_tensor(v0, R.prim_value(48), R.shape([2, 3]), R.dtype("float32"))
        v5 = R.multiply(x1, R.const(0.0, "float32"))
        v9 = cls.dirty_2x3(v5, v2)
        return v5
