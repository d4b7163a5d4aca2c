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

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax, tirx

from .effect_table import Effect
from .element_sets import (
    Elements,
    Param,
    binary,
    computable,
    covered,
    kernel_sets,
    of_array,
    same_values,
    zero_or_nan,
)
from .kernel_access import Expr, StoreForms, store_forms

Term = tuple[Any, ...]
# operators whose value on known bytes numpy computes as the legalized kernel does (IEEE,
# elementwise, with broadcasting)
NUMPY_OPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "relax.add": np.add, "relax.subtract": np.subtract, "relax.multiply": np.multiply}
# the largest kernel output run at analysis time, in elements
MAX_ELEMENTS = 1 << 16
# operators whose elements are elements of their first argument (moved, none computed)
MOVES = frozenset({"relax.reshape", "relax.flatten", "relax.permute_dims", "relax.squeeze",
                   "relax.expand_dims", "relax.broadcast_to", "relax.strided_slice",
                   "relax.split", "relax.memory.view", "relax.grad.no_grad"})
ALLOCATIONS = frozenset({"relax.builtin.alloc_tensor", "relax.memory.alloc_tensor",
                         "relax.vm.alloc_tensor"})
# operators that keep their input's elements in row-major order, converting each to the
# output dtype: to the input's own shape and dtype, the value is the input's
SAME_IF_SAME_TYPE = frozenset({"relax.astype", "relax.reshape", "relax.flatten",
                               "relax.squeeze", "relax.expand_dims"})


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
        self.forms: dict[int, StoreForms | None] = {}  # store_forms by the kernel's hash
        self.sets: dict[Term, Elements] = {}  # what the elements of a term's value may be
        self.filled: set[Any] = set()  # destinations a lowered kernel call has filled
        self.holder: dict[Term, Any] = {}  # a fill's term -> the variable first filled with it
        self.same_fills: list[tuple[Any, Any]] = []  # the last bind's (destination, holder)
        # the last bind's (destination, x): known bytes equal to x's wherever they meet
        self.agree_fills: list[tuple[Any, Any]] = []
        self.placed: dict[Any, tuple[Any, int]] = {}  # alloc_tensor: (storage, byte offset)
        self.allocated: set[Any] = set()  # variables bound to a fresh allocation
        self.refilled: list[Any] = []  # the last bind's arguments that held a value, filled
        self.leaves: dict[Term | None, int] = {}  # terms numbered for canonical trees
        # a term each element of which is a function of the same element of another's (`2 * x`
        # of x, to x's shape): that term and the function
        self.derived: dict[Term, tuple[Term, Callable[[np.generic], np.generic]]] = {}

    def term(self, e: Any) -> Term:
        """The term of an argument: a bound variable's, a constant's bytes, a tuple's fields;
        anything else is only equal to itself."""
        if isinstance(e, relax.Var):
            return self.terms.get(e) or ("var", e)
        if isinstance(e, tvm.ir.GenericConst) and isinstance(e.ty, relax.TensorType):
            return _data(e.value.numpy())
        if isinstance(e, relax.Tuple):
            return ("tuple", *(self.term(f) for f in e.fields))
        if isinstance(e, (relax.Call, relax.Function, relax.SeqExpr, relax.If)):
            return ("node", e)
        return ("expr", _Struct(e))  # a shape, a prim value, a dtype: a literal's value

    def elements(self, t: Term) -> Elements | None:
        """What the elements of a term's value may hold, where known."""
        a = _array(t)
        if a is not None:
            return of_array(a)
        return self.sets.get(t)

    def bind(self, var: relax.Var, value: Any) -> list[Any]:
        """Give var the term of its value; the arguments (variables or constants) of a call
        that it writes in place with the values they already hold."""
        self.same_fills, self.agree_fills, self.refilled = [], [], []
        self._place(var, value)
        term, put_back = self._value(value)
        self.terms[var] = self._uniform(term, var)
        return put_back

    def give_set(self, param: relax.Var, elements: Elements) -> None:
        """A parameter's elements hold only these values (every call site's argument does)."""
        self.sets[("var", param)] = elements
        self.terms[param] = self._uniform(("var", param), param)

    def _uniform(self, term: Term, var: relax.Var) -> Term:
        """A term whose every element holds one value, other than NaN (whose bytes vary), has
        known bytes, to var's static shape: a kernel can be run on them like a constant's."""
        got = self.sets.get(term)
        ty = _tensor_type(getattr(var, "ty", None))
        if got is None or len(got.keys) != 1 or ty is None or ty[0] != got.dtype:
            return term
        (value,) = got.values()
        return term if np.isnan(value) else _data(np.full(ty[1], value, ty[0]))

    def _value(self, e: Any) -> tuple[Term, list[Any]]:
        if isinstance(e, (relax.Var, tvm.ir.GenericConst, relax.Tuple)):
            return self.term(e), []
        if isinstance(e, relax.TupleGetItem):
            t = self.term(e.tuple_value)
            if t[0] == "tuple" and e.index + 1 < len(t):
                return t[e.index + 1], []
            field_t = ("field", t, int(e.index))
            whole = self.sets.get(t)  # a split's parts: elements of what it split
            if whole is not None:
                self.sets[field_t] = whole
            return field_t, []
        if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.Op):
            return self._op_call(e, str(e.op.name))
        if isinstance(e, relax.Call) and isinstance(e.op, relax.ExternFunc) and \
                (whole := self._whole_view(str(e.op.global_symbol), list(e.args), e)):
            return whole, []  # (call_packed after RemovePurityChecking)
        if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.GlobalVar):
            pf = self.mod[e.op] if e.op in self.mod.functions else None
            if isinstance(pf, tirx.PrimFunc) and not self.opaque_kernel(e.op.name_hint, pf):
                return ("node", e), self._direct(pf, list(e.args))
        return ("node", e), []

    def _whole_view(self, fn: str, args: list[Any], c: relax.Call) -> Term | None:
        """A `view` packed function given a tensor, to that tensor's own type: all its bytes,
        as they are, so its value (`vm.builtin.copy` hands the tensor itself back)."""
        if args and self.effect(fn).kind == "view" and _same_type(args[0], c):
            return self.term(args[0])
        return None

    def _op_call(self, c: relax.Call, name: str) -> tuple[Term, list[Any]]:
        args = list(c.args)
        if name in ("relax.call_tir", "relax.call_tir_inplace") and isinstance(args[0],
                                                                                tvm.ir.GlobalVar):
            pf = self.mod[args[0]]
            inner = list(args[1].fields) if isinstance(args[1], relax.Tuple) else [args[1]]
            inplace = [int(i) for i in c.attrs.inplace_indices] if name.endswith("inplace") \
                else []
            kname = str(args[0].name_hint)
            if isinstance(pf, tirx.PrimFunc) and not self.opaque_kernel(kname, pf):
                outs, kept = self._kernel(c, pf, inner, self.kernel_reads(kname, pf))
                self._call_tir_elements(pf, inner, inplace, outs)
                term, put_back = self._written(c, inner, inplace, outs)
                return term, put_back + [inner[k] for k in sorted(kept) if k not in inplace
                                         and isinstance(inner[k], (relax.Var, tvm.ir.GenericConst))]
        if name == "relax.call_dps_packed" and isinstance(args[0], relax.ExternFunc):
            fn = str(args[0].global_symbol)
            inner = list(args[1].fields) if isinstance(args[1], relax.Tuple) else [args[1]]
            if self.effect(fn).kind == "writes":  # fills the output the VM passes it
                return ("fill", fn, *(self.term(a) for a in inner)), []
        if name == "relax.call_pure_packed" and isinstance(args[0], relax.ExternFunc):
            fn = str(args[0].global_symbol)
            whole = self._whole_view(fn, args[1:], c)
            if whole is not None:
                return whole, []
            out = args[-1]
            if self.effect(fn).kind == "writes" and len(args) > 2 and isinstance(out, relax.Var):
                # it fills its last argument from the others; what it returns is its own
                filled = ("fill", fn, *(self.term(a) for a in args[1:-1]))
                return ("node", c), [out] if filled == self.term(out) else []
        if name in SAME_IF_SAME_TYPE and args and _same_type(args[0], c):
            return self.term(args[0]), []  # to its own shape and dtype: the same value
        op = c.op
        if not op.get_attr("FPurity") or (name.startswith((
                "relax.call_", "relax.memory.", "relax.builtin.", "relax.vm."))
                and name != "relax.memory.view"):  # (a view is its input's bytes)
            return ("node", c), []
        same = unit_operand(c)
        if same is not None:  # `x * 1`, `x - 0`, `x + -0`: x, bit for bit
            return self.term(args[same]), []
        terms = [self.term(a) for a in args]
        known = self._fold(c, name, terms)
        if known is not None:
            return known, []
        term = ("op", name, int(tvm_ffi.structural_hash(c.attrs)) if c.attrs is not None
                else 0, str(getattr(c, "ty", "")), *terms)
        got = self._op_elements(c, name, terms)
        if got is not None:
            self.sets[term] = got
        scalar = scalar_operand(c)
        if scalar is not None:
            self._derive(term, terms[scalar[0]], scalar[1])
        return term, []

    def _derive(self, t: Term, base: Term, fn: Callable[[np.generic], np.generic]) -> None:
        """Record t as fn of base's elements."""
        if t != base:
            self.derived[t] = (base, fn)

    def _root(self, t: Term, bases: set[Term]) -> tuple[Term, Callable[..., Any]] | None:
        """The furthest term of `bases` t is a function of, through other such terms, and the
        function (one root for every term of a chain, so they are picked together)."""
        fns, best, cur = [], None, t
        while cur in self.derived and len(fns) < len(self.derived):
            cur, fn = self.derived[cur]
            fns.append(fn)
            if cur in bases:
                best = (cur, len(fns))
        if best is None:
            return None
        chain = fns[:best[1]]

        def value(v: np.generic) -> np.generic:
            for fn in reversed(chain):
                v = fn(v)
            return v

        return best[0], value

    def _op_elements(self, c: relax.Call, name: str, terms: list[Term]) -> Elements | None:
        """What an operator's elements may hold: its input's, for one that only moves them;
        computed from its operands', for an elementwise one (`x - x`: 0 or NaN)."""
        if name in MOVES:
            src = self.elements(terms[0])
            if src is None or (name == "relax.memory.view" and not _view_within(c, src.dtype)):
                return None
            return src
        out = _tensor_type(getattr(c, "ty", None))
        if out is None or name not in NUMPY_OPS or len(terms) != 2:
            return None
        fn = NUMPY_OPS[name]
        if terms[0] == terms[1]:
            a = self.elements(terms[0])
            if a is not None:
                return binary(fn, a, None, out[0])
            return zero_or_nan(out[0]) if name == "relax.subtract" else None
        a, b = self.elements(terms[0]), self.elements(terms[1])
        return binary(fn, a, b, out[0]) if a is not None and b is not None else None

    def _fold(self, c: relax.Call, name: str, terms: list[Term]) -> Term | None:
        """The bytes of an elementwise operator's value, where the VM's are known now."""
        out = _tensor_type(getattr(c, "ty", None))
        if out is None or name not in NUMPY_OPS or len(terms) != 2:
            return None
        arrays = [_array(t) for t in terms]
        if zero_product(c) is not None:
            return _data(np.zeros(out[1], out[0]))
        if any(a is None or str(a.dtype) != out[0] for a in arrays):
            return None
        with np.errstate(all="ignore"):
            got = NUMPY_OPS[name](arrays[0], arrays[1])
        return _data(got.astype(out[0])) if got.shape == out[1] else None

    def _kernel(self, c: relax.Call, pf: tirx.PrimFunc, inner: list[Any],
                reads: set[int]) -> tuple[list[Term], set[int]]:
        """The terms of a call_tir(_inplace)'s outputs: its bytes when the bytes of every
        argument it loads are known (the kernel run here), else the kernel applied to the
        arguments' terms; and the arguments of known bytes it stores into (not as an output:
        a kernel that also writes its input) that keep every byte."""
        ty = getattr(c, "ty", None)
        fields = list(ty.fields) if isinstance(ty, tvm.ir.TupleType) else [ty]
        terms = [self.term(a) for a in inner]
        key = int(tvm_ffi.structural_hash(pf))
        run = self._run(key, pf, terms, fields, c, reads)
        if run is not None:
            return run
        inplace = ([int(i) for i in c.attrs.inplace_indices]
                   if str(c.op.name).endswith("inplace") else [-1] * len(fields))
        slots = iter(range(len(inner), len(pf.params)))
        return [(self._elementwise(pf, next(slots), terms) if k < 0 else None)
                or ("tir", key, str(f), i, *terms)
                for i, (f, k) in enumerate(zip(fields, inplace, strict=False))], set()

    def _run(self, key: int, pf: tirx.PrimFunc, terms: list[Term], fields: list[Any],
             c: relax.Call, reads: set[int]) -> tuple[list[Term], set[int]] | None:
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
        run = self._runner(pf)
        if run is None:
            return None
        try:
            after = run([*arrays, *(np.zeros(o[1], o[0]) for o in fresh)])
        except Exception:  # a kernel this target cannot run on them: its term stays symbolic
            return None
        made_iter = iter(after[len(arrays):])
        got = [after[k] if k >= 0 else next(made_iter) for k in inplace[:len(outs)]]
        forms = self._forms(pf)
        stored = set(forms.written) if forms is not None else set()
        kept = {i for i, t in enumerate(terms) if i in stored and (a := _array(t)) is not None
                and same_values(after[i], a)}
        return [_data(t) for t in got], kept

    def _call_tir_elements(self, pf: tirx.PrimFunc, inner: list[Any], inplace: list[int],
                           outs: list[Term]) -> None:
        """Sets of a call_tir(_inplace)'s outputs; an output updated in place whose every
        element keeps its value gets its argument's term (a write that puts back)."""
        fresh = [i for i, k in enumerate(inplace + [-1] * (len(outs) - len(inplace)))
                 if k < 0]
        updated = {k for k in inplace if k >= 0}
        slot = {i: len(inner) + n for n, i in enumerate(fresh)}
        where = [inplace[i] if i < len(inplace) and inplace[i] >= 0 else slot[i]
                 for i in range(len(outs))]
        terms: list[Term | None] = [self.term(a) for a in inner] + [None] * len(fresh)
        sets, kept = self._kernel_elements(pf, terms, sorted(set(where)))
        for i, k in enumerate(where):
            if k in kept and k in updated:
                outs[i] = self.term(inner[k])
            elif k in sets:
                self.sets[outs[i]] = sets[k]

    def _direct(self, pf: tirx.PrimFunc, args: list[Any]) -> list[Any]:
        """A kernel the lowered program calls itself: the arguments it updates in place with
        the values they hold; each destination it fills first gets the kernel's term."""
        key = int(tvm_ffi.structural_hash(pf))
        forms = self._forms(pf)
        if forms is None or len(args) != len(pf.params):
            return []
        loaded = set().union(*forms.loaded.values()) if forms.loaded else set()
        dests = [k for k in forms.written if k not in loaded]
        terms: list[Term | None] = [None if k in dests else self.term(a)
                                    for k, a in enumerate(args)]
        sets, kept = self._kernel_elements(pf, terms, sorted(forms.written))
        run_kept, known = self._direct_run(pf, terms, [k for k in forms.written
                                                       if k not in dests], dests, loaded)
        kept |= run_kept
        inputs = [t for t in terms if t is not None]
        for n, k in enumerate(dests):
            var = args[k]
            if not isinstance(var, relax.Var):
                continue
            if var not in self.allocated and var not in self.filled and self._covers(pf, k):
                self.refilled.append(var)  # (a lowered call_tir_inplace that loads nothing)
            if var in self.filled:  # filled again: what it holds is no term's
                self.holder = {t: x for t, x in self.holder.items() if not x.same_as(var)}
                self.terms[var] = ("node", var, len(self.filled))
                continue
            self.filled.add(var)
            self.terms[var] = term = known.get(k) or self._elementwise(pf, k, terms) or \
                ("tir", key, str(getattr(var, "ty", "")), n, *inputs)
            if not self.holder.setdefault(term, var).same_as(var):
                self.same_fills.append((var, self.holder[term]))
            if k in known:
                self.agree_fills += [(var, x) for x in self._agreeing(var, known[k])]
            if k in sets:
                self.sets[term] = sets[k]
        return [args[k] for k in sorted(kept)
                if isinstance(args[k], (relax.Var, tvm.ir.GenericConst))]

    def _elementwise(self, pf: tirx.PrimFunc, k: int, terms: list[Term | None]) -> Term | None:
        """The value of output k of a kernel that stores every element once, from the same
        element of what it loads, by IEEE operations: their tree, in a canonical form only
        exact rewrites make (`a + b` is `b + a`, `x + x` is `x * 2`), over the terms of what it
        loads, with its dtype and shape. Kernels that compute equal values by different
        arithmetic get one term."""
        forms = self._forms(pf)
        types = _param_types(pf)
        expr = forms.exprs.get(k) if forms is not None else None
        if expr is None or types is None or k >= len(types) or \
                any(i >= len(terms) or terms[i] is None for i in forms.loaded[k]):
            return None
        tree = _canonical(expr, lambda i: self._leaf(terms[i]))
        same = [i for i in forms.loaded[k] if tree == ("leaf", self._leaf(terms[i]))
                and types[i] == types[k]]
        if same:  # what it loads, unchanged (`x * 1`): that very value
            return terms[same[0]]
        term = ("elementwise", *types[k], tree)
        loads = {terms[i] for i in forms.loaded[k]}
        if len(loads) == 1 and all(types[i] == types[k] for i in forms.loaded[k]) and \
                _castless(tree):
            self._derive(term, next(iter(loads)), lambda v: _evaluate(tree, v))
        return term

    def _leaf(self, t: Term | None) -> int:
        """A number for a term, the same for equal terms (so canonical trees sort alike)."""
        return self.leaves.setdefault(t, len(self.leaves))

    def _covers(self, pf: tirx.PrimFunc, k: int) -> bool:
        """The kernel stores every element of parameter k, which it does not load: where it
        stores does not depend on loaded values (store_forms), so one run on zeros, with k
        holding 0 and then 1 before, says."""
        types = _param_types(pf)
        if self._forms(pf) is None or types is None or \
                sum(int(np.prod(s)) for _, s in types) > MAX_ELEMENTS:
            return False
        run = self._runner(pf)
        return run is not None and covered(run, [Param(d, s) for d, s in types], k)

    def _place(self, var: relax.Var, value: Any) -> None:
        """Where an alloc_tensor at a static offset puts var: its storage and offset; which
        variables a fresh allocation binds."""
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and \
                str(value.op.name) in ALLOCATIONS:
            self.allocated.add(var)
        if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op) and \
                str(value.op.name) in ("relax.memory.alloc_tensor", "relax.vm.alloc_tensor") \
                and isinstance(value.args[0], relax.Var):
            off = static_int(value.args[1])
            if off is not None:
                self.placed[var] = (value.args[0], off)

    def _agreeing(self, var: relax.Var, term: Term) -> list[Any]:
        """The variables of known bytes in var's storage whose bytes the ones var is filled
        with equal wherever the two meet (all zeros over zeros, at any offset)."""
        if var not in self.placed:
            return []
        storage, at = self.placed[var]
        data = term[3]
        found = []
        for x, (s, off) in self.placed.items():
            other = self.terms.get(x)
            if x.same_as(var) or not s.same_as(storage) or other is None or other[0] != "data":
                continue
            lo, hi = max(at, off), min(at + len(data), off + len(other[3]))
            if lo < hi and data[lo - at:hi - at] == other[3][lo - off:hi - off]:
                found.append(x)
        return found

    def _forms(self, pf: tirx.PrimFunc) -> StoreForms | None:
        """store_forms of a kernel, once per kernel (a model calls each many times)."""
        key = int(tvm_ffi.structural_hash(pf))
        if key not in self.forms:
            self.forms[key] = store_forms(pf)
        return self.forms[key]

    def _direct_run(self, pf: tirx.PrimFunc, terms: list[Term | None], updated: list[int],
                    dests: list[int], loaded: set[int]) -> tuple[set[int], dict[int, Term]]:
        """A lowered kernel whose loaded and updated arguments' bytes are known, run on them:
        the parameters it updates in place with the bytes they hold, and the bytes of each
        destination it fills in full (the same whatever the destination held before)."""
        arrays = [_array(t) if t is not None else None for t in terms]
        if not (updated or dests) or any(arrays[i] is None for i in {*loaded, *updated}):
            return set(), {}
        types = _param_types(pf)
        if types is None or sum(int(np.prod(s)) for _, s in types) > MAX_ELEMENTS or any(
                a is not None and a.size != int(np.prod(s))
                for a, (_, s) in zip(arrays, types, strict=True)):
            return set(), {}
        run = self._runner(pf)
        if run is None:
            return set(), {}
        given = [[a.reshape(s) if a is not None else np.full(s, fill, d)
                  for a, (d, s) in zip(arrays, types, strict=True)] for fill in (0, 1)]
        outs = [run(g) for g in given]
        kept = {k for k in updated if same_values(outs[0][k], given[0][k])}
        return kept, {k: _data(outs[0][k]) for k in dests
                      if same_values(outs[0][k], outs[1][k])}

    def _kernel_elements(self, pf: tirx.PrimFunc, terms: list[Term | None],
                         outputs: list[int]) -> tuple[dict[int, Elements], set[int]]:
        """element_sets.kernel_sets for one call: parameters of equal terms are one class."""
        forms = self._forms(pf)
        if forms is None or len(terms) != len(pf.params):
            return {}, set()
        types = _param_types(pf)
        if types is None:
            return {}, set()
        classes: dict[Term, int] = {}
        params = []
        loaded = set().union(*forms.loaded.values()) if forms.loaded else set()
        bases = {terms[i] for i in loaded if terms[i] is not None}
        for (dtype, shape), t in zip(types, terms, strict=True):
            data = _array(t) if t is not None else None
            if data is not None and data.size != int(np.prod(shape)):
                return {}, set()
            root = self._root(t, bases) if t is not None and data is None else None
            if root is not None and self.elements(root[0]) is not None:  # follows its pick
                params.append(Param(dtype, shape, None, self.elements(t), None,
                                    (classes.setdefault(root[0], len(classes)), root[1])))
                continue
            params.append(Param(dtype, shape,
                                classes.setdefault(t, len(classes)) if t is not None else None,
                                self.elements(t) if t is not None else None, data))
        # `x - x` of equal values: 0 or NaN
        differences = [k for k, (a, b) in forms.differences.items()
                       if k in outputs and params[k].cls is None
                       and params[a].cls is not None and params[a].cls == params[b].cls]
        if (not differences and not computable(forms, params, outputs)) or \
                sum(int(np.prod(q.shape)) for q in params) > MAX_ELEMENTS:
            return {}, set()  # (compiling every kernel of a model would cost seconds)
        run = self._runner(pf)
        if run is None:
            return {}, set()
        sets, kept = kernel_sets(run, forms, params, outputs)
        for k in differences:
            zero = zero_or_nan(params[k].dtype)
            if k not in sets and zero is not None and covered(run, params, k):
                sets[k] = zero
        return sets, kept

    def _runner(self, pf: tirx.PrimFunc) -> Callable[[list[np.ndarray]], list[np.ndarray]] | None:
        """The kernel compiled for this target (cached), as a function of numpy arrays."""
        key = int(tvm_ffi.structural_hash(pf))
        try:
            if key not in self.kernels:
                self.kernels[key] = tvm.compile(
                    tvm.IRModule({"main": pf.with_attr("global_symbol", "main")}), target="llvm")
        except Exception:  # a kernel this target cannot build: no sets
            return None
        kernel = self.kernels[key]

        def run(arrays: list[np.ndarray]) -> list[np.ndarray]:
            given = [tvm.runtime.tensor(a.copy(), tvm.cpu()) for a in arrays]
            kernel["main"](*given)
            return [t.numpy() for t in given]

        return run

    def _written(self, c: relax.Call, inner: list[Any], inplace: list[int],
                 outs: list[Term]) -> tuple[Term, list[Any]]:
        """A call_tir(_inplace)'s term, and the in-place arguments it puts back."""
        put_back = [inner[k] for k, t in zip(inplace, outs, strict=False)
                    if 0 <= k < len(inner) and isinstance(inner[k], (relax.Var,
                                                                     tvm.ir.GenericConst))
                    and t == self.term(inner[k])]
        return (outs[0] if len(outs) == 1 else ("tuple", *outs)), put_back


