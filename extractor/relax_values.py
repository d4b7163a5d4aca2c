"""Value numbers of Relax tensors: the in-place writes that store what their target holds.

A write in place that stores, for every input, the very values its target already holds (a
kernel run again on the same values, zeros written over zeros) changes no byte, so no name is
stale after it. Each binding's value gets a term: the computation that made it (an operator, a
kernel or a described packed function applied to the terms of its arguments), or its bytes
where they are known at compile time (constants, and what elementwise operators and kernels
compute from them, computed here as FoldConstant would, on the same LLVM target). Equal terms
are equal values: each computation is a deterministic function of the values it reads. Whether
the target's memory still holds its value when the write comes (nothing wrote it since it was
made) is the rules' question, so `puts_back` is only a candidate (relax_checks.dl).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax, tirx

from .effect_table import Effect

Term = tuple[Any, ...]
# operators whose value on known bytes numpy computes as the legalized kernel does (IEEE,
# elementwise, with broadcasting)
NUMPY_OPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "relax.add": np.add, "relax.subtract": np.subtract, "relax.multiply": np.multiply}
# the largest kernel output run at analysis time, in elements
MAX_ELEMENTS = 1 << 16


def _data(a: np.ndarray) -> Term:
    return ("data", str(a.dtype), a.shape, a.tobytes())


def _array(t: Term) -> np.ndarray | None:
    if t[0] != "data":
        return None
    return np.frombuffer(t[3], dtype=t[1]).reshape(t[2])


def _unread(t: Term, pf: tirx.PrimFunc, i: int) -> np.ndarray | None:
    """Bytes to give a kernel for parameter i, which it never loads: its own, or zeros."""
    known = _array(t)
    ty = getattr(pf.params[i], "ty", None) if i < len(pf.params) else None
    if known is not None or not isinstance(ty, tirx.BufferType):
        return known
    if not all(isinstance(d, tirx.IntImm) for d in ty.shape):
        return None
    return np.zeros(tuple(int(d) for d in ty.shape), str(ty.dtype))


def _tensor_type(ty: Any) -> tuple[str, tuple[int, ...]] | None:
    """(dtype, static shape) of a tensor type, or None."""
    if not isinstance(ty, relax.TensorType) or ty.shape is None:
        return None
    dims = getattr(ty.shape, "values", None)
    if dims is None or not all(isinstance(d, tirx.IntImm) for d in dims):
        return None
    return str(ty.dtype), tuple(int(d) for d in dims)


class ValueNumbers:
    """Terms of the variables bound so far (in program order), and the put-back writes."""

    def __init__(self, mod: tvm.IRModule, effect: Callable[[str], Effect],
                 opaque_kernel: Callable[[str, tirx.PrimFunc], bool],
                 kernel_reads: Callable[[str, tirx.PrimFunc], set[int]]) -> None:
        self.mod = mod
        self.effect = effect
        self.opaque_kernel = opaque_kernel  # the kernel calls a packed function
        self.kernel_reads = kernel_reads  # the parameters the kernel loads
        self.terms: dict[Any, Term] = {}
        self.kernels: dict[int, Any] = {}

    def term(self, e: Any) -> Term:
        """The term of an argument: a bound variable's, a constant's bytes, a tuple's fields;
        anything else is only equal to itself."""
        if isinstance(e, relax.Var):
            return self.terms.get(e) or ("var", e)
        if isinstance(e, tvm.ir.GenericConst) and isinstance(e.ty, relax.TensorType):
            return _data(e.value.numpy())
        if isinstance(e, relax.Tuple):
            return ("tuple", *(self.term(f) for f in e.fields))
        return ("node", e)

    def bind(self, var: relax.Var, value: Any) -> list[relax.Var]:
        """Give var the term of its value; the arguments of a call that it writes in place
        with the values they already hold."""
        term, put_back = self._value(value)
        self.terms[var] = term
        return put_back

    def _value(self, e: Any) -> tuple[Term, list[relax.Var]]:
        if isinstance(e, (relax.Var, tvm.ir.GenericConst, relax.Tuple)):
            return self.term(e), []
        if isinstance(e, relax.TupleGetItem):
            t = self.term(e.tuple_value)
            if t[0] == "tuple" and e.index + 1 < len(t):
                return t[e.index + 1], []
            return ("field", t, int(e.index)), []
        if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.Op):
            return self._op_call(e, str(e.op.name))
        return ("node", e), []

    def _op_call(self, c: relax.Call, name: str) -> tuple[Term, list[relax.Var]]:
        args = list(c.args)
        if name in ("relax.call_tir", "relax.call_tir_inplace") and isinstance(args[0],
                                                                                tvm.ir.GlobalVar):
            pf = self.mod[args[0]]
            inner = list(args[1].fields) if isinstance(args[1], relax.Tuple) else [args[1]]
            inplace = [int(i) for i in c.attrs.inplace_indices] if name.endswith("inplace") \
                else []
            kname = str(args[0].name_hint)
            if isinstance(pf, tirx.PrimFunc) and not self.opaque_kernel(kname, pf):
                outs = self._kernel(c, pf, inner, self.kernel_reads(kname, pf))
                return self._written(c, inner, inplace, outs)
        if name == "relax.call_dps_packed" and isinstance(args[0], relax.ExternFunc):
            fn = str(args[0].global_symbol)
            inner = list(args[1].fields) if isinstance(args[1], relax.Tuple) else [args[1]]
            if self.effect(fn).kind == "writes":  # fills the output the VM passes it
                return ("fill", fn, *(self.term(a) for a in inner)), []
        if name == "relax.call_pure_packed" and isinstance(args[0], relax.ExternFunc):
            fn = str(args[0].global_symbol)
            out = args[-1]
            if self.effect(fn).kind == "writes" and len(args) > 2 and isinstance(out, relax.Var):
                # it fills its last argument from the others; what it returns is its own
                filled = ("fill", fn, *(self.term(a) for a in args[1:-1]))
                return ("node", c), [out] if filled == self.term(out) else []
        op = c.op
        if not op.get_attr("FPurity") or name.startswith(("relax.call_", "relax.memory.",
                                                           "relax.builtin.", "relax.vm.")):
            return ("node", c), []
        terms = [self.term(a) for a in args]
        known = self._fold(c, name, terms)
        if known is not None:
            return known, []
        return ("op", name, int(tvm_ffi.structural_hash(c.attrs)) if c.attrs is not None
                else 0, str(getattr(c, "ty", "")), *terms), []

    def _fold(self, c: relax.Call, name: str, terms: list[Term]) -> Term | None:
        """The bytes of an elementwise operator's value, where the VM's are known now."""
        out = _tensor_type(getattr(c, "ty", None))
        if out is None or name not in NUMPY_OPS or len(terms) != 2:
            return None
        arrays = [_array(t) for t in terms]
        if name == "relax.multiply" and "float" in out[0]:
            # TIR's simplifier folds x * 0 to 0 (a scalar zero constant is an immediate)
            for a in arrays:
                if a is not None and a.shape == () and a == 0:
                    return _data(np.zeros(out[1], out[0]))
        if any(a is None or str(a.dtype) != out[0] for a in arrays):
            return None
        with np.errstate(all="ignore"):
            got = NUMPY_OPS[name](arrays[0], arrays[1])
        return _data(got.astype(out[0])) if got.shape == out[1] else None

    def _kernel(self, c: relax.Call, pf: tirx.PrimFunc, inner: list[Any],
                reads: set[int]) -> list[Term]:
        """The terms of a call_tir(_inplace)'s outputs: its bytes when the bytes of every
        argument it loads are known (the kernel run here), else the kernel applied to the
        arguments' terms."""
        ty = getattr(c, "ty", None)
        fields = list(ty.fields) if isinstance(ty, tvm.ir.TupleType) else [ty]
        terms = [self.term(a) for a in inner]
        key = int(tvm_ffi.structural_hash(pf))
        run = self._run(key, pf, terms, fields, c, reads)
        if run is not None:
            return run
        return [("tir", key, str(f), i, *terms) for i, f in enumerate(fields)]

    def _run(self, key: int, pf: tirx.PrimFunc, terms: list[Term], fields: list[Any],
             c: relax.Call, reads: set[int]) -> list[Term] | None:
        outs = [_tensor_type(f) for f in fields]
        if any(o is None for o in outs):
            return None
        inplace = ([int(i) for i in c.attrs.inplace_indices]
                   if str(c.op.name).endswith("inplace") else [-1] * len(outs))
        # an argument the kernel never loads, and does not write in place, may hold anything
        arrays = [_array(t) if i in reads or i in inplace else _unread(t, pf, i)
                  for i, t in enumerate(terms)]
        if any(a is None for a in arrays):
            return None
        fresh = [o for o, k in zip(outs, inplace, strict=False) if k < 0]
        if len(pf.params) != len(arrays) + len(fresh):
            return None
        if sum(int(np.prod(o[1])) for o in fresh) + sum(a.size for a in arrays) > MAX_ELEMENTS:
            return None
        try:
            if key not in self.kernels:
                self.kernels[key] = tvm.compile(
                    tvm.IRModule({"main": pf.with_attr("global_symbol", "main")}), target="llvm")
            dev = tvm.cpu()
            given = [tvm.runtime.tensor(a.copy(), dev) for a in arrays]
            made = [tvm.runtime.tensor(np.zeros(o[1], o[0]), dev) for o in fresh]
            self.kernels[key]["main"](*given, *made)
        except Exception:  # a kernel this target cannot build: its term stays symbolic
            return None
        made_iter = iter(made)
        got = [given[k] if k >= 0 else next(made_iter) for k in inplace[:len(outs)]]
        return [_data(t.numpy()) for t in got]

    def _written(self, c: relax.Call, inner: list[Any], inplace: list[int],
                 outs: list[Term]) -> tuple[Term, list[relax.Var]]:
        """A call_tir(_inplace)'s term, and the in-place arguments it puts back."""
        put_back = [inner[k] for k, t in zip(inplace, outs, strict=False)
                    if 0 <= k < len(inner) and isinstance(inner[k], relax.Var)
                    and t == self.term(inner[k])]
        return (outs[0] if len(outs) == 1 else ("tuple", *outs)), put_back
