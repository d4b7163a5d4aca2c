"""Random Relax modules for the alias-safety fuzzer: a JSON-able spec, its TVMScript, its meaning.

A spec is one entry function over float32 tensors: parameters, straight-line statements (ops,
views, identity copies that lowering turns into views, `call_tir` / `call_tir_inplace` of
generated kernels, tuples, `call_pure_packed` of the packed functions registered here,
constants) in one dataflow block or a plain binding block, and the values it returns.
`render` prints it as a TVMScript file; `evaluate` is the reference semantics: every value is a
fresh value (an in-place call or a packed function that writes computes its result but changes
nothing else), which is what the in-place contract promises. A VM run that differs from it
has observed an alias leaking: a write that reached a value still in use.

Only numpy and the standard library are imported here; `register_packed` imports tvm_ffi.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

SHAPES: tuple[tuple[int, ...], ...] = ((2, 3), (3, 2), (6,), (1, 6))
PACKED_PREFIX = "aliaslog.fuzz."
# The packed functions, with what the effect table the fuzzer passes to `check` says of them
# (tests/data/relax/fuzz_packed_effects.tsv); `mystery` is not in it (opaque), and
# vm.builtin.copy is TVM's own, described by the shipped table.
PACKED = ("first", "swap", "nested", "ident", "copy", "writer", "mystery", "vmcopy")
KERNELS = ("copy", "add_one", "scale2", "dirty")  # call_tir: out = f(a); dirty also zeroes a
INPLACE_KERNELS = ("inc", "addto")  # call_tir_inplace: a += 1, a += b

Type = list  # ["T", [dims...]] or ["Tup", [types...]]


def tensor(shape: tuple[int, ...] | list[int]) -> Type:
    return ["T", list(shape)]


def is_tensor(t: Type) -> bool:
    return t[0] == "T"


class SpecError(ValueError):
    """A spec whose statements do not type-check (shrinking produces these; they are skipped)."""


# ----------------------------------------------------------------------------------- types


def _count(shape: list[int]) -> int:
    return int(np.prod(shape)) if shape else 1


def stmt_type(op: str, args: list[Type], attr: dict[str, Any]) -> Type:
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
        need(len(args) >= 1)
        return ["Tup", list(args)]
    if op == "packed":
        return _packed_type(attr["fn"], args, need)
    need(len(ts) == len(args) >= 1)
    a = args[0][1]
    if op in ("binop", "inplace") and len(args) == 2:
        need(args[0] == args[1])
        return tensor(a)
    need(len(args) == 1)
    if op in ("scalar", "astype", "slice", "no_grad", "concat1", "call_tir", "inplace"):
        return tensor(a)
    if op == "reshape":
        need(_count(attr["shape"]) == _count(a))
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
    need(len(args) >= 1)
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


def types(spec: dict[str, Any]) -> dict[str, Type]:
    """Every value's type; SpecError when a statement does not type-check or names nothing."""
    env: dict[str, Type] = {p["name"]: tensor(p["shape"]) for p in spec["params"]}
    for s in spec["stmts"]:
        try:
            args = [env[a] for a in s["args"]]
        except KeyError as exc:
            raise SpecError(f"{s['var']} uses an undefined value {exc}") from None
        env[s["var"]] = stmt_type(s["op"], args, s.get("attr", {}))
    if not spec["outputs"] or any(o not in env for o in spec["outputs"]):
        raise SpecError("outputs name undefined values")
    return env


# ------------------------------------------------------------------------------- generator


