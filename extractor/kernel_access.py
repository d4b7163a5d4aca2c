"""What a TIR kernel reads and writes of its parameters, and whether it may write one of its
outputs into the memory of one of its inputs.

written_params / read_params: the parameters a kernel's body may store into and load from
(through views of them; a packed call the TIR effect table describes writes its written
positions, any other call given a data pointer may do anything). The extractor makes facts of
them (a direct call updates in place what the kernel both reads and writes).

Writing output `out` into input `in` is safe for a kernel when every element of `in` is last
read no later than the element of `out` that overwrites it is written. Decided on the kernel's
blocks (the s_tir form LegalizeOps, FuseTIR and TOPI produce), conservatively:
  - exactly one block writes `out`, once per element: data-parallel iterators only, no init;
  - that block reads `in` only at the element it writes (the same index), before its store,
    and reads `out` only there too (an accumulation), before the store;
  - every other block that reads `in` belongs to a loop nest that finishes before the writing
    block's nest begins, or reads only elements of `in` past the last one `out` covers (`out`
    may be smaller than `in`, covering its first elements);
  - no call hands out buffer pointers (extern, packed, address_of), nothing re-views `in` or
    `out` (match_buffer, DeclBuffer), and `in` is not written.
An elementwise or injective kernel whose output index is its input index passes; a transpose,
a reduction or a matmul that reads other elements afterwards does not. Every refusal says why.

That is VerifiedInplace's question (inplace_refusal: one shape). `write-overlap` asks it of
tensors a lowered module already placed in one storage: overwrite_refusal compares elements
by their offset in memory (a flatten writes element k where it reads element k; a split writes
its first part over its input's first elements, which only that part reads). An output that
starts before its input is never safe by loop order: TVM tells LLVM a kernel's buffers do not
alias, so it may load an element after storing over it (a copy one element back, on the VM).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tvm
import tvm.sym
import tvm_ffi
from tvm import s_tir, tirx
from tvm.ir.expr import TensorLoad  # what a BufferLoad is in 0.27: .source, .indices

from .effect_table import EffectSource, TirCallEffect, load_tir_effect_table

# TIR calls that hand a buffer's address to code the analysis cannot see: they may read and
# write through its data pointer without a BufferLoad or BufferStore.
POINTER_CALLS = frozenset({
    "tirx.call_extern", "tirx.call_packed", "tirx.call_cpacked", "tirx.tvm_call_packed",
    "tirx.tvm_call_cpacked", "tirx.call_llvm_intrin", "tirx.tvm_access_ptr", "tirx.address_of",
    "tirx.tvm_call_packed_lowered", "tirx.tvm_call_cpacked_lowered",
})
# Of those, the packed calls: args[0] names the function, which the TIR effect table describes.
TIR_PACKED_CALLS = frozenset({"tirx.call_packed", "tirx.call_cpacked", "tirx.tvm_call_packed",
                              "tirx.tvm_call_cpacked"})
DEFAULT_TIR_EFFECTS = Path(__file__).with_name("tir_packed_effects.tsv")


def load_tir_effects(*paths: EffectSource) -> dict[str, TirCallEffect]:
    """The table of packed functions TIR kernels call: shipped defaults, then `paths`."""
    return load_tir_effect_table(DEFAULT_TIR_EFFECTS, *paths)


@dataclass
class _Block:
    """One block of the kernel: what it loads and stores, and where it runs."""

    name: str
    nest: int  # the top-level statement (loop nest) of the root block it belongs to
    spatial: bool  # data-parallel iterators only, and no init
    realize: Any = None  # the SBlockRealize (iterator bindings)
    loops: tuple[Any, ...] = ()  # the For loops around it, outermost first
    loads: list[tuple[Any, Any]] = field(default_factory=list)  # (buffer, indices) in order
    stores: list[tuple[Any, Any, int]] = field(default_factory=list)  # (buffer, indices, #loads)
    values: list[Any] = field(default_factory=list)  # the value of each store, in order


class _Walk:
    """The kernel's blocks in program order, and what makes it unreadable to this analysis."""

    def __init__(self) -> None:
        self.blocks: list[_Block] = []
        self.problems: list[str] = []
        self.views: set[Any] = set()  # buffers re-viewed inside the kernel (and their sources)

    def run(self, pf: tirx.PrimFunc) -> None:
        body = pf.body
        if isinstance(body, s_tir.SBlockRealize) and not body.block.iter_vars:
            self.root(body.block)
        else:
            self.problems.append("the kernel is not made of blocks (s_tir)")

    def root(self, block: s_tir.SBlock) -> None:
        self.note_views(block)
        stmts = list(block.body.seq) if isinstance(block.body, tirx.SeqStmt) else [block.body]
        for nest, stmt in enumerate(stmts):
            self.stmt(stmt, nest, None, ())

    def note_views(self, block: s_tir.SBlock) -> None:
        for m in block.match_buffers:
            self.views |= {m.buffer, m.source.buffer}

    def stmt(self, s: Any, nest: int, cur: _Block | None, loops: tuple[Any, ...]) -> None:
        if isinstance(s, s_tir.SBlockRealize):
            self.exprs([s.predicate, *s.iter_values], cur)
            blk = s.block
            self.note_views(blk)
            spatial = all(int(iv.iter_type) == 0 for iv in blk.iter_vars) and blk.init is None
            inner = _Block(str(blk.name_hint), nest, spatial, s, loops)
            self.blocks.append(inner)
            if blk.init is not None:
                self.stmt(blk.init, nest, inner, loops)
            self.stmt(blk.body, nest, inner, loops)
        elif isinstance(s, tirx.SeqStmt):
            for x in s.seq:
                self.stmt(x, nest, cur, loops)
        elif isinstance(s, tirx.BufferStore):
            if cur is None:
                self.problems.append("the kernel stores outside a block")
                return
            self.exprs([*s.indices, s.value], cur)
            cur.stores.append((s.buffer, list(s.indices), len(cur.loads)))
            cur.values.append(s.value)
        elif isinstance(s, tirx.For):
            self.exprs([s.min, s.extent], cur)
            self.stmt(s.body, nest, cur, (*loops, s))
        elif isinstance(s, tirx.IfThenElse):
            self.exprs([s.condition], cur)
            self.stmt(s.then_case, nest, cur, loops)
            if s.else_case is not None:
                self.stmt(s.else_case, nest, cur, loops)
        elif isinstance(s, tirx.DeclBuffer):
            self.problems.append("the kernel declares a buffer over another's memory")
        elif isinstance(s, (tirx.Evaluate, tirx.AssertStmt)):
            self.exprs([s.value] if isinstance(s, tirx.Evaluate) else [s.condition], cur)
        elif hasattr(s, "body") and isinstance(s, tirx.Stmt):  # LetStmt, AttrStmt, While, ...
            self.exprs([getattr(s, a) for a in ("value", "condition") if hasattr(s, a)], cur)
            self.stmt(s.body, nest, cur, loops)
        else:
            self.problems.append(f"the kernel has a statement this analysis does not read "
                                 f"({type(s).__name__})")

    def exprs(self, es: list[Any], cur: _Block | None) -> None:
        def on_load(ld: Any) -> None:
            if cur is None:
                self.problems.append("the kernel loads outside a block")
            else:
                cur.loads.append((ld.source, list(ld.indices)))

        def on_call(c: Any) -> None:
            if isinstance(c.op, tvm.ir.Op) and str(c.op.name) in POINTER_CALLS:
                self.problems.append(f"the kernel passes buffer pointers to {c.op.name}")

        for e in es:
            if e is not None:
                tvm_ffi.structural_walk(e, [(TensorLoad, on_load), (tvm.ir.Call, on_call)])