def _param_types(pf: tirx.PrimFunc) -> list[tuple[str, tuple[int, ...]]] | None:
    """(dtype, static shape) of every parameter of a kernel, or None when one is no buffer of
    a static shape: what running it on numpy arrays needs."""
    out = []
    for p in pf.params:
        ty = getattr(p, "ty", None)
        if not isinstance(ty, tirx.BufferType) or not all(isinstance(d, tirx.IntImm)
                                                          for d in ty.shape):
            return None
        out.append((str(ty.dtype), tuple(int(d) for d in ty.shape)))
    return out


def _same_type(a: Any, b: Any) -> bool:
    """Both are tensors of one static shape and dtype."""
    t = _tensor_type(getattr(a, "ty", None))
    return t is not None and t == _tensor_type(getattr(b, "ty", None))


def _canonical(e: Expr, leaf: Callable[[int], int]) -> Expr:
    """An elementwise tree with loads numbered by leaf, commutative operands in one order,
    doubling in one form and `x * 1`, `x - 0`, `x + -0` as x: rewrites exact in IEEE
    arithmetic (NaN compared as NaN)."""
    if e[0] == "load":
        return ("leaf", leaf(e[1]))
    if e[0] == "const":
        return e
    if e[0] == "cast":
        return ("cast", e[1], _canonical(e[2], leaf))
    op, dtype, a, b = e[0], e[1], _canonical(e[2], leaf), _canonical(e[3], leaf)
    if op == "mul" and ("const", dtype, 1.0) in (a, b):  # x * 1 is x, NaN and -0 too
        return b if a == ("const", dtype, 1.0) else a
    if op == "sub" and _zero(b, 1.0):  # x - (+0) is x
        return a
    if op == "add" and (_zero(a, -1.0) or _zero(b, -1.0)):  # x + (-0) is x
        return b if _zero(a, -1.0) else a
    two = ("const", dtype, 2.0)
    if (op == "add" and a == b) or (op == "mul" and two in (a, b)):
        return ("double", dtype, b if a == two else a)
    if op in ("add", "mul"):
        a, b = sorted((a, b), key=repr)
    return (op, dtype, a, b)