@dataclass
class Generator:
    """Draws one spec from a seeded random.Random."""

    rng: random.Random
    env: dict[str, Type] = field(default_factory=dict)
    stmts: list[dict[str, Any]] = field(default_factory=list)
    n_const: int = 0

    def fresh(self) -> str:
        return f"v{len(self.stmts)}"

    def pick(self, pred: Any) -> str | None:
        names = [n for n, t in self.env.items() if pred(t)]
        if not names:
            return None
        # favour recent values: longer chains, more reuse of what was just made
        weights = [1 + i for i in range(len(names))]
        return self.rng.choices(names, weights)[0]

    def emit(self, op: str, args: list[str], **attr: Any) -> None:
        ty = stmt_type(op, [self.env[a] for a in args], attr)
        self.stmts.append({"var": self.fresh(), "op": op, "args": args, "attr": attr})
        self.env[self.stmts[-1]["var"]] = ty

    def const(self) -> None:
        shape = list(self.rng.choice(SHAPES))
        values = [float(self.rng.randint(-3, 3)) for _ in range(_count(shape))]
        self.emit("const", [], shape=shape, values=values)

    def step(self) -> None:
        """One statement; a choice with nothing to apply to falls back to a constant."""
        r = self.rng
        kind = r.choices(
            ["binop", "scalar", "view", "call_tir", "inplace", "tuple", "get", "packed",
             "const"],
            [10, 6, 16, 8, 14, 8, 8, 14, 4])[0]
        a = self.pick(is_tensor)
        if kind == "const" or a is None:
            return self.const()
        shape = self.env[a][1]
        if kind == "binop":
            b = self.pick(lambda t: t == self.env[a])
            return self.emit("binop", [a, b], fn=r.choice(["add", "multiply", "subtract"]))
        if kind == "scalar":
            fn = r.choice(["add", "multiply"])
            return self.emit("scalar", [a], fn=fn, k=r.choice([0.0, 1.0, 2.0]))
        if kind == "view":
            return self.view(a, shape)
        if kind == "call_tir":
            return self.emit("call_tir", [a], kernel=r.choice(KERNELS), plain=r.random() < 0.1)
        if kind == "inplace":
            kernel = r.choice(INPLACE_KERNELS)
            args = [a, self.pick(lambda t: t == self.env[a])] if kernel == "addto" else [a]
            return self.emit("inplace", args, kernel=kernel, plain=r.random() < 0.3)
        if kind == "tuple":
            n = r.choice([2, 2, 3])
            same = r.random() < 0.6
            args = [a] + [self.pick(lambda t: t == self.env[a]) if same
                          else self.pick(lambda t: True) for _ in range(n - 1)]
            return self.emit("tuple", args)
        if kind == "get":
            t = self.pick(lambda t: t[0] == "Tup")
            if t is None:
                return self.view(a, shape)
            return self.emit("get", [t], index=r.randrange(len(self.env[t][1])))
        return self.packed(a)

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
            target = r.choice([s for s in SHAPES if _count(list(s)) == _count(shape)])
            return self.emit("reshape", [a], shape=list(target))
        return self.emit(op, [a])

    def packed(self, a: str) -> None:
        r = self.rng
        fn = r.choice(PACKED)
        if fn in ("first", "swap", "nested", "mystery") and (fn != "mystery" or r.random() < .7):
            pair = [t for t in self.env if self.env[t][0] == "Tup" and len(self.env[t][1]) == 2
                    and (fn in ("first", "nested") or self.env[t][1][0] == self.env[t][1][1])]
            if not pair:
                b = self.pick(lambda t: t == self.env[a])
                self.emit("tuple", [a, b])
                pair = [self.stmts[-1]["var"]]
            return self.emit("packed", [r.choice(pair)], fn=fn)
        if fn == "writer":
            out = self.pick(lambda t: t == self.env[a])
            return self.emit("packed", [a, out], fn=fn)
        if fn in ("first", "swap", "nested"):
            fn = "ident"
        return self.emit("packed", [a], fn=fn)


def generate(seed: int, max_stmts: int = 12) -> dict[str, Any]:
    """The spec of seed `seed` (deterministic)."""
    rng = random.Random(seed)
    g = Generator(rng)
    params = [{"name": f"x{i}", "shape": list(rng.choice(SHAPES))}
              for i in range(rng.randint(1, 3))]
    g.env = {p["name"]: tensor(p["shape"]) for p in params}
    for _ in range(rng.randint(3, max_stmts)):
        g.step()
    made = [s["var"] for s in g.stmts]
    if rng.random() < 0.7:  # every value nothing else uses: a leaking write shows in a result
        outputs = [v for v in made if not any(v in s["args"] for s in g.stmts)]
    else:  # a few: the rest is dead code for DCE
        outputs = sorted({made[-1], *rng.sample(made, min(len(made), rng.randint(0, 2)))},
                         key=made.index)
    return {"params": params, "dataflow": rng.random() < 0.85, "stmts": g.stmts,
            "outputs": outputs}


