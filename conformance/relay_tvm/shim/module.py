"""`tvm.IRModule` for the shim: a mutable module over our immutable one, as TVM's is mutable.

It remembers the Relay text it was parsed from (std files, `relay.parse` sources), because
TVM's `import_from_std` and `relay.parse(..., init_module)` parse a file *into* an existing
module: here that is the module's texts and the new one parsed together, with the functions
Python added since laid on top. Checked types of inferred nodes live in `TYPES` (id -> type),
which is what `expr.checked_type` reads.
"""

from __future__ import annotations

import re
from typing import Any

from .. import adapter
from ..source import TvmSource

A = adapter.ast
_HEADER = re.compile(r'#\[version = "0\.0\.5"\]')
VERSION = '#[version = "0.0.5"]'


class _Types:
    """Checked types of every node a type inference returned (kept alive, so ids stay valid)."""

    def __init__(self) -> None:
        self.by_id: dict[int, Any] = {}
        self.alive: list[Any] = []

    def record(self, types: dict[int, Any], keep: Any) -> None:
        self.by_id.update(types)
        self.alive.append(keep)

    def of(self, node: Any) -> Any:
        t = self.by_id.get(id(node))
        if t is None:
            raise ValueError("The type checker has not populated the checked_type for this "
                             "node")  # TVM's message for an un-inferred node
        return t


TYPES = _Types()
SOURCE: list[TvmSource] = []  # the mirror, set by the runner


class GlobalTypeVar:
    """`relay.GlobalTypeVar("List")`; calling it applies the ADT: `List(A)` is `List[A]`."""

    def __init__(self, name_hint: str, kind: Any = None) -> None:
        self.name_hint = name_hint

    def __call__(self, *args: Any) -> Any:
        return A.TypeCall(self.name_hint, tuple(args))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GlobalTypeVar) and other.name_hint == self.name_hint

    def __hash__(self) -> int:
        return hash(("gtv", self.name_hint))

    def __repr__(self) -> str:
        return f"GlobalTypeVar({self.name_hint})"


def canonical_constructors(fn: Any, type_defs: dict[str, Any]) -> Any:
    """fn with every constructor replaced by its module's (TVM tags a constructor in place
    when its type is added to a module; ours are values, so the tag is set here)."""
    by_name = {c.name_hint: c for td in type_defs.values() for c in td.constructors}

    class _Canon(A.ExprMutator):
        def visit_Constructor(self, e: Any) -> Any:
            c = by_name.get(e.name_hint)
            return c if c is not None and c.belong_to == e.belong_to else e

        def visit_pattern(self, p: Any) -> Any:
            if isinstance(p, A.PatternConstructor):
                c = by_name.get(p.constructor.name_hint, p.constructor)
                subs = tuple(self.visit_pattern(q) for q in p.patterns)
                return A.PatternConstructor(c, subs, span=p.span)
            return super().visit_pattern(p)

    if not by_name:
        return fn
    return _Canon().visit(fn)


def type_data(header: Any, type_vars: Any, constructors: Any) -> Any:
    """`relay.TypeData(header, type_vars, constructors)` (tags = positions, as the parser)."""
    name = header.name_hint if isinstance(header, GlobalTypeVar) else str(header)
    ctors = tuple(A.Constructor(c.name_hint, c.inputs, name, i, span=c.span)
                  for i, c in enumerate(constructors))
    return A.TypeData(name, tuple(type_vars), ctors)


class TvmMap(dict):  # type: ignore[type-arg]
    """tvm.ir.container.Map: items()/keys()/values() are lists."""

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return list(super().items())

    def keys(self) -> list[Any]:  # type: ignore[override]
        return list(super().keys())

    def values(self) -> list[Any]:  # type: ignore[override]
        return list(super().values())


