"""Relay module -> facts: every construct the front end parses, with a node <-> id map.

Ids are deterministic: functions in name order, nodes numbered in a fixed depth-first order,
so the same program always gives byte-identical fact files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, ValuesView
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .effect_table import EffectSource, ExtractError, load_effect_table
from .facts import FactSet
from .relay import ast as A
from .relay.ops import OPS
from .runtime import gc_paused

T = TypeVar("T")


def load_op_effects(*sources: EffectSource) -> dict[str, str]:
    """The Relay operator effect table: each registered operator's declared effect, overridden
    by the tables (files or dicts) in order (`--op-effects FILE`); an operator not in it is
    unknown. A signature becomes the one-word kind Relay's rules read."""
    user = {name: e.relay_kind() for name, e in load_effect_table(*sources).items()}
    return {**{name: op.effect for name, op in OPS.items()}, **user}


class Numbered(Mapping[str, T]):
    """Ids `<prefix><k>` (k = 0, 1, ...) to objects, held in a list: a long program has a
    million nodes, and a dict of them cost five times the list."""

    __slots__ = ("prefix", "objects")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.objects: list[T] = []  # the object of id <prefix><k> at index k

    def index(self, key: object) -> int | None:
        """k of an id `<prefix><k>` this holds, else None."""
        if type(key) is not str or not key.startswith(self.prefix):
            return None
        tail = key[len(self.prefix):]
        if not tail.isdecimal() or not tail.isascii() or (tail[0] == "0" and tail != "0"):
            return None
        k = int(tail)
        return k if k < len(self.objects) else None

    def __getitem__(self, key: str) -> T:
        k = self.index(key)
        if k is None:
            raise KeyError(key)
        return self.objects[k]

    def __contains__(self, key: object) -> bool:
        return self.index(key) is not None

    def __iter__(self) -> Iterator[str]:
        return (f"{self.prefix}{k}" for k in range(len(self.objects)))

    def __len__(self) -> int:
        return len(self.objects)

    def values(self) -> ValuesView[T]:
        """The objects in id order, read from the list (not id by id)."""
        return _ListValues(self)


class _ListValues(ValuesView[T]):
    """A `Numbered`'s values view, iterating its list."""

    _mapping: Numbered[T]

    def __iter__(self) -> Iterator[T]:
        return iter(self._mapping.objects)


@dataclass
class IdMap:
    """Both directions between AST objects and fact ids."""

    nodes: Numbered[object] = field(default_factory=lambda: Numbered("n"))
    binding_of: Numbered[A.Let] = field(default_factory=lambda: Numbered("b"))
    binding_id: dict[int, str] = field(default_factory=dict)
    func_name: dict[str, str] = field(default_factory=dict)  # function node id -> display name
    _node_id: dict[int, str] | None = field(default=None, repr=False)

    @property
    def node_id(self) -> dict[int, str]:
        """id(node) -> its id, made from `nodes` when first asked for. The extractor's own
        table is not kept: it is the largest of a long program, and read-back needs only the
        other direction."""
        if self._node_id is None:
            # (the ids as `nodes` spells them)
            self._node_id = dict(zip(map(id, self.nodes.objects), self.nodes, strict=True))
        return self._node_id

    def id(self, node: object) -> str:
        return self.node_id[id(node)]


@dataclass
class Extraction:
    """Facts plus the id map that read-back uses to go from ids to AST nodes."""

    facts: FactSet
    ids: IdMap
    module: A.Module
    entry: str


