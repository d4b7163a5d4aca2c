"""acc_ip(v0, v0): a packed function whose signature says it may be given its destination as an
input (overlap=) (check reported write-overlap).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports write-overlap, but no
read in any VM run sees another value than value semantics.

Hash: 2608b49db9 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[packed_call_given_one_tensor_as_input_and_destination]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1000053  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v10', 'op': 'inplace_packed', 'args': ['v0', 'v0'], 'attr': {'fn': 'acc_ip'}}], 'outputs': ['v10']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add_one_3x2, (x0,), out_ty=R.Tensor((3, 2), "float32"))
            v10 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v0, v0, inplace_indices=[1], ty_args=(R.Tensor((3, 2), "float32"),))
            R.output(v10)
        return v10
