"""Was a false alarm by the oracle's five runs: split writes its second part over the first bytes
of x - x, which a view still reads. x - x is 0 where x is finite and NaN elsewhere, so the
overwritten element differs only when just one of the two is infinite; the striped runs (one
per bit of the element index) always make such a pair, and the VM shows the hazard.

Fuzzer counterexample: counted as a false alarm (class a) on variant as-written, check
reporting storage-reuse: a hazard the oracle missed, which it now shows (so the verdict is
caught).

Hash: f0caf6fc96 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[split_over_zeros_or_nans_reads_another_element]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'  # by the oracle: check was right
VARIANT = 'as-written'
SEED = 1900059  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}, {'name': 'x1', 'shape': [1, 6]}, {'name': 'x2', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v2', 'op': 'binop', 'args': ['x2', 'x2'], 'attr': {'fn': 'subtract'}}, {'var': 'v3', 'op': 'tuple', 'args': ['v2', 'x2'], 'attr': {}}, {'var': 'v4', 'op': 'packed', 'args': ['v3'], 'attr': {'fn': 'first'}}, {'var': 'v7', 'op': 'split', 'args': ['v4'], 'attr': {'axis': 0, 'sections': 2}}, {'var': 'v8', 'op': 'get', 'args': ['v7'], 'attr': {'index': 0}}, {'var': 'v9', 'op': 'view_off', 'args': ['v4'], 'attr': {'shape': [4], 'offset': 8}}], 'outputs': ['v8', 'v9']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x0: R.Tensor((1, 6), "float32"), x1: R.Tensor((1, 6), "float32"), x2: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v2 = R.subtract(x2, x2)
            v3 = (v2, x2,)
            v4 = R.call_pure_packed("aliaslog.fuzz.first", v3, ty_args=R.Tensor((2, 3), "float32"))
            v7 = R.split(v4, indices_or_sections=2, axis=0)
            v8 = v7[0]
            v9 = R.memory.view(v4, R.shape([4]), R.dtype("float32"), relative_byte_offset=R.prim_value(8))
            R.output(v8, v9)
        return (v8, v9)