class _Extractor:
    def __init__(self, mod: A.Module, entry: str, op_effects: dict[str, str]) -> None:
        self.mod = mod
        self.entry = entry
        self.op_effects = op_effects
        self.f = FactSet()
        # the hot relations' rows, appended to directly (a tuple a row until the next flush)
        add = self.f.appender
        self.add_node, self.add_node_loc, self.add_segment = add("node"), add("node_loc"), \
            add("segment")
        self.add_evaluates, self.add_var_ref, self.add_copy = add("evaluates"), add("var_ref"), \
            add("copy")
        self.add_let_bind, self.add_block_pos = add("let_bind"), add("block_pos")
        self.add_call, self.add_call_arg, self.add_call_op = add("call"), add("call_arg"), \
            add("call_op")
        self.add_proj, self.add_tuple_field = add("proj"), add("tuple_field")
        self.ids = IdMap()
        self.node_ids: dict[int, str] = {}  # id(node) -> its id, while extracting
        self.n_pat = 0
        self.n_block = 0
        self.ops_used: set[str] = set()
        self.functions: list[A.Function] = []
        self.free_uses: dict[str, str] = {}  # a variable used before any binding of it: where
        self.bound: set[str] = set()  # variables with a binding site (node facts name its function)

    # ----------------------------------------------------------------------------- ids
    def nid(self, node: object) -> str:
        got = self.node_ids.get(id(node))
        if got is None:
            got = f"n{len(self.node_ids)}"
            self.node_ids[id(node)] = got
            self.ids.nodes.objects.append(node)  # (at index k of id n<k>)
        return got

    def bid(self, let: A.Let) -> str:
        key = id(let)
        got = self.ids.binding_id.get(key)
        if got is None:
            got = f"b{len(self.ids.binding_id)}"
            self.ids.binding_id[key] = got
            self.ids.binding_of.objects.append(let)
        return got

    # ------------------------------------------------------------------------- module
    def run(self) -> Extraction:
        if self.entry not in self.mod.functions:
            raise ExtractError(f"no function @{self.entry} in the module")
        names = sorted(self.mod.functions)
        gids = {}
        for name in names:
            fn = self.mod.functions[name]
            gid = self.nid(fn)
            gids[name] = gid
            self.ids.func_name[gid] = f"@{name}"
            self.f.add("global_func", name, gid)
        self.f.add("entry", gids[self.entry])
        for name in names:
            self.function(self.mod.functions[name], gids[name])
        for v, func in self.free_uses.items():  # free variables sit where they are used
            if v not in self.bound:
                self.add_node((v, "var", func))
        for fn in self.functions:
            self.straight_line_facts(fn)
        for op in sorted(self.ops_used):
            effect = self.op_effects.get(op, "unknown")
            self.f.add("op_effect", op, effect)
        self.f.seal()
        return Extraction(self.f, self.ids, self.mod, self.entry)

    def function(self, fn: A.Function, fid: str) -> None:
        """Facts for one function and everything reachable from its body (iteratively)."""
        f = self.f
        self.functions.append(fn)
        self.add_node((fid, "fn", fid))
        self.loc(fn, fid)
        body = self.nid(fn.body)
        f.add("func", fid, body)
        for i, p in enumerate(fn.params):
            pid = self.nid(p)
            f.add("param", fid, i, pid)
            self.binder(pid, fid)
            self.loc(p, pid)
        # (node, enclosing function id, segment owner)
        stack: list[tuple[A.Expr, str, str]] = [(fn.body, fid, fid)]
        # node id -> the owner it was visited under (a set of them once there are several):
        # keyed by strings that exist anyway, this costs a fraction of a set of pairs
        seen: dict[str, str | set[str]] = {}
        flush, visited, nid = self.f.flush, 0, self.nid
        while stack:
            e, func, owner = stack.pop()
            visited += 1
            if not visited & 0x3FFF:  # rows move into columns as they come: tuples are freed
                flush()
            n = nid(e)
            got = seen.get(n)
            if got is None:
                seen[n] = owner
            elif type(got) is str:
                if got == owner:
                    continue
                seen[n] = {got, owner}
            elif owner in got:
                continue
            else:
                got.add(owner)
            stack.extend(reversed(self.expr(e, n, func, owner)))

    def binder(self, v: str, func: str) -> None:
        """Variable v is bound (a parameter, a let or a pattern variable) in function func."""
        self.add_node((v, "var", func))
        self.bound.add(v)

    def loc(self, node: object, nid: str) -> None:
        span = getattr(node, "span", None)
        if span is not None:
            self.add_node_loc((nid, span.line, span.col))

    # -------------------------------------------------------------------- expressions
    def expr(self, e: A.Expr, n: str, func: str, owner: str) -> list[tuple[A.Expr, str, str]]:
        """Facts for node e (id n); returns the children to visit with their function and
        owner."""
        self.add_segment((n, owner))
        todo: list[tuple[A.Expr, str, str]] = []
        cls = type(e)
        if cls is A.Var:  # a use: its node fact names the function that binds it
            self.free_uses.setdefault(n, func)
            return todo
        if cls is A.GlobalVar:
            self.add_node((n, "global", func))
            target = self.mod.functions[e.name_hint]  # type: ignore[attr-defined]
            self.f.add("global_ref", n, self.nid(target))
            return todo
        span = getattr(e, "span", None)
        if span is not None:
            self.add_node_loc((n, span.line, span.col))
        leaf = _LEAF_KIND.get(cls)
        if leaf is not None:
            self.add_node((n, leaf, func))
            return todo
        handler = _EXPR.get(cls)
        if handler is None:
            raise ExtractError(f"cannot extract facts for a {cls.__name__} node", span)
        handler(self, e, n, func, owner, todo)
        return todo

    def child(self, n: str, c: A.Expr, func: str, owner: str,
              todo: list[tuple[A.Expr, str, str]]) -> str:
        """Child c of node n: evaluated by it, visited later; its id."""
        cid = self.nid(c)
        self.add_evaluates((n, cid))
        if type(c) is A.Var:
            self.add_var_ref((n, cid))
        todo.append((c, func, owner))
        return cid

    def tuple_(self, e: A.Tuple, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "tuple", func))
        for i, a in enumerate(e.fields):
            self.add_tuple_field((n, i, self.child(n, a, func, owner, todo)))

    def proj(self, e: A.TupleGetItem, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "proj", func))
        self.add_proj((n, self.child(n, e.tuple_value, func, owner, todo), e.index))

    def call(self, e: A.Call, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "call", func))
        child = self.child
        self.add_call((n, child(n, e.op, func, owner, todo)))
        args = [child(n, a, func, owner, todo) for a in e.args]
        add_arg = self.add_call_arg
        for i, a in enumerate(args):
            add_arg((n, i, a))
        op = e.op
        if type(op) is A.Op:
            self.ops_used.add(op.name)
            self.add_call_op((n, op.name))
        elif type(op) is A.Constructor:
            self.f.add("ctor_call", n, op.name_hint)
            for i, a in enumerate(args):
                self.add_tuple_field((n, i, a))

    def if_(self, e: A.If, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "if", func))
        self.f.add("if_cond", n, self.child(n, e.cond, func, owner, todo))
        self.add_copy((n, self.child(n, e.true_branch, func, owner, todo)))
        self.add_copy((n, self.child(n, e.false_branch, func, owner, todo)))

    def fn_literal(self, e: A.Function, n: str, func: str, owner: str, todo: list) -> None:
        f = self.f
        self.add_node((n, "fn", func))
        f.add("fn_literal", n)
        self.functions.append(e)
        f.add("func", n, self.nid(e.body))
        self.ids.func_name.setdefault(n, "fn")
        for i, p in enumerate(e.params):
            pid = self.nid(p)
            f.add("param", n, i, pid)
            self.binder(pid, n)
            self.loc(p, pid)
        if isinstance(e.body, A.Var):
            self.add_var_ref((n, self.nid(e.body)))
        todo.append((e.body, n, n))  # the body runs when called, in its own segment

    def ref_create(self, e: A.RefCreate, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "ref", func))
        self.f.add("ref_create", n, self.child(n, e.value, func, owner, todo))

    def ref_read(self, e: A.RefRead, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "ref_read", func))
        self.f.add("ref_read", n, self.child(n, e.ref, func, owner, todo))

    def ref_write(self, e: A.RefWrite, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "ref_write", func))
        r = self.child(n, e.ref, func, owner, todo)
        self.f.add("ref_write", n, r, self.child(n, e.value, func, owner, todo))

    def match(self, e: A.Match, n: str, func: str, owner: str, todo: list) -> None:
        self.add_node((n, "match", func))
        self.f.add("match_data", n, self.child(n, e.data, func, owner, todo))
        for k, clause in enumerate(e.clauses):
            p = self.pattern(clause.lhs, func)
            rhs = self.child(n, clause.rhs, func, owner, todo)
            self.f.add("match_clause", n, k, p, rhs)
            self.add_copy((n, rhs))

    def let(self, e: A.Let, n: str, func: str, owner: str, todo: list) -> None:
        self.let_chain(e, func, owner, todo)

    def let_chain(
        self, e: A.Let, func: str, owner: str, todo: list[tuple[A.Expr, str, str]]
    ) -> None:
        """A whole let chain at once: bindings, merges, block order (iterative, no recursion)."""
        blk = f"k{self.n_block}"
        self.n_block += 1
        lets, body = A.let_chain(e)
        nid, loc = self.nid, self.loc
        add_segment, add_node, add_copy = self.add_segment, self.add_node, self.add_copy
        add_evaluates, add_var_ref = self.add_evaluates, self.add_var_ref
        add_let_bind, add_block_pos = self.add_let_bind, self.add_block_pos
        bound, flush = self.bound, self.f.flush
        for pos, let in enumerate(lets):
            if not pos & 0xFFF and pos:  # (a long chain's rows move into columns as they come)
                flush()
            n = nid(let)
            if let is not e:
                add_segment((n, owner))
            loc(let, n)
            add_node((n, "let", func))
            b = self.bid(let)
            var = let.var
            v = nid(var)
            add_node((v, "var", func))  # the binder of v
            bound.add(v)
            loc(var, v)
            val, nxt_e = let.value, let.body
            value = nid(val)
            nxt = nid(nxt_e)
            add_let_bind((b, n, v, value, nxt))
            add_block_pos((b, blk, pos))
            add_copy((v, value))
            add_copy((n, nxt))
            add_evaluates((n, value))
            add_evaluates((n, nxt))
            if type(val) is A.Var:
                add_var_ref((n, value))
            if type(nxt_e) is A.Var:
                add_var_ref((n, nxt))
            todo.append((val, func, b))
        todo.append((body, func, owner))

    def straight_line_facts(self, fn: A.Function) -> None:
        """last_write / overwritten / final_write: replay fn's evaluation order, tracking writes
        per variable.

        Sharing is expanded (a shared node runs each time it is reached), so a fact is kept only
        if it held at every evaluation; a branch or any call that may have effects forgets all.
        """
        FlowWalk(self).run(fn)

    def new_pattern_id(self) -> str:
        pid = f"p{self.n_pat}"
        self.n_pat += 1
        return pid

    def pattern(self, p: A.Pattern, func: str) -> str:
        """Facts for a pattern tree (iteratively); returns the root pattern id."""
        root = self.new_pattern_id()
        stack: list[tuple[A.Pattern, str]] = [(p, root)]
        while stack:
            q, pid = stack.pop()
            if isinstance(q, A.PatternVar):
                v = self.nid(q.var)
                self.f.add("pat_var", pid, v)
                self.binder(v, func)
                self.loc(q.var, v)
            elif isinstance(q, (A.PatternConstructor, A.PatternTuple)):
                if isinstance(q, A.PatternConstructor):
                    self.f.add("pat_ctor", pid, q.constructor.name_hint)
                for i, sub in enumerate(q.patterns):
                    sid = self.new_pattern_id()
                    self.f.add("pat_field", pid, i, sid)
                    stack.append((sub, sid))
        return root


