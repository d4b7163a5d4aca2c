"""Random Relax modules for the alias-safety fuzzer: a JSON-able spec, its TVMScript, its meaning.

A spec is an entry function `main` over float32 tensors, and the Relax functions it uses
(`functions`: private helpers it calls, closure bodies it captures tensors into). `main` is
either value-level — parameters, straight-line statements (ops, views, views at byte offsets,
identity copies that lowering turns into views, transposes, `call_tir` / `call_tir_inplace` of
generated kernels, `R.split` into parts, tuples, `call_pure_packed` / `call_inplace_packed` of
the packed functions registered here, constants, helper calls, closures and their invocations)
in one dataflow block or a plain binding block — or `lowered` (`pure=False`): hand-written
storages, tensors allocated in them at byte offsets, and destination-passing kernel calls into
those tensors.

`render` prints a spec as a TVMScript file; `evaluate` is the reference semantics: every value
is a fresh value (an in-place call, a packed function that writes, a helper or closure that
writes its argument computes its result but changes nothing else), which is what the in-place
contract promises; in a lowered function every allocated tensor is memory of its own, written
once by the kernel call whose destination it is (a kernel writes its destination only). A VM
run that differs from it has observed an alias leaking: a write that reached a value still in
use. `run_function` gives every value of one function call, which the fuzzer's oracle compares
with what each VM call reads.

Only numpy and the standard library are imported here; `register_packed` imports tvm_ffi.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

SHAPES: tuple[tuple[int, ...], ...] = ((2, 3), (3, 2), (6,), (1, 6))
VIEW_SHAPES: tuple[tuple[int, ...], ...] = ((2,), (3,), (4,), (1, 3))  # of `view_off`s
PACKED_PREFIX = "aliaslog.fuzz."
# The packed functions, with what the effect table the fuzzer passes to `check` says of them
# (tests/data/relax/fuzz_packed_effects.tsv); `mystery` and `mystery_ip` are not in it
# (opaque; tests/data/relax/fuzz_packed_true_effects.tsv says what they do), and
# vm.builtin.copy is TVM's own, described by the shipped table.
PACKED = ("first", "swap", "nested", "ident", "copy", "writer", "mystery", "vmcopy")
# call_inplace_packed: inc_ip(a) a += 1, acc_ip(b, a) a += b, mystery_ip(a) a += 2 (opaque)
INPLACE_PACKED = ("inc_ip", "acc_ip", "mystery_ip")
OPAQUE = frozenset({"mystery", "mystery_ip"})
# What the packed functions that write memory add to every element they store: 0 as the
# effect table's descriptions are read here; the fuzzer's class (b) test runs them with
# another value (`skewed`), the same effects storing other values.
SKEW = {"value": 0.0}
# The argument positions whose contents each packed function reads (the rest it only passes
# on, keeps in a tuple or writes); the oracle checks the reads. vm.builtin.copy returns its
# argument itself (`[](ffi::Any a) { return a; }`), like ident: it reads nothing.
PACKED_READS: dict[str, tuple[int, ...]] = {
    "copy": (0,), "writer": (0,), "inc_ip": (0,), "acc_ip": (0, 1), "mystery_ip": (0,)}
KERNELS = ("copy", "add_one", "scale2", "dirty")  # call_tir: out = f(a); dirty also zeroes a
INPLACE_KERNELS = ("inc", "addto")  # call_tir_inplace: a += 1, a += b
DPS_KERNELS = (*KERNELS, "sum2")  # lowered kernel calls f(inputs..., out); sum2: out = a + b
# ops legalized to TVM's own kernels, which take tensors at byte offset 0 only
LEGALIZED = frozenset({"binop", "scalar", "permute", "astype", "slice", "concat1", "expand",
                       "squeeze", "flatten", "split"})

Type = list  # ["T", [dims...]], ["Tup", [types...]], ["Clo", fn, inner], ["S", bytes], ["U"]


def tensor(shape: tuple[int, ...] | list[int]) -> Type:
    return ["T", list(shape)]


def is_tensor(t: Type) -> bool:
    return t[0] == "T"


def is_data(t: Type) -> bool:
    """A tensor or a tuple of data: what a tuple may hold and a function may return."""
    return t[0] == "T" or (t[0] == "Tup" and all(is_data(f) for f in t[1]))


class SpecError(ValueError):
    """A spec whose statements do not type-check (shrinking produces these; they are skipped)."""


# ----------------------------------------------------------------------------------- types


def _count(shape: list[int]) -> int:
    return int(np.prod(shape)) if shape else 1


@dataclass(frozen=True)
class Sig:
    """What a helper or closure body takes and returns (closures: captures last)."""

    kind: str
    params: tuple[tuple[str, Any], ...]  # (name, type)
    ncap: int
    out: Any


def stmt_type(op: str, args: list[Type], attr: dict[str, Any],
              sigs: dict[str, Sig] | None = None) -> Type:
    """The result type of a statement, or SpecError."""
    def need(cond: bool) -> None:
        if not cond:
            raise SpecError(f"{op} does not take {args}")

    ts = [a for a in args if is_tensor(a)]
    if op == "const":
        need(not args)
        return tensor(attr["shape"])
    if op == "get":
        need(len(args) == 1 and args[0][0] == "Tup" and attr["index"] < len(args[0][1]))
        return args[0][1][attr["index"]]
    if op == "tuple":
        need(len(args) >= 1 and all(is_data(a) for a in args))
        return ["Tup", list(args)]
    if op == "packed":
        return _packed_type(attr["fn"], args, need)
    if op in ("call", "closure", "invoke"):
        return _call_type(op, args, attr, sigs or {}, need)
    if op == "storage":
        need(not args and attr["size"] > 0)
        return ["S", attr["size"]]
    if op == "split":  # equal parts along an axis, each in memory of its own
        need(len(ts) == len(args) == 1)
        dims, ax, k = list(args[0][1]), attr["axis"], attr["sections"]
        need(0 <= ax < len(dims) and k >= 2 and dims[ax] % k == 0)
        dims[ax] //= k
        return ["Tup", [tensor(dims) for _ in range(k)]]
    if op == "alloc":
        need(len(args) == 1 and args[0][0] == "S")
        off, n = attr["offset"], 4 * _count(attr["shape"])
        need(off >= 0 and off % 4 == 0 and off + n <= args[0][1])
        return tensor(attr["shape"])
    if op == "dps":
        ins = 2 if attr["kernel"] == "sum2" else 1
        need(len(args) == ins + 1 and len(ts) == len(args) and all(a == args[-1] for a in args))
        return ["U"]
    need(len(ts) == len(args) >= 1)
    a = args[0][1]
    if op == "inplace_packed" and attr["fn"] == "acc_ip":
        need(len(args) == 2 and args[0] == args[1])
        return tensor(a)
    if op in ("binop", "inplace") and len(args) == 2:
        need(args[0] == args[1])
        return tensor(a)
    need(len(args) == 1)
    if op in ("scalar", "astype", "slice", "no_grad", "concat1", "call_tir", "inplace",
              "inplace_packed", "zero_off"):
        return tensor(a)
    if op == "reshape":
        need(_count(attr["shape"]) == _count(a))
        return tensor(attr["shape"])
    if op == "view_off":
        off = attr["offset"]
        need(off >= 0 and off % 4 == 0 and off + 4 * _count(attr["shape"]) <= 4 * _count(a))
        return tensor(attr["shape"])
    if op == "permute":
        need(len(a) == 2)
        return tensor(a[::-1])
    if op == "expand":
        need(len(a) == 1)
        return tensor([1, *a])
    if op == "squeeze":
        need(len(a) == 2 and a[0] == 1)
        return tensor(a[1:])
    if op == "flatten":
        return tensor([_count(a)])
    raise SpecError(f"unknown op {op}")


def _packed_type(fn: str, args: list[Type], need: Any) -> Type:
    if fn in ("first", "swap", "nested"):
        need(len(args) == 1 and args[0][0] == "Tup" and len(args[0][1]) >= 2)
        f = args[0][1]
        if fn == "first":
            return f[0]
        if fn == "swap":
            need(len(f) == 2 and f[0] == f[1])
            return ["Tup", [f[1], f[0]]]
        return ["Tup", [f[1], ["Tup", [f[0], f[1]]]]]
    need(len(args) >= 1 and all(is_data(a) for a in args))
    if fn in ("ident", "vmcopy"):
        need(len(args) == 1)
        return args[0]
    if fn == "mystery":
        need(len(args) == 1)
        t = args[0]
        if t[0] == "Tup":
            need(len(t[1]) == 2 and t[1][0] == t[1][1])
        return t
    need(all(is_tensor(a) for a in args))
    if fn == "copy":
        need(len(args) == 1)
        return args[0]
    if fn == "writer":
        need(len(args) == 2 and args[0] == args[1])
        return args[0]
    raise SpecError(f"unknown packed function {fn}")


def _call_type(op: str, args: list[Type], attr: dict[str, Any], sigs: dict[str, Sig],
               need: Any) -> Type:
    if op == "invoke":
        need(len(args) >= 1 and args[0][0] == "Clo" and args[0][1] in sigs)
        need(not attr.get("direct") or args[0][2])  # only a local function is called by name
        sig = sigs[args[0][1]]
        own = [t for _, t in sig.params[:len(sig.params) - sig.ncap]]
        need(sig.kind == "closure" and list(args[1:]) == own)
        return sig.out
    need(attr["fn"] in sigs)
    sig = sigs[attr["fn"]]
    if op == "call":
        need(sig.kind == "helper" and list(args) == [t for _, t in sig.params])
        return sig.out
    need(sig.kind == "closure" and sig.ncap >= 1
         and list(args) == [t for _, t in sig.params[len(sig.params) - sig.ncap:]])
    return ["Clo", attr["fn"], bool(attr.get("inner"))]


def functions(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The helpers and closure bodies of a spec, by name."""
    return {f["name"]: f for f in spec.get("functions", [])}


