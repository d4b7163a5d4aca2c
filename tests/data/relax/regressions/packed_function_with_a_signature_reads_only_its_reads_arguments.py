"""A packed function whose effect signature says only what it returns (result=0.0, no reads=)
reads nothing it is given: a tuple holding a tensor a kernel zeroed in place, given to it after
the write, is no read of the clobbered tensor.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 00a3b2a759 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[packed_function_with_a_signature_reads_only_its_reads_arguments]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2100026  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v2', 'op': 'call_tir', 'args': ['x2'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v3', 'op': 'call_tir', 'args': ['v2'], 'attr': {'kernel': 'dirty', 'plain': False}}, {'var': 'v13', 'op': 'tuple', 'args': ['v2', 'v2'], 'attr': {}}, {'var': 'v14', 'op': 'packed', 'args': ['v13'], 'attr': {'fn': 'first'}}, {'var': 'v22', 'op': 'scalar', 'args': ['x2'], 'attr': {'fn': 'multiply', 'k': 0.0}}], 'outputs': ['v22']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dirty_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @T.prim_func(private=True, s_tir=True)
    def scale2_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function
    def main(x2: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v2 = R.call_tir(cls.scale2_2x3, (x2,), out_ty=R.Tensor((2, 3), "float32"))
            v3 = R.call_tir(cls.dirty_2x3, (v2,), out_ty=R.Tensor((2, 3), "float32"))
            v13 = (v2, v2,)
            v14 = R.call_pure_packed("aliaslog.fuzz.first", v13, ty_args=R.Tensor((2, 3), "float32"))
            v22 = R.multiply(x2, R.const(0.0, "float32"))
            R.output(v22)
        return v22
