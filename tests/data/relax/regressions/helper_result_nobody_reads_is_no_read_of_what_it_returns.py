"""A helper writes its parameter in place, then returns a view of it (vm.builtin.copy returns its
argument); main never uses the call's result, so returning it reads nothing: the written tensor
is read by no one.

Fuzzer counterexample: False alarm (class a) of the Relax fuzzer on variant as-written: check
reported inplace-live, but no read in any VM run sees another value than value semantics.

Hash: f1e439616d (of its SPEC)
Reproduce: python -m pytest 'tests/relax/test_relax_fuzz.py::test_regression_is_fixed[helper_result_nobody_reads_is_no_read_of_what_it_returns]'
"""

import numpy as np
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

FAILED_AS = 'false-alarm'
VARIANT = 'as-written'
SEED = 1800130  # the oracle's inputs
SPEC = {'params': [{'name': 'x1', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v5', 'op': 'reshape', 'args': ['x1'], 'attr': {'shape': [2, 3]}}, {'var': 'v13', 'op': 'scalar', 'args': ['x1'], 'attr': {'fn': 'multiply', 'k': 3.0}}, {'var': 'v21', 'op': 'call', 'args': ['v13', 'x1'], 'attr': {'fn': 'h16'}}, {'var': 'v23', 'op': 'tuple', 'args': ['v5', 'v5', 'v5'], 'attr': {}}], 'outputs': ['v23'], 'functions': [{'name': 'h16', 'kind': 'helper', 'params': [{'name': 'p17', 'shape': [3, 2]}, {'name': 'p18', 'shape': [3, 2]}], 'dataflow': True, 'stmts': [{'var': 'v19', 'op': 'inplace_packed', 'args': ['p17'], 'attr': {'fn': 'mystery_ip'}}, {'var': 'v20', 'op': 'packed', 'args': ['p17'], 'attr': {'fn': 'vmcopy'}}], 'outputs': ['v20']}]}


@I.ir_module(s_tir=True)
class Module:
    @R.function(private=True)
    def h16(p17: R.Tensor((3, 2), "float32"), p18: R.Tensor((3, 2), "float32")) -> R.Tensor((3, 2), "float32"):
        cls = Module
        with R.dataflow():
            v19 = R.call_inplace_packed("aliaslog.fuzz.mystery_ip", p17, inplace_indices=[0], ty_args=(R.Tensor((3, 2), "float32"),))
            v20 = R.call_pure_packed("vm.builtin.copy", p17, ty_args=R.Tensor((3, 2), "float32"))
            R.output(v20)
        return v20

    @R.function
    def main(x1: R.Tensor((3, 2), "float32")):
        cls = Module
        with R.dataflow():
            v5 = R.reshape(x1, R.shape([2, 3]))
            v13 = R.multiply(x1, R.const(3.0, "float32"))
            v21 = cls.h16(v13, x1)
            v23 = (v5, v5, v5,)
            R.output(v23)
        return v23