@gc_paused()  # millions of long-lived rows: a collection would rescan them and free nothing
def extract_relay(
    mod: A.Module, entry: str = "main", op_effects: dict[str, str] | None = None
) -> Extraction:
    """Facts for a Relay module, with `@entry` as the function the outside world calls."""
    return _Extractor(mod, entry, op_effects or load_op_effects()).run()


_LEAF_KIND: dict[type, str] = {A.Op: "op", A.Constructor: "ctor", A.Constant: "const"}
_EXPR: dict[type, Callable[..., None]] = {
    A.Tuple: _Extractor.tuple_, A.TupleGetItem: _Extractor.proj, A.Call: _Extractor.call,
    A.Let: _Extractor.let, A.If: _Extractor.if_, A.Function: _Extractor.fn_literal,
    A.RefCreate: _Extractor.ref_create, A.RefRead: _Extractor.ref_read,
    A.RefWrite: _Extractor.ref_write, A.Match: _Extractor.match,
}


def _schedule_let(e: A.Let) -> list[tuple[str, A.Expr]]:
    lets, body = A.let_chain(e)
    return [("eval", let.value) for let in lets] + [("eval", body)]


_SCHEDULE: dict[type, Callable[[Any], list[tuple[str, A.Expr]]]] = {
    A.Let: _schedule_let,
    A.Call: lambda e: [("eval", a) for a in e.args] + [("eval", e.op), ("event", e)],
    A.Tuple: lambda e: [("eval", f) for f in e.fields],
    A.TupleGetItem: lambda e: [("eval", e.tuple_value)],
    A.RefCreate: lambda e: [("eval", e.value)],
    A.RefRead: lambda e: [("eval", e.ref), ("event", e)],
    A.RefWrite: lambda e: [("eval", e.ref), ("eval", e.value), ("event", e)],
    A.If: lambda e: [("eval", e.cond), ("branches", e)],
    A.Match: lambda e: [("eval", e.data), ("branches", e)],
}