def _check_body(stmts: list[dict[str, Any]], env: dict[str, Type], sigs: dict[str, Sig],
                where: str) -> None:
    """Type the statements into env; an allocated tensor is used only after the kernel call
    that writes it (once), so every value a lowered function reads has been given one."""
    unwritten: set[str] = set()
    views: set[str] = set()  # a kernel may also fill a view of a tensor (its bytes, not a copy)
    for s in stmts:
        if s["var"] in env:
            raise SpecError(f"{where}: {s['var']} is defined twice")
        try:
            args = [env[a] for a in s["args"]]
        except KeyError as exc:
            raise SpecError(f"{where}: {s['var']} uses an undefined value {exc}") from None
        reads = s["args"][:-1] if s["op"] == "dps" else s["args"]
        if unwritten & set(reads):
            raise SpecError(f"{where}: {s['var']} reads a tensor before it is written")
        if s["op"] == "dps":
            if s["args"][-1] not in unwritten | views:
                raise SpecError(f"{where}: {s['var']} writes a tensor that is neither fresh "
                                "nor a view")
            unwritten.discard(s["args"][-1])
        env[s["var"]] = stmt_type(s["op"], args, s.get("attr", {}), sigs)
        if s["op"] == "alloc":
            unwritten.add(s["var"])
        if s["op"] in ("view_off", "zero_off") and not unwritten & set(s["args"]):
            views.add(s["var"])


def signatures(spec: dict[str, Any]) -> dict[str, Sig]:
    """Every helper's and closure body's signature (each may use only earlier ones)."""
    sigs: dict[str, Sig] = {}
    for f in spec.get("functions", []):
        env = _fn_env(f, sigs)
        sigs[f["name"]] = Sig(f["kind"], tuple((p["name"], tensor(p["shape"]))
                                               for p in f["params"]),
                              f.get("ncap", 0), env[f["outputs"][0]])
    return sigs


def _fn_env(f: dict[str, Any], sigs: dict[str, Sig]) -> dict[str, Type]:
    env: dict[str, Type] = {p["name"]: tensor(p["shape"]) for p in f["params"]}
    if len(env) != len(f["params"]):
        raise SpecError(f"{f.get('name', 'main')}: two parameters share a name")
    _check_body(f["stmts"], env, sigs, f.get("name", "main"))
    outs = f["outputs"]
    if not outs or any(o not in env or not is_data(env[o]) for o in outs):
        raise SpecError(f"{f.get('name', 'main')}: outputs name undefined values")
    if "name" in f and len(outs) != 1:
        raise SpecError(f"{f['name']}: a helper or closure returns one value")
    written = {s["args"][-1] for s in f["stmts"] if s["op"] == "dps"}
    allocs = {s["var"] for s in f["stmts"] if s["op"] == "alloc"}
    if any(o in allocs - written for o in outs):
        raise SpecError(f"{f.get('name', 'main')}: returns a tensor never written")
    return env


def types(spec: dict[str, Any], fn: str | None = None) -> dict[str, Type]:
    """Every value's type in `main` (or in function `fn`); SpecError when a statement does not
    type-check or names nothing."""
    sigs = signatures(spec)
    if fn is not None:
        return _fn_env(functions(spec)[fn], {k: v for k, v in sigs.items() if k != fn})
    return _fn_env(spec, sigs)


# ------------------------------------------------------------------------------- generator


@dataclass
class Scope:
    """The function being generated: its values, their types, and which may carry a byte
    offset (TVM's own kernels reject those)."""

    env: dict[str, Type]
    stmts: list[dict[str, Any]] = field(default_factory=list)
    offset: set[str] = field(default_factory=set)
    capturable: list[str] | None = None  # what a local function may capture (None: any)
    unwritten: set[str] = field(default_factory=set)  # allocated, not yet written: unusable
    # closure results (and tuples of them): relax.build (0.27) types them R.Any when it lowers
    # invoke_closure, and then refuses them as arguments of any kernel, op or Relax function
    untyped: set[str] = field(default_factory=set)
    fresh: dict[str, None] = field(default_factory=dict)  # values in memory of their own
    retired: set[str] = field(default_factory=set)  # written in place: not used again