def _same_index(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(tvm_ffi.structural_equal(x, y)
                                    for x, y in zip(a, b, strict=True))


def _same_buffer_type(a: Any, b: Any) -> bool:
    ta, tb = a.ty, b.ty
    return str(ta.dtype) == str(tb.dtype) and tvm_ffi.structural_equal(ta.shape, tb.shape)


def _fits_within(a: Any, b: Any) -> bool:
    """Compact buffers of one dtype, a with no more elements than b (element k of each at the
    same byte offset from the start)."""
    ta, tb = a.ty, b.ty
    if str(ta.dtype) != str(tb.dtype) or list(ta.strides) or list(tb.strides):
        return False
    sizes = [_static_size(t.shape) for t in (ta, tb)]
    return sizes[0] is not None and sizes[1] is not None and sizes[0] <= sizes[1]


def _block_analyzer(b: _Block) -> Any:
    """An analyzer that knows the ranges of block b's iterators."""
    analyzer = tvm.sym.Analyzer()
    for iv in b.realize.block.iter_vars:
        analyzer.bind(iv.var, iv.dom)
    return analyzer


def _reads_past(b: _Block, inp: Any, first: int | None) -> bool:
    """Every load of `inp` in block b is at an element offset of at least `first` (proved over
    the block iterators' domains)."""
    if first is None or b.realize is None:
        return False
    analyzer = _block_analyzer(b)
    shape = inp.ty.shape
    return all(len(idx) == len(shape) and analyzer.can_prove(_linear(idx, shape) >= first)
               for buf, idx in b.loads if inp.same_as(buf))


def _static_size(shape: Any) -> int | None:
    n = 1
    for d in shape:
        if not isinstance(d, tirx.IntImm):
            return None
        n *= int(d)
    return n


def _linear(index: list[Any], shape: Any) -> Any:
    """The row-major element offset of `index` in a compact buffer of `shape`."""
    off: Any = tirx.IntImm("int64", 0)
    for i, d in zip(index, shape, strict=True):
        off = off * tirx.Cast("int64", d) + tirx.Cast("int64", i)
    return off


def _same_offset(w: _Block, a: list[Any], a_shape: Any, b: list[Any], b_shape: Any) -> bool:
    """In block w, index a of one buffer and index b of another are the same element offset
    (proved over the block iterators' domains)."""
    if len(a) != len(a_shape) or len(b) != len(b_shape):
        return False
    analyzer = _block_analyzer(w)
    return bool(analyzer.can_prove_equal(_linear(a, a_shape), _linear(b, b_shape)))


def copies_over(pf: tirx.PrimFunc, out_param: int, in_param: int) -> bool:
    """Every store into parameter `out_param` is the element of `in_param` at the same offset,
    loaded as it is, and nothing stores into `in_param`: written over the input's first bytes
    (a split or slice planned there), the kernel puts back each element's own value."""
    params = list(pf.params)
    out, inp = params[out_param], params[in_param]
    if not all(isinstance(getattr(p, "ty", None), tirx.BufferType) for p in (out, inp)) or \
            not _fits_within(out, inp):
        return False
    walk = _Walk()
    walk.run(pf)
    if walk.problems or walk.views & {out, inp}:
        return False
    found = False
    for b in walk.blocks:
        for (buf, index, _), value in zip(b.stores, b.values, strict=True):
            if inp.same_as(buf):
                return False
            if not out.same_as(buf):
                continue
            if not (isinstance(value, TensorLoad) and inp.same_as(value.source) and
                    _same_offset(b, index, out.ty.shape, list(value.indices), inp.ty.shape)):
                return False
            found = True
    return found


def inplace_refusal(pf: tirx.PrimFunc, out_param: int, in_param: int) -> str | None:
    """Why writing parameter `out_param` into parameter `in_param`'s memory is unsafe for this
    kernel (see the module docstring), or None when it is safe."""
    return _refusal(pf, out_param, in_param, by_offset=False)


def overwrite_refusal(pf: tirx.PrimFunc, out_param: int, in_param: int) -> str | None:
    """Why writing parameter `out_param` over exactly the bytes of `in_param` is unsafe, or
    None when safe: what inplace_refusal asks, elements compared by their offset in memory
    (a reshape kernel reads element k of its input where it writes element k of its output),
    so the two buffers need only one dtype and one size."""
    return _refusal(pf, out_param, in_param, by_offset=True)


def _refusal(pf: tirx.PrimFunc, out_param: int, in_param: int, by_offset: bool) -> str | None:
    params = list(pf.params)
    out, inp = params[out_param], params[in_param]
    if not all(isinstance(getattr(p, "ty", None), tirx.BufferType) for p in (out, inp)):
        return "a parameter is not a buffer"
    if by_offset and not _fits_within(out, inp):
        return (f"`{out.name}` is larger than `{inp.name}`, of another dtype, or they are not "
                f"compact")
    if not by_offset and not _same_buffer_type(out, inp):
        return f"`{out.name}` and `{inp.name}` differ in shape or dtype"
    walk = _Walk()
    walk.run(pf)
    if walk.problems:
        return walk.problems[0]
    if walk.views & {out, inp}:
        return f"the kernel views `{inp.name}` or `{out.name}` through match_buffer"
    if any(b is inp or inp.same_as(b) for blk in walk.blocks for b, _, _ in blk.stores):
        return f"the kernel writes its input `{inp.name}` too"
    writers = [b for b in walk.blocks if any(out.same_as(s) for s, _, _ in b.stores)]
    if len(writers) != 1:
        return f"{len(writers)} blocks write `{out.name}`" if writers else \
            f"no block writes `{out.name}`"
    w = writers[0]
    if not w.spatial:
        return f"block `{w.name}` is a reduction: it writes `{out.name}` more than once an element"
    stores = [(idx, n) for s, idx, n in w.stores if out.same_as(s)]
    if len(stores) != 1:
        return f"block `{w.name}` stores into `{out.name}` more than once"
    index, before = stores[0]
    for k, (buf, idx) in enumerate(w.loads):
        # the element about to be written, read before the store, is still the input's own
        # (an accumulation `a[i] = a[i] + b[i]` over b); any other read of out may see a write
        if out.same_as(buf) and not (k < before and (
                _same_offset(w, idx, out.ty.shape, index, out.ty.shape) if by_offset
                else _same_index(idx, index))):
            return (f"block `{w.name}` reads `{out.name}` at another element than the one it "
                    f"writes, or after writing it: it would then be `{inp.name}`")
        if inp.same_as(buf):
            same = (_same_offset(w, idx, inp.ty.shape, index, out.ty.shape) if by_offset
                    else _same_index(idx, index))
            if not same:
                return (f"block `{w.name}` reads `{inp.name}` at another element than the one "
                        f"it writes")
            if k >= before:
                return f"block `{w.name}` reads `{inp.name}` after writing `{out.name}`"
    out_size = _static_size(out.ty.shape) if by_offset else None  # static: _fits_within
    for b in walk.blocks:
        if b is w or not any(inp.same_as(buf) for buf, _ in b.loads):
            continue
        if b.nest >= w.nest and not (by_offset and _reads_past(b, inp, out_size)):
            return (f"block `{b.name}` reads `{inp.name}` after or while block `{w.name}` "
                    f"writes `{out.name}`")
    return None


# ------------------------------------------------ which parameters a kernel writes and reads


@dataclass
class _BufferAccess:
    """What a PrimFunc body stores into and loads from, by buffer, before naming parameters."""
    alias: dict[Any, Any] = field(default_factory=dict)  # a view buffer -> what it views
    stores: list[Any] = field(default_factory=list)
    loads: list[Any] = field(default_factory=list)
    opaque: bool = False  # a call that takes data pointers and no table describes

    def params(self, pf: tirx.PrimFunc, buffers: list[Any]) -> set[int]:
        """The indices of the parameters the buffers are (or view)."""
        index = {p: i for i, p in enumerate(pf.params)}
        out: set[int] = set()
        for b in buffers:
            for _ in range(64):
                if b in index or b not in self.alias:
                    break
                b = self.alias[b]
            if b in index:
                out.add(index[b])
        return out


def _puts_back(st: Any) -> bool:
    """The store writes an element the value it loads from that very element (`a[i] = a[i]`,
    what TE makes of an in-place `a + 0` or `a * 1`): memory keeps its value."""
    v = st.value
    return (isinstance(v, TensorLoad) and v.source.same_as(st.buffer)
            and bool(tvm_ffi.structural_equal(list(v.indices), list(st.indices))))


def _buffer_access(pf: tirx.PrimFunc, table: dict[str, TirCallEffect]) -> _BufferAccess:
    """One walk of the body: stores, loads, views of parameters and opaque calls."""
    acc = _BufferAccess()

    def on_decl(d: Any) -> None:
        dat = d.data
        if (isinstance(dat, tvm.ir.Call) and isinstance(dat.op, tvm.ir.Op)
                and dat.op.name == "tirx.buffer_data"):
            acc.alias[d.buffer] = dat.args[0]

    def on_match(m: Any) -> None:
        src = m.source
        acc.alias[m.buffer] = src.source if hasattr(src, "source") else src.buffer

    def on_call(c: Any) -> None:
        if not (isinstance(c.op, tvm.ir.Op) and c.op.name in POINTER_CALLS):
            return
        for a in c.args:  # a buffer a call is given may be read by it
            acc.loads.extend(_buffers_in(a))
        described = _described_writes(c, table)
        if described is None:
            acc.opaque = True
        else:
            acc.stores.extend(described)

    def on_store(st: Any) -> None:
        if not _puts_back(st):
            acc.stores.append(st.buffer)

    tvm_ffi.structural_walk(pf.body, [(tirx.DeclBuffer, on_decl),
                                      (s_tir.MatchBufferRegion, on_match),
                                      (tirx.BufferStore, on_store),
                                      (tvm.ir.TensorLoad, lambda ld: acc.loads.append(ld.source)),
                                      (tvm.ir.Call, on_call)])
    return acc


def written_params(pf: tirx.PrimFunc,
                   tir_effects: dict[str, TirCallEffect] | None = None) -> tuple[list[int], bool]:
    """Indices of the PrimFunc parameters its body may write, and whether an opaque call does.

    A BufferStore into a parameter, or into a DeclBuffer / match_buffer view of one, writes it,
    unless it puts back the value it loads from the same element (`a[i] = a[i]`).
    A packed call the TIR effect table describes writes the buffers at its written positions;
    any other call that takes data pointers (extern, packed, address_of) may write them all.
    """
    acc = _buffer_access(pf, tir_effects if tir_effects is not None else load_tir_effects())
    if acc.opaque:
        return list(range(len(pf.params))), True
    return sorted(acc.params(pf, acc.stores)), False


def read_params(pf: tirx.PrimFunc,
                tir_effects: dict[str, TirCallEffect] | None = None) -> set[int]:
    """Indices of the PrimFunc parameters whose contents its body may load (or give a call).

    A parameter the kernel writes and reads is updated in place (its old value is consumed);
    one it only writes is a destination.
    """
    acc = _buffer_access(pf, tir_effects if tir_effects is not None else load_tir_effects())
    if acc.opaque:
        return set(range(len(pf.params)))
    return acc.params(pf, acc.loads)


def _buffers_in(e: Any) -> list[Any]:
    """The buffers an argument expression of a TIR call mentions (e.g. via tvm_stack_make_array)."""
    found: list[Any] = []
    tvm_ffi.structural_walk(e, [(tvm.ir.Var, lambda v: found.append(v)
                                 if isinstance(v.ty, tirx.BufferType) else None)])
    return found


def _described_writes(c: Any, table: dict[str, TirCallEffect]) -> list[Any] | None:
    """Buffers a described packed call writes, or None when the table cannot say."""
    if c.op.name not in TIR_PACKED_CALLS or not c.args or \
            not isinstance(c.args[0], tvm.ir.StringImm):
        return None
    effect = table.get(str(c.args[0].value))
    if effect is None:
        return None
    written: list[Any] = []
    for pos, arg in enumerate(c.args[1:]):
        buffers = _buffers_in(arg)
        if not buffers:
            continue
        if pos in effect.writes:
            written += buffers
        elif pos not in effect.reads:
            return None  # a buffer where the table expects none: not the described signature
    return written


Expr = tuple[Any, ...]  # ("load", param) | ("const", dtype, value) | (op, dtype, *operands)


@dataclass
class StoreForms:
    """The stores of a kernel by the parameter they write: each one elementwise (it loads
    parameters only at the element it stores, or 0-d ones) or a move (its value is one load,
    from anywhere, or a constant). `loaded`: per written parameter, the ones its stores load."""

    written: dict[int, str]  # parameter -> "same" (every store elementwise) or "move"
    loaded: dict[int, set[int]]
    once: set[int]  # written by one store, which meets each element at most once
    differences: dict[int, tuple[int, int]]  # written by one store `a[i] - b[i]` (a, b)
    # written by one elementwise store, at every element once, that loads neither itself nor
    # another written parameter: its value per element (elementwise_expr)
    exprs: dict[int, Expr] = field(default_factory=dict)


def store_forms(pf: tirx.PrimFunc) -> StoreForms | None:
    """How each parameter the kernel writes gets its values, or None when some store is
    neither form, writes a buffer that is no parameter, or a call or view hides an access."""
    buffers = {p: i for i, p in enumerate(pf.params)
               if isinstance(getattr(p, "ty", None), tirx.BufferType)}
    flags: dict[int, list[tuple[bool, bool]]] = {}
    loaded: dict[int, set[int]] = {}
    hidden = False

    def on_call(c: Any) -> None:
        nonlocal hidden
        if isinstance(c.op, tvm.ir.Op) and str(c.op.name) in POINTER_CALLS:
            hidden = True

    def on_view(_: Any) -> None:
        nonlocal hidden
        hidden = True

    def on_branch(s: Any) -> None:  # where stores happen may not depend on loaded values
        nonlocal hidden
        cond = s.predicate if isinstance(s, s_tir.SBlockRealize) else s.condition
        hidden = hidden or bool(_loads_in(cond))

    stores: list[Any] = []
    subtracted: dict[int, tuple[int | None, int | None]] = {}  # k -> a, b of `a[i] - b[i]`
    tvm_ffi.structural_walk(pf.body, [(tirx.BufferStore, stores.append),
                                      (tvm.ir.Call, on_call), (tirx.DeclBuffer, on_view),
                                      (s_tir.MatchBufferRegion, on_view),
                                      (tirx.IfThenElse, on_branch), (tirx.While, on_branch),
                                      (s_tir.SBlockRealize, on_branch)])
    if hidden:
        return None
    for st in stores:
        k = _param_of(st.buffer, buffers)
        if k is None:
            return None
        loads = _loads_in(st.value)
        params = [_param_of(ld.source, buffers) for ld in loads]
        if any(p is None for p in params):
            return None
        same = all(not list(ld.indices) or (_same_index(list(ld.indices), list(st.indices))
                                             and _same_shape(ld.source, st.buffer))
                   for ld in loads)
        move = isinstance(st.value, (TensorLoad, tirx.FloatImm))
        flags.setdefault(k, []).append((same, move))
        loaded.setdefault(k, set()).update(p for p in params if p is not None)
        v = st.value
        if isinstance(v, tirx.Sub) and all(
                isinstance(x, TensorLoad) and _same_index(list(x.indices), list(st.indices))
                for x in (v.a, v.b)):
            subtracted[k] = (_param_of(v.a.source, buffers), _param_of(v.b.source, buffers))
    single, whole = _stored_once(pf.body)
    once = {k for k, fl in flags.items() if len(fl) == 1
            and any(pf.params[k].same_as(b) for b in single)}
    covered = {k for k in once if any(pf.params[k].same_as(b) for b in whole)}
    forms: dict[int, str] = {}
    for k, fl in flags.items():
        if all(same for same, _ in fl):
            forms[k] = "same"
        elif all(move for _, move in fl):
            forms[k] = "move"
        else:
            return None
    differences = {k: (a, b) for k, (a, b) in subtracted.items()  # of what it was given
                   if len(flags[k]) == 1 and a is not None and b is not None
                   and a not in forms and b not in forms}
    exprs = {}
    for st in stores:
        k = _param_of(st.buffer, buffers)
        if k in covered and forms.get(k) == "same" and not loaded[k] & set(forms):
            got = elementwise_expr(st.value, buffers)
            if got is not None:
                exprs[k] = got
    return StoreForms(forms, loaded, once, differences, exprs)


EXACT_OPS = {tirx.Add: "add", tirx.Sub: "sub", tirx.Mul: "mul"}  # one IEEE rounding each


def elementwise_expr(e: Any, buffers: dict[Any, int]) -> Expr | None:
    """An elementwise store's value as a tree of IEEE operations on the parameters' elements,
    or None when it holds anything else, or a product added to or subtracted from something
    (LLVM may fuse a multiply-add, rounding once: the tree would not say what is computed)."""
    if isinstance(e, TensorLoad):
        i = _param_of(e.source, buffers)
        return None if i is None else ("load", i)
    if isinstance(e, (tirx.FloatImm, tirx.IntImm)):
        return ("const", str(e.ty), float(e.value))
    if isinstance(e, tirx.Cast):
        inner = elementwise_expr(e.value, buffers)
        return None if inner is None else ("cast", str(e.ty), inner)
    op = EXACT_OPS.get(type(e))
    if op is None:
        return None
    if op in ("add", "sub") and any(isinstance(x, tirx.Mul) for x in (e.a, e.b)):
        return None
    a, b = elementwise_expr(e.a, buffers), elementwise_expr(e.b, buffers)
    return None if a is None or b is None else (op, str(e.ty), a, b)


def _param_of(buf: Any, buffers: dict[Any, int]) -> int | None:
    for b, i in buffers.items():
        if b.same_as(buf):
            return i
    return None


def _same_shape(a: Any, b: Any) -> bool:
    return bool(tvm_ffi.structural_equal(a.shape, b.shape))


def _loads_in(e: Any) -> list[Any]:
    loads: list[Any] = []
    tvm_ffi.structural_walk(e, [(TensorLoad, loads.append)])
    return loads


def _stored_once(body: Any) -> tuple[set[Any], set[Any]]:
    """The buffers a store meets each element of at most once: its indices are distinct loop
    variables (through block bindings), one for every loop around it; and those it also meets
    every element of: no condition or block predicate guards it, and the loop each index is
    runs from 0 over that dimension."""
    once: set[Any] = set()
    whole: set[Any] = set()

    def visit(s: Any, loops: dict[Any, Any], bind: dict[Any, Any], guarded: bool) -> None:
        if isinstance(s, tirx.For):
            visit(s.body, {**loops, s.loop_var: s}, bind, guarded)
        elif isinstance(s, s_tir.SBlockRealize):
            inner = dict(bind)
            for iv, val in zip(s.block.iter_vars, s.iter_values, strict=True):
                inner[iv.var] = val
            always = isinstance(s.predicate, tirx.IntImm) and int(s.predicate.value) == 1
            visit(s.block.body, loops, inner, guarded or not always)
        elif isinstance(s, tirx.SeqStmt):
            for x in s.seq:
                visit(x, loops, bind, guarded)
        elif isinstance(s, tirx.BufferStore):
            idx = [bind.get(i, i) for i in s.indices]
            if all(isinstance(i, tvm.ir.Var) for i in idx) and len(set(idx)) == len(idx) \
                    and set(loops) <= set(idx):
                once.add(s.buffer)
                if not guarded and all(
                        i in loops and _static(loops[i].min) == 0
                        and _static(loops[i].extent) == _static(d) is not None
                        for i, d in zip(idx, s.buffer.shape, strict=True)):
                    whole.add(s.buffer)
        elif hasattr(s, "body") and isinstance(s, tirx.Stmt):
            visit(s.body, loops, bind, guarded)

    visit(body, {}, {}, False)
    return once, whole


def _static(e: Any) -> int | None:
    return int(e.value) if isinstance(e, tirx.IntImm) else None
