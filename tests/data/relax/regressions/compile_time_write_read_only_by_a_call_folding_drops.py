"""FoldConstant runs dirty at compile time, zeroing its folded input, which only a call of a
helper whose result nobody uses reads; the pass drops that call, so no read sees the zeros. The
fuzzer checks the module given to FoldConstant without what aliaslog's effect-aware DCE proves
dead, as the pass leaves it.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant fold: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: c2c3b956a4 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[compile_time_write_read_only_by_a_call_folding_drops]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'fold'
SEED = 1900636  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v0', 'op': 'const', 'args': [], 'attr': {'shape': [1, 6], 'values': [0.0, 1.0, -1.0, -3.0, -3.0, 2.0]}}, {'var': 'v1', 'op': 'call_tir', 'args': ['v0'], 'attr': {'kernel': 'scale2', 'plain': False}}, {'var': 'v2', 'op': 'call_tir', 'args': ['v1'], 'attr': {'kernel': 'dirty', 'plain': False}}, {'var': 'v14', 'op': 'call', 'args': ['v1', 'v2'], 'attr': {'fn': 'h6'}}, {'var': 'v15', 'op': 'binop', 'args': ['x0', 'x0'], 'attr': {'fn': 'subtract'}}], 'outputs': ['v15'], 'functions': [{'name': 'h6', 'kind': 'helper', 'params': [{'name': 'p7', 'shape': [1, 6]}, {'name': 'p8', 'shape': [1, 6]}], 'dataflow': True, 'stmts': [{'var': 'v10', 'op': 'inplace_packed', 'args': ['p7', 'p8'], 'attr': {'fn': 'acc_ip'}}, {'var': 'v12', 'op': 'split', 'args': ['p8'], 'attr': {'axis': 1, 'sections': 3}}, {'var': 'v13', 'op': 'get', 'args': ['v12'], 'attr': {'index': 1}}], 'outputs': ['v13']}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def dirty_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)
                a[v0, v1] = T.float32(0)

    @T.prim_func(private=True, s_tir=True)
    def scale2_1x6(a: T.Buffer((1, 6), "float32"), out: T.Buffer((1, 6), "float32")):
        for i0, i1 in T.grid(1, 6):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] * T.float32(2)

    @R.function(private=True)
    def h6(p7: R.Tensor((1, 6), "float32"), p8: R.Tensor((1, 6), "float32")) -> R.Tensor((1, 2), "float32"):
        cls = Module
        with R.dataflow():
            v10 = R.call_inplace_packed("aliaslog.fuzz.acc_ip", p7, p8, inplace_indices=[1], ty_args=(R.Tensor((1, 6), "float32"),))
            v12 = R.split(p8, indices_or_sections=3, axis=1)
            v13 = v12[1]
            R.output(v13)
        return v13

    @R.function
    def main(x0: R.Tensor((1, 6), "float32")):
        cls = Module
        with R.dataflow():
            v0 = R.const(np.array([[0.0, 1.0, -1.0, -3.0, -3.0, 2.0]], "float32"))
            v1 = R.call_tir(cls.scale2_1x6, (v0,), out_ty=R.Tensor((1, 6), "float32"))
            v2 = R.call_tir(cls.dirty_1x6, (v1,), out_ty=R.Tensor((1, 6), "float32"))
            v14 = cls.h6(v1, v2)
            v15 = R.subtract(x0, x0)
            R.output(v15)
        return v15