# ops whose result may be (a view of) their first argument's memory
_ALIASING = frozenset({"reshape", "expand", "squeeze", "flatten", "no_grad", "view_off",
                       "tuple", "get", "inplace", "inplace_packed", "packed"})


@dataclass
class Generator:
    """Draws one spec from a seeded random.Random."""

    rng: random.Random
    sc: Scope = field(default_factory=lambda: Scope({}))
    functions: list[dict[str, Any]] = field(default_factory=list)
    sigs: dict[str, Sig] = field(default_factory=dict)
    param_writes: dict[str, set[int]] = field(default_factory=dict)  # which params fn writes
    n: int = 0

    @property
    def env(self) -> dict[str, Type]:
        return self.sc.env

    @property
    def stmts(self) -> list[dict[str, Any]]:
        return self.sc.stmts

    def fresh(self, prefix: str = "v") -> str:
        self.n += 1
        return f"{prefix}{self.n - 1}"

    def pick(self, pred: Any, clean: bool = False, untyped: bool = False) -> str | None:
        """A value whose type satisfies pred, recent ones likelier: at byte offset 0 if clean;
        a closure's result only if untyped (a packed function, a tuple may take one)."""
        names = [n for n, t in self.env.items() if pred(t) and n not in self.sc.unwritten
                 and n not in self.sc.retired and not (clean and n in self.sc.offset)
                 and (untyped or n not in self.sc.untyped)]
        if not names:
            return None
        # favour recent values: longer chains, more reuse of what was just made
        weights = [1 + i for i in range(len(names))]
        return self.rng.choices(names, weights)[0]

    def emit(self, op: str, args: list[str], **attr: Any) -> str:
        ty = stmt_type(op, [self.env[a] for a in args], attr, self.sigs)
        var = self.fresh()
        self.stmts.append({"var": var, "op": op, "args": args, "attr": attr})
        self.env[var] = ty
        if (op in ("view_off", "alloc") and attr["offset"] > 0) or \
                (op in _ALIASING and self.sc.offset & set(args)):
            self.sc.offset.add(var)
        if op in ("binop", "scalar", "call_tir") or (op == "packed" and attr["fn"] in (
                "copy", "vmcopy", "writer")):
            self.sc.fresh[var] = None
        if op == "invoke" or (op in ("tuple", "get") and self.sc.untyped & set(args)):
            self.sc.untyped.add(var)
        if op == "alloc":
            self.sc.unwritten.add(var)
        if op == "dps":
            self.sc.unwritten.discard(args[-1])
        return var

    def const(self, shape: list[int] | None = None) -> str:
        shape = shape or list(self.rng.choice(SHAPES))
        values = [float(self.rng.randint(-3, 3)) for _ in range(_count(shape))]
        return self.emit("const", [], shape=shape, values=values)

    def value(self, ty: Type, clean: bool = True) -> str:
        """A value of type ty: an existing one, or a new constant."""
        return self.pick(lambda t: t == ty, clean) or self.const(ty[1])

    # ------------------------------------------------------------------ one statement

    def step(self, body: bool = False) -> None:
        """One statement (a function body draws from the value-level ones); a choice with
        nothing to apply to falls back to a constant."""
        r = self.rng
        kinds = {"binop": 10, "scalar": 6, "view": 16, "call_tir": 8, "inplace": 9,
                 "tuple": 8, "get": 8, "packed": 14, "const": 4, "view_off": 7,
                 "inplace_packed": 5, "closure": 5, "invoke": 6, "call": 6, "pattern": 10,
                 "split": 5}
        if body:
            kinds = {k: kinds[k] for k in ("binop", "scalar", "view", "call_tir", "inplace",
                                           "packed", "inplace_packed", "split")}
        kind = r.choices(list(kinds), list(kinds.values()))[0]
        a = self.pick(is_tensor, clean=kind in ("binop", "scalar", "view", "split"),
                      untyped=kind in ("tuple", "get", "packed", "inplace_packed"))
        if kind == "const" or a is None:
            self.const()
            return
        shape = self.env[a][1]
        if kind == "binop":
            b = self.value(self.env[a])
            self.emit("binop", [a, b], fn=r.choice(["add", "multiply", "subtract"]))
        elif kind == "scalar":
            fn = r.choice(["add", "multiply"])
            self.emit("scalar", [a], fn=fn, k=r.choice([0.0, 1.0, 2.0]))
        elif kind == "view":
            self.view(a, shape)
        elif kind == "call_tir":
            kernel = r.choice(KERNELS)
            if kernel == "dirty":  # writes its input too
                a = self.target() or a
            self.emit("call_tir", [a], kernel=kernel, plain=r.random() < 0.1)
        elif kind == "inplace":
            a = self.target() or a
            self.inplace(a)
            self.retire(a)
        elif kind == "tuple":
            n = r.choice([2, 2, 3])
            same = r.random() < 0.6
            args = [a] + [self.pick(lambda t: t == self.env[a], untyped=True) if same
                          else self.pick(is_data, untyped=True) for _ in range(n - 1)]
            self.emit("tuple", args)  # type: ignore[arg-type]
        elif kind == "get":
            t = self.pick(lambda t: t[0] == "Tup", untyped=True)
            if t is None:
                self.const()
            else:
                self.emit("get", [t], index=r.randrange(len(self.env[t][1])))
        elif kind == "packed":
            self.packed(a, body)
        elif kind == "inplace_packed":
            a = self.target(untyped=True) or a
            self.inplace_packed(a)
            self.retire(a)
        elif kind == "view_off":
            off = [n for n in self.sc.offset if n in self.env and is_tensor(self.env[n])
                   and n not in self.sc.untyped and n not in self.sc.retired]
            if off and r.random() < 0.5:  # a copy, or a view when the offset is 64-aligned
                self.emit("zero_off", [r.choice(sorted(off))])
            else:
                self.view_off(a)
        elif kind == "closure":
            self.closure()
        elif kind == "invoke":
            self.invoke()
        elif kind == "call":
            self.call()
        elif kind == "split":
            self.split(a)
        else:
            self.pattern()

    def view(self, a: str, shape: list[int]) -> None:
        r = self.rng
        options = ["reshape", "astype", "slice", "no_grad", "concat1", "flatten"]
        if len(shape) == 2:
            options.append("permute")
        if len(shape) == 1:
            options.append("expand")
        if len(shape) == 2 and shape[0] == 1:
            options.append("squeeze")
        op = r.choice(options)
        if op == "reshape":
            same = [s for s in SHAPES + VIEW_SHAPES if _count(list(s)) == _count(shape)]
            self.emit("reshape", [a], shape=list(r.choice(same or [tuple(shape)])))
        else:
            self.emit(op, [a])

    def split(self, a: str) -> None:
        """R.split of a into equal parts (a call with several outputs), then a part or two
        taken out: memory of its own an in-place write may take."""
        cuts = [(ax, k) for ax, d in enumerate(self.env[a][1]) for k in (2, 3) if d % k == 0]
        if not cuts:
            self.const()
            return
        ax, k = self.rng.choice(cuts)
        parts = self.emit("split", [a], axis=ax, sections=k)
        for i in self.rng.sample(range(k), self.rng.choice([1, 1, 2])):
            self.sc.fresh[self.emit("get", [parts], index=i)] = None

    def inplace(self, a: str) -> str:
        kernel = self.rng.choice(INPLACE_KERNELS)
        args = [a, self.value(self.env[a], clean=False)] if kernel == "addto" else [a]
        return self.emit("inplace", args, kernel=kernel, plain=self.rng.random() < 0.3)

    def inplace_packed(self, a: str) -> str:
        fn = self.rng.choice(INPLACE_PACKED)
        if fn == "acc_ip":
            return self.emit("inplace_packed", [self.value(self.env[a], clean=False), a], fn=fn)
        return self.emit("inplace_packed", [a], fn=fn)

    def write(self, a: str) -> str:
        """An in-place write of a: a kernel or a packed function."""
        return self.inplace(a) if self.rng.random() < 0.5 else self.inplace_packed(a)

    def target(self, ty: Type | None = None, untyped: bool = False,
               clean: bool = False) -> str | None:
        """What an in-place write writes (of type ty, if given): mostly a value in memory of
        its own — one at hand, or a copy made now — and seldom a parameter, a constant or a
        view."""
        ok = (lambda t: t == ty) if ty is not None else is_tensor
        fresh = [n for n in self.sc.fresh if n in self.env and n not in self.sc.retired
                 and ok(self.env[n])]
        r = self.rng.random()
        if fresh and r < 0.85:
            return self.rng.choices(fresh, [1 + i for i in range(len(fresh))])[0]
        a = self.pick(ok, clean=clean, untyped=untyped)
        if r < 0.93 and a is not None and a not in self.sc.untyped:
            return self.emit("call_tir", [a], kernel=self.rng.choice(KERNELS[:3]), plain=False)
        return a

    def retire(self, a: str, p: float = 0.75) -> None:
        """Mostly, a value written in place is not used again (the in-place contract)."""
        if self.rng.random() < p:
            self.sc.retired.add(a)

    def read(self, a: str) -> str:
        """A statement that reads a's contents (a kernel, a packed copy, or an op)."""
        r = self.rng.random()
        if r < 0.3:
            return self.emit("call_tir", [a], kernel=self.rng.choice(KERNELS[:3]), plain=False)
        if r < 0.5 or a in self.sc.offset:
            return self.emit("packed", [a], fn=self.rng.choice(["copy", "vmcopy"]))
        return self.emit("binop", [a, self.value(self.env[a])],
                         fn=self.rng.choice(["add", "multiply"]))

    def packed(self, a: str, body: bool = False) -> None:
        r = self.rng
        fn = r.choice(PACKED)
        if fn in ("first", "swap", "nested", "mystery") and not body and \
                (fn != "mystery" or r.random() < .7):
            pair = [t for t in self.env if self.env[t][0] == "Tup" and len(self.env[t][1]) == 2
                    and (fn in ("first", "nested") or self.env[t][1][0] == self.env[t][1][1])]
            if not pair:
                b = self.pick(lambda t: t == self.env[a]) or a  # (a itself may be untyped)
                self.emit("tuple", [a, b])
                pair = [self.stmts[-1]["var"]]
            self.emit("packed", [r.choice(pair)], fn=fn)
            return
        if fn == "writer":
            out = (self.target(self.env[a], untyped=True) if not body else
                   self.pick(lambda t: t == self.env[a])) or a
            self.emit("packed", [a, out], fn=fn)
            return
        if fn in ("first", "swap", "nested"):
            fn = "ident"
        self.emit("packed", [a], fn=fn)

    def view_off(self, a: str) -> str:
        """A view of a's bytes from an offset (mostly not 0), of a shape that fits."""
        n = _count(self.env[a][1])
        shapes = [s for s in VIEW_SHAPES + SHAPES if _count(list(s)) <= n]
        shape = list(self.rng.choice(shapes or [tuple(self.env[a][1])]))  # (a split's 1x1)
        room = n - _count(shape)
        k = self.rng.randint(1, room) if room and self.rng.random() < 0.75 else 0
        return self.emit("view_off", [a], shape=shape, offset=4 * k)

    # ------------------------------------------------------- helpers and closures

    def function(self, kind: str, own: list[Type], caps: list[Type],
                 writes: float = 0.6) -> str:
        """A new helper or closure body taking `own` (then `caps`, a closure's captures): a
        few statements, often an in-place write of a parameter, returning one tensor."""
        name = self.fresh("h" if kind == "helper" else "c")
        params = [{"name": self.fresh("p"), "shape": t[1]} for t in own + caps]
        outer = self.sc
        self.sc = Scope({p["name"]: tensor(p["shape"]) for p in params})
        r = self.rng
        out = None
        for _ in range(r.randint(0, 2)):
            self.step(body=True)
        if r.random() < writes:  # writes a parameter (a capture, for a closure, mostly)
            target = params[-1]["name"] if caps and r.random() < 0.7 else \
                r.choice(params)["name"]
            self.param_writes.setdefault(name, set()).add(
                next(i for i, p in enumerate(params) if p["name"] == target))
            out = self.write(target)
            if r.random() < 0.25:  # and reads it again (a hazard)
                out = self.read(target)
        if out is None or r.random() < 0.3:
            self.step(body=True)
        for c in params[len(own):]:  # a closure that uses no capture is not one once lifted
            if not any(c["name"] in s["args"] for s in self.stmts):
                self.read(c["name"])
        last = [s["var"] for s in self.stmts if is_tensor(self.env[s["var"]])]
        if not last:
            last = [self.emit("call_tir", [params[0]["name"]], kernel="add_one", plain=False)]
        fn = {"name": name, "kind": kind, "params": params, "dataflow": r.random() < 0.5,
              "stmts": self.stmts, "outputs": [out if out and r.random() < 0.7 else last[-1]]}
        if kind == "closure":
            fn["ncap"] = len(caps)
        self.sc = outer
        self.functions.append(fn)
        self.sigs[name] = Sig(kind, tuple((p["name"], tensor(p["shape"])) for p in params),
                              len(caps), _fn_env(fn, self.sigs)[fn["outputs"][0]])
        return name

    def closure(self) -> str | None:
        """A closure capturing one or two tensors: a local function (only parameters, in a
        dataflow block: TVM forbids capturing a dataflow variable) or make_closure of a
        private function."""
        r = self.rng
        inner = r.random() < 0.5
        ok = self.sc.capturable if inner and self.sc.capturable is not None else None
        cap = self.target(clean=True)
        if ok is not None:
            cands = [n for n in ok if n not in self.sc.offset]
            cap = r.choice(cands) if cands else None
        if cap is None:
            self.const()
            return None
        caps = [cap]
        if r.random() < 0.3:
            second = self.pick(is_tensor, clean=True)
            if second and (ok is None or second in ok):
                caps.append(second)
        own = [self.env[r.choice(caps)] if r.random() < 0.6 else tensor(r.choice(SHAPES))]
        fn = self.function("closure", own, [self.env[c] for c in caps],
                           0.25 if ok is not None else 0.5)
        return self.emit("closure", caps, fn=fn, inner=inner)

    def invoke(self, clo: str | None = None) -> str | None:
        clo = clo or self.pick(lambda t: t[0] == "Clo")
        if clo is None:
            clo = self.closure()
            if clo is None:
                return None
        sig = self.sigs[self.env[clo][1]]
        own = [t for _, t in sig.params[:len(sig.params) - sig.ncap]]
        args = [self.value(t) for t in own]
        direct = self.env[clo][2] and self.rng.random() < 0.5
        return self.emit("invoke", [clo, *args], **({"direct": True} if direct else {}))

    def call(self, writes: float | None = None) -> str | None:
        """A call of a helper: an existing one, or a new one over values at hand (mostly in
        memory of their own when it writes them); what it writes is mostly not used again."""
        r = self.rng
        known = [f["name"] for f in self.functions if f["kind"] == "helper"]
        if known and r.random() < 0.4 and writes is None:
            name = r.choice(known)
            written = self.param_writes.get(name, set())
            args = [self.target(t, clean=True) if i in written else self.value(t)
                    for i, (_, t) in enumerate(self.sigs[name].params)]
            args = [a if a is not None else self.const(t[1])
                    for a, (_, t) in zip(args, self.sigs[name].params, strict=True)]
        else:
            a = self.target(clean=True) if r.random() < 0.6 else \
                self.pick(is_tensor, clean=True)
            if a is None or a in self.sc.offset:
                a = self.const()
            args = [a] + ([self.value(self.env[self.pick(is_tensor, clean=True) or a])]
                          if r.random() < 0.3 else [])
            name = self.function("helper", [self.env[x] for x in args], [],
                                 0.5 if writes is None else writes)
        var = self.emit("call", args, fn=name)
        for i in sorted(self.param_writes.get(name, ())):
            self.retire(args[i])
        return var

    # ------------------------------------------------------------------- patterns

    def pattern(self) -> None:
        """A few statements in a row that make one of the shapes in-place bugs come in."""
        r = self.rng
        kind = r.choice(["transpose", "closure", "helper", "views", "packed-write"])
        a = self.target() or self.const()
        if a in self.sc.offset:
            a = self.const()
        if kind == "transpose":  # general, or of a unit dimension (a view once lowered)
            two = self.pick(lambda t: is_tensor(t) and len(t[1]) == 2, clean=True)
            if two is None or r.random() < 0.4:
                a = two or a
                n = _count(self.env[a][1])
                two = self.emit("reshape", [a], shape=r.choice([[1, n], [n, 1]]))
            p = self.emit("permute", [two])
            w = self.write(r.choice([two, p]))
            if r.random() < 0.5:
                self.read(r.choice([two, p, w]))
        elif kind == "closure":
            clo = self.closure()
            if clo is None:
                return
            cap = self.stmts[-1]["args"][0]
            if r.random() < 0.5:
                self.write(cap)
            else:
                self.emit("scalar", [cap], fn="multiply", k=3.0)
            self.invoke(clo)
        elif kind == "helper":
            r2 = self.call(writes=1.0)
            if r2 is not None and r.random() < 0.5:
                self.read(self.stmts[-1]["args"][0])
        elif kind == "views":  # two views of one tensor, disjoint or overlapping
            v1 = self.view_off(a)
            room = _count(self.env[a][1]) - _count(self.env[v1][1])
            v2 = self.emit("view_off", [a], shape=self.env[v1][1],
                           offset=4 * r.randint(0, room))
            self.write(v1)
            if r.random() < 0.3:  # a copy unless the offset is 64-aligned (it is not)
                v2 = self.emit("zero_off", [v2])
            self.read(v2)
        else:
            self.write(a)
            if r.random() < 0.6:
                self.read(a)

    # ----------------------------------------------------------------- lowered

    def lowered_steps(self, n: int) -> None:
        """Storages, tensors allocated in them at byte offsets (some overlapping), kernel calls
        writing them, mixed with value-level statements."""
        r = self.rng
        storages = []
        pending: list[str] = []
        filled: list[str] = []  # tensors a kernel call has filled
        for _ in range(n):
            if not storages or r.random() < 0.1:
                storages.append(self.emit("storage", [], size=r.choice([48, 72, 96])))
            choice = r.random()
            if choice < 0.45:
                src = self.pick(is_tensor)
                if src is None:
                    self.const()
                    continue
                s = r.choice(storages)
                shape = self.env[src][1]
                hi = self.env[s][1] - 4 * _count(shape)
                steps = [o for o in range(0, hi + 1, 4)]
                aligned = [o for o in steps if o % (4 * _count(shape)) == 0]
                off = r.choice(aligned if aligned and r.random() < 0.5 else steps)
                t = self.emit("alloc", [s], offset=off, shape=list(shape))
                pending.append(t)
            elif choice < 0.72 and pending:
                filled.append(self.dps(pending.pop(r.randrange(len(pending)))))
            elif choice < 0.8 and filled:
                # a kernel fills a view of a tensor filled before (at an offset, or what
                # ensure_zero_offset returns: the same bytes, or a copy): the older name's
                # bytes change under it
                t = r.choice(filled)
                v = self.view_off(t) if r.random() < 0.6 else t
                if v == t or r.random() < 0.4:
                    v = self.emit("zero_off", [v])
                self.sc.unwritten.add(v)  # (what the kernel reads is another tensor)
                self.dps(v)
                if r.random() < 0.8:
                    self.read(t)
            else:
                self.step(body=True)
        for t in pending:
            self.dps(t)

    def dps(self, out: str) -> str:
        kernel = self.rng.choice(DPS_KERNELS)
        ty = self.env[out]
        ins = [self.value(ty, clean=False) for _ in range(2 if kernel == "sum2" else 1)]
        if kernel == "dirty":  # it writes its input too
            ins[0] = self.target(ty) or ins[0]
        self.emit("dps", [*ins, out], kernel=kernel)
        return out


