"""A packed function writes a tensor; a closure made afterwards captures the tensor's older name
and reads it when invoked. Once making a closure read none of its captures, the closure value
(defined after the write) was taken for a name of the new value: a closure holding an older
name holds that name again, as a tuple does.

Fuzzer counterexample (missed, variant as-written): run 1: in c4, aliaslog.fuzz.acc_ip (for v8)
read p6 as [2.0, 3.0, 2.0, 0.0, 1.0, 4.0], expected [2.0, 4.0, 2.0, -2.0, 0.0, 6.0].

Hash: 1a6ec933de (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[closure_made_after_a_write_captures_the_clobbered_tensor]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'missed'
VARIANT = 'as-written'
SEED = 1400188  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [2, 3]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [1, 6], 'values': [1.0, 1.0, -3.0, -3.0, -1.0, 3.0]}}, {'var': 'v1', 'op': 'const', 'args': [], 'attr': {'shape': [6], 'values': [1.0, 2.0, 1.0, -1.0, 0.0, 3.0]}}, {'var': 'v2', 'op': 'call_tir', 'args': ['v1'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v3', 'op': 'packed', 'args': ['v1', 'v2'], 'attr': {'fn': 'writer'}}, {'var': 'v10', 'op': 'closure', 'args': ['v2'], 'attr': {'fn': 'c4', 'inner': False}}, {'var': 'v11', 'op': 'invoke', 'args': ['v10', 'v3'], 'attr': {}}, {'var': 'v12', 'op': 'const', 'args': [], 'attr': {'shape': [1, 6], 'values': [0.0, 3.0, -2.0, 2.0, 0.0, 3.0]}}, {'var': 'v13', 'op': 'const', 'args': [], 'attr': {'shape': [3, 2], 'values': [-2.0, 3.0, 3.0, 3.0, -1.0, 0.0]}}], 'outputs': ['v0', 'v11', 'v12', 'v13'], 'functions': [{'name': 'c4', 'kind': 'closure', 'params': [{'name': 'p5', 'shape': [6]}, {'name': 'p6', 'shape': [6]}], 'dataflow': False, 'stmts': [{'var': 'v7', 'op': 'packed', 'args': ['p6'], 'attr': {'fn': 'ident'}}, {'var': 'v8', 'op': 'inplace_packed', 'args': ['p5', 'p6'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v9', 'op': 'astype', 'args': ['v8'], 'attr': {}}], 'outputs': ['v8'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def scale2_6(a: T.Buffer((6,), "float32"), out: T.Buffer((6,), "float32")):
        for i0 in range(6):
            with T.sblock("b"):
                v0 = T.axis.remap("S", [i0])
                out[v0] = a[v0] * T.float32(2)

    @R.function(private=True)
    def c4(p5: R.Tensor((6,), "float32"), p6: R.Tensor((6,), "float32")) -> R.Tensor((6,), "float32"):
        cls = Module
        v7 = R.call_pure_packed("aliaslog.fuzz.ident", p6, ty_args=R.Tensor((6,), "float32"))
        v8 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", p5, p6, inplace_indices=[1], ty_args=(R.Tensor((6,), "float32"),))
        v9 = R.astype(v8, "float32")
        return v8

    @R.function
    def main(x0: R.Tensor((2, 3), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.const(np.array([[1.0, 1.0, -3.0, -3.0, -1.0, 3.0]], "float32"))
            v1 = R.const(np.array([1.0, 2.0, 1.0, -1.0, 0.0, 3.0], "float32"))
            v2 = R.call_tir(cls.scale2_6, (v1,), out_ty=R.Tensor((6,), "float32"))
            v3 = R.call_pure_packed("aliaslog.fuzz.writer", v1, v2, ty_args=R.Tensor((6,), "float32"))
            v10 = R.make_closure(cls.c4, (v2,))
            v11 = R.invoke_pure_closure(v10, (v3, ), ty_args=(R.Tensor((6,), "float32"),))
            v12 = R.const(np.array([[0.0, 3.0, -2.0, 2.0, 0.0, 3.0]], "float32"))
            v13 = R.const(np.array([[-2.0, 3.0], [3.0, 3.0], [-1.0, 0.0]], "float32"))
            R.output(v0, v11, v12, v13)
        return (v0, v11, v12, v13)