class FlowWalk:
    """Replays one function body in evaluation order (TVM's interpreter order) without recursion."""

    BUDGET = 4  # events per node before giving up (deeply shared DAGs): no facts is sound

    def __init__(self, ex: _Extractor) -> None:
        self.ex = ex
        self.last: dict[int, A.RefWrite] = {}  # ref variable -> write it must hold
        self.pending: dict[int, A.RefWrite] = {}  # ref variable -> write not yet read
        self.reads: dict[int, set[int] | None] = {}  # read -> writes seen (None: some run weak)
        self.over: dict[int, set[int] | None] = {}  # write -> overwriters (None: some run read)
        self.nodes: dict[int, A.Expr] = {}

    def forget(self) -> None:
        self.last.clear()
        self.pending.clear()

    def run(self, fn: A.Function) -> None:
        budget = self.BUDGET * (len(self.ex.node_ids) + 1)  # every node of the module
        # actions: ("eval", node) or ("event", node) or ("branches", if/match node)
        stack: list[tuple[str, A.Expr]] = [("eval", fn.body)]
        steps = 0
        while stack:
            steps += 1
            if steps > budget:
                return
            action, e = stack.pop()
            if action == "event":
                self.event(e)
            elif action == "branches":
                self.branches(e)
            else:
                stack.extend(reversed(self.schedule(e)))
        self.finish()

    def schedule(self, e: A.Expr) -> list[tuple[str, A.Expr]]:
        """What evaluating e does, in order (evaluating a value does nothing tracked here)."""
        f = _SCHEDULE.get(type(e))
        return f(e) if f is not None else []

    def event(self, e: A.Expr) -> None:
        if isinstance(e, A.RefRead):
            seen = self.last.get(id(e.ref)) if isinstance(e.ref, A.Var) else None
            self.note(self.reads, e, None if seen is None else seen)
            for w in self.pending.values():
                self.over[id(w)] = None
            self.pending.clear()
        elif isinstance(e, A.RefWrite):
            if isinstance(e.ref, A.Var):
                prev = self.pending.get(id(e.ref))
                if prev is not None:
                    self.note(self.over, prev, e)
                for key, w in self.pending.items():
                    if key != id(e.ref):
                        self.over[id(w)] = None
                self.last = {id(e.ref): e}
                self.pending = {id(e.ref): e}
            else:
                self.forget()
            self.over.setdefault(id(e), set())
            self.nodes[id(e)] = e
        elif isinstance(e, A.Call) and not self.pure_call(e):
            for w in self.pending.values():
                self.over[id(w)] = None
            self.forget()

    def pure_call(self, e: A.Call) -> bool:
        if isinstance(e.op, A.Constructor):
            return True
        if isinstance(e.op, A.Op):
            effect = self.ex.op_effects.get(e.op.name, "unknown")
            return effect in ("none", "allocates")
        return False

    def branches(self, e: A.Expr) -> None:
        """Each arm starts from the state before it; afterwards only a write-free if keeps it."""
        arms = [e.true_branch, e.false_branch] if isinstance(e, A.If) else [
            c.rhs for c in e.clauses]  # type: ignore[attr-defined]
        for w in self.pending.values():  # an arm may read: the pending writes may be seen
            self.over[id(w)] = None
        self.forget()
        for arm in arms:
            sub = FlowWalk(self.ex)
            sub.reads, sub.over, sub.nodes = self.reads, self.over, self.nodes
            stack: list[tuple[str, A.Expr]] = [("eval", arm)]
            while stack:
                action, n = stack.pop()
                if action == "event":
                    sub.event(n)
                elif action == "branches":
                    sub.branches(n)
                else:
                    stack.extend(reversed(sub.schedule(n)))
            for w in sub.pending.values():
                self.over[id(w)] = None

    def note(self, table: dict[int, set[int] | None], node: A.Expr, hit: A.Expr | None) -> None:
        self.nodes[id(node)] = node
        if hit is None:
            table[id(node)] = None
            return
        self.nodes[id(hit)] = hit
        current = table.get(id(node), set())
        if current is not None:
            current.add(id(hit))
            table[id(node)] = current

    def finish(self) -> None:
        nid = self.ex.nid
        for w in self.pending.values():  # still pending at the end: the caller may read it
            self.over[id(w)] = None
            self.ex.f.add("final_write", nid(w))
        for key, writes in sorted(self.reads.items(), key=lambda kv: nid(self.nodes[kv[0]])):
            for w in sorted(writes or (), key=lambda k: nid(self.nodes[k])):
                self.ex.f.add("last_write", nid(self.nodes[key]), nid(self.nodes[w]))
        for key, later in sorted(self.over.items(), key=lambda kv: nid(self.nodes[kv[0]])):
            for w in sorted(later or (), key=lambda k: nid(self.nodes[k])):
                self.ex.f.add("overwritten", nid(self.nodes[key]), nid(self.nodes[w]))