def generate(seed: int, max_stmts: int = 12) -> dict[str, Any]:
    """The spec of seed `seed` (deterministic)."""
    rng = random.Random(seed)
    g = Generator(rng)
    params = [{"name": f"x{i}", "shape": list(rng.choice(SHAPES))}
              for i in range(rng.randint(1, 3))]
    g.sc = Scope({p["name"]: tensor(p["shape"]) for p in params})
    lowered = rng.random() < 0.15
    dataflow = not lowered and rng.random() < 0.85
    if dataflow:
        g.sc.capturable = [p["name"] for p in params]
    if lowered:
        g.lowered_steps(rng.randint(3, max_stmts))
    else:
        for _ in range(rng.randint(3, max_stmts)):
            g.step()
    made = [s["var"] for s in g.stmts if is_data(g.env[s["var"]])
            and s["op"] not in ("alloc",)]
    written = {s["args"][-1] for s in g.stmts if s["op"] == "dps"}
    made += [s["var"] for s in g.stmts if s["op"] == "alloc" and s["var"] in written]
    made.sort(key=lambda v: int(v[1:]))
    if not made:
        made = [g.const()]
    uses = {a for s in g.stmts for a in (s["args"][:-1] if s["op"] == "dps" else s["args"])}
    if rng.random() < 0.7:  # every value nothing else uses: a leaking write shows in a result
        outputs = [v for v in made if v not in uses] or [made[-1]]
    else:  # a few: the rest is dead code for DCE
        outputs = sorted({made[-1], *rng.sample(made, min(len(made), rng.randint(0, 2)))},
                         key=made.index)
    spec: dict[str, Any] = {"params": params, "dataflow": dataflow, "stmts": g.stmts,
                            "outputs": outputs}
    if g.functions:
        spec["functions"] = g.functions
    if lowered:
        spec["lowered"] = True
    return spec


