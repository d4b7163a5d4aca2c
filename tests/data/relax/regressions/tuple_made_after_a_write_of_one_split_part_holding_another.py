"""A split part is written in place; a tuple made afterwards holds another part (projected from
the older split tuple) and the write's result: the other part names only its own memory, so the
tuple holds no older name of the written part.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: ecb1a2319d (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[tuple_made_after_a_write_of_one_split_part_holding_another]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1500261  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [6]}], 'dataflow': True, 'stmts': [{'var': 'v1', 'op': 'split', 'args': ['x2'], 'attr': {'axis': 0, 'sections': 3}}, {'var': 'v2', 'op': 'get', 'args': ['v1'], 'attr': {'index': 1}}, {'var': 'v3', 'op': 'get', 'args': ['v1'], 'attr': {'index': 0}}, {'var': 'v4', 'op': 'inplace_packed', 'args': ['v2'], 'attr': {'fn': 'mystery_ip'}}, {'var': 'v5', 'op': 'tuple', 'args': ['v3', 'v4'], 'attr': {}}], 'outputs': ['v5']}


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x2: R.Tensor((6,), "float32")):
        cls = Module
        with R.dataflow():
            v1 = R.split(x2, indices_or_sections=3, axis=0)
            v2 = v1[1]
            v3 = v1[0]
            v4 = R.call_inplace_packed("aliaslog.fuzz.mystery_ip", v2, inplace_indices=[0], ty_args=(R.Tensor((2,), "float32"),))
            v5 = (v3, v4,)
            R.output(v5)
        return v5
