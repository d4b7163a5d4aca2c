"""TVM's planner kills the buffer acc_ip (result=1) wrote and returned, and puts the dead split's
first part at its first byte: the split kernel stores each element of that part over itself,
changing nothing of the returned tensor (overwrite_ok copy).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported storage-reuse, but no read in any VM run sees another value than value semantics.

Hash: c39fae49c8 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[split_planned_over_the_tensor_an_in_place_packed_call_returned]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1800156  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x1'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v8', 'op': 'inplace_packed', 'args': ['x1', 'v0'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v10', 'op': 'tuple', 'args': ['x1', 'v8'], 'attr': {}}, {'var': 'v11', 'op': 'split', 'args': ['v8'], 'attr': {'axis': 0, 'sections': 3}}], 'outputs': ['v10']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] + T.float32(1)

    @R.function
    def main(x1: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.call_tir(cls.add_one_6, (x1,), out_ty=R.Tensor((6,), "float32"))
            v8 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", x1, v0, inplace_indices=[1], ty_args=(R.Tensor((6,), "float32"),))
            v10 = (x1, v8,)
            v11 = R.split(v8, indices_or_sections=3, axis=0)
            R.output(v10)
        return v10