# -------------------------------------------------------------------------------- TVMScript


def _shape_tag(shape: list[int]) -> str:
    return "x".join(map(str, shape)) or "s"


def _tvm_type(t: Type) -> str:
    if is_tensor(t):
        return f'R.Tensor(({", ".join(map(str, t[1]))}{"," if len(t[1]) == 1 else ""}), ' \
               f'"float32")'
    return f"R.Tuple({', '.join(_tvm_type(f) for f in t[1])})"


def _kernel(name: str, kernel: str, shape: list[int], plain: bool,
            offsets: bool = False) -> str:
    """A PrimFunc over buffers of `shape`: an s_tir block kernel, or a plain loop nest; with
    `offsets`, its buffers take tensors at any element offset (views, tensors in storages)."""
    dims = ", ".join(map(str, shape))
    tup = f'({dims}{"," if len(shape) == 1 else ""})'
    buf = f'T.Buffer({tup}, "float32")'
    loops = [f"i{k}" for k in range(len(shape))]
    idx = ", ".join(f"v{k}" for k in range(len(shape))) if not plain else ", ".join(loops)
    params = {"inc": ["a"], "addto": ["a", "b"], "sum2": ["a", "b", "out"]}.get(
        kernel, ["a", "out"])
    body = {
        "copy": [f"out[{idx}] = a[{idx}]"],
        "add_one": [f"out[{idx}] = a[{idx}] + T.float32(1)"],
        "scale2": [f"out[{idx}] = a[{idx}] * T.float32(2)"],
        "dirty": [f"out[{idx}] = a[{idx}] + T.float32(1)", f"a[{idx}] = T.float32(0)"],
        "inc": [f"a[{idx}] = a[{idx}] + T.float32(1)"],
        "addto": [f"a[{idx}] = a[{idx}] + b[{idx}]"],
        "sum2": [f"out[{idx}] = a[{idx}] + b[{idx}]"],
    }[kernel]
    deco = "@T.prim_func(private=True)" if plain else "@T.prim_func(private=True, s_tir=True)"
    if offsets:
        lines = [f"    {deco}", f"    def {name}({', '.join(f'{p}_h: T.handle' for p in params)}):"]
        lines += [f'        {p} = T.match_buffer({p}_h, {tup}, "float32", offset_factor=1)'
                  for p in params]
    else:
        lines = [f"    {deco}", f"    def {name}({', '.join(f'{p}: {buf}' for p in params)}):"]
    grid = f"T.grid({dims})" if len(shape) > 1 else f"range({dims})"
    lines.append(f"        for {', '.join(loops)} in {grid}:")
    if plain:
        lines += [f"            {s}" for s in body]
    else:
        kinds = "S" * len(shape)
        lines += ["            with T.sblock(\"b\"):",
                  f"                {idx} = T.axis.remap(\"{kinds}\", [{', '.join(loops)}])"]
        lines += [f"                {s}" for s in body]
    return "\n".join(lines)


