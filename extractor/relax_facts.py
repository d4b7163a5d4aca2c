"""Relax IRModule -> facts: the shared value-flow core plus tensors, storages, views and writes.

Keys are the TVM objects themselves (Relax names are not unique after lowering), numbered in a
fixed walk order (functions by name, bindings in program order), so the same module always gives
byte-identical fact files. Each SeqExpr becomes a let chain: one `let_bind` per binding, the
binding blocks of one SeqExpr laid end to end in one program-order block (`block_pos`).
"""

from __future__ import annotations

import difflib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tvm
import tvm_ffi
from tvm import relax, tirx

from .effect_table import (
    DECLARED,
    SIGNATURE_ITEMS,
    Effect,
    EffectSource,
    ExtractError,
    Shape,
    TirCallEffect,
    load_effect_table,
)
from .facts import FactSet
from .kernel_access import (
    copies_over,
    load_tir_effects,
    overwrite_refusal,
    read_params,
    written_params,
)
from .param_sets import param_sets
from .relax_pipeline import views_ahead
from .relax_values import ValueNumbers, static_int, zero_product

log = logging.getLogger("aliaslog.effects")

DEFAULT_RELAX_EFFECTS = Path(__file__).with_name("relax_effects.tsv")


# Packed functions LegalizeOps calls in place of an op: the same call, for comparing passes.
LEGALIZED_FROM = {"relax.run.print": "relax.print", "relax.run.assert_op": "relax.assert_op"}
# Builtin-call ops: args[0] is the real callee, args[1] a tuple of the real arguments.
TUPLE_ARG_CALLS = frozenset({"relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed",
                             "relax.call_tir_with_grad"})
# args[0] is an ExternFunc and the rest are its arguments.
PACKED_CALLS = frozenset({"relax.call_pure_packed", "relax.call_inplace_packed"})
ALLOC_TENSOR = frozenset({"relax.builtin.alloc_tensor"})
RESHAPE = "relax.reshape"
ALLOC_STORAGE = frozenset({"relax.memory.alloc_storage", "relax.vm.alloc_storage"})
ALLOC_IN_STORAGE = frozenset({"relax.memory.alloc_tensor", "relax.vm.alloc_tensor"})
KILLS = {"relax.memory.kill_tensor": "tensor", "relax.memory.kill_storage": "storage",
         "relax.vm.kill_object": "object"}
# Views whose offset and size are arguments: (data, shape, dtype, relative_byte_offset).
OFFSET_VIEWS = frozenset({"relax.memory.view", "runtime.TVMTensorCreateView"})
ZERO_OFFSET = frozenset({"relax.memory.ensure_zero_offset", "vm.builtin.ensure_zero_offset"})
ALLOC_ALIGNMENT = 64  # tvm::runtime::kAllocAlignment (include/tvm/runtime/device_api.h)
# Closure calls in their three spellings (before RemovePurityChecking, after it, after
# LowerRuntimeBuiltin): one signature, so a pass that only lowers one is not a removed call.
INVOKE_CLOSURE = "invoke_closure"
# Byte offsets and sizes the rules see exactly; larger ones are "unknown: overlaps everything"
# (the rules' arithmetic is 32-bit).
MAX_EXTENT = 1 << 28


def load_relax_effects(*sources: EffectSource) -> dict[str, Effect]:
    """The Relax op / packed-function effect table: shipped defaults, what Python code declared
    (aliaslog.relax.packed_effects), then the user's tables (files or dicts) in order. A user
    entry naming no operator or registered function gets a warning with the closest name."""
    shipped = load_effect_table(DEFAULT_RELAX_EFFECTS)
    user = load_effect_table(*sources)
    _warn_unknown(user, shipped)
    return {**shipped, **DECLARED, **user}


_WARNED: set[str] = set()


def _warn_unknown(user: dict[str, Effect], shipped: dict[str, Effect]) -> None:
    """Warn (once a name) about entries that name nothing TVM knows: probably misspelt."""
    unknown = [n for n in user if n not in shipped and n not in _WARNED]
    if not unknown:
        return
    known = set(shipped) | set(DECLARED) | set(tvm.ir.Op.list_op_names()) | set(
        tvm_ffi.registry.list_global_func_names())
    for name in unknown:
        if name in known:
            continue
        _WARNED.add(name)
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        log.warning("op effects: `%s` (%s) is no Relax operator or registered packed "
                    "function%s", name, user[name].where, hint)


@dataclass
class RelaxIds:
    """Both directions between Relax objects and fact ids, plus what reports need."""

    node_id: dict[Any, str] = field(default_factory=dict)
    nodes: dict[str, Any] = field(default_factory=dict)
    binding_of: dict[str, Any] = field(default_factory=dict)  # binding id -> relax Binding
    binding_func: dict[str, str] = field(default_factory=dict)  # binding id -> global name
    in_literal: set[str] = field(default_factory=set)  # bindings in a function literal's body
    func_name: dict[str, str] = field(default_factory=dict)  # function node id -> name
    callee_name: dict[str, str] = field(default_factory=dict)  # call node id -> callee
    node_binding: dict[str, str] = field(default_factory=dict)  # var/value/output -> binding

    def id(self, obj: Any) -> str:
        return self.node_id[obj]