# -------------------------------------------------------------------------------- TVMScript


def _shape_tag(shape: list[int]) -> str:
    return "x".join(map(str, shape)) or "s"


def _tvm_type(t: Type) -> str:
    if is_tensor(t):
        return f'R.Tensor(({", ".join(map(str, t[1]))}{"," if len(t[1]) == 1 else ""}), ' \
               f'"float32")'
    return f"R.Tuple({', '.join(_tvm_type(f) for f in t[1])})"


def _kernel(name: str, kernel: str, shape: list[int], plain: bool) -> str:
    """A PrimFunc over buffers of `shape`: an s_tir block kernel, or a plain loop nest."""
    dims = ", ".join(map(str, shape))
    buf = f'T.Buffer(({dims}{"," if len(shape) == 1 else ""}), "float32")'
    loops = [f"i{k}" for k in range(len(shape))]
    idx = ", ".join(f"v{k}" for k in range(len(shape))) if not plain else ", ".join(loops)
    params = {"inc": ["a"], "addto": ["a", "b"]}.get(kernel, ["a", "out"])
    body = {
        "copy": [f"out[{idx}] = a[{idx}]"],
        "add_one": [f"out[{idx}] = a[{idx}] + T.float32(1)"],
        "scale2": [f"out[{idx}] = a[{idx}] * T.float32(2)"],
        "dirty": [f"out[{idx}] = a[{idx}] + T.float32(1)", f"a[{idx}] = T.float32(0)"],
        "inc": [f"a[{idx}] = a[{idx}] + T.float32(1)"],
        "addto": [f"a[{idx}] = a[{idx}] + b[{idx}]"],
    }[kernel]
    deco = "@T.prim_func(private=True)" if plain else "@T.prim_func(private=True, s_tir=True)"
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


def _expr(s: dict[str, Any], env: dict[str, Type]) -> str:
    op, args, attr = s["op"], s["args"], s.get("attr", {})
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
        n = env[args[0]][1][0]
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
    if op == "call_tir":
        k = kernel_name(attr["kernel"], env[args[0]][1], attr["plain"])
        return f"R.call_tir(cls.{k}, ({args[0]},), out_ty={_tvm_type(ty)})"
    if op == "inplace":
        k = kernel_name(attr["kernel"], env[args[0]][1], attr["plain"])
        return (f"R.call_tir_inplace(cls.{k}, ({', '.join(args)},), inplace_indices=[0], "
                f"out_ty={_tvm_type(ty)})")
    if op == "tuple":
        return f"({', '.join(args)},)"
    if op == "get":
        return f"{args[0]}[{attr['index']}]"
    fn = "vm.builtin.copy" if attr["fn"] == "vmcopy" else PACKED_PREFIX + attr["fn"]
    return f'R.call_pure_packed("{fn}", {", ".join(args)}, ty_args={_tvm_type(ty)})'


def kernels_used(spec: dict[str, Any]) -> list[tuple[str, str, list[int], bool]]:
    """(name, kernel, shape, plain) of every PrimFunc the spec calls, in a fixed order."""
    env = types(spec)
    out: dict[str, tuple[str, str, list[int], bool]] = {}
    for s in spec["stmts"]:
        if s["op"] in ("call_tir", "inplace"):
            a = s["attr"]
            shape = env[s["args"][0]][1]
            name = kernel_name(a["kernel"], shape, a["plain"])
            out[name] = (name, a["kernel"], shape, a["plain"])
    return [out[k] for k in sorted(out)]


