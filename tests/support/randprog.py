"""Random well-typed, terminating Relay programs for property tests of the alias/effect analysis.

The grammar is written once, on top of a `Chooser` (one method, `integer(lo, hi)`), so that the
same code is driven by hypothesis (`programs()`: shrinking in `make test`) and by a seeded
`random.Random` (`generate(seed)`: fast and reproducible in `make fuzz`). Every choice's smallest
value is the simplest option, so hypothesis shrinks toward short programs.

Programs are built type-directed from a small type universe: tensors of one shape per program
((2,) or (2, 2), float32), refs, tuples, closures, `List`/`Option` ADTs, unit, and (only in
conditions and recursion counters) scalar bool and int32. Complex values (if, match, fn literals)
are let-bound ("hoisted") into the current block, so every let is annotated with its type.
Dead code comes for free (lets never used later) and on purpose (dead cells, overwritten writes,
unused reads).

Shapes the analysis must get right and that plain let-bound code never shows: graph bindings
(`%N = e;`, one shared node, evaluated once where ToANormalForm binds it) with effects, used in
nested closures and if / match arms as well as where they are defined; towers of closures nested
three or four deep whose innermost body reads and writes cells captured from several levels up,
stores outer values in its own cells and writes through aliases of them; closures parked in
cells and tuples and called later; and matches whose patterns test constructor tags below the
top (`Some(Some(_))`, `Cons(_, Cons(_, _))`, `(None, _)`, mostly wildcards alone) over values
read from cells and returned by calls, with arms that write a cell read afterwards.

Termination: every callable has a level (a global's is fixed; a closure's is part of its
generator-side type, so a value of level k is only ever stored where level k is expected). A body
of level K may only call callables of level < K, except the designated recursive calls, which
decrease an int32 counter (`if (%n > 0) { ... f(%n - 1, ...) }`; f is the function itself, or
the other global of a mutually recursive pair, which shares its level) or walk to the tail of a
finite list. So there is no Landin's knot through refs, and every run terminates.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from hypothesis import strategies as st

# ------------------------------------------------------------------------------- choosers

X = TypeVar("X")


class Chooser(Protocol):
    """The one source of randomness of the grammar: an integer in [lo, hi]."""

    def integer(self, lo: int, hi: int) -> int: ...


class RandomChooser:
    """Drives the grammar from `random.Random(seed)`; records every choice (for shrinking)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.choices: list[int] = []

    def integer(self, lo: int, hi: int) -> int:
        v = lo if lo == hi else self.rng.randint(lo, hi)
        self.choices.append(v)
        return v


class ReplayChooser:
    """Replays a recorded choice list, clamped to each range; past its end every choice is lo."""

    def __init__(self, choices: Sequence[int]) -> None:
        self.choices = list(choices)
        self.pos = 0

    def integer(self, lo: int, hi: int) -> int:
        v = self.choices[self.pos] if self.pos < len(self.choices) else lo
        self.pos += 1
        return min(max(v, lo), hi)


class DrawChooser:
    """Drives the grammar from a hypothesis `draw` (inside `st.composite`)."""

    def __init__(self, draw: Callable[[st.SearchStrategy[int]], int]) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return lo if lo == hi else self.draw(st.integers(lo, hi))


# ---------------------------------------------------------------------------------- types
# Generator-side types are tuples: ("T",) tensor, ("U",) unit, ("B",) bool, ("I",) int32,
# ("R", t) ref, ("P", (t, ...)) tuple, ("F", (param, ...), ret, level) closure,
# ("L", t) List, ("O", t) Option. Two values are interchangeable only at equal types, so a
# closure's level travels with it.

Ty = tuple
T: Ty = ("T",)
UNIT: Ty = ("U",)
BOOL: Ty = ("B",)
INT: Ty = ("I",)


def R(t: Ty) -> Ty:
    return ("R", t)


def P(*ts: Ty) -> Ty:
    return ("P", tuple(ts))


def F(params: Sequence[Ty], ret: Ty, level: int) -> Ty:
    return ("F", tuple(params), ret, level)


def L(t: Ty) -> Ty:
    return ("L", t)


def Opt(t: Ty) -> Ty:
    return ("O", t)


def parts(t: Ty) -> list[Ty]:
    """Every type nested in t, t included."""
    out = [t]
    k = t[0]
    if k in ("R", "L", "O"):
        out += parts(t[1])
    elif k == "P":
        for f in t[1]:
            out += parts(f)
    elif k == "F":
        for p in t[1]:
            out += parts(p)
        out += parts(t[2])
    return out


# ------------------------------------------------------------------------------- programs


_REGIONS = iter(range(1 << 62))


@dataclass
class Scope:
    """Where code is being generated: visible vars, the body's level, the current block.

    `region` numbers each block (a function body, an arm, a let-in-value) so that a graph
    binding's uses can be told apart by where they are.
    """

    vars: list[tuple[str, Ty]]
    level: int
    indent: str
    depth: int
    lines: list[str] = field(default_factory=list)
    region: int = field(default_factory=lambda: next(_REGIONS))

    def child(self, extra: Sequence[tuple[str, Ty]] = (), level: int | None = None) -> Scope:
        return Scope([*self.vars, *extra], self.level if level is None else level,
                     self.indent + "  ", self.depth + 1)

    def of_type(self, t: Ty) -> list[str]:
        return [n for n, vt in self.vars if vt == t]


@dataclass(frozen=True)
class GlobalSig:
    """A global function as callers see it: its kind (plain, count, list), type and level."""

    name: str
    kind: str
    params: tuple[Ty, ...]
    ret: Ty
    level: int
    partner: str | None = None  # the other half of a mutually recursive "count" pair

    @property
    def type(self) -> Ty:
        return F(self.params, self.ret, self.level)


@dataclass
class Program:
    """A generated module as text, with the constructs it contains (for coverage statistics)."""

    text: str
    features: frozenset[str]


FEATURES = ("refs", "closures", "escaping_closures", "higher_order", "closure_in_ref",
            "closure_in_tuple", "ref_in_tuple", "adts", "match", "if", "recursion",
            "global_calls", "dead_writes", "tuple_patterns", "nested_patterns", "sequencing",
            "shadowing", "graph_bindings", "closure_in_adt", "mutual_recursion",
            "effectful_graph_node", "graph_node_across_scopes", "closure_tower",
            "deep_capture", "stored_closure_called", "adt_in_ref", "nested_tag_tests",
            "cell_factory", "shared_setter", "getter_factory", "reader_closure", "late_write",
            "recursive_cell_pass")

MAX_DEPTH = 3  # block nesting (if/match arms, fn bodies)


