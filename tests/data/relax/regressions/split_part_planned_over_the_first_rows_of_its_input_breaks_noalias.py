"""StaticPlanBlockMemory puts a split's second part on the first row of the split tensor: the
kernel, marked noalias, is given a destination overlapping its input, which the VM witnesses.
The TIR computes the first part before it writes the second, and this build keeps that order,
but noalias lets LLVM order them otherwise. A true finding, counted apart as class (u).

Fuzzer counterexample: False alarm (class u) of the Relax fuzzer on variant dce: check reported
write-overlap, but no read in any VM run sees another value than value semantics, and the VM
gives the kernel overlapping memory.

Hash: 663dec801e (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[split_part_planned_over_the_first_rows_of_its_input_breaks_noalias]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'noalias'
VARIANT = 'dce'
SEED = 2200114  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'const', 'args': [], 'attr': {'shape': [2, 3], 'values': [-3.0, -2.0, -1.0, 2.0, 1.0, 2.0]}}, {'var': 'v4', 'op': 'call_tir', 'args': ['v1'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v6', 'op': 'inplace_packed', 'args': ['v4'], 'attr': {'fn': 'inc_ip'}}, {'var': 'v8', 'op': 'split', 'args': ['v6'], 'attr': {'axis': 0, 'sections': 2}}, {'var': 'v9', 'op': 'get', 'args': ['v8'], 'attr': {'index': 0}}], 'outputs': ['v9']}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function
    def main(x2: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.const(np.array([[-3.0, -2.0, -1.0], [2.0, 1.0, 2.0]], "float32"))
            v4 = R.call_tir(cls.add_one_2x3, (v1,), out_ty=R.Tensor((2, 3), "float32"))
            v6 = R.call_inplace_packed("aliaslog.fuzz.inc_ip", v4, inplace_indices=[0], ty_args=(R.Tensor((2, 3), "float32"),))
            v8 = R.split(v6, indices_or_sections=2, axis=0)
            v9 = v8[0]
            R.output(v9)
        return v9