def render(spec: dict[str, Any], name: str = "Module") -> str:
    """The spec as a TVMScript file (imports, the SPEC literal, the IRModule class)."""
    env = types(spec)
    lines = ["import numpy as np", "from tvm.script import ir as I",
             "from tvm.script import relax as R", "from tvm.script import tirx as T", "",
             f"SPEC = {spec!r}", "", "",
             "@I.ir_module(s_tir=True)", f"class {name}:"]
    for kname, kernel, shape, plain in kernels_used(spec):
        lines += [_kernel(kname, kernel, shape, plain), ""]
    params = ", ".join(f"{p['name']}: {_tvm_type(tensor(p['shape']))}" for p in spec["params"])
    lines += ["    @R.function", f"    def main({params}):", f"        cls = {name}"]
    ind = "        "
    if spec["dataflow"]:
        lines.append(f"{ind}with R.dataflow():")
        ind += "    "
    for s in spec["stmts"]:
        lines.append(f"{ind}{s['var']} = {_expr(s, env)}")
    outs = spec["outputs"]
    if spec["dataflow"]:
        lines.append(f"{ind}R.output({', '.join(outs)})")
    ret = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
    lines += [f"        return {ret}", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ semantics


def _kernel_value(kernel: str, args: list[np.ndarray]) -> np.ndarray:
    a = args[0]
    return {"copy": a, "add_one": a + 1, "scale2": a * 2, "dirty": a + 1, "inc": a + 1,
            "addto": a + (args[1] if len(args) > 1 else 0)}[kernel].astype("float32")


def _packed_value(fn: str, args: list[Any]) -> Any:
    x = args[0]
    if fn == "first":
        return x[0]
    if fn in ("swap", "mystery") and isinstance(x, tuple):
        return (x[1], x[0])
    if fn == "nested":
        return (x[1], (x[0], x[1]))
    if fn == "writer":
        return (x + 1).astype("float32")
    return x  # ident, copy, vmcopy, mystery on a tensor


def evaluate(spec: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The reference result: value semantics (nothing is ever written in place), flattened."""
    env: dict[str, Any] = {p["name"]: x for p, x in zip(spec["params"], inputs, strict=True)}
    for s in spec["stmts"]:
        op, attr = s["op"], s.get("attr", {})
        args = [env[a] for a in s["args"]]
        if op == "const":
            v: Any = np.array(attr["values"], "float32").reshape(attr["shape"])
        elif op == "binop":
            v = {"add": np.add, "multiply": np.multiply, "subtract": np.subtract}[attr["fn"]](
                args[0], args[1])
        elif op == "scalar":
            v = args[0] + attr["k"] if attr["fn"] == "add" else args[0] * attr["k"]
        elif op == "reshape":
            v = args[0].reshape(attr["shape"])
        elif op == "permute":
            v = args[0].T
        elif op in ("expand", "squeeze", "flatten"):
            v = args[0].reshape(stmt_type(op, [tensor(args[0].shape)], attr)[1])
        elif op in ("astype", "slice", "no_grad", "concat1"):
            v = args[0]
        elif op in ("call_tir", "inplace"):
            v = _kernel_value(attr["kernel"], args)
        elif op == "tuple":
            v = tuple(args)
        elif op == "get":
            v = args[0][attr["index"]]
        else:
            v = _packed_value(attr["fn"], args)
        env[s["var"]] = v
    return flatten([env[o] for o in spec["outputs"]])


def flatten(v: Any) -> list[np.ndarray]:
    if isinstance(v, (tuple, list)):
        return [x for item in v for x in flatten(item)]
    return [np.array(v, dtype="float32")]


def random_inputs(spec: dict[str, Any], rng: np.random.Generator) -> list[np.ndarray]:
    """Small integers as float32, so every reference value is exact."""
    return [rng.integers(-4, 5, size=p["shape"]).astype("float32") for p in spec["params"]]


# ------------------------------------------------------------------------- packed functions


def register_packed() -> None:
    """Register the fuzzer's packed functions (idempotent): what `evaluate` says, on the VM."""
    import tvm
    import tvm_ffi

    def fresh(a: Any) -> Any:
        return tvm.runtime.tensor(a.numpy())

    def writer(a: Any, out: Any) -> Any:
        out.copyfrom((a.numpy() + 1).astype("float32"))  # the write call_pure_packed hides
        return tvm.runtime.tensor((a.numpy() + 1).astype("float32"))

    def mystery(x: Any) -> Any:
        return (x[1], x[0]) if isinstance(x, tvm_ffi.Array) else x

    impls = {"first": lambda t: t[0], "swap": lambda t: (t[1], t[0]),
             "nested": lambda t: (t[1], (t[0], t[1])), "ident": lambda a: a, "copy": fresh,
             "writer": writer, "mystery": mystery}
    for name, fn in impls.items():
        tvm_ffi.register_global_func(PACKED_PREFIX + name, fn, override=True)