class Generator:
    """The grammar: one instance generates one program from a chooser."""

    def __init__(self, chooser: Chooser) -> None:
        self.c = chooser
        self.counter = 0
        self.graph_counter = 0
        self.features: set[str] = set()
        self.globals: list[GlobalSig] = []
        self.adts: set[str] = set()
        self.fuel = 0
        self.shape = "(2)"
        self.top = 2
        self.in_global = False
        self.graph_regions: dict[str, set[int]] = {}  # graph var -> regions it is used in

    # ---------------------------------------------------------------------- choice helpers
    def integer(self, lo: int, hi: int) -> int:
        return self.c.integer(lo, hi)

    def flag(self, percent: int) -> bool:
        """True with the given chance; the smallest choice (where shrinking goes) is False."""
        return self.c.integer(0, 99) >= 100 - percent

    def pick(self, items: Sequence[X]) -> X:
        return items[self.integer(0, len(items) - 1)]

    def weighted(self, options: Sequence[tuple[int, X]]) -> X:
        """One option, by weight among those with weight > 0; the first one is the simplest."""
        live = [(w, o) for w, o in options if w > 0]
        total = sum(w for w, _ in live)
        k = self.integer(0, total - 1)
        for w, o in live:
            if k < w:
                return o
            k -= w
        raise AssertionError("unreachable")

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    # ------------------------------------------------------------------------ type text
    def ty(self, t: Ty) -> str:
        k = t[0]
        if k == "T":
            return f"Tensor[{self.shape}, float32]"
        if k == "U":
            return "()"
        if k == "B":
            return "bool"
        if k == "I":
            return "int32"
        if k == "R":
            return f"ref({self.ty(t[1])})"
        if k == "P":
            return "(" + ", ".join(self.ty(f) for f in t[1]) + ")"
        if k == "F":
            return "fn (" + ", ".join(self.ty(p) for p in t[1]) + f") -> {self.ty(t[2])}"
        if k == "L":
            self.adts.add("List")
            return f"List[{self.ty(t[1])}]"
        if k == "O":
            self.adts.add("Option")
            return f"Option[{self.ty(t[1])}]"
        raise AssertionError(t)

    # ------------------------------------------------------------------------ type choice
    def level(self) -> int:
        """A closure level: 1 (calls nothing) or top (calls every global) mostly."""
        return self.weighted([(5, 1), (4, self.top), (1, self.integer(1, self.top))])

    def fn_type(self, depth: int) -> Ty:
        """A closure type: a few params (refs and closures too, at the outer level) and a level."""
        n = self.integer(0, 2)
        params = []
        for _ in range(n):
            if depth > 0:
                params.append(T)
            else:
                params.append(self.weighted([(6, T), (2, R(T)), (1, F((T,), T, 1))]))
        ret = self.weighted([(6, T), (3, UNIT), (2, R(T)), (1, "nested")])
        if ret == "nested":
            ret = self.fn_type(depth + 1) if depth < 1 else P(T, R(T))
        return F(params, ret, self.level())

    def rand_type(self, depth: int = 0) -> Ty:
        """A type for a new let binding (a small universe, so values of one type meet often)."""
        if depth >= 2:
            return self.weighted([(3, T), (1, R(T))])
        kind = self.weighted([(30, "T"), (14, "R"), (8, "P"), (12, "F"), (5, "L"), (4, "O")])
        if kind == "T":
            return T
        if kind == "R":
            return self.weighted([(8, R(T)), (2, R(self.fn_type(depth + 1))), (1, R(R(T))),
                                  (1, R(P(T, R(T)))), (1, R(Opt(T))), (1, R(L(T)))])
        if kind == "P":
            return P(self.rand_type(depth + 1), self.rand_type(depth + 1))
        if kind == "F":
            return self.fn_type(depth)
        if kind == "L":
            return L(self.weighted([(3, T), (2, R(T)), (1, F((T,), T, self.level()))]))
        return Opt(self.weighted([(2, T), (2, R(T)), (1, F((), T, self.level()))]))

    def main_ret_type(self) -> Ty:
        """An observable result type: closures in it take tensors (the observer calls them)."""
        return self.weighted([
            (4, T),
            (3, P(T, F((T,), T, self.top))),
            (2, F((T,), T, self.level())),
            (2, F((), T, self.level())),
            (1, P(F((), T, self.level()), F((T,), UNIT, self.level()))),
            (1, F((), F((T,), T, self.level()), self.top)),
            (2, P(T, R(T))),
            (1, R(T)),
            (1, L(T)),
            (1, Opt(R(T))),
            (1, P(L(R(T)), F((), T, self.top))),
        ])

    # ---------------------------------------------------------------------- expressions
    def note(self, t: Ty) -> None:
        """Record which constructs a value of type t brings into the program."""
        for x in parts(t):
            if x[0] == "R":
                self.features.add("refs")
                if x[1][0] == "F":
                    self.features.add("closure_in_ref")
                elif x[1][0] in ("L", "O"):
                    self.features.add("adt_in_ref")
            elif x[0] == "F":
                self.features.add("closures")
            elif x[0] in ("L", "O"):
                self.features.add("adts")
                if x[1][0] == "F":
                    self.features.add("closure_in_adt")
            elif x[0] == "P":
                if any(f[0] == "F" for f in x[1]):
                    self.features.add("closure_in_tuple")
                if any(f[0] == "R" for f in x[1]):
                    self.features.add("ref_in_tuple")

    def bind(self, t: Ty, value: str, sc: Scope, prefix: str = "v", shadow: bool = False) -> str:
        """Emit `let %vN: t = value;` in the current block; the new var is visible afterwards.

        With shadow (only at statement level: no name picked earlier is still waiting to be
        emitted), the let may reuse the name of a visible let var that value does not mention
        (a let var is in scope in its own value, for recursive closures).
        """
        name = self.fresh(prefix)
        if shadow and self.flag(10):
            olds = [n for n, _ in sc.vars if n.startswith("%v")
                    and not re.search(re.escape(n) + r"(?![\w/])", value)]
            if olds:
                name = self.pick(olds)
                sc.vars[:] = [(n, vt) for n, vt in sc.vars if n != name]
                self.features.add("shadowing")
        sc.lines.append(f"let {name}: {self.ty(t)} = {value};")
        sc.vars.append((name, t))
        self.note(t)
        return name

    def gen(self, t: Ty, sc: Scope) -> str:
        """An expression of type t that may stand in argument position."""
        if t == INT:
            return str(self.integer(0, 3))
        have = sc.of_type(t)
        if have and (self.fuel <= 0 or not self.flag(35)):
            return self.use(self.var(have), sc)
        if self.fuel <= 0 or sc.depth > MAX_DEPTH:
            return self.base(t, sc)
        self.fuel -= 1
        return self.value(t, sc)

    def var(self, names: list[str]) -> str:
        """A visible var, the most recent one half of the time (so fresh values get used)."""
        return names[-1] if self.flag(65) else self.pick(names)

    def use(self, name: str, sc: Scope) -> str:
        """Note where a graph binding is used (several regions: a node shared across scopes)."""
        regions = self.graph_regions.get(name)
        if regions is not None:
            regions.add(sc.region)
            if len(regions) > 1:
                self.features.add("graph_node_across_scopes")
        return name

    def base(self, t: Ty, sc: Scope) -> str:
        """A small expression of type t that needs no fuel (vars, fresh cells, Nil, literals)."""
        have = sc.of_type(t)
        if have:
            return self.use(self.var(have), sc)
        k = t[0]
        if k == "T":
            return self.pick(sc.of_type(T))  # always some
        if k == "U":
            return "()"
        if k == "B":
            return self.cond(sc, simple=True)
        if k == "I":
            return "0"
        if k == "R":
            self.features.add("refs")
            return f"ref({self.base(t[1], sc)})"
        if k == "P":
            return self.tuple_text([self.base(f, sc) for f in t[1]])
        if k == "F":
            return self.lambda_text(t, sc, simple=True)
        if k == "L":
            self.ty(t)
            return "Nil"
        if k == "O":
            self.ty(t)
            return "None"
        raise AssertionError(t)

    @staticmethod
    def tuple_text(items: list[str]) -> str:
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    def value(self, t: Ty, sc: Scope) -> str:
        """A value of type t: a type-specific construction, a call, an if, or a match."""
        k = t[0]
        opts: list[tuple[int, Callable[[], str]]] = [(1, lambda: self.base(t, sc))]
        if k == "T":
            opts += [
                (8, lambda: f"{self.pick(['tanh', 'negative', 'sigmoid'])}({self.gen(T, sc)})"),
                (6, lambda: f"({self.gen(T, sc)} {self.pick(['+', '-'])} {self.gen(T, sc)})"),
                (3, lambda: f"multiply(tanh({self.gen(T, sc)}), {self.gen(T, sc)})"),
                (2, lambda: f"({self.gen(T, sc)} * {self.pick(['0.5f', '2f', '-1f'])})"),
                (8, lambda: self.read(R(T), sc)),
            ]
        elif k == "U":
            refs = [vt for _, vt in sc.vars if vt[0] == "R"]
            opts += [(10, lambda: self.write(self.pick(refs) if refs else R(T), sc))]
        elif k == "B":
            return self.cond(sc)
        elif k == "R":
            opts += [(6, lambda: self.alloc(t, sc)), (2, lambda: self.read(R(t), sc))]
        elif k == "P":
            opts += [(6, lambda: self.tuple_text([self.gen(f, sc) for f in t[1]])),
                     (1, lambda: self.read(R(t), sc))]
        elif k == "F":
            opts += [(8, lambda: self.lambda_text(t, sc)), (3, lambda: self.read(R(t), sc))]
            same = [g for g in self.globals if g.type == t]
            if same:
                opts.append((4, lambda: "@" + self.pick(same).name))
        elif k == "L":
            self.ty(t)
            opts += [(5, lambda: f"Cons({self.gen(t[1], sc)}, {self.gen(t, sc)})"),
                     (2, lambda: self.read(R(t), sc))]
        elif k == "O":
            self.ty(t)
            opts += [(4, lambda: f"Some({self.gen(t[1], sc)})"), (2, lambda: self.read(R(t), sc))]
        projs = [(n, i) for n, vt in sc.vars if vt[0] == "P" for i, f in enumerate(vt[1]) if f == t]
        if projs:
            opts.append((4, lambda: "{}.{}".format(*self.pick(projs))))
        callees = self.callees(t, sc)
        if callees:
            opts.append((7, lambda: self.call(self.pick(callees), sc)))
        if sc.depth < MAX_DEPTH:
            opts.append((3, lambda: self.bind(t, self.if_text(t, sc), sc)))
            adts = [(n, vt) for n, vt in sc.vars if vt[0] in ("L", "O", "P")]
            if adts:
                opts.append((3, lambda: self.bind(t, self.match_text(t, self.pick(adts), sc), sc)))
        return self.weighted(opts)()

    def read(self, rt: Ty, sc: Scope) -> str:
        self.features.add("refs")
        return f"ref_read({self.gen(rt, sc)})"

    def alloc(self, rt: Ty, sc: Scope) -> str:
        self.features.add("refs")
        return f"ref({self.gen(rt[1], sc)})"

    def write(self, rt: Ty, sc: Scope) -> str:
        self.features.add("refs")
        return f"ref_write({self.gen(rt, sc)}, {self.gen(rt[1], sc)})"

    def cond(self, sc: Scope, simple: bool = False) -> str:
        """A scalar bool computed from tensors (data-dependent, so seeds take both branches)."""
        a = self.pick(sc.of_type(T)) if simple else self.gen(T, sc)
        b = self.pick(sc.of_type(T)) if simple else self.gen(T, sc)
        form = self.integer(0, 2)
        if form == 0:
            return f"(sum({a}) < sum({b}))"
        if form == 1:
            return f"take(less({a}, {b}), 0)"
        return f"(max({a}) > 0f)"

    # ------------------------------------------------------------------------ calls
    def callees(self, ret: Ty, sc: Scope) -> list[tuple[str, tuple[Ty, ...], str]]:
        """(callee text, param types, what) for everything callable here that returns ret."""
        out: list[tuple[str, tuple[Ty, ...], str]] = []
        for n, vt in sc.vars:
            if vt[0] == "F" and vt[2] == ret and vt[3] < sc.level:
                out.append((n, vt[1], "closure"))
            elif vt[0] == "R" and vt[1][0] == "F" and vt[1][2] == ret and vt[1][3] < sc.level:
                out.append((f"ref_read({n})", vt[1][1], "closure"))
            elif vt[0] == "P":
                for i, f in enumerate(vt[1]):
                    if f[0] == "F" and f[2] == ret and f[3] < sc.level:
                        out.append((f"{n}.{i}", f[1], "closure"))
        for g in self.globals:
            if g.ret == ret and g.level < sc.level:
                out.append(("@" + g.name, g.params, "global"))
        return out

    def call(self, callee: tuple[str, tuple[Ty, ...], str], sc: Scope) -> str:
        text, params, what = callee
        if what == "global" and self.in_global:
            self.features.add("global_calls")  # a global calling another
        if any(p[0] == "F" for p in params):
            self.features.add("higher_order")
        args = ", ".join(self.gen(p, sc) for p in params)
        return f"{text}({args})"

    # ------------------------------------------------------------------ compound forms
    def block(self, t: Ty, sc: Scope, max_stmts: int = 3, summarize: int = 35,
              late: int = 0) -> str:
        """Statements then a result of type t, as the lines of a `{ ... }` body; with
        probability `late` (percent) a cell in scope is written last, after the result is
        computed (the entry's run may end with a write nobody reads)."""
        n = self.integer(0, max(0, max_stmts - sc.depth))
        for _ in range(n):
            if self.fuel <= 0:
                break
            self.stmt(sc)
        if self.flag(summarize) and self.summarize(sc) and t == T and not self.flag(20):
            tail = sc.vars[-1][0]
        else:
            tail = self.gen(t, sc)
        cells = sc.of_type(R(T))
        if cells and self.flag(late):
            self.features.add("late_write")
            if tail not in [n for n, _ in sc.vars]:  # the result is computed first
                tail = self.bind(t, tail, sc, prefix="res")
            sc.lines.append(f"let {self.fresh('w')} = ref_write({self.pick(cells)}, "
                            f"{self.gen(T, sc)});")
        return "\n".join(sc.indent + line for line in [*sc.lines, tail])

    def summarize(self, sc: Scope) -> bool:
        """Bind a tensor that reads several visible cells (and calls thunks), so the writes
        before it matter: the result then depends on the contents of the program's cells."""
        terms = []
        for n, vt in sc.vars:
            if vt == R(T):
                terms.append(f"ref_read({n})")
            elif vt == R(R(T)):
                terms.append(f"ref_read(ref_read({n}))")
            elif vt[0] == "P":
                terms += [f"ref_read({n}.{i})" for i, f in enumerate(vt[1]) if f == R(T)]
            elif vt[0] == "F" and vt[1] == () and vt[2] == T and vt[3] < sc.level:
                terms.append(f"{n}()")
        if not terms:
            return False
        chosen = [terms[-1]] + [x for x in terms[:-1] if self.flag(60)]
        expr = self.var(sc.of_type(T))
        for x in chosen:
            expr = f"({expr} + {x})"
        self.features.add("refs")
        self.bind(T, expr, sc, prefix="sum")
        return True

    def if_text(self, t: Ty, sc: Scope) -> str:
        self.features.add("if")
        c = self.cond(sc)
        a = self.block(t, sc.child())
        b = self.block(t, sc.child())
        return f"if ({c}) {{\n{a}\n{sc.indent}}} else {{\n{b}\n{sc.indent}}}"

    def match_text(self, t: Ty, scrut: tuple[str, Ty], sc: Scope) -> str:
        self.features.add("match")
        name, st_ = scrut
        if st_[0] == "P":
            return self.tuple_match_text(t, scrut, sc)
        if st_[0] == "L" and self.flag(50):
            return self.nested_match_text(t, scrut, sc)
        if st_[0] == "L":
            h, tl = self.fresh("h"), self.fresh("t")
            first = f"Cons({h}, {tl})"
            first_sc = sc.child([(h, st_[1]), (tl, st_)])
            second = "Nil"
        else:
            h = self.fresh("s")
            first = f"Some({h})"
            first_sc = sc.child([(h, st_[1])])
            second = "None"
        first_sc.indent += "  "
        a = self.block(t, first_sc)
        if self.flag(20):
            second = "_"
        second_sc = sc.child()
        second_sc.indent += "  "
        b = self.block(t, second_sc)
        return (f"match ({name}) {{\n{sc.indent}  {first} => {{\n{a}\n{sc.indent}  }},\n"
                f"{sc.indent}  {second} => {{\n{b}\n{sc.indent}  }},\n{sc.indent}}}")

    def arm(self, pattern: str, binds: list[tuple[str, Ty]], t: Ty, sc: Scope) -> str:
        """One match clause whose body sees the pattern's vars."""
        arm_sc = sc.child(binds)
        arm_sc.indent += "  "
        body = self.block(t, arm_sc)
        return f"{sc.indent}  {pattern} => {{\n{body}\n{sc.indent}  }},\n"

    def tuple_match_text(self, t: Ty, scrut: tuple[str, Ty], sc: Scope) -> str:
        """`match (%p) { (%a, _) => ... }`: one irrefutable tuple pattern."""
        self.features.add("tuple_patterns")
        name, pt = scrut
        pats, binds = [], []
        for f in pt[1]:
            if self.flag(25):
                pats.append("_")
            else:
                v = self.fresh("u")
                pats.append(v)
                binds.append((v, f))
        clause = self.arm(self.tuple_text(pats), binds, t, sc)
        return f"match ({name}) {{\n{clause}{sc.indent}}}"

    def nested_match_text(self, t: Ty, scrut: tuple[str, Ty], sc: Scope) -> str:
        """Cons(%a, Cons(%b, %t)) before Cons(%c, %t2) before Nil (or _): first match wins."""
        self.features.add("nested_patterns")
        name, lt = scrut
        a, b, t1, c, t2 = (self.fresh(x) for x in ("h", "h", "t", "h", "t"))
        clauses = self.arm(f"Cons({a}, Cons({b}, {t1}))", [(a, lt[1]), (b, lt[1]), (t1, lt)], t, sc)
        clauses += self.arm(f"Cons({c}, {t2})", [(c, lt[1]), (t2, lt)], t, sc)
        clauses += self.arm("_" if self.flag(30) else "Nil", [], t, sc)
        return f"match ({name}) {{\n{clauses}{sc.indent}}}"

    # ------------------------------------------------------------------------ tag tests
    def tag_test(self, sc: Scope) -> None:
        """A match whose clauses test constructor tags below the top (`Some(Some(_))`,
        `Cons(_, Cons(_, _))`, `(None, _)`), mostly with wildcards alone, over a value whose
        inner ADT parts are read from cells or returned by calls; arms write a cell that is
        read afterwards, so which arm runs (decided by those cells' writes) is observable."""
        self.features.update({"nested_tag_tests", "match", "adts"})
        e = self.weighted([(3, T), (1, R(T))])
        t = self.weighted([(3, Opt(Opt(e))), (3, L(e)), (2, P(Opt(e), T)), (1, Opt(L(e))),
                           (1, P(L(e), Opt(e)))])
        self.ty(t)  # declares the ADTs t uses
        self.note(t)
        cells = sc.of_type(R(T))
        obs = self.pick(cells) if cells and self.flag(60) else \
            self.bind(R(T), f"ref({self.gen(T, sc)})", sc, prefix="o")
        scrut = self.tag_value(t, sc, 0)
        if self.flag(50):
            scrut = self.bind(t, scrut, sc, prefix="q")
        rt = self.weighted([(3, UNIT), (2, T)])
        clauses = ""
        for k in range(self.integer(1, 3)):
            binds: list[tuple[str, Ty]] = []
            pattern = self.tag_pattern(t, binds, 1 if k == 0 else -1, 0)
            clauses += self.tag_arm(pattern, binds, rt, obs, 70 if k == 0 else 40, sc)
        clauses += self.tag_arm("_", [], rt, obs, 30, sc)
        self.bind(rt, f"match ({scrut}) {{\n{clauses}{sc.indent}}}", sc, prefix="m")
        if self.flag(70):
            self.bind(T, f"ref_read({self.use(obs, sc)})", sc, prefix="r")

    def context_shape(self, sc: Scope) -> None:
        """One function used for two cells, where only a context-sensitive analysis keeps the
        uses apart: a factory of cells called twice, a setter called on two cells, a factory of
        getters called twice and its getters called through one helper, a closure reading a
        cell (later writes of the cell may then be dead); perhaps one cell is read back."""
        shape = self.pick(["cell_factory", "shared_setter", "getter_factory", "reader_closure"])
        self.features.update({shape, "closures", "refs"})
        cell_t = self.ty(R(T))
        cells = [self.pick(sc.of_type(R(T))) if sc.of_type(R(T)) and self.flag(40) else
                 self.bind(R(T), f"ref({self.gen(T, sc)})", sc, prefix="c") for _ in range(2)]
        if shape == "cell_factory":
            mk, v = self.fresh("mk"), self.fresh("p")
            sc.lines.append(f"let {mk}: fn ({self.ty(T)}) -> {cell_t} = fn ({v}: {self.ty(T)}) "
                            f"-> {cell_t} {{ ref({v}) }};")
            cells = [self.bind(R(T), f"{mk}({self.gen(T, sc)})", sc, prefix="c") for _ in cells]
        elif shape == "shared_setter":
            st, r, v = self.fresh("set"), self.fresh("p"), self.fresh("p")
            sc.lines.append(f"let {st}: fn ({cell_t}, {self.ty(T)}) -> () = fn ({r}: {cell_t}, "
                            f"{v}: {self.ty(T)}) -> () {{ ref_write({r}, {v}) }};")
            for c in cells:
                sc.lines.append(f"let {self.fresh('e')} = {st}({c}, {self.gen(T, sc)});")
        elif shape == "getter_factory":
            getter_t = f"fn () -> {cell_t}"
            gf, r, ap, f = self.fresh("getter"), self.fresh("p"), self.fresh("apply"), \
                self.fresh("p")
            sc.lines.append(f"let {gf}: fn ({cell_t}) -> {getter_t} = fn ({r}: {cell_t}) -> "
                            f"{getter_t} {{ fn () -> {cell_t} {{ {r} }} }};")
            sc.lines.append(f"let {ap}: fn ({getter_t}) -> {cell_t} = fn ({f}: {getter_t}) -> "
                            f"{cell_t} {{ {f}() }};")
            getters = [self.bind(F((), R(T), 1), f"{gf}({c})", sc, prefix="g") for c in cells]
            cells = [self.bind(R(T), f"{ap}({g})", sc, prefix="c") for g in getters]
        else:
            rd = self.fresh("rd")
            sc.lines.append(f"let {rd}: fn () -> {self.ty(T)} = fn () -> {self.ty(T)} "
                            f"{{ ref_read({cells[0]}) }};")
            sc.vars.append((rd, F((), T, 1)))
            sc.lines.append(f"let {self.fresh('w')} = ref_write({cells[0]}, {self.gen(T, sc)});")
            self.bind(T, f"{rd}()", sc, prefix="y")
        if shape != "shared_setter":
            for c in cells:
                if self.flag(70):
                    sc.lines.append(f"let {self.fresh('w')} = ref_write({c}, "
                                    f"{self.gen(T, sc)});")
        if self.flag(60):
            self.bind(T, f"ref_read({self.pick(cells)})", sc, prefix="r")

    def tag_arm(self, pattern: str, binds: list[tuple[str, Ty]], t: Ty, obs: str, write: int,
                sc: Scope) -> str:
        """A clause of a tag test: perhaps a write of the observed cell, then a block."""
        arm_sc = sc.child(binds)
        arm_sc.indent += "  "
        if self.flag(write):
            arm_sc.lines.append(f"let {self.fresh('w')} = ref_write({self.use(obs, arm_sc)}, "
                                f"{self.gen(T, arm_sc)});")
        body = self.block(t, arm_sc)
        return f"{sc.indent}  {pattern} => {{\n{body}\n{sc.indent}  }},\n"

    def tag_pattern(self, t: Ty, binds: list[tuple[str, Ty]], need: int, depth: int) -> str:
        """A pattern for type t of wildcards and constructors (a var now and then). need >= 0:
        it has a constructor `need` or more levels below this one (0: here)."""
        k = t[0]
        nested = [i for i, f in enumerate(t[1]) if f[0] in ("O", "L")] if k == "P" else []
        if need < 0:  # free
            form = self.weighted([(3, "_"), (4 if k in ("O", "L", "P") else 0, "ctor"),
                                  (1 if depth > 0 else 0, "var")])
            if form == "_":
                return "_"
            if form == "var":
                v = self.fresh("u")
                binds.append((v, t))
                return v
        sub = need - 1 if need > 0 else -1
        if k == "O":
            if need < 1 and self.flag(35):
                return "None"
            return f"Some({self.tag_pattern(t[1], binds, sub, depth + 1)})"
        if k == "L":
            if need < 1 and self.flag(30):
                return "Nil"
            head_first = need > 0 and t[1][0] in ("O", "L") and self.flag(30)
            head = self.tag_pattern(t[1], binds, sub if head_first else -1, depth + 1)
            tail = self.tag_pattern(t, binds, -1 if head_first else sub, depth + 1)
            return f"Cons({head}, {tail})"
        assert k == "P", t
        pick = self.pick(nested) if need >= 0 else -1
        subs = [self.tag_pattern(f, binds, sub if i == pick else -1, depth + 1)
                for i, f in enumerate(t[1])]
        return self.tuple_text(subs)

    def tag_value(self, t: Ty, sc: Scope, depth: int) -> str:
        """A value of type t whose nested ADT parts come from cells and calls (tag_source)."""
        k = t[0]
        if k in ("O", "L") and (depth >= 2 or self.flag(80 if depth > 0 else 20)):
            return self.tag_source(t, sc)
        if k == "O":
            return f"Some({self.tag_value(t[1], sc, depth + 1)})"
        if k == "L":
            return f"Cons({self.gen(t[1], sc)}, {self.tag_value(t, sc, depth + 1)})"
        if k == "P":
            return self.tuple_text([self.tag_value(f, sc, depth + 1) for f in t[1]])
        return self.gen(t, sc)

    def tag_source(self, u: Ty, sc: Scope) -> str:
        """An ADT value of type u read from a cell, or returned by a call: a closure that reads
        the cell (perhaps writing it first), or a function that returns u."""
        calls = self.callees(u, sc)
        how = self.weighted([(4, "cell"), (3 if sc.level > 1 else 0, "closure"),
                             (3 if calls else 0, "call")])
        if how == "call":
            return self.call(self.pick(calls), sc)
        cell = self.tag_cell(u, sc)
        if how == "cell":
            return f"ref_read({self.use(cell, sc)})"
        body = sc.child(level=1)
        if self.flag(40):
            body.lines.append(f"let {self.fresh('w')} = ref_write({self.use(cell, body)}, "
                              f"{self.tag_write_value(u, body)});")
        text = "\n".join(body.indent + line for line in [*body.lines, f"ref_read({cell})"])
        f = self.bind(F((), u, 1), f"fn () -> {self.ty(u)} {{\n{text}\n{sc.indent}}}", sc,
                      prefix="k")
        return f"{f}()"

    def tag_cell(self, u: Ty, sc: Scope) -> str:
        """A cell holding a u, perhaps written (with a value of another tag) after it is made."""
        have = sc.of_type(R(u))
        if have and self.flag(50):
            cell = self.use(self.var(have), sc)
        else:
            init = "None" if u[0] == "O" else "Nil"
            cell = self.bind(R(u), f"ref({init if self.flag(60) else self.gen(u, sc)})", sc,
                             prefix="b")
        if self.flag(70):
            sc.lines.append(f"let {self.fresh('w')} = ref_write({cell}, "
                            f"{self.tag_write_value(u, sc)});")
        return cell

    def tag_write_value(self, u: Ty, sc: Scope) -> str:
        """A value of type u with a tag chosen here (or any value of type u)."""
        form = self.integer(0, 3)
        if form == 0:
            return self.gen(u, sc)
        if u[0] == "O":
            return "None" if form == 1 else f"Some({self.gen(u[1], sc)})"
        tail = "Nil" if form < 3 else f"Cons({self.gen(u[1], sc)}, Nil)"
        return "Nil" if form == 1 else f"Cons({self.gen(u[1], sc)}, {tail})"

    def lambda_text(self, t: Ty, sc: Scope, simple: bool = False) -> str:
        """A closure literal of type t capturing the current scope."""
        self.features.add("closures")
        params = [(self.fresh("p"), p) for p in t[1]]
        body_sc = sc.child(params, level=t[3])
        body = self.base(t[2], body_sc) if simple else self.block(t[2], body_sc)
        if simple:
            body = body_sc.indent + body
        plist = ", ".join(f"{n}: {self.ty(p)}" for n, p in params)
        self.note(t)
        return f"fn ({plist}) -> {self.ty(t[2])} {{\n{body}\n{sc.indent}}}"

    # ------------------------------------------------------------------------ statements
    def stmt(self, sc: Scope) -> None:
        """One let in the current block: a new value, an effect, or dead code on purpose."""
        self.fuel -= 1
        refs = [(n, vt) for n, vt in sc.vars if vt[0] == "R"]
        graphs = [(n, vt) for n, vt in sc.vars if n in self.graph_regions]
        kind = self.weighted([
            (30, "bind"),
            (24 if refs else 0, "write"),
            (8 if refs else 0, "read"),
            (5 if refs else 0, "overwrite"),
            (4, "dead_cell"),
            (10 if self.callees(UNIT, sc) else 0, "effect_call"),
            (5 if sc.depth < MAX_DEPTH and sc.level > 1 else 0, "local_rec"),
            (8 if self.callable_globals(sc) else 0, "call_global"),
            (6, "graph"),
            (9 if graphs else 0, "use_graph"),
            (4 if sc.depth < MAX_DEPTH else 0, "tower"),
            (5 if sc.depth < MAX_DEPTH else 0, "tag_test"),
            (5, "context_shape"),
        ])
        if kind == "bind":
            t = self.rand_type()
            self.bind(t, self.value(t, sc), sc, shadow=True)
        elif kind == "graph":
            self.graph_binding(refs, sc)
        elif kind == "use_graph":
            name, t = self.pick(graphs)
            self.bind(t, self.use(name, sc), sc, prefix="g")
        elif kind == "tower":
            self.tower(sc)
        elif kind == "tag_test":
            self.tag_test(sc)
        elif kind == "context_shape":
            self.context_shape(sc)
        elif kind in ("write", "overwrite"):
            r, rt = refs[-1] if self.flag(40) else self.pick(refs)
            for _ in range(2 if kind == "overwrite" else 1):
                write = f"ref_write({r}, {self.gen(rt[1], sc)})"
                if self.flag(25):
                    self.features.add("sequencing")
                    sc.lines.append(f"{write};")  # `e1; e2`: a let of an anonymous var
                else:
                    sc.lines.append(f"let {self.fresh('w')} = {write};")
            if kind == "overwrite":
                self.features.add("dead_writes")
        elif kind == "read":
            r, rt = self.pick(refs)
            self.bind(rt[1], f"ref_read({r})", sc)
        elif kind == "dead_cell":
            self.features.add("dead_writes")
            t = self.weighted([(3, T), (1, self.rand_type(1))])
            cell = self.bind(R(t), f"ref({self.gen(t, sc)})", sc, prefix="d")
            sc.lines.append(f"let {self.fresh('w')} = ref_write({cell}, {self.gen(t, sc)});")
        elif kind == "effect_call":
            call = self.call(self.pick(self.callees(UNIT, sc)), sc)
            sc.lines.append(f"let {self.fresh('e')} = {call};")
        elif kind == "local_rec":
            self.local_recursion(sc)
        else:
            g: GlobalSig = self.pick(self.callable_globals(sc))
            self.bind(g.ret, self.call(("@" + g.name, g.params, "global"), sc), sc)

    def graph_binding(self, refs: list[tuple[str, Ty]], sc: Scope) -> None:
        """`%N = e;` makes no let: every later `%N` is the same node, evaluated once, where
        ToANormalForm binds it (the innermost scope common to all its uses)."""
        self.features.add("graph_bindings")
        if refs and self.flag(60):  # an effect or a read, shared: where it runs is what matters
            r, rt = self.pick(refs)
            what = self.weighted([(3, "write"), (3, "read"),
                                  (1 if rt[1][0] not in ("L", "O") else 0, "alloc")])
            self.features.update({"refs", "effectful_graph_node"})
            if what == "write":
                t, value = UNIT, f"ref_write({self.use(r, sc)}, {self.gen(rt[1], sc)})"
            elif what == "read":
                if self.flag(50):  # a write just before: the read is pinned to it
                    sc.lines.append(f"let {self.fresh('w')} = ref_write({self.use(r, sc)}, "
                                    f"{self.gen(rt[1], sc)});")
                t, value = rt[1], f"ref_read({self.use(r, sc)})"
            else:
                t, value = rt, f"ref({self.gen(rt[1], sc)})"
            cell = (r, rt)
        else:
            t = self.rand_type()
            while t[0] in ("L", "O"):  # an unannotated `Nil` / `None` leaves its type open
                t = self.rand_type()
            value = self.value(t, sc)
            cell = None
        name = f"%{self.graph_counter}"
        self.graph_counter += 1
        sc.lines.append(f"{name} = {value};")
        sc.vars.append((name, t))
        self.graph_regions[name] = set()
        self.note(t)
        if self.flag(60):
            self.share(name, t, sc, cell)

    def share(self, name: str, t: Ty, sc: Scope, cell: tuple[str, Ty] | None) -> None:
        """Use a graph binding inside a closure body or an arm (and perhaps here as well), so
        that its uses meet above where each of them is; a closure may be called after the
        node's cell was written again (evaluated once, the node does not see that write)."""
        inner = sc.child(level=1)
        where = self.weighted([(3, "closure"), (2, "if")])
        if self.flag(40):  # a use here first
            self.bind(t, self.use(name, sc), sc, prefix="g")
        if where == "closure":
            text = (f"fn () -> {self.ty(t)} {{\n{inner.indent}{self.use(name, inner)}\n"
                    f"{sc.indent}}}")
            f = self.bind(F((), t, 1), text, sc, prefix="s")
            if cell is not None and self.flag(60):
                sc.lines.append(f"let {self.fresh('w')} = ref_write({cell[0]}, "
                                f"{self.gen(cell[1][1], sc)});")
            if self.flag(70):
                self.bind(t, f"{f}()", sc, prefix="sc")
        else:
            other = sc.child()
            text = (f"if ({self.cond(sc, simple=True)}) {{\n{inner.indent}{self.use(name, inner)}"
                    f"\n{sc.indent}}} else {{\n{other.indent}{self.base(t, other)}\n"
                    f"{sc.indent}}}")
            self.bind(t, text, sc, prefix="si")
        if self.flag(30):
            self.bind(t, self.use(name, sc), sc, prefix="g")

    def tower(self, sc: Scope) -> None:
        """Closures nested three or four deep, called level by level (some levels parked in a
        cell or a tuple first). Each level may make cells and alias outer ones; the innermost
        body stores outer cells in cells of its own and writes through them and through
        aliases, so its effects reach cells several levels up."""
        self.features.update({"closure_tower", "closures"})
        if not sc.of_type(R(T)) or self.flag(30):  # a cell here, for the innermost to reach
            self.bind(R(T), f"ref({self.gen(T, sc)})", sc, prefix="c")
        depth = self.integer(3, 4)
        types = [F((), self.weighted([(3, T), (1, UNIT)]), 1)]
        for _ in range(depth - 1):
            types.append(F((), types[-1], 1))
        types.reverse()
        cur = self.bind(types[0], self.tower_fn(types, 0, sc, []), sc, prefix="tw")
        for k in range(depth):
            ret = types[k][2]
            got = self.bind(ret, f"{cur}()", sc, prefix="tc")
            cur = got
            if ret[0] == "F" and self.flag(40):
                self.features.add("stored_closure_called")
                if self.flag(50):
                    cell = self.bind(R(ret), f"ref({got})", sc, prefix="tk")
                    cur = f"ref_read({cell})"
                else:
                    pair = self.bind(P(T, ret), f"({self.gen(T, sc)}, {got})", sc, prefix="tp")
                    cur = f"{pair}.1"
                self.stmt(sc) if self.fuel > 0 else None  # something in between

    def tower_fn(self, types: list[Ty], k: int, sc: Scope, seen: list[set[str]]) -> str:
        """The closure literal of tower level k (its body makes level k + 1); seen[j] holds the
        names visible where level j was made."""
        t = types[k]
        seen = [*seen, {n for n, _ in sc.vars}]
        body = sc.child(level=1)
        self.tower_locals(body)
        if k + 1 < len(types):
            tail = self.tower_fn(types, k + 1, body, seen)
            if self.flag(30):  # the inner closure goes through a cell of this level
                self.features.add("closure_in_ref")
                cell = self.bind(R(types[k + 1]), f"ref({tail})", body, prefix="tk")
                tail = f"ref_read({cell})"
        else:
            tail = self.tower_innermost(t[2], body, seen[-2])
        text = "\n".join(body.indent + line for line in [*body.lines, tail])
        return f"fn () -> {self.ty(t[2])} {{\n{text}\n{sc.indent}}}"

    def tower_locals(self, sc: Scope) -> None:
        """A level's own cells: a fresh one, one holding an outer cell, an alias of it."""
        cells = sc.of_type(R(T))
        if self.flag(50):
            self.bind(R(T), f"ref({self.gen(T, sc)})", sc, prefix="m")
        if cells and self.flag(60):
            held = self.bind(R(R(T)), f"ref({self.use(self.pick(cells), sc)})", sc, prefix="l")
            if self.flag(50):
                sc.lines.append(f"let {self.fresh('w')} = ref_write({held}, "
                                f"{self.use(self.pick(cells), sc)});")
            if self.flag(50):
                self.bind(R(R(T)), f"({held},).0", sc, prefix="al")

    def tower_innermost(self, ret: Ty, sc: Scope, far: set[str]) -> str:
        """Writes into outer cells: directly, through cells holding them, through aliases (far:
        the names visible two levels up and more, whose use is a deep capture)."""
        cells = [(n, n) for n in sc.of_type(R(T))]
        cells += [(f"ref_read({n})", n) for n in sc.of_type(R(R(T)))]
        cells += [(f"({n},).0", n) for n in sc.of_type(R(T)) if self.flag(20)]
        targets = []
        for _ in range(self.integer(1, 3)):
            if not cells:
                break
            target, name = self.pick(cells)
            self.use(name, sc)
            if name in far:
                self.features.add("deep_capture")
            targets.append(target)
            sc.lines.append(f"let {self.fresh('w')} = ref_write({target}, {self.gen(T, sc)});")
        if ret == UNIT:
            return "()"
        reads = [f"ref_read({t})" for t in targets[:2]]
        return " + ".join([self.gen(T, sc), *reads]) if reads else self.gen(T, sc)

    def callable_globals(self, sc: Scope) -> list[GlobalSig]:
        return [g for g in self.globals if g.level < sc.level]

    def local_recursion(self, sc: Scope) -> None:
        """A let-bound closure that calls itself with a decreasing counter, then a call of it."""
        self.features.update({"recursion", "closures"})
        ret = self.weighted([(4, T), (2, UNIT), (1, R(T))])
        k = self.integer(1, sc.level - 1) if sc.level <= self.top else self.level()  # < sc.level
        t = F((INT, T), ret, k)
        f, n, p = self.fresh("f"), self.fresh("n"), self.fresh("p")
        body_sc = sc.child([(p, T)], level=k)
        then_sc = body_sc.child()
        rec = self.fresh("rec")
        then_sc.lines.append(f"let {rec}: {self.ty(ret)} = {f}({n} - 1, {self.gen(T, then_sc)});")
        then_sc.vars.append((rec, ret))
        a = self.block(ret, then_sc)
        b = self.block(ret, body_sc.child())
        ind = body_sc.indent
        sc.lines.append(
            f"let {f}: {self.ty(t)} = fn ({n}: int32, {p}: {self.ty(T)}) -> {self.ty(ret)} {{\n"
            f"{ind}if ({n} > 0) {{\n{a}\n{ind}}} else {{\n{b}\n{ind}}}\n{sc.indent}}};")
        sc.vars.append((f, t))
        self.bind(ret, f"{f}({self.integer(0, 3)}, {self.gen(T, sc)})", sc)

    # ------------------------------------------------------------------------ globals
    def global_sigs(self, n: int) -> None:
        for i in range(n):
            level = i + 2
            prev = self.globals[-1] if self.globals else None
            pair = bool(prev and prev.kind == "count" and prev.partner is None and self.flag(40))
            kind = "count" if pair else self.weighted([(3, "plain"), (2, "count"), (2, "list")])
            extra = []
            for _ in range(self.integer(0, 2)):
                higher = F((T,), T, self.integer(1, level - 1))
                extra.append(self.weighted([(5, T), (3, R(T)), (2, higher),
                                            (2, F((T,), UNIT, 1)), (1, P(T, R(T))),
                                            (1, R(Opt(T)))]))
            params: list[Ty] = [T, *extra]
            passes = kind == "count" and not pair and self.flag(35)
            if passes:  # a cell passed through a recursive call site and handed back
                self.features.add("recursive_cell_pass")
                params = [INT, R(T), T, *extra]
            elif kind == "count":
                params = [INT, *params]
            elif kind == "list":
                params = [L(self.weighted([(1, T), (1, R(T))])), *params]
            ret = R(T) if passes else self.weighted([
                (5, T), (2, UNIT), (2, R(T)), (1, F((T,), T, 1)), (1, P(T, R(T))), (1, Opt(T)),
                (1, L(T))])
            for p in params:
                self.note(p)
            if pair and prev:
                # mutual recursion: equal levels (neither calls the other by the level rule);
                # each one's recursive call goes to the other with the counter minus one
                self.features.add("mutual_recursion")
                me = GlobalSig(f"g{i}", kind, tuple(params), ret, prev.level, prev.name)
                self.globals[-1] = GlobalSig(prev.name, prev.kind, prev.params, prev.ret,
                                             prev.level, me.name)
                self.globals.append(me)
                continue
            self.globals.append(GlobalSig(f"g{i}", kind, tuple(params), ret, level))

    def global_def(self, g: GlobalSig) -> str:
        """The definition of one global; its body sees only its params (and earlier globals)."""
        names = [self.fresh("a") for _ in g.params]
        ps = list(zip(names, g.params, strict=True))
        sc = Scope([(n, t) for n, t in ps if t != INT], g.level, "  ", 1)
        header = (f"def @{g.name}(" + ", ".join(f"{n}: {self.ty(t)}" for n, t in ps)
                  + f") -> {self.ty(g.ret)} {{\n")
        if g.kind == "plain":
            return header + self.block(g.ret, sc, max_stmts=5, summarize=50) + "\n}\n"
        self.features.add("recursion")
        rec = self.fresh("rec")
        if g.kind == "count":
            then_sc = sc.child()
            target = next((h for h in self.globals if h.name == g.partner), g)
            args = ", ".join(self.gen(t, then_sc) for t in target.params[1:])
            then_sc.lines.append(f"let {rec}: {self.ty(target.ret)} = @{target.name}("
                                 f"{names[0]} - 1, {args});")
            then_sc.vars.append((rec, target.ret))
            a = self.block(g.ret, then_sc, max_stmts=4)
            b = self.block(g.ret, sc.child(), max_stmts=4)
            return (header + f"  if ({names[0]} > 0) {{\n{a}\n  }} else {{\n{b}\n  }}\n}}\n")
        self.features.add("match")
        elem = g.params[0][1]
        h, tl = self.fresh("h"), self.fresh("t")
        cons_sc = sc.child([(h, elem), (tl, g.params[0])])
        cons_sc.indent += "  "
        args = ", ".join(self.gen(t, cons_sc) for t in g.params[1:])
        cons_sc.lines.append(f"let {rec}: {self.ty(g.ret)} = @{g.name}({tl}, {args});")
        cons_sc.vars.append((rec, g.ret))
        a = self.block(g.ret, cons_sc, max_stmts=4)
        nil_sc = sc.child()
        nil_sc.indent += "  "
        b = self.block(g.ret, nil_sc, max_stmts=4)
        return (header + f"  match ({names[0]}) {{\n    Cons({h}, {tl}) => {{\n{a}\n    }},\n"
                f"    Nil => {{\n{b}\n    }},\n  }}\n}}\n")

    # ------------------------------------------------------------------------ program
    def program(self) -> Program:
        self.shape = self.pick(["(2)", "(2, 2)"])
        n_globals = self.integer(0, 3)
        self.top = n_globals + 2  # closures of level top may call every global
        self.global_sigs(n_globals)
        defs = []
        self.in_global = True
        for g in self.globals:
            self.fuel = self.integer(4, 14)
            defs.append(self.global_def(g))
        self.in_global = False
        self.fuel = self.integer(12, 48)
        ret = self.main_ret_type()
        if any(x[0] == "F" for x in parts(ret)):
            self.features.add("escaping_closures")
        self.note(ret)
        params = [(self.fresh("x"), T) for _ in range(self.integer(1, 3))]
        sc = Scope(list(params), self.top + 1, "  ", 1)
        body = self.block(ret, sc, max_stmts=self.integer(3, 12), summarize=90, late=30)
        plist = ", ".join(f"{n}: {self.ty(t)}" for n, t in params)
        main = f"def @main({plist}) -> {self.ty(ret)} {{\n{body}\n}}\n"
        text = ['#[version = "0.0.5"]']
        if "List" in self.adts:
            text.append("type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n")
        if "Option" in self.adts:
            text.append("type Option[A] {\n  Some(A),\n  None,\n}\n")
        text += defs
        text.append(main)
        return Program("\n".join(text), frozenset(self.features))


# ---------------------------------------------------------------------------------- API


def generate_program(seed: int) -> Program:
    """The program for a seed (random.Random-driven; same seed, same program)."""
    return Generator(RandomChooser(seed)).program()


def generate(seed: int) -> str:
    """The text of the program for a seed."""
    return generate_program(seed).text


def recorded(seed: int) -> tuple[str, list[int]]:
    """The program for a seed and the choices that made it (to shrink with `replay`)."""
    chooser = RandomChooser(seed)
    return Generator(chooser).program().text, chooser.choices


def replay(choices: Sequence[int]) -> str:
    """The program a (possibly edited) choice list makes; any list gives a valid program."""
    return Generator(ReplayChooser(choices)).program().text


@st.composite
def programs(draw: Callable[[st.SearchStrategy[int]], int]) -> str:
    """Hypothesis strategy: program texts from the same grammar (shrinks toward small ones)."""
    return Generator(DrawChooser(draw)).program().text
