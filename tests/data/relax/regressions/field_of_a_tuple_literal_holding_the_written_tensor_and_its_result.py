"""After acc_ip doubles v0 in place, a tuple literal holds both its result v1 and the old name v0,
and only field 0 (v1, the new value) is read: a field of a tuple literal names the very
variable it holds there, not the whole tuple.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 7499da0c0a (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[field_of_a_tuple_literal_holding_the_written_tensor_and_its_result]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1500510  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}, {'name': 'x2', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x2'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v1', 'op': 'inplace_packed', 'args': ['v0', 'v0'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v2', 'op': 'call_tir', 'args': ['x1'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v3', 'op': 'tuple', 'args': ['v1', 'v0'], 'attr': {}}, {'var': 'v14', 'op': 'get', 'args': ['v3'], 'attr': {'index': 0}}], 'outputs': ['v2', 'v14']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function
    def main(x1: R.Tensor((6,), "float32"), x2: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.scale2_3x2, (x2,), out_ty=R.Tensor((3, 2), "float32"))
            v1 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v0, v0, inplace_indices=[1], ty_args=(R.Tensor((3, 2), "float32"),))
            v2 = R.call_tir(cls.scale2_6, (x1,), out_ty=R.Tensor((6,), "float32"))
            v3 = (v1, v0,)
            v14 = v3[0]
            R.output(v2, v14)
        return (v2, v14)
