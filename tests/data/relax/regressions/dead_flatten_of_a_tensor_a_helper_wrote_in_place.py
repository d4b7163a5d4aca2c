"""A helper writes a fresh tensor in place and then flattens it into a dataflow binding nothing
uses: RewriteDataflowReshape makes the flatten a view, so the VM reads nothing for it, and an
unread view reads nothing. Check counted the copy's read.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: 132f220517 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[dead_flatten_of_a_tensor_a_helper_wrote_in_place]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200373  # the oracle's inputs
SPEC = {'params': [{'name': 'x2', 'shape': [3, 2]}], 'dataflow': False, 'stmts': [{'var': 'v2', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [2.0, -2.0, -3.0, -1.0, 1.0, -2.0]}}, {'var': 'v15', 'op': 'call', 'args': ['v2'], 'attr': {'fn': 'h9'}}], 'outputs': ['v15'], 'functions': [{'name': 'h9', 'kind': 'helper', 'params': [{'name': 'p10', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v11', 'op': 'call_tir', 'args': ['p10'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v12', 'op': 'inplace', 'args': ['v11'], 'attr': {'kernel': 'inc', 'plain': True}}, {'var': 'v14', 'op': 'flatten', 'args': ['v11'], 'attr': {}}], 'outputs': ['v12']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @T.prim_func(private=True)
    def inc_plain_3x2(a: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            a[i0, i1] = a[i0, i1] + T.float32(1)

    @R.function(private=True)
    def h9(p10: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        cls = Module
        with R.dataflow():
            v11 = R.call_tir(cls.add_one_3x2, (p10,), out_ty=R.Tensor((3, 2), "float32"))
            v12 = R.call_tir_inplace(cls.inc_plain_3x2, (v11,), inplace_indices=[0], out_ty=R.Tensor((3, 2), "float32"))
            v14 = R.flatten(v11)
            R.output(v12)
        return v12

    @R.function
    def main(x2: R.Tensor((3, 2), "float32")):
        cls = Module
        v2 = R.const(np.array([[2.0, -2.0], [-3.0, -1.0], [1.0, -2.0]], "float32"))
        v15 = cls.h9(v2)
        return v15