def scalar_operand(c: relax.Call) -> tuple[int, Callable[[np.generic], np.generic]] | None:
    """An elementwise operator of a variable and a one-element constant, to the variable's own
    shape and dtype: the variable's position, and each element's value as a function of the
    variable's (numpy computes it as the legalized kernel does)."""
    name = str(c.op.name) if isinstance(c.op, tvm.ir.Op) else ""
    if name not in NUMPY_OPS or len(c.args) != 2:
        return None
    fn = NUMPY_OPS[name]
    for i, a in enumerate(c.args):
        x = c.args[1 - i]
        if isinstance(a, tvm.ir.GenericConst) and a.value.numpy().size == 1 and \
                _same_type(x, c) and str(a.value.numpy().dtype) == str(_tensor_type(c.ty)[0]):
            k = a.value.numpy().reshape(-1)[0]
            return 1 - i, (lambda v, k=k: fn(v, k)) if i == 1 else (lambda v, k=k: fn(k, v))
    return None


def _castless(e: Expr) -> bool:
    """No cast in the tree (numpy's float to int casts of NaN or inf are no kernel's)."""
    return e[0] != "cast" and all(_castless(x) for x in e[2:] if isinstance(x, tuple))


def _evaluate(e: Expr, v: np.generic) -> np.generic:
    """A castless canonical tree of one leaf on the element v, in the tree's dtypes."""
    if e[0] == "leaf":
        return v
    if e[0] == "const":
        return np.dtype(e[1]).type(e[2])
    with np.errstate(all="ignore"):
        if e[0] == "double":
            return _evaluate(e[2], v) * np.dtype(e[1]).type(2)
        ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply}
        return ops[e[0]](_evaluate(e[2], v), _evaluate(e[3], v))