class IRModule:
    """tvm.IRModule: functions and type definitions by name, mutable like TVM's."""

    def __init__(self, functions: Any = None, type_definitions: Any = None,
                 texts: list[str] | None = None) -> None:
        self.functions: dict[str, Any] = {}
        self.type_defs: dict[str, Any] = {}
        self.texts: list[str] = list(texts or [])
        self.added: set[str] = set()  # functions Python put in after the texts
        for k, v in (type_definitions or {}).items():
            self[k] = v
        for k, v in (functions or {}).items():
            self[k] = v

    # -- conversions

    @staticmethod
    def wrap(mod: Any, texts: list[str] | None = None, types: Any = None) -> IRModule:
        out = IRModule(texts=texts)
        out.functions = dict(mod.functions)
        out.type_defs = dict(mod.type_defs)
        if types is not None:
            TYPES.record(types, mod)
        return out

    def to_module(self) -> Any:
        # only functions Python built: parsed ones already hold their module's constructors
        fns = {k: canonical_constructors(f, self.type_defs) if k in self.added else f
               for k, f in self.functions.items()}
        return A.Module(fns, dict(self.type_defs))

    def copy(self) -> IRModule:
        out = IRModule(texts=self.texts)
        out.functions, out.type_defs, out.added = dict(self.functions), dict(self.type_defs), \
            set(self.added)
        return out

    # -- tvm.IRModule API

    @staticmethod
    def from_expr(expr: Any, functions: Any = None, type_defs: Any = None) -> IRModule:
        mod = IRModule(functions, type_defs)
        fn = expr if isinstance(expr, A.Function) else A.Function(
            tuple(A.free_vars(expr)), expr)
        mod["main"] = fn
        return mod

    @staticmethod
    def _name(key: Any) -> str:
        return key if isinstance(key, str) else key.name_hint

    def __getitem__(self, key: Any) -> Any:
        name = self._name(key)
        if isinstance(key, GlobalTypeVar):
            return self.type_defs[name]
        if name not in self.functions:
            raise adapter.LocatedError(f"Cannot find global var \"{name}\" in the Module")
        return self.functions[name]

    def __setitem__(self, key: Any, value: Any) -> None:
        name = self._name(key)
        if isinstance(value, A.TypeData):
            self.type_defs[name] = value
            return
        if not isinstance(value, A.Function):
            value = A.Function(tuple(A.free_vars(value)), value)
        self.functions[name] = canonical_constructors(value, self.type_defs)
        self.added.add(name)

    def __contains__(self, key: Any) -> bool:
        return self._name(key) in self.functions

    def _add(self, name: str, fn: Any, update: bool = False) -> None:
        self[name] = fn

    def update_func(self, gv: Any, fn: Any) -> None:
        self[gv] = fn

    def get_global_var(self, name: str) -> Any:
        if name not in self.functions:
            raise adapter.LocatedError(f"Cannot find global var \"{name}\" in the Module")
        return A.GlobalVar(name)

    def get_global_vars(self) -> list[Any]:
        return [A.GlobalVar(n) for n in self.functions]

    def get_global_type_var(self, name: str) -> GlobalTypeVar:
        if name not in self.type_defs:
            raise adapter.LocatedError(f"Cannot find global type var \"{name}\" in the Module")
        return GlobalTypeVar(name)

    def get_type(self, name: str) -> tuple[Any, ...]:
        td = self.type_defs[name]
        return (GlobalTypeVar(name), *td.constructors)

    def get_constructor(self, tag: int) -> Any:
        for td in self.type_defs.values():
            for c in td.constructors:
                if c.tag == tag:
                    return c
        raise adapter.LocatedError(f"no constructor with tag {tag}")

    @property
    def type_definitions(self) -> TvmMap:
        return TvmMap({GlobalTypeVar(n): td for n, td in self.type_defs.items()})

    def import_from_std(self, name: str) -> None:
        """Parse a std file into the module (IRModuleNode::ImportFromStd)."""
        text = SOURCE[0].std(name)
        if any(t == text for t in self.texts):
            return  # import_set_: each path once
        merged = parse_into(self, text)
        self.functions, self.type_defs, self.texts = dict(merged.functions), \
            dict(merged.type_defs), merged.texts

    def astext(self, show_meta_data: bool = True, annotate: Any = None) -> str:
        mod = self.to_module()
        types = {k: v for k, v in TYPES.by_id.items()} if self.functions else None
        return adapter.astext(mod, types, show_meta=show_meta_data, spans=True)

    def __str__(self) -> str:
        return self.astext(show_meta_data=False)

    def __repr__(self) -> str:
        return f"<shim IRModule {sorted(self.functions)}>"


def joined_text(texts: list[str]) -> str:
    """Several module texts as one module text (one version header)."""
    return VERSION + "\n" + "\n".join(_HEADER.sub("", t, count=1) for t in texts)


def parse_into(init: IRModule | None, text: str, meta_section: str = "") -> IRModule:
    """`tvm.relay.parse(text, init_module=init)`: init's texts and text parsed together, the
    functions Python added to init laid on top, then InferType (as ParseModule does)."""
    texts = [*(init.texts if init is not None else []), text]
    full = joined_text(texts) if len(texts) > 1 else text
    if meta_section:
        full = full.rstrip() + "\n" + meta_section + "\n"
    mod = adapter.parse(full)
    fns = dict(mod.functions)
    tds = dict(mod.type_defs)
    if init is not None:
        for name in init.added:
            if name in fns:
                raise adapter.ParseError(f"duplicate global @{name} (in the init module)")
            fns[name] = canonical_constructors(init.functions[name], tds)
        for name, td in init.type_defs.items():
            tds.setdefault(name, td)
    merged = A.Module(fns, tds, mod.source_name)
    typed = adapter.infer_types(merged)
    out = IRModule.wrap(typed.module, texts, typed.types)
    out.added = set(init.added) if init is not None else set()
    return out