def kernel_name(kernel: str, shape: list[int], plain: bool) -> str:
    return f"{kernel}{'_plain' if plain else ''}_{_shape_tag(shape)}"


def _expr(s: dict[str, Any], env: dict[str, Type], name: dict[str, str]) -> str:
    """The right-hand side of a statement; `name` renames values (a local function's captures
    are the outer function's variables)."""
    op, attr = s["op"], s.get("attr", {})
    args = [name.get(a, a) for a in s["args"]]
    ty = env[s["var"]]
    if op == "const":
        arr = np.array(attr["values"], "float32").reshape(attr["shape"])
        return f'R.const(np.array({arr.tolist()}, "float32"))'
    if op == "binop":
        return f"R.{attr['fn']}({args[0]}, {args[1]})"
    if op == "scalar":
        return f"R.{attr['fn']}({args[0]}, R.const({attr['k']}, \"float32\"))"
    if op == "reshape":
        return f"R.reshape({args[0]}, R.shape({attr['shape']}))"
    if op == "permute":
        return f"R.permute_dims({args[0]})"
    if op == "astype":
        return f'R.astype({args[0]}, "float32")'
    if op == "slice":
        n = env[s["args"][0]][1][0]
        return f"R.strided_slice({args[0]}, axes=[0], begin=[0], end=[{n}])"
    if op == "expand":
        return f"R.expand_dims({args[0]}, axis=0)"
    if op == "squeeze":
        return f"R.squeeze({args[0]}, axis=[0])"
    if op == "flatten":
        return f"R.flatten({args[0]})"
    if op == "no_grad":
        return f"R.grad.no_grad({args[0]})"
    if op == "concat1":
        return f"R.concat(({args[0]},), axis=0)"
    if op == "split":
        return f"R.split({args[0]}, indices_or_sections={attr['sections']}, axis={attr['axis']})"
    if op == "view_off":
        return (f'R.memory.view({args[0]}, R.shape({attr["shape"]}), R.dtype("float32"), '
                f'relative_byte_offset=R.prim_value({attr["offset"]}))')
    if op == "zero_off":
        return f"R.memory.ensure_zero_offset({args[0]})"
    if op == "call_tir":
        k = kernel_name(attr["kernel"], env[s["args"][0]][1], attr["plain"])
        return f"R.call_tir(cls.{k}, ({args[0]},), out_ty={_tvm_type(ty)})"
    if op == "inplace":
        k = kernel_name(attr["kernel"], env[s["args"][0]][1], attr["plain"])
        return (f"R.call_tir_inplace(cls.{k}, ({', '.join(args)},), inplace_indices=[0], "
                f"out_ty={_tvm_type(ty)})")
    if op == "tuple":
        return f"({', '.join(args)},)"
    if op == "get":
        return f"{args[0]}[{attr['index']}]"
    if op == "inplace_packed":
        return (f'R.call_inplace_packed("{PACKED_PREFIX}{attr["fn"]}", {", ".join(args)}, '
                f'inplace_indices=[{len(args) - 1}], ty_args=({_tvm_type(ty)},))')
    if op == "call":
        return f"cls.{attr['fn']}({', '.join(args)})"
    if op == "closure":
        return f"R.make_closure(cls.{attr['fn']}, ({', '.join(args)},))"
    if op == "invoke":
        if attr.get("direct"):
            return f"{args[0]}({', '.join(args[1:])})"
        rest = "".join(f"{a}, " for a in args[1:])
        return f"R.invoke_pure_closure({args[0]}, ({rest}), ty_args=({_tvm_type(ty)},))"
    if op == "storage":
        return (f'R.memory.alloc_storage(R.shape([{attr["size"]}]), R.prim_value(0), '
                f'R.str("global"), R.dtype("float32"))')
    if op == "alloc":
        return (f'R.memory.alloc_tensor({args[0]}, R.prim_value({attr["offset"]}), '
                f'R.shape({attr["shape"]}), R.dtype("float32"))')
    if op == "dps":
        k = kernel_name(attr["kernel"], env[s["args"][-1]][1], False)
        return f"cls.{k}({', '.join(args)})"
    fn = "vm.builtin.copy" if attr["fn"] == "vmcopy" else PACKED_PREFIX + attr["fn"]
    return f'R.call_pure_packed("{fn}", {", ".join(args)}, ty_args={_tvm_type(ty)})'


