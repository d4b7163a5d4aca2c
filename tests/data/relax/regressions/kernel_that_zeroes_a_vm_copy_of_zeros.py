"""vm.builtin.copy of x * 0 (a view the VM makes, of the same value) is given to a kernel that
also stores 0 into its input: the bytes stay; at lowered the multiply's destination holds known
bytes (the kernel run on them).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant dce: check reported
inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 545e078782 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[kernel_that_zeroes_a_vm_copy_of_zeros]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'dce'
SEED = 2400674  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v16', 'op': 'packed', 'args': ['v0'], 'attr': {'fn': 'vmcopy'}}, {'var': 'v17', 'op': 'call_tir', 'args': ['v16'], 'attr': {'kernel': 'dirty', 'plain': False}}, {'var': 'v19', 'op': 'view_off', 'args': ['v17'], 'attr': {'shape': [3, 2], 'offset': 0}}], 'outputs': ['v0', 'v19']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dirty_6(a_h: T.handle, out_h: T.handle):
        a = T.match_buffer(a_h, (6,), "float32", offset_factor=1)
        out = T.match_buffer(out_h, (6,), "float32", offset_factor=1)
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] + T.float32(1)
                a[v0] = T.float32(0)

    @R.function
    def main(x1: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.multiply(x1, R.const(0.0, "float32"))
        v16 = R.call_pure_packed("vm.builtin.copy", v0, ty_args=R.Tensor((6,), "float32"))
        v17 = R.call_tir(cls.dirty_6, (v16,), out_ty=R.Tensor((6,), "float32"))
        v19 = R.memory.view(v17, R.shape([3, 2]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
        return (v0, v19)
