"""The planner reuses the storage of an in-place packed call's argument while its result v9 is
live, but v9's only later uses are a lowered multiply by 0 that stores every element without
loading any, and the return of what it stored (refills).

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant inplace: check
reported storage-reuse, but no read in any VM run sees another value than value semantics.

Hash: f1aaf9eb61 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[storage_reused_under_a_name_refilled_before_its_read]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'inplace'
SEED = 2400824  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'call_tir', 'args': ['x2'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v9', 'op': 'inplace_packed', 'args': ['x2', 'v0'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v10', 'op': 'call_tir', 'args': ['v9'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v13', 'op': 'scalar', 'args': ['v9'], 'attr': {'fn': 'multiply', 'k': 0.0}}], 'outputs': ['v13']}


@I.ir_module(s_tir=True)
class Module:
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
            v0 = R.call_tir(cls.scale2_2x3, (x2,), out_ty=R.Tensor((2, 3), "float32"))
            v9 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", x2, v0, inplace_indices=[1], ty_args=(R.Tensor((2, 3), "float32"),))
            v10 = R.call_tir(cls.scale2_2x3, (v9,), out_ty=R.Tensor((2, 3), "float32"))
            v13 = R.multiply(v9, R.const(0.0, "float32"))
            R.output(v13)
        return v13
