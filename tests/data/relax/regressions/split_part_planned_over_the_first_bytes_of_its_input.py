"""Lowered, StaticPlanBlockMemory places a split's first part over the first bytes of its input
(vm.builtin.copy returns its argument itself): the block writing that part reads the input only
where it writes, and the block after it reads only bytes past the part, so the overlap is safe.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant dce: check reported
write-overlap, but no read in any VM run sees another value than value semantics.

Hash: 61fa97fb19 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[split_part_planned_over_the_first_bytes_of_its_input]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'dce'
SEED = 1500286  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'multiply'}}, {'var': 'v17', 'op': 'packed', 'args': ['v0'], 'attr': {'fn': 'vmcopy'}}, {'var': 'v19', 'op': 'call_tir', 'args': ['v17'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v22', 'op': 'split', 'args': ['v17'], 'attr': {'axis': 0, 'sections': 2}}, {'var': 'v23', 'op': 'get', 'args': ['v22'], 'attr': {'index': 1}}], 'outputs': ['v23', 'v19'], 'functions': [{'name': 'h3', 'kind': 'helper', 'params': [{'name': 'p4', 'shape': [1, 3]}], 'dataflow': True, 'stmts': [{'var': 'v7', 'op': 'binop', 'args': ['p4', 'p4'], 'attr': {'fn': 'multiply'}}], 'outputs': ['v7']}, {'name': 'h12', 'kind': 'helper', 'params': [{'name': 'p13', 'shape': [2, 3]}], 'dataflow': False, 'stmts': [{'var': 'v15', 'op': 'flatten', 'args': ['p13'], 'attr': {}}], 'outputs': ['v15']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_2x3(a: T.Buffer((2, 3), "float32"), out: T.Buffer((2, 3), "float32")):
        for i0, i1 in T.grid(2, 3):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(private=True)
    def h3(p4: R.Tensor((1, 3), "float32")) -> R.Tensor((1, 3), "float32"):
        cls = Module
        with R.dataflow():
            v7 = R.multiply(p4, p4)
            R.output(v7)
        return v7

    @R.function(private=True)
    def h12(p13: R.Tensor((2, 3), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        v15 = R.flatten(p13)
        return v15

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.multiply(x0, x0)
            v17 = R.call_pure_packed("vm.builtin.copy", v0, ty_args=R.Tensor((2, 3), "float32"))
            v19 = R.call_tir(cls.scale2_2x3, (v17,), out_ty=R.Tensor((2, 3), "float32"))
            v22 = R.split(v17, indices_or_sections=2, axis=0)
            v23 = v22[1]
            R.output(v23, v19)
        return (v23, v19)
