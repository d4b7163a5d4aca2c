"""Closures: captured tensors are the caller's memory, before and after LambdaLift.

A lifted closure (`make_closure` of a private function, called with `invoke_pure_closure`)
passes its captured values as the function's first parameters; a function literal captures
variables directly. A write inside the body into a captured tensor is a write into the
caller's tensor; a write into a captured tensor while the closure is alive clobbers what the
closure reads. `EXPECT` says what each module does on TVM's VM and what aliaslog must report
(tests/relax/test_relax_trust.py).
"""

from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class LiftedWritesParam:
    @T.prim_func(private=True, s_tir=True)
    def addto(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + B[vi]

    @R.function(private=True)
    def lifted(y: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = LiftedWritesParam
        r = R.call_tir_inplace(cls.addto, (a, y), [0], R.Tensor((4,), "float32"))
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = LiftedWritesParam
        clo = R.make_closure(cls.lifted, (x,))
        r = R.invoke_pure_closure(clo, (y,), ty_args=(R.Tensor((4,), "float32"),))
        return r


@I.ir_module
class LiftedWritesLocal:
    @T.prim_func(private=True, s_tir=True)
    def addto(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + B[vi]

    @R.function(private=True)
    def lifted(y: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = LiftedWritesLocal
        r = R.call_tir_inplace(cls.addto, (a, y), [0], R.Tensor((4,), "float32"))
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = LiftedWritesLocal
        a = R.add(x, x)
        clo = R.make_closure(cls.lifted, (a,))
        r = R.invoke_pure_closure(clo, (y,), ty_args=(R.Tensor((4,), "float32"),))
        return (r, a)


@I.ir_module
class LiftedWritesDeadLocal:
    @T.prim_func(private=True, s_tir=True)
    def addto(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + B[vi]

    @R.function(private=True)
    def lifted(y: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = LiftedWritesDeadLocal
        r = R.call_tir_inplace(cls.addto, (a, y), [0], R.Tensor((4,), "float32"))
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = LiftedWritesDeadLocal
        a = R.add(x, x)
        clo = R.make_closure(cls.lifted, (a,))
        r = R.invoke_pure_closure(clo, (y,), ty_args=(R.Tensor((4,), "float32"),))
        return r


@I.ir_module
class InnerWritesLocal:
    @T.prim_func(private=True, s_tir=True)
    def addto(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + B[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = InnerWritesLocal
        a = R.add(x, x)

        @R.function
        def inner(y2: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            r = R.call_tir_inplace(cls.addto, (a, y2), [0], R.Tensor((4,), "float32"))
            return r

        r = inner(y)
        return (r, a)


@I.ir_module
class InnerWritesParam:
    @T.prim_func(private=True, s_tir=True)
    def addto(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + B[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = InnerWritesParam

        @R.function
        def inner(y2: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            r = R.call_tir_inplace(cls.addto, (x, y2), [0], R.Tensor((4,), "float32"))
            return r

        r = inner(y)
        return r


@I.ir_module
class PureClosure:
    @R.function(private=True)
    def lifted(y: R.Tensor((4,), "float32"), a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        r = R.add(a, y)
        return r

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = PureClosure
        a = R.add(x, x)
        clo = R.make_closure(cls.lifted, (a,))
        r = R.invoke_pure_closure(clo, (y,), ty_args=(R.Tensor((4,), "float32"),))
        s = R.invoke_pure_closure(clo, (x,), ty_args=(R.Tensor((4,), "float32"),))
        return (r, s, a)


@I.ir_module
class InnerPure:
    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        a = R.add(x, x)

        @R.function
        def inner(y2: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            r = R.add(a, y2)
            return r

        r = inner(y)
        return (r, a)


# module -> reference (value semantics, numpy), VM hazard, `check` errors, `audit` errors as
# (check, pass that introduces it), warnings of both; passes: the TVM passes `audit` runs
# before relax.build's pipeline, vm_passes: those run before building for the VM (a function
# literal needs LambdaLift)
EXPECT = {
    "LiftedWritesParam": dict(reference=lambda x, y: [x + y], hazard=True,
                              check={"inplace-param"}, audit={("inplace-param", "input")}),
    "LiftedWritesLocal": dict(reference=lambda x, y: [2 * x + y, 2 * x], hazard=True,
                              check={"inplace-live"}, audit={("inplace-live", "input")}),
    "LiftedWritesDeadLocal": dict(reference=lambda x, y: [2 * x + y], hazard=False,
                                  check=set(), audit=set(), warnings=set()),
    "InnerWritesLocal": dict(reference=lambda x, y: [2 * x + y, 2 * x], hazard=True,
                             check={"inplace-live"}, audit={("inplace-live", "input")},
                             passes=("LambdaLift",), vm_passes=("LambdaLift",)),
    "InnerWritesParam": dict(reference=lambda x, y: [x + y], hazard=True,
                             check={"inplace-param"}, audit={("inplace-param", "input")},
                             passes=("LambdaLift",), vm_passes=("LambdaLift",)),
    "PureClosure": dict(reference=lambda x, y: [2 * x + y, 3 * x, 2 * x], hazard=False,
                        check=set(), audit=set(), warnings=set()),
    "InnerPure": dict(reference=lambda x, y: [2 * x + y, 2 * x], hazard=False, check=set(),
                      audit=set(), warnings=set(), passes=("LambdaLift",), vm_passes=("LambdaLift",)),
}
