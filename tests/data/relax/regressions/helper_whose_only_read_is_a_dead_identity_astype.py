"""A closure writes a split part in place before a helper gets it, but the helper only multiplies
it by 0 (no load) and casts it to its own dtype into a name nothing uses: a copy relax.build
makes a view, which computes nothing (dead_view), so the helper reads none of it.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: db9986c3c3 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[helper_whose_only_read_is_a_dead_identity_astype]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 2200070  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [3, 2]}, {'name': 'x2', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v0', 'op': 'view_off', 'args': ['x2'], 'attr': {'shape': [1, 6], 'offset': 0}}, {'var': 'v2', 'op': 'permute', 'args': ['v0'], 'attr': {}}, {'var': 'v4', 'op': 'split', 'args': ['v2'], 'attr': {'axis': 0, 'sections': 3}}, {'var': 'v5', 'op': 'get', 'args': ['v4'], 'attr': {'index': 2}}, {'var': 'v19', 'op': 'closure', 'args': ['v5'], 'attr': {'fn': 'c13', 'inner': False}}, {'var': 'v21', 'op': 'invoke', 'args': ['v19', 'x0'], 'attr': {}}, {'var': 'v29', 'op': 'call', 'args': ['v5'], 'attr': {'fn': 'h6'}}, {'var': 'v30', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [-3.0, 1.0, -2.0, 2.0, -1.0, 3.0]}}], 'outputs': ['v30'], 'functions': [{'name': 'h6', 'kind': 'helper', 'params': [{'name': 'p7', 'shape': [2, 1]}], 'dataflow': True, 'stmts': [{'var': 'v8', 'op': 'astype', 'args': ['p7'], 'attr': {}}, {'var': 'v9', 'op': 'scalar', 'args': ['p7'], 'attr': {'fn': 'multiply', 'k': 0.0}}], 'outputs': ['v9']}, {'name': 'c13', 'kind': 'closure', 'params': [{'name': 'p14', 'shape': [3, 2]}, {'name': 'p15', 'shape': [2, 1]}], 'dataflow': True, 'stmts': [{'var': 'v18', 'op': 'inplace', 'args': ['p15'], 'attr': {'kernel': 'inc', 'plain': False}}], 'outputs': ['v18'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def inc_2x1(a_h: T.handle):
        a = T.match_buffer(a_h, (2, 1), "float32", offset_factor=1)
        for i0, i1 in T.grid(2, 1):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                a[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function(private=True)
    def h6(p7: R.Tensor((2, 1), "float32")) -> R.Tensor((2, 1), "float32"):
        cls = Module
        with R.dataflow():
            v8 = R.astype(p7, "float32")
            v9 = R.multiply(p7, R.const(0.0, "float32"))
            R.output(v9)
        return v9

    @R.function(private=True)
    def c13(p14: R.Tensor((3, 2), "float32"), p15: R.Tensor((2, 1), "float32")) -> R.Tensor((2, 1), "float32"):
        cls = Module
        with R.dataflow():
            v18 = R.call_tir_inplace(cls.inc_2x1, (p15,), inplace_indices=[0], out_ty=R.Tensor((2, 1), "float32"))
            R.output(v18)
        return v18

    @R.function
    def main(x0: R.Tensor((3, 2), "float32"), x2: R.Tensor((6,), "float32")):
        cls = Module
        v0 = R.memory.view(x2, R.shape([1, 6]), R.dtype("float32"), relative_byte_offset=R.prim_value(0))
        v2 = R.permute_dims(v0)
        v4 = R.split(v2, indices_or_sections=3, axis=0)
        v5 = v4[2]
        v19 = R.make_closure(cls.c13, (v5,))
        v21 = R.invoke_pure_closure(v19, (x0, ), ty_args=(R.Tensor((2, 1), "float32"),))
        v29 = cls.h6(v5)
        v30 = R.const(np.array([-3.0, 1.0, -2.0, 2.0, -1.0, 3.0], "float32"))
        return v30
