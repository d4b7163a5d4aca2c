"""A kernel called directly whose input and destination are two tensors at the same bytes of one
storage: the kernel reads each input element before writing the output element over it, so
nothing it reads is clobbered (write-overlap only when the kernel's TIR cannot say so).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports write-overlap, but no
read in any VM run sees another value than value semantics.

Hash: 1317c302da (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[kernel_input_and_destination_at_the_same_storage_bytes]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1004232  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'storage', 'args': [], 'attr': {'size': 48}}, {'var': 'v1', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 8, 'shape': [6]}}, {'var': 'v8', 'op': 'alloc', 'args': ['v0'], 'attr': {'offset': 8, 'shape': [6]}}, {'var': 'v9', 'op': 'dps', 'args': ['x0', 'v8'], 'attr': {'kernel': 'add_one'}}, {'var': 'v13', 'op': 'dps', 'args': ['v8', 'v1'], 'attr': {'kernel': 'add_one'}}], 'outputs': ['x0'], 'lowered': True}


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

    @R.function(pure=False)
    def main(x0: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.memory.alloc_storage(R.shape([48]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        v1 = R.memory.alloc_tensor(v0, R.prim_value(8), R.shape([6]), R.dtype("float32"))
        v8 = R.memory.alloc_tensor(v0, R.prim_value(8), R.shape([6]), R.dtype("float32"))
        v9 = cls.add_one_6(x0, v8)
        v13 = cls.add_one_6(v8, v1)
        return x0
