"""A module with a local function: relax.build cannot lower it unlifted (VMShapeLower needs
LambdaLift first), so check's lowered point lifts it first. Judged unlifted, the lowered point
was IR no VM runs, and check reported storage-reuse there.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported storage-reuse, but no read in any VM run sees another value than value semantics.

Hash: 5d72349a48 (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[local_function_judged_lowered_as_relax_build_needs_it_lifted]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1200772  # the oracle's inputs
SPEC = {'params': [{'name': 'x0', 'shape': [6]}, {'name': 'x1', 'shape': [2, 3]}, {'name': 'x2', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v8', 'op': 'closure', 'args': ['x2'], 'attr': {'fn': 'c1', 'inner': True}}, {'var': 'v10', 'op': 'invoke', 'args': ['v8', 'x2'], 'attr': {'direct': True}}, {'var': 'v13', 'op': 'tuple', 'args': ['v10', 'x2'], 'attr': {}}, {'var': 'v15', 'op': 'binop', 'args': ['x2', 'x2'], 'attr': {'fn': 'subtract'}}, {'var': 'v18', 'op': 'scalar', 'args': ['x2'], 'attr': {'fn': 'multiply', 'k': 2.0}}, {'var': 'v19', 'op': 'scalar', 'args': ['v15'], 'attr': {'fn': 'multiply', 'k': 1.0}}, {'var': 'v20', 'op': 'binop', 'args': ['x2', 'v15'], 'attr': {'fn': 'add'}}], 'outputs': ['v13', 'v19', 'v20'], 'functions': [{'name': 'c1', 'kind': 'closure', 'params': [{'name': 'p2', 'shape': [3, 2]}, {'name': 'p3', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v5', 'op': 'call_tir', 'args': ['p3'], 'attr': {'kernel': 'add_one', 'plain': False}}, {'var': 'v7', 'op': 'packed', 'args': ['v5'], 'attr': {'fn': 'ident'}}], 'outputs': ['v7'], 'ncap': 1}]}


@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one_3x2(a: T.Buffer((3, 2), "float32"), out: T.Buffer((3, 2), "float32")):
        for i0, i1 in T.grid(3, 2):
            with T.sblock("b"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                out[v0, v1] = a[v0, v1] + T.float32(1)

    @R.function
    def main(x0: R.Tensor((6,), "float32"), x1: R.Tensor((2, 3), "float32"), x2: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            @R.function
            def v8(p2: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
                with R.dataflow():
                    v5 = R.call_tir(cls.add_one_3x2, (x2,), out_ty=R.Tensor((3, 2), "float32"))
                    v7 = R.call_pure_packed("aliaslog.fuzz.ident", v5, ty_args=R.Tensor((3, 2), "float32"))
                    R.output(v7)
                return v7
            v10 = v8(x2)
            v13 = (v10, x2,)
            v15 = R.subtract(x2, x2)
            v18 = R.multiply(x2, R.const(2.0, "float32"))
            v19 = R.multiply(v15, R.const(1.0, "float32"))
            v20 = R.add(x2, v15)
            R.output(v13, v19, v20)
        return (v13, v19, v20)