def _zero(e: Expr, sign: float) -> bool:
    """e is the constant zero of this sign (x + 0 is no x: -0 + 0 is +0)."""
    return e[0] == "const" and e[2] == 0.0 and math.copysign(1.0, e[2]) == sign


def static_int(e: Any) -> int | None:
    """The integer an IntImm, or a prim value of one (R.prim_value(16)), holds; None when
    symbolic."""
    e = e if isinstance(e, tirx.IntImm) else getattr(e, "value", None)
    return int(e.value) if isinstance(e, tirx.IntImm) else None


def _view_within(c: relax.Call, dtype: str) -> bool:
    """A memory.view of the same dtype whose static bytes lie within its input's."""
    src, out = _tensor_type(getattr(c.args[0], "ty", None)), _tensor_type(getattr(c, "ty", None))
    value = static_int(c.args[3]) if len(c.args) > 3 else None
    if src is None or out is None or out[0] != dtype or src[0] != dtype or value is None:
        return False
    size = np.dtype(dtype).itemsize
    return int(value) + size * int(np.prod(out[1])) <= size * int(np.prod(src[1]))


class _Struct:
    """An expression compared by structure (a shape, a prim value): a term's part."""

    def __init__(self, e: Any) -> None:
        self.e = e
        self.h = int(tvm_ffi.structural_hash(e))

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Struct) and self.h == other.h and bool(
            tvm_ffi.structural_equal(self.e, other.e))


