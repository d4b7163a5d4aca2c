"""Two tensors of one storage, at byte offsets 48 and 28, are both filled with copies of x * 0:
where they meet, the second fill stores the zeros the first holds (fills_agree).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported storage-reuse, but no read in any VM run sees another value than value semantics.

Hash: f484b543bd (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[zeros_filled_over_zeros_at_another_offset]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2400829  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 72}}, {'var': 'v1', 'op': 'scalar', 'args': ['x0'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v3', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 48, 'shape': [6]}}, {'var': 'v8', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 28, 'shape': [6]}}, {'var': 'v10', 'op': 'dps', 'args': ['v1', 'v3'], 'attr': {'kernel': 'copy'}}, {'var': 'v11', 'op': 'dps', 'args': ['v1', 'v8'], 'attr': {'kernel': 'copy'}}], 'outputs': ['v3'], 'lowered': True}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def copy_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0]

    @R.function(pure=False)
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([72]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.multiply(x0, R.const(0.0, "float32"))
        v3 = R.memory.alloc_tensor(v0, R.prim_value(48), R.shape([6]), R.dtype("float32"))
        v8 = R.memory.alloc_tensor(v0, R.prim_value(28), R.shape([6]), R.dtype("float32"))
        v10 = cls.copy_6(v1, v3)
        v11 = cls.copy_6(v1, v8)
        return v3