def _all_stmts(spec: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Type]]]:
    """Every statement of every function, with the types of its function's values."""
    out = [(s, env) for env in [types(spec)] for s in spec["stmts"]]
    for f in spec.get("functions", []):
        env = types(spec, f["name"])
        out += [(s, env) for s in f["stmts"]]
    return out


def kernels_used(spec: dict[str, Any]) -> list[tuple[str, str, list[int], bool]]:
    """(name, kernel, shape, plain) of every PrimFunc the spec calls, in a fixed order."""
    out: dict[str, tuple[str, str, list[int], bool]] = {}
    for s, env in _all_stmts(spec):
        if s["op"] in ("call_tir", "inplace", "dps"):
            a = s["attr"]
            shape = env[s["args"][0]][1]
            plain = a.get("plain", False)
            name = kernel_name(a["kernel"], shape, plain)
            out[name] = (name, a["kernel"], shape, plain)
    return [out[k] for k in sorted(out)]


def needs_offsets(spec: dict[str, Any]) -> bool:
    """Whether a kernel may be given a tensor at a byte offset (views at offsets, tensors in
    storages): then every generated kernel takes one."""
    return any(s["op"] in ("view_off", "alloc") for s, _ in _all_stmts(spec))


def _body(f: dict[str, Any], env: dict[str, Type], ind: str, spec: dict[str, Any],
          cls: str, name: dict[str, str] | None = None) -> list[str]:
    """The statements and return of one function, at indentation `ind`."""
    name = name or {}
    lines = []
    body_ind = ind
    if f["dataflow"]:
        lines.append(f"{ind}with R.dataflow():")
        body_ind += "    "
    for s in f["stmts"]:
        if s["op"] == "closure" and s["attr"].get("inner"):
            lines += _local_function(s, spec, body_ind, cls, name)
        else:
            lines.append(f"{body_ind}{s['var']} = {_expr(s, env, name)}")
    outs = [name.get(o, o) for o in f["outputs"]]
    if f["dataflow"]:
        lines.append(f"{body_ind}R.output({', '.join(outs)})")
    ret = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
    lines.append(f"{ind}return {ret}")
    return lines


def _local_function(s: dict[str, Any], spec: dict[str, Any], ind: str, cls: str,
                    name: dict[str, str]) -> list[str]:
    """A closure as a local R.function whose captures are the outer values themselves."""
    f = functions(spec)[s["attr"]["fn"]]
    own = f["params"][:len(f["params"]) - f["ncap"]]
    caps = f["params"][len(f["params"]) - f["ncap"]:]
    inner = {**name, **{c["name"]: name.get(a, a) for c, a in zip(caps, s["args"], strict=True)}}
    params = ", ".join(f"{p['name']}: {_tvm_type(tensor(p['shape']))}" for p in own)
    env = types(spec, f["name"])
    return ([f"{ind}@R.function",
             f"{ind}def {s['var']}({params}) -> {_tvm_type(env[f['outputs'][0]])}:"]
            + _body(f, env, ind + "    ", spec, cls, inner))


