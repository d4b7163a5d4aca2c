"""A closure's kernel that stores 0 into its captured tensor (and computes from it), where the one
make_closure captures x * 0: every element of the parameter holds 0, so its bytes are known and
the kernel run on them shows it puts back every byte (seed 2700128).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 221ff2d7dc (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[closure_kernel_zeroes_a_capture_every_call_site_gives_zeros]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2700128  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v9', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'multiply', 'k': 0.0}}, {'var': 'v17', 'op': 'closure', 'args': ['v9'], 'attr': {'fn': 'c10', 'inner': False}}, {'var': 'v18', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [0.0, 2.0, -2.0, 3.0, -3.0, 0.0]}}, {'var': 'v19', 'op': 'invoke', 'args': ['v17', 'v18'], 'attr': {}}, {'var': 'v28', 'op': 'view_off', 'args': ['x1'], 'attr': {'shape': [6], 'offset': 0}}], 'outputs': ['v28'], 'functions': [{'name': 'c10', 'kind': 'closure', 'params': [{'name': 'p11', 'shape': [3, 2]}, {'name': 'p12', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v14', 'op': 'call_tir', 'args': ['p12'], 'attr': {'kernel': 'dirty', 'plain': False}}, {'var': 'v16', 'op': 'binop', 'args': ['v14', 'p12'], 'attr': {'fn': 'add'}}], 'outputs': ['v16'], 'ncap': 1}]}


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

    @R.function(private=True)
    def c10(p11: R.Tensor((3, 2), "float32"), p12: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        with R.dataflow():
            v14 = R.call_tir(cls.dirty_6, (p12,), out_ty=R.Tensor((6,), "float32"))
            v16 = R.add(v14, p12)
            R.output(v16)
        return v16

    @R.function
    def main(x1: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v9 = R.multiply(x1, R.const(0.0, "float32"))
            v17 = R.make_closure(cls.c10, (v9,))
            v18 = R.const(np.array([[0.0, 2.0], [-2.0, 3.0], [-3.0, 0.0]], "float32"))
            v19 = R.invoke_pure_closure(v17, (v18, ), ty_args=(R.Tensor((6,), "float32"),))
            v28 = R.memory.view(x1, R.shape([6]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
            R.output(v28)
        return v28