@dataclass
class RelaxExtraction:
    """Facts plus the id map that read-back uses to go from ids to Relax objects."""

    facts: FactSet
    ids: RelaxIds
    module: tvm.IRModule
    entries: list[str]


def extract_relax(mod: tvm.IRModule, effects: dict[str, Effect] | None = None,
                  entries: list[str] | None = None,
                  tir_effects: dict[str, TirCallEffect] | None = None,
                  param_modes: dict[tuple[str, str], str] | None = None,
                  after: frozenset[str] = frozenset(),
                  once: frozenset[str] = frozenset()) -> RelaxExtraction:
    """Facts for every Relax function of `mod`; entries default to its public functions.
    `param_modes`: (entry function, parameter name) -> mode (`donated`). `once`: entry functions
    that run once (`runs_once`). `after`: the TVM passes that have run on `mod`. Once
    LegalizeOps has, a `relax.reshape` left is the view RewriteDataflowReshape made (before it,
    a reshape not bound to a dataflow variable becomes a copying kernel; until
    RewriteDataflowReshape has, a copy it will make a view is vm_view); once CallTIRRewrite
    has, kernels called directly are its lowering of call_tir / call_tir_inplace, and an
    argument a kernel updates is the call's result (before it, a direct call is the program's
    own: the argument still names the value it destroyed, unless its function is marked
    force_pure, as RemovePurityChecking leaves it)."""
    return _RelaxExtractor(mod, effects if effects is not None else load_relax_effects(),
                           tir_effects if tir_effects is not None else load_tir_effects(),
                           entries, param_modes or {}, after, views_ahead(mod, after),
                           once).run()


def relax_functions(mod: tvm.IRModule) -> list[str]:
    """Names of the module's Relax functions, sorted (the extraction's walk order)."""
    names = sorted(str(gv.name_hint) for gv in mod.get_global_vars())
    return [n for n in names if isinstance(mod[n], relax.Function)]


def default_entries(mod: tvm.IRModule) -> list[str]:
    """The functions the outside world calls: the public ones (else every Relax function)."""
    funcs = relax_functions(mod)
    public = [n for n in funcs if mod[n].attrs is not None and "global_symbol" in mod[n].attrs]
    return public or funcs


def check_param_modes(mod: tvm.IRModule, modes: Any, entries: list[str] | None = None) -> None:
    """Refuse a declared parameter (donated, mutable) that is no parameter of an entry
    function, naming what there is: before any pass runs, and again at extraction."""
    entries = entries if entries is not None else default_entries(mod)
    for fn, param in sorted(modes):
        _require_entry(fn, entries)
        names = [str(p.name) for p in mod[fn].params]
        if param not in names:
            raise ExtractError(f"@{fn} has no parameter `{param}` (has: "
                               f"{', '.join(names) or 'none'})")


def check_once(mod: tvm.IRModule, once: frozenset[str], entries: list[str] | None = None) -> None:
    """Refuse a function declared to run once (`--once`) that is no entry function."""
    entries = entries if entries is not None else default_entries(mod)
    for fn in sorted(once):
        _require_entry(fn, entries)


def _require_entry(fn: str, entries: list[str]) -> None:
    if fn not in entries:
        raise ExtractError(f"@{fn} is not an entry function of the module (entries: "
                           f"{', '.join('@' + e for e in entries)})")


def _is_var(e: Any) -> bool:
    return isinstance(e, relax.Var)


def _nbytes(ty: Any) -> int | None:
    """Bytes of a tensor of a static shape and dtype; None when either is unknown."""
    if not isinstance(ty, relax.TensorType) or ty.shape is None:
        return None
    dims = [static_int(d) for d in getattr(ty.shape, "values", [])]
    if not isinstance(ty.shape, relax.ShapeExpr) or any(d is None for d in dims):
        return None
    try:
        dt = tvm.DataType(str(ty.dtype))
    except Exception:  # noqa: BLE001 - an unknown dtype (`void`) has no size
        return None
    n = (dt.bits * dt.lanes + 7) // 8
    for d in dims:
        n *= d
    return n


def _extent(offset: Any, ty: Any) -> tuple[int, int] | None:
    """[offset, offset + size) in bytes, when both are static and small enough to be exact."""
    off = 0 if offset is None or (isinstance(offset, relax.Tuple) and not offset.fields) \
        else static_int(offset)
    size = _nbytes(ty)
    if off is None or size is None or off < 0 or off + size > MAX_EXTENT:
        return None
    return off, off + size


def _cast_cannot_fail(b: relax.MatchCast) -> bool:
    """The value's static type already is the cast's type, so the run-time check passes."""
    ty = getattr(b.value, "ty", None)
    return ty is not None and bool(tvm_ffi.structural_equal(ty, b.ty))