UNITS = {"relax.multiply": (1.0, None), "relax.add": (0.0, True), "relax.subtract": (0.0, False)}


def unit_operand(c: relax.Call) -> int | None:
    """The operand an elementwise operator returns as it is, bit for bit, the other being a
    constant of its identity: `x * 1`, `x - (+0)`, `x + (-0)` (not `x + 0`: -0 + 0 is +0),
    to x's own shape and dtype."""
    name = str(c.op.name) if isinstance(c.op, tvm.ir.Op) else ""
    if name not in UNITS or len(c.args) != 2:
        return None
    unit, negative = UNITS[name]
    for i, a in enumerate(c.args):
        x = c.args[1 - i]
        if i == 0 and name == "relax.subtract":
            continue  # 0 - x is no x
        if not isinstance(a, tvm.ir.GenericConst) or not _same_type(x, c):
            continue
        v = a.value.numpy()
        if v.size and np.all(v == unit) and (negative is None
                                             or bool(np.all(np.signbit(v) == negative))):
            return 1 - i
    return None


def zero_product(c: relax.Call) -> int | None:
    """The operand a float `x * 0` never loads, 0 being a scalar constant: LegalizeOps makes the
    constant an immediate and TIR's simplifier folds the product to 0 (whatever x is)."""
    out = _tensor_type(getattr(c, "ty", None))
    if out is None or "float" not in out[0] or not isinstance(c.op, tvm.ir.Op) or \
            str(c.op.name) != "relax.multiply" or len(c.args) != 2:
        return None
    for i, a in enumerate(c.args):
        if isinstance(a, tvm.ir.GenericConst) and isinstance(a.ty, relax.TensorType):
            v = a.value.numpy()
            if v.shape == () and v == 0:
                return 1 - i
    return None