def render(spec: dict[str, Any], name: str = "Module") -> str:
    """The spec as a TVMScript file (imports, the SPEC literal, the IRModule class)."""
    env = types(spec)
    lines = ["import numpy as np", "from tvm.script import ir as I",
             "from tvm.script import relax as R", "from tvm.script import tirx as T", "",
             f"SPEC = {spec!r}", "", "",
             "@I.ir_module(s_tir=True)", f"class {name}:"]
    offsets = needs_offsets(spec)
    for kname, kernel, shape, plain in kernels_used(spec):
        lines += [_kernel(kname, kernel, shape, plain, offsets), ""]
    lifted = {s["attr"]["fn"] for s, _ in _all_stmts(spec)
              if s["op"] == "closure" and not s["attr"].get("inner")}
    for f in spec.get("functions", []):
        if f["kind"] == "helper" or f["name"] in lifted:
            params = ", ".join(f"{p['name']}: {_tvm_type(tensor(p['shape']))}"
                               for p in f["params"])
            fenv = types(spec, f["name"])
            ret = _tvm_type(fenv[f["outputs"][0]])
            lines += ["    @R.function(private=True)", f"    def {f['name']}({params}) -> {ret}:",
                      f"        cls = {name}"]
            lines += _body(f, fenv, "        ", spec, name) + [""]
    params = ", ".join(f"{p['name']}: {_tvm_type(tensor(p['shape']))}" for p in spec["params"])
    deco = "    @R.function(pure=False)" if spec.get("lowered") else "    @R.function"
    lines += [deco, f"    def main({params}):", f"        cls = {name}"]
    lines += _body(spec, env, "        ", spec, name) + [""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ semantics


class Closure(NamedTuple):
    """A closure value: its body's name, the captured values (the body's last parameters), and
    the names they have where the closure is made (a local function's body uses those)."""

    fn: str
    caps: tuple[Any, ...]
    names: tuple[str, ...]


class Unwritten:
    """An allocated tensor no kernel has written yet (nothing reads it)."""


def _kernel_value(kernel: str, args: list[np.ndarray]) -> np.ndarray:
    a = args[0]
    return {"copy": a, "add_one": a + 1, "scale2": a * 2, "dirty": a + 1, "inc": a + 1,
            "addto": a + (args[1] if len(args) > 1 else 0),
            "sum2": a + (args[1] if len(args) > 1 else 0)}[kernel].astype("float32")


def _packed_value(fn: str, args: list[Any]) -> Any:
    x = args[0]
    if fn == "first":
        return x[0]
    if fn in ("swap", "mystery") and isinstance(x, tuple):
        return (x[1], x[0])
    if fn == "nested":
        return (x[1], (x[0], x[1]))
    skew = SKEW["value"]
    if fn == "writer":  # what it returns; what it writes into `out` value semantics never sees
        return (x + 1).astype("float32")
    if fn == "inc_ip":
        return (x + 1 + skew).astype("float32")
    if fn == "acc_ip":
        return (args[1] + x + skew).astype("float32")
    if fn == "mystery_ip":
        return (x + 2 + skew).astype("float32")
    return x  # ident, copy, vmcopy, mystery on a tensor


def _stmt_value(spec: dict[str, Any], s: dict[str, Any], env: dict[str, Any]) -> Any:
    op, attr = s["op"], s.get("attr", {})
    args = [env[a] for a in s["args"]]
    if op == "const":
        return np.array(attr["values"], "float32").reshape(attr["shape"])
    if op == "binop":
        return {"add": np.add, "multiply": np.multiply, "subtract": np.subtract}[attr["fn"]](
            args[0], args[1])
    if op == "scalar":
        if attr["fn"] == "multiply" and attr["k"] == 0.0:
            return np.zeros_like(args[0])  # TIR's simplifier folds x * 0 to 0, even for inf
        return args[0] + attr["k"] if attr["fn"] == "add" else args[0] * attr["k"]
    if op == "reshape":
        return args[0].reshape(attr["shape"])
    if op == "permute":
        return args[0].T
    if op in ("expand", "squeeze", "flatten"):
        return args[0].reshape(stmt_type(op, [tensor(args[0].shape)], attr)[1])
    if op in ("astype", "slice", "no_grad", "concat1", "zero_off"):
        return args[0]
    if op == "view_off":
        k, n = attr["offset"] // 4, _count(attr["shape"])
        return args[0].reshape(-1)[k:k + n].reshape(attr["shape"])
    if op in ("call_tir", "inplace"):
        return _kernel_value(attr["kernel"], args)
    if op == "tuple":
        return tuple(args)
    if op == "split":
        return tuple(np.split(args[0], attr["sections"], attr["axis"]))
    if op == "get":
        return args[0][attr["index"]]
    if op == "call":
        f = functions(spec)[attr["fn"]]
        return run_function(spec, attr["fn"], args)[f["outputs"][0]]
    if op == "closure":
        return Closure(attr["fn"], tuple(args), tuple(s["args"]))
    if op == "invoke":
        clo = args[0]
        f = functions(spec)[clo.fn]
        return run_function(spec, clo.fn, [*args[1:], *clo.caps])[f["outputs"][0]]
    if op in ("storage", "dps"):
        return None
    if op == "alloc":
        return Unwritten()
    return _packed_value(attr["fn"], args)


def run_function(spec: dict[str, Any], fn: str | None, args: list[Any]) -> dict[str, Any]:
    """Every value of one call of `main` (fn None) or of a helper / closure body, by name."""
    f = spec if fn is None else functions(spec)[fn]
    env: dict[str, Any] = {p["name"]: x for p, x in zip(f["params"], args, strict=True)}
    for s in f["stmts"]:
        env[s["var"]] = _stmt_value(spec, s, env)
        if s["op"] == "dps":  # a kernel writes its destination, and nothing else
            vals = [env[a] for a in s["args"][:-1]]
            env[s["args"][-1]] = _kernel_value(s["attr"]["kernel"], vals)
    return env


def evaluate(spec: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The reference result: value semantics (nothing is ever written in place), flattened."""
    env = run_function(spec, None, inputs)
    return flatten([env[o] for o in spec["outputs"]])


def flatten(v: Any) -> list[np.ndarray]:
    if isinstance(v, (tuple, list)):
        return [x for item in v for x in flatten(item)]
    return [np.array(v, dtype="float32")]


def random_inputs(spec: dict[str, Any], rng: np.random.Generator,
                  nonfinite: bool = False) -> list[np.ndarray]:
    """Small integers as float32, so every reference value is exact; with `nonfinite`, about a
    third of the elements are inf, -inf or NaN instead."""
    out = [rng.integers(-4, 5, size=p["shape"]).astype("float32") for p in spec["params"]]
    if nonfinite:
        special = np.array([np.inf, -np.inf, np.nan], "float32")
        for x in out:
            hit = rng.random(x.shape) < 1 / 3
            x[hit] = rng.choice(special, size=int(hit.sum()))
    return out


def infinite_inputs(spec: dict[str, Any], rng: np.random.Generator) -> list[np.ndarray]:
    """Every element inf or -inf: no element escapes, as a third drawn at random may, and
    `x - x` is NaN wherever it is put back."""
    return [np.where(rng.random(p["shape"]) < 0.5, np.inf, -np.inf).astype("float32")
            for p in spec["params"]]


def striped_inputs(spec: dict[str, Any], rng: np.random.Generator,
                   bit: int) -> list[np.ndarray]:
    """Inf or -inf where bit `bit` of an element's flat index is set, small integers elsewhere:
    over the runs for every bit, any two elements of a parameter are once one infinite and one
    finite, so `x - x` differs between them (NaN, 0) wherever one is put over the other."""
    out = random_inputs(spec, rng)
    for x in out:
        hit = (np.arange(x.size).reshape(x.shape) >> bit) & 1 == 1
        x[hit] = np.where(rng.random(int(hit.sum())) < 0.5, np.inf, -np.inf)
    return out


def stripe_bits(spec: dict[str, Any]) -> int:
    """How many striped runs tell every two elements of the largest parameter apart."""
    size = max((int(np.prod(p["shape"])) for p in spec["params"]), default=1)
    return max(1, (size - 1).bit_length())


# ------------------------------------------------------------------------- packed functions


@contextlib.contextmanager
def skewed(value: float) -> Iterator[None]:
    """The packed functions that write memory (on the VM and in value semantics) store `value`
    more than they say: what a write puts back by coincidence of values then shows."""
    old, SKEW["value"] = SKEW["value"], value
    try:
        yield
    finally:
        SKEW["value"] = old


def register_packed() -> None:
    """Register the fuzzer's packed functions (idempotent): what `evaluate` says, on the VM."""
    import tvm
    import tvm_ffi

    def fresh(a: Any) -> Any:
        return tvm.runtime.tensor(a.numpy())

    def writer(a: Any, out: Any) -> Any:  # the write call_pure_packed hides
        out.copyfrom((a.numpy() + 1 + SKEW["value"]).astype("float32"))
        return tvm.runtime.tensor((a.numpy() + 1).astype("float32"))

    def mystery(x: Any) -> Any:
        return (x[1], x[0]) if isinstance(x, tvm_ffi.Array) else x

    def in_place(k: float) -> Any:
        def write(a: Any) -> Any:
            a.copyfrom((a.numpy() + k + SKEW["value"]).astype("float32"))
            return a
        return write

    def acc_ip(b: Any, a: Any) -> Any:
        a.copyfrom((a.numpy() + b.numpy() + SKEW["value"]).astype("float32"))
        return a

    impls = {"first": lambda t: t[0], "swap": lambda t: (t[1], t[0]),
             "nested": lambda t: (t[1], (t[0], t[1])), "ident": lambda a: a, "copy": fresh,
             "writer": writer, "mystery": mystery, "inc_ip": in_place(1.0), "acc_ip": acc_ip,
             "mystery_ip": in_place(2.0)}
    for name, fn in impls.items():
        tvm_ffi.register_global_func(PACKED_PREFIX + name, fn, override=True)
