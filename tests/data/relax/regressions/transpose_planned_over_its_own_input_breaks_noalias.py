"""StaticPlanBlockMemory puts a transpose's destination on the bytes of its input (the tensor an
in-place packed call returned): the kernel, marked noalias, is given overlapping memory, which
the VM witnesses. This build's LLVM loads every element before storing any, so no read differs;
the TIR's own order would read elements it already overwrote. A true finding, counted apart as
class (u).

Fuzzer counterexample: False alarm (class u) of the Relax fuzzer on variant as-written: check
reported write-overlap, but no read in any VM run sees another value than value semantics, and
the VM gives the kernel overlapping memory.

Hash: 745cff88a1 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[transpose_planned_over_its_own_input_breaks_noalias]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'noalias'
VARIANT = 'as-written'
SEED = 2200092  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'add'}}, {'var': 'v1', 'op': 'inplace_packed', 'args': ['x0', 'v0'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v2', 'op': 'permute', 'args': ['v1'], 'attr': {}}, {'var': 'v6', 'op': 'split', 'args': ['v2'], 'attr': {'axis': 1, 'sections': 3}}, {'var': 'v11', 'op': 'get', 'args': ['v6'], 'attr': {'index': 0}}], 'outputs': ['v11']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.add(x0, x0)
            v1 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", x0, v0, inplace_indices=[1], ty_args=(R.Tensor((3, 2), "float32"),))
            v2 = R.permute_dims(v1)
            v6 = R.split(v2, indices_or_sections=3, axis=1)
            v11 = v6[0]
            R.output(v11)
        return v11
