"""A value written in place is then passed to a function that never mentions that parameter: the
call reads nothing of it.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written (passes:
none; then LambdaLift if the module has local functions): check reports inplace-live, but no
read in any VM run sees another value than value semantics.

Hash: e5cdee6a1f (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[call_passes_a_clobbered_value_to_a_parameter_never_used]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1004222  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x0'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v11', 'op': 'permute', 'args': ['v0'], 'attr': {}}, {'var': 'v12', 'op': 'inplace_packed', 'args': ['v0', 'v0'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v19', 'op': 'call', 'args': ['v11', 'v0'], 'attr': {'fn': 'h14'}}], 'outputs': ['v19'], 'functions': [{'name': 'h14', 'kind': 'helper', 'params': [{'name': 'p15', 'shape': [6, 1]}, {'name': 'p16', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v18', 'op': 'inplace_packed', 'args': ['p15', 'p15'], 'attr': {'fn': 'acc_ip'}}], 'outputs': ['v18']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function(private=True)
    def h14(p15: R.Tensor((6, 1), "float32"), p16: R.Tensor((1, 6), "float32")) -> R.Tensor((6, 1), "float32"):
        cls = Module
        with R.dataflow():
            v18 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", p15, p15, inplace_indices=[1], ty_args=(R.Tensor((6, 1), "float32"),))
            R.output(v18)
        return v18

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        v0 = R.call_tir(cls.add_one_1x6, (x0,), out_ty=R.Tensor((1, 6), "float32"))
        v11 = R.permute_dims(v0)
        v12 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", v0, v0, inplace_indices=[1], ty_args=(R.Tensor((1, 6), "float32"),))
        v19 = cls.h14(v11, v0)
        return v19