class _RelaxExtractor:
    def __init__(self, mod: tvm.IRModule, effects: dict[str, Effect],
                 tir_effects: dict[str, TirCallEffect], entries: list[str] | None,
                 param_modes: dict[tuple[str, str], str],
                 after: frozenset[str] = frozenset(), vm_views: set[Any] | None = None,
                 once: frozenset[str] = frozenset()) -> None:
        self.mod = mod
        self.vm_views = vm_views or set()  # variables relax.build binds to a view (views_ahead)
        # the DLTensor byte_offset of what a node names, where static: 0 for a tensor the VM
        # allocates (StaticPlanBlockMemory places it at offset 0), a storage offset, plus views'
        self.byte_offsets: dict[str, int] = {}
        self.param_modes = param_modes
        self.legalized = "LegalizeOps" in after
        self.rewritten = "CallTIRRewrite" in after
        # the binding being extracted binds a dataflow variable (RewriteDataflowReshape
        # makes a view only of a reshape kernel bound to one)
        self.dataflow_binding = False
        self.effects = effects
        self.tir_effects = tir_effects
        self.f = FactSet()
        self.ids = RelaxIds()
        self.n_block = 0
        self.n_binding = 0
        self.callees_used: dict[str, str] = {}  # name -> default effect
        self.prim_writes: dict[str, tuple[list[int], bool]] = {}
        self.prim_reads: dict[str, set[int]] = {}
        self.prim_overwrite: dict[str, list[tuple[int, int, str]]] = {}
        # functions marked force_pure: RemovePurityChecking's mark, so the kernels they call
        # directly are TVM's lowering (as in a module saved from relax.build's pipeline)
        self.force_pure: set[str] = set()
        self.literals: set[str] = set()  # ids of function literals (nested functions)
        self.constants: dict[int, list[Any]] = {}  # structural hash -> constants seen
        self.relax_funcs = relax_functions(mod)
        self.values = ValueNumbers(mod, self.effect,
                                   lambda name, pf: self.prim_written(name, pf)[1],
                                   self.prim_read)
        if entries is None:
            entries = default_entries(mod)
        for e in entries:
            if e not in self.relax_funcs:
                raise ExtractError(f"no Relax function @{e} in the module (has: "
                                   f"{', '.join('@' + n for n in self.relax_funcs) or 'none'})")
        self.entries = entries
        check_once(mod, once, entries)
        self.once = once
        check_param_modes(mod, param_modes, entries)
        self.param_sets = param_sets(mod, entries, self.numbers)

    def numbers(self) -> ValueNumbers:
        """Another walk's value numbers, sharing this one's compiled kernels."""
        vn = ValueNumbers(self.mod, self.effect, lambda name, pf: self.prim_written(name, pf)[1],
                          self.prim_read)
        vn.kernels, vn.forms = self.values.kernels, self.values.forms
        return vn

    # ----------------------------------------------------------------------------- ids
    def nid(self, key: Any, obj: Any = None) -> str:
        got = self.ids.node_id.get(key)
        if got is None:
            got = f"n{len(self.ids.node_id)}"
            self.ids.node_id[key] = got
            self.ids.nodes[got] = key if obj is None else obj
        return got

    def same_constant(self, c: Any) -> Any:
        """The first constant of the module structurally equal to c: the VM's executable keeps
        one copy of equal constants (ExecBuilder's dedup), so a write into one is a write into
        every constant equal to it."""
        seen = self.constants.setdefault(int(tvm_ffi.structural_hash(c)), [])
        for other in seen:
            if other.same_as(c) or tvm_ffi.structural_equal(other, c):
                return other
        seen.append(c)
        return c

    def fresh(self, obj: Any) -> str:
        """An id for an occurrence that has no identity of its own (prim values, strings)."""
        return self.nid(("occurrence", len(self.ids.node_id)), obj)

    # ------------------------------------------------------------------------- module
    def run(self) -> RelaxExtraction:
        f = self.f
        gids = {}
        for name in self.relax_funcs:
            fn = self.mod[name]
            gid = self.nid(fn)
            gids[name] = gid
            self.ids.func_name[gid] = f"@{name}"
            f.add("global_func", name, gid)
        for name in self.entries:
            f.add("entry", gids[name])
            if name in self.once:
                f.add("runs_once", gids[name])
        for name in self.relax_funcs:
            self.function(self.mod[name], gids[name], name, entry=name in self.entries)
        for key, nid in self.ids.node_id.items():
            if isinstance(key, tuple) and key[0] == "output":
                self.ids.node_binding[nid] = self.ids.node_binding[key[1]]
        for name in sorted(self.callees_used):
            effect = self.effect(name)
            f.add("op_effect", name, effect.kind)
            if effect.signature:
                f.add("op_sig", name, "signature", -1)
                for pos in sorted(_result_positions(effect.result)):
                    f.add("op_sig", name, "result", pos)
                for item in SIGNATURE_ITEMS:
                    for pos in sorted(getattr(effect, item)):
                        f.add("op_sig", name, item, pos)
        f.seal()
        return RelaxExtraction(f, self.ids, self.mod, list(self.entries))

    def function(self, fn: relax.Function, fid: str, gname: str, entry: bool) -> None:
        """Facts for a function (global or literal): parameters, body chain, nested code."""
        f = self.f
        f.add("node", fid, "fn", fid)
        force = fn.attrs is not None and bool(fn.attrs.get("relax.force_pure", False))
        f.add("func_purity", fid, "force_pure" if force else "pure" if fn.is_pure else "impure")
        if force:
            self.force_pure.add(fid)
        for i, p in enumerate(fn.params):
            if p in self.param_sets:
                self.values.give_set(p, self.param_sets[p])
            pid = self.nid(p)
            f.add("param", fid, i, pid)
            f.add("node", pid, "var", fid)
            if entry:
                f.add("alloc_site", pid, "param")
                mode = self.param_modes.get((gname, str(p.name)))
                if mode is not None:
                    f.add("param_mode", pid, mode)
        body = self.seq(fn.body, fid, fid, gname)
        f.add("func", fid, body)

    def seq(self, s: relax.SeqExpr, func: str, owner: str, gname: str) -> str:
        """A SeqExpr as one let chain; returns the node its value is (first let, or result)."""
        f = self.f
        blk = f"k{self.n_block}"
        self.n_block += 1
        bindings = [b for block in s.blocks for b in block.bindings]
        result = self.atom(s.body, func, owner)
        lets = [self.nid(("let", b), b) for b in bindings]
        f.add("block_end", blk, result, len(bindings))
        for pos, b in enumerate(bindings):
            n = lets[pos]
            f.add("segment", n, owner)
            f.add("node", n, "let", func)
            bid = f"b{self.n_binding}"
            self.n_binding += 1
            self.ids.binding_of[bid] = b
            self.ids.binding_func[bid] = gname
            if func in self.literals:
                self.ids.in_literal.add(bid)
            v = self.nid(b.var)
            f.add("node", v, "var", func)
            span = getattr(b.value, "span", None)
            if span is not None:
                f.add("node_loc", v, int(span.line), int(span.column))
            self.dataflow_binding = isinstance(b.var, relax.DataflowVar)
            value = self.value(b.value, func, bid, gname)
            held = self.nid(b.value) if isinstance(b.value, relax.Var) else value
            if held in self.byte_offsets:
                self.byte_offsets[v] = self.byte_offsets[held]
            for a in self.values.bind(b.var, b.value):
                f.add("puts_back", value, self.nid(self.same_constant(a), a)
                      if isinstance(a, tvm.ir.GenericConst) else self.nid(a))
            for d, x in self.values.same_fills:
                f.add("fills_same", value, self.nid(d), self.nid(x))
            for d, x in self.values.agree_fills:
                f.add("fills_agree", value, self.nid(d), self.nid(x))
            for a in self.values.refilled:
                f.add("refills", value, self.nid(a))
            if b.var in self.vm_views and isinstance(b.value, relax.Call):
                f.add("vm_view", value)
            if isinstance(b, relax.MatchCast) and not _cast_cannot_fail(b):
                value = self.match_check(b, value, func, bid)
            self.ids.node_binding.setdefault(v, bid)
            if not _is_var(b.value):  # `y = x` names x's node too; x is not made here
                self.ids.node_binding.setdefault(value, bid)
            nxt = lets[pos + 1] if pos + 1 < len(lets) else result
            f.add("let_bind", bid, n, v, value, nxt)
            f.add("block_pos", bid, blk, pos)
            f.add("copy", v, value)
            # A block is flat: every let evaluates to the block's result, and the first let
            # evaluates all of them. Demand then needs no walk along the chain, whose length
            # would bound the number of fixpoint rounds.
            f.add("copy", n, result)
            f.add("evaluates", n, value)
            if pos:
                f.add("evaluates", lets[0], n)
            for c in (value, nxt):
                if self.ids.nodes.get(c) is not None and _is_var(self.ids.nodes[c]):
                    f.add("var_ref", n, c)
        return lets[0] if lets else result

    def match_check(self, b: relax.MatchCast, value: str, func: str, owner: str) -> str:
        """A MatchCast that may fail at run time: a check node with an effect nobody removes."""
        f = self.f
        n = self.nid(("match_cast", b), b)
        f.add("segment", n, owner)
        f.add("node", n, "check", func)
        f.add("copy", n, value)
        f.add("evaluates", n, value)
        f.add("call_arg", n, 0, value)
        if _is_var(b.value):
            f.add("var_ref", n, value)
        self.op_call(n, "op", "relax.match_cast", "unknown")
        f.add("tvm_impure", n, "a MatchCast: TVM's passes never remove one")
        return n

    # ------------------------------------------------------------------------ values
    def atom(self, e: Any, func: str, owner: str) -> str:
        """A leaf or small expression used as an argument: its node id (facts added once)."""
        f = self.f
        if _is_var(e):
            return self.nid(e)
        if isinstance(e, tvm.ir.GenericConst):
            n = self.nid(self.same_constant(e), e)
            f.add("segment", n, owner)
            if isinstance(e.ty, relax.TensorType):
                f.add("node", n, "const", func)
                f.add("alloc_site", n, "constant")
            else:
                f.add("node", n, "meta", func)
            return n
        if isinstance(e, tvm.ir.GlobalVar):
            n = self.fresh(e)
            f.add("segment", n, owner)
            f.add("node", n, "global", func)
            target = self.mod[e]
            if isinstance(target, relax.Function):
                f.add("global_ref", n, self.nid(target))
            return n
        if isinstance(e, relax.ExternFunc):
            n = self.fresh(e)
            f.add("segment", n, owner)
            f.add("node", n, "extern", func)
            return n
        if isinstance(e, relax.Tuple):
            n = self.nid(e)
            f.add("segment", n, owner)
            f.add("node", n, "tuple", func)
            for i, a in enumerate(e.fields):
                an = self.atom(a, func, owner)
                f.add("tuple_field", n, i, an)
                f.add("evaluates", n, an)
                if _is_var(a):
                    f.add("var_ref", n, an)
            return n
        n = self.fresh(e)  # ShapeExpr, prim values, strings, dtypes: no memory
        f.add("segment", n, owner)
        f.add("node", n, "meta", func)
        return n

    def value(self, e: Any, func: str, owner: str, gname: str) -> str:
        """Facts for a binding's value."""
        f = self.f
        if isinstance(e, relax.Call):
            return self.call(e, func, owner)
        if isinstance(e, relax.TupleGetItem):
            n = self.nid(e)
            f.add("segment", n, owner)
            f.add("node", n, "proj", func)
            t = self.atom(e.tuple_value, func, owner)
            f.add("proj", n, t, int(e.index))
            f.add("evaluates", n, t)
            if _is_var(e.tuple_value):
                f.add("var_ref", n, t)
            return n
        if isinstance(e, relax.If):
            n = self.nid(e)
            f.add("segment", n, owner)
            f.add("node", n, "if", func)
            c = self.atom(e.cond, func, owner)
            f.add("if_cond", n, c)
            if _is_var(e.cond):
                f.add("var_ref", n, c)
            for branch in (e.true_branch, e.false_branch):
                b = self.seq(branch, func, owner, gname)
                f.add("segment", b, owner)
                f.add("copy", n, b)
                f.add("evaluates", n, b)
                if _is_var(branch.body):
                    f.add("var_ref", n, self.nid(branch.body))
            return n
        if isinstance(e, relax.Function):
            n = self.nid(e)
            f.add("segment", n, owner)
            f.add("fn_literal", n)
            self.literals.add(n)
            self.ids.func_name[n] = "fn"
            self.function(e, n, gname, entry=False)
            f.add("node", n, "fn", func)
            for v in relax.analysis.free_vars(e):
                f.add("var_ref", n, self.nid(v))
            return n
        return self.atom(e, func, owner)

    def call(self, c: relax.Call, func: str, owner: str) -> str:
        f = self.f
        n = self.nid(c)
        f.add("segment", n, owner)
        f.add("node", n, "call", func)
        op = c.op
        args = list(c.args)
        impure = None
        if isinstance(op, tvm.ir.Op):
            if not op.get_attr("FPurity"):
                impure = "FPurity is false"
        elif isinstance(getattr(op, "ty", None), relax.FuncType) and not op.ty.purity:
            impure = "the callee's type is impure"
        if impure:
            f.add("tvm_impure", n, impure)

        def use(a: Any) -> str:
            an = self.atom(a, func, owner)
            f.add("evaluates", n, an)
            if _is_var(a):
                f.add("var_ref", n, an)
            return an

        def args_of(xs: list[Any]) -> list[str]:
            out = [use(a) for a in xs]
            for i, a in enumerate(out):
                f.add("call_arg", n, i, a)
            return out

        if isinstance(op, tvm.ir.Op):
            name = str(op.name)
            if name in TUPLE_ARG_CALLS:
                inner = args[1].fields if len(args) > 1 and isinstance(args[1], relax.Tuple) else []
                self.builtin_call(c, n, name, args[0], args_of(list(inner)))
                return n
            if name in PACKED_CALLS:
                self.builtin_call(c, n, name, args[0], args_of(args[1:]))
                return n
            if name == "relax.make_closure":
                inner = args[1].fields if len(args) > 1 and isinstance(args[1], relax.Tuple) else []
                self.make_closure(n, args[0], [use(a) for a in inner])
                return n
            if name in ("relax.invoke_closure", "relax.invoke_pure_closure"):
                inner = args[1].fields if len(args) > 1 and isinstance(args[1], relax.Tuple) else []
                self.invoke_closure(n, use(args[0]), args_of(list(inner)))
                return n
            if (name == "relax.call_builtin_with_ctx" and len(args) == 2
                    and isinstance(args[0], relax.ExternFunc)
                    and str(args[0].global_symbol) == "vm.builtin.invoke_closure"
                    and isinstance(args[1], relax.Tuple) and args[1].fields):
                fields = list(args[1].fields)
                self.invoke_closure(n, use(fields[0]), args_of(fields[1:]))
                return n
            arg_ids = args_of(args)
            self.op_call(n, "op", name, "none" if op.get_attr("FPurity") else "unknown")
            self.op_result(c, n, name, arg_ids)
            unloaded = zero_product(c)
            if unloaded is not None and _is_var(args[unloaded]):
                f.add("kernel_unread", n, arg_ids[unloaded])
            return n
        if isinstance(op, tvm.ir.GlobalVar):
            target = self.mod[op]
            arg_ids = args_of(args)
            if isinstance(target, tirx.PrimFunc):
                self.primfunc_call(n, str(op.name_hint), target, arg_ids,
                                   lowered=self.rewritten or func in self.force_pure)
                self.result(c, n)
                return n
            callee = use(op)
            f.add("call", n, callee)
            self.ids.callee_name[n] = f"@{op.name_hint}"
            return n
        if isinstance(op, relax.ExternFunc):
            if str(op.global_symbol) == "vm.builtin.make_closure" and args:
                self.make_closure(n, args[0], [use(a) for a in args[1:]])
                return n
            arg_ids = args_of(args)
            self.extern_call(c, n, str(op.global_symbol), arg_ids)
            return n
        # a closure call through a variable (a function literal, or a closure value)
        callee = use(op)
        f.add("call", n, callee)
        args_of(args)
        self.ids.callee_name[n] = INVOKE_CLOSURE
        return n

    def make_closure(self, n: str, target: Any, captured: list[str]) -> None:
        """A closure value: a tuple of the captured values that knows its function."""
        f = self.f
        f.add("alloc_site", n, "value")
        for i, a in enumerate(captured):
            f.add("tuple_field", n, i, a)
        fn = self.mod[target] if isinstance(target, tvm.ir.GlobalVar) else None
        if isinstance(fn, relax.Function):  # anything else: calling it is an opaque call
            # the VM binds the captured values last (VMClosure::BindLastArgs; LambdaLift
            # appends them to the lifted function's parameters)
            f.add("make_closure", n, self.nid(fn), len(fn.params) - len(captured))
        self.ids.callee_name[n] = "make_closure"

    def invoke_closure(self, n: str, closure: str, arg_ids: list[str]) -> None:
        """A call of a closure value: the rules find its function and bind the captures."""
        del arg_ids  # the arguments are call_arg facts already
        self.f.add("closure_call", n, closure)
        self.ids.callee_name[n] = INVOKE_CLOSURE

    def effect(self, name: str) -> Effect:
        """What the tables say `name` does; else its default (FPurity: none, else unknown)."""
        return self.effects.get(name) or Effect(self.callees_used.get(name, "unknown"))

    def op_call(self, n: str, kind: str, name: str, default_effect: str) -> None:
        self.f.add("rx_call", n, kind, name)
        self.callees_used.setdefault(name, default_effect)
        self.ids.callee_name.setdefault(n, name)

    def outputs(self, n: str, sources: list[str | None], why: str) -> None:
        """A multi-output call: its result is a tuple of outputs, each fresh or an argument."""
        f = self.f
        f.add("alloc_site", n, "value")
        for i, src in enumerate(sources):
            o = self.nid(("output", n, i))
            f.add("node", o, "out", n)
            f.add("tuple_field", n, i, o)
            if src is None:
                f.add("alloc_site", o, "tensor")
            else:
                f.add("view_of", o, src, why)

    def op_result(self, c: relax.Call, n: str, name: str, arg_ids: list[str]) -> None:
        f = self.f
        if name in KILLS:
            f.add("kill", n, arg_ids[0], KILLS[name])
            return
        if name in ALLOC_STORAGE:
            f.add("alloc_site", n, "storage")
            return
        if name in ALLOC_IN_STORAGE:
            f.add("alloc_site", n, "tensor")
            f.add("in_storage", n, arg_ids[0])
            self.extent(n, c.args[1] if len(c.args) > 1 else None, c)
            off = static_int(c.args[1]) if len(c.args) > 1 else None
            if off is not None:
                self.byte_offsets[n] = off
            return
        if name in ALLOC_TENSOR:
            f.add("alloc_site", n, "tensor")
            self.byte_offsets[n] = 0
            return
        if name in ZERO_OFFSET and self.copies_to_zero_offset(arg_ids):
            self.result(c, n)
            return
        if name == RESHAPE and not (self.legalized or self.dataflow_binding):
            self.result(c, n)  # LegalizeOps makes it a copying kernel, left a copy
            return
        if self.effect(name).kind == "view" and arg_ids:
            f.add("view_of", n, arg_ids[0], "view op")
            if name in OFFSET_VIEWS:
                self.extent(n, c.args[3] if len(c.args) > 3 else None, c)
                self.view_offset(n, arg_ids[0], c.args[3] if len(c.args) > 3 else None)
            return
        self.result(c, n)

    def view_offset(self, n: str, src: str, relative: Any) -> None:
        """A view's byte_offset: its input's plus the relative offset (Tensor::CreateView)."""
        rel = 0 if relative is None else static_int(relative)
        if rel is not None and src in self.byte_offsets:
            self.byte_offsets[n] = self.byte_offsets[src] + rel

    def copies_to_zero_offset(self, arg_ids: list[str]) -> bool:
        """vm.builtin.ensure_zero_offset copies a tensor whose byte_offset is not a multiple
        of kAllocAlignment (a CPU tensor at offset 0 is returned itself, one at a multiple is
        a view that moves the data pointer): the input's static byte_offset says which."""
        off = self.byte_offsets.get(arg_ids[0]) if arg_ids else None
        return off is not None and off % ALLOC_ALIGNMENT != 0

    def extent(self, n: str, offset: Any, c: relax.Call) -> None:
        """The bytes a view or a tensor in a storage covers, when offset and size are static."""
        got = _extent(offset, getattr(c, "ty", None))
        if got is not None:
            self.f.add("extent", n, *got)

    def builtin_call(self, c: relax.Call, n: str, name: str, callee: Any,
                     arg_ids: list[str]) -> None:
        """call_tir(_inplace), call_dps_packed, call_pure_packed, call_inplace_packed."""
        f = self.f
        inplace = [int(i) for i in c.attrs.inplace_indices] if name in (
            "relax.call_tir_inplace", "relax.call_inplace_packed") else []
        if isinstance(callee, relax.ExternFunc):
            # purity asserted by call_pure_packed is not trusted: the table decides
            cname = str(callee.global_symbol)
            self.op_call(n, "extern", cname, "unknown")
            if name == "relax.call_dps_packed":  # fills the fresh output the VM passes it
                self.result(c, n)
            else:  # TVM believes it pure: a write it makes is an in-place write
                self.packed_call(c, n, cname, arg_ids, inplace, "inplace")
            return
        cname = str(callee.name_hint) if isinstance(callee, tvm.ir.GlobalVar) else name
        self.op_call(n, "op", name, "none")
        self.ids.callee_name[n] = f"@{cname}"  # what CallTIRRewrite calls directly
        pf = self.mod[callee] if isinstance(callee, tvm.ir.GlobalVar) else None
        # the arguments the kernel stores into (a declared in-place argument it only puts back
        # what it loads, `a[i] = a[i]`, is not changed); of a kernel not in the module, the
        # declared in-place ones
        changed = set(inplace)
        if isinstance(pf, tirx.PrimFunc):
            changed = {i for i in self.prim_written(cname, pf)[0] if i < len(arg_ids)}
            self.unread_by_kernel(n, cname, pf, arg_ids)
        for k in sorted(changed):
            if 0 <= k < len(arg_ids):
                f.add("mem_write", n, arg_ids[k], "inplace")
        self.result(c, n, arg_ids, inplace)

    def result(self, c: relax.Call, n: str, arg_ids: list[str] | None = None,
               inplace: list[int] | None = None) -> None:
        """The call's result: output i is argument inplace[i]; -1, or none given: fresh."""
        arg_ids, inplace = arg_ids or [], inplace or []
        ty = getattr(c, "ty", None)
        n_out = len(ty.fields) if isinstance(ty, tvm.ir.TupleType) else 1
        sources: list[str | None] = []
        for i in range(n_out):
            k = inplace[i] if i < len(inplace) else -1
            sources.append(arg_ids[k] if 0 <= k < len(arg_ids) else None)
        if isinstance(ty, tvm.ir.TupleType):
            self.outputs(n, sources, "in-place output")
        elif sources and sources[0] is not None:
            self.f.add("view_of", n, sources[0], "in-place output")
            if sources[0] in self.byte_offsets:
                self.byte_offsets[n] = self.byte_offsets[sources[0]]
        else:
            self.f.add("alloc_site", n, "tensor" if isinstance(ty, relax.TensorType) else "value")
            if isinstance(ty, relax.TensorType):
                self.byte_offsets[n] = 0

    def prim_written(self, name: str, pf: tirx.PrimFunc) -> tuple[list[int], bool]:
        if name not in self.prim_writes:
            self.prim_writes[name] = written_params(pf, self.tir_effects)
        return self.prim_writes[name]

    def prim_overwrites(self, name: str, pf: tirx.PrimFunc,
                        written: list[int]) -> list[tuple[int, int, str]]:
        """(out, in, how): the kernel may write parameter out over parameter in's memory."""
        if name not in self.prim_overwrite:
            found = []
            for j in written:
                for i in range(len(pf.params)):
                    if i == j:
                        continue
                    if overwrite_refusal(pf, j, i) is None:
                        found.append((j, i, "same"))
                    if copies_over(pf, j, i):
                        found.append((j, i, "copy"))
            self.prim_overwrite[name] = found
        return self.prim_overwrite[name]

    def prim_read(self, name: str, pf: tirx.PrimFunc) -> set[int]:
        if name not in self.prim_reads:
            self.prim_reads[name] = read_params(pf, self.tir_effects)
        return self.prim_reads[name]

    def unread_by_kernel(self, n: str, name: str, pf: tirx.PrimFunc, arg_ids: list[str]) -> None:
        """kernel_unread: the arguments of kernel call n that no parameter it loads binds."""
        read = self.prim_read(name, pf)
        for a in dict.fromkeys(arg_ids):
            if not any(x == a and i in read for i, x in enumerate(arg_ids)):
                self.f.add("kernel_unread", n, a)

    def primfunc_call(self, n: str, name: str, pf: tirx.PrimFunc, arg_ids: list[str],
                      lowered: bool) -> None:
        """A direct DPS call of a PrimFunc: it fills the parameters it only writes. One the
        program makes itself also updates in place those it reads and writes (their old value
        is gone); one TVM's lowering made (`lowered`: after CallTIRRewrite, or in a function
        RemovePurityChecking marked force_pure) fills them too (a lowered call_tir_inplace,
        whose result later code reads under the argument's name)."""
        written, opaque = self.prim_written(name, pf)
        read = set() if lowered else self.prim_read(name, pf)
        self.unread_by_kernel(n, name, pf, arg_ids)
        self.op_call(n, "primfunc", f"@{name}", "unknown" if opaque else "writes")
        for i in written:
            if i < len(arg_ids):
                self.f.add("mem_write", n, arg_ids[i], "inplace" if i in read else "dps")
        for j, i, how in self.prim_overwrites(name, pf, written):
            if max(i, j) < len(arg_ids):
                self.f.add("overwrite_ok", n, j, i, how)

    def shaped(self, n: str, shape: Shape, arg_ids: list[str], name: str) -> None:
        """Node n's value is what `result=` says: a field path into an argument (projections),
        or a tuple of such, holding no memory of its own."""
        f = self.f
        if shape[0] == "arg":
            _, pos, fields = shape
            if pos >= len(arg_ids):
                where = self.effect(name).where
                raise ExtractError(f"{where}: {name}: result= names argument {pos}, but a call "
                                   f"of it has {len(arg_ids)}")
            src = arg_ids[pos]
            for k in fields:
                p = self.nid(("field", n, src, k))
                f.add("node", p, "out", n)
                f.add("proj", p, src, k)
                src = p
            f.add("copy", n, src)
            return
        f.add("alloc_site", n, "value")
        for i, sub in enumerate(shape[1]):
            o = self.nid(("output", n, i))
            f.add("node", o, "out", n)
            f.add("tuple_field", n, i, o)
            self.shaped(o, sub, arg_ids, name)

    def extern_call(self, c: relax.Call, n: str, name: str, arg_ids: list[str]) -> None:
        """call_packed: effects from the table; TVM knows it is impure, so its writes are DPS."""
        self.op_call(n, "extern", name, "unknown")
        self.ids.callee_name[n] = LEGALIZED_FROM.get(name, name)
        self.packed_call(c, n, name, arg_ids, [], "dps")

    def packed_call(self, c: relax.Call, n: str, name: str, arg_ids: list[str],
                    inplace: list[int], how: str) -> None:
        """What the effect table says a packed function does: `writes` fills its last argument,
        a signature writes its `writes=` arguments in place, `view` returns its first;
        otherwise the result is fresh (the rules add what an `alias`, a signature's `returns=`
        or an opaque function may return)."""
        effect = self.effect(name)
        for k in sorted(set(inplace) | set(effect.writes)):
            if 0 <= k < len(arg_ids):
                self.f.add("mem_write", n, arg_ids[k], "inplace")
        if effect.kind == "writes" and arg_ids:
            self.f.add("mem_write", n, arg_ids[-1], how)
        if effect.result is not None and not inplace:
            self.shaped(n, effect.result, arg_ids, name)
            return
        if name in ZERO_OFFSET and not inplace and self.copies_to_zero_offset(arg_ids):
            self.result(c, n)
            return
        if effect.kind == "view" and arg_ids and not inplace:
            self.f.add("view_of", n, arg_ids[0], f"{name} returns a view")
            if name in OFFSET_VIEWS:  # call_pure_packed(f, args...) or a call of f(args...)
                raw = list(c.args[1:]) if isinstance(c.op, tvm.ir.Op) else list(c.args)
                self.extent(n, raw[3] if len(raw) > 3 else None, c)
                self.view_offset(n, arg_ids[0], raw[3] if len(raw) > 3 else None)
            return
        self.result(c, n, arg_ids, inplace)
        if not inplace:  # a tensor the function made: at whatever offset it chose
            self.byte_offsets.pop(n, None)


def _result_positions(shape: Shape | None) -> set[int]:
    """The argument positions a `result=` shape is built of."""
    if shape is None:
        return set()
    if shape[0] == "arg":
        return {shape[1]}
    return set().union(*(_result_positions(sub) for sub in shape[1]))
