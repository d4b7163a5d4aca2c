"""Static evaluation of the string expressions TVM's tests build Relay text from.

Only what needs no running of the test: literals, module-level and earlier local assignments,
`SEMVER + "..."`, `%`/`.format`/f-strings over such values, `"sep".join(...)`, `str.strip()`-like
methods, subscripts of folded containers, loop variables over folded containers and
`pytest.mark.parametrize` values (both bound by the caller through `env`). Anything else folds to
UNKNOWN, which poisons every expression it reaches.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class _Unknown:
    """A value static evaluation cannot know."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_STR_METHODS = {"strip", "lstrip", "rstrip", "replace", "lower", "upper", "splitlines", "split"}
_MAX_DEPTH = 40


def assigned_names(stmt: ast.stmt) -> list[tuple[str, ast.expr | None, str]]:
    """(name, value, how) for the simple assignments a statement makes; how is '=' or '+='."""
    if isinstance(stmt, ast.Assign):
        return [(t.id, stmt.value, "=") for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
        return [(stmt.target.id, stmt.value, "=")]
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
            and isinstance(stmt.op, ast.Add):
        return [(stmt.target.id, stmt.value, "+=")]
    return []


@dataclass
class Scope:
    """The assignments of one function (or the module), in source order."""

    assigns: dict[str, list[tuple[int, ast.expr | None, str]]] = field(default_factory=dict)
    parent: Scope | None = None

    @staticmethod
    def of(body: list[ast.stmt], parent: Scope | None, nested: bool = True) -> Scope:
        """The assignments in body (and, when nested, inside its compound statements)."""
        s = Scope(parent=parent)
        nodes: list[ast.AST] = list(body)
        while nodes:
            n = nodes.pop(0)
            if isinstance(n, ast.stmt):
                for name, value, how in assigned_names(n):
                    s.assigns.setdefault(name, []).append((n.lineno, value, how))
            if nested and isinstance(n, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                nodes.extend(ast.iter_child_nodes(n))
        for v in s.assigns.values():
            v.sort(key=lambda t: t[0])
        return s


class Folder:
    """Folds expressions in a scope at a source line, with extra bindings in env."""

    def __init__(self, module_scope: Scope) -> None:
        self.module = module_scope

    def fold(self, node: ast.expr | None, scope: Scope, line: int,
             env: Mapping[str, Any] | None = None, depth: int = 0) -> Any:
        if node is None or depth > _MAX_DEPTH:
            return UNKNOWN
        env = env or {}
        try:
            return self._fold(node, scope, line, env, depth + 1)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError):
            return UNKNOWN

    def lookup(self, name: str, scope: Scope, line: int, env: Mapping[str, Any],
               depth: int) -> Any:
        if name in env:
            return env[name]
        s: Scope | None = scope
        while s is not None:
            hits = s.assigns.get(name)
            if hits:
                # module level: the final binding (tests run after import); locals: the last
                # one before the line
                cands = hits if s is self.module and s is not scope else \
                    [h for h in hits if h[0] < line]
                if cands:
                    lineno, value, how = cands[-1]
                    v = self.fold(value, s, lineno, env, depth)
                    if how == "+=":
                        prev = self.lookup(name, s, lineno, env, depth + 1)
                        return UNKNOWN if prev is UNKNOWN or v is UNKNOWN else prev + v
                    return v
                if s is not self.module:
                    return UNKNOWN  # assigned in this function, but only later
            s = s.parent
        return UNKNOWN

    def _fold(self, n: ast.expr, scope: Scope, line: int, env: Mapping[str, Any],
              depth: int) -> Any:
        f = lambda x: self.fold(x, scope, line, env, depth)  # noqa: E731
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            if n.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[n.id]
            return self.lookup(n.id, scope, line, env, depth)
        if isinstance(n, ast.JoinedStr):
            parts = []
            for v in n.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                    continue
                assert isinstance(v, ast.FormattedValue)
                x = f(v.value)
                if x is UNKNOWN:
                    return UNKNOWN
                x = {-1: x, 115: str(x), 114: repr(x), 97: ascii(x)}[v.conversion]
                spec = f(v.format_spec) if v.format_spec is not None else ""
                if spec is UNKNOWN:
                    return UNKNOWN
                parts.append(format(x, spec))
            return "".join(parts)
        if isinstance(n, ast.BinOp):
            a, b = f(n.left), f(n.right)
            if a is UNKNOWN or b is UNKNOWN:
                return UNKNOWN
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Mod) and isinstance(a, str):
                return a % b
            if isinstance(n.op, ast.Mult):
                return a * b
            return UNKNOWN
        if isinstance(n, (ast.List, ast.Tuple, ast.Set)):
            items = [f(e) for e in n.elts]
            return tuple(items) if isinstance(n, ast.Tuple) else items
        if isinstance(n, ast.Dict):
            if any(k is None for k in n.keys):
                return UNKNOWN
            keys = [f(k) for k in n.keys]  # type: ignore[arg-type]
            if any(k is UNKNOWN for k in keys):
                return UNKNOWN
            return dict(zip(keys, [f(v) for v in n.values], strict=True))
        if isinstance(n, ast.Subscript):
            base, idx = f(n.value), f(n.slice)
            if base is UNKNOWN or idx is UNKNOWN:
                return UNKNOWN
            return base[idx]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            x = f(n.operand)
            return UNKNOWN if x is UNKNOWN else -x
        if isinstance(n, ast.Call):
            return self._call(n, f)
        return UNKNOWN

    def _call(self, n: ast.Call, f: Any) -> Any:
        if any(isinstance(a, ast.Starred) for a in n.args) or any(k.arg is None
                                                                    for k in n.keywords):
            return UNKNOWN
        args = [f(a) for a in n.args]
        kw = {k.arg: f(k.value) for k in n.keywords}
        if any(a is UNKNOWN for a in args) or any(v is UNKNOWN for v in kw.values()):
            return UNKNOWN
        fn = n.func
        if isinstance(fn, ast.Attribute):
            base = f(fn.value)
            if base is UNKNOWN:
                if ast.unparse(fn) == "textwrap.dedent" and len(args) == 1:
                    return textwrap.dedent(args[0])
                return UNKNOWN
            if isinstance(base, str) and fn.attr in ("format", "join", *_STR_METHODS):
                return getattr(base, fn.attr)(*args, **kw)
            if isinstance(base, dict) and fn.attr in ("keys", "values", "items"):
                return list(getattr(base, fn.attr)())
            return UNKNOWN
        if isinstance(fn, ast.Name) and fn.id in ("str", "int", "float", "len", "list", "tuple",
                                                  "range", "repr", "sorted"):
            return {"str": str, "int": int, "float": float, "len": len, "list": list,
                    "tuple": tuple, "range": lambda *a: list(range(*a)), "repr": repr,
                    "sorted": sorted}[fn.id](*args, **kw)
        return UNKNOWN


def iterate(value: Any) -> list[Any] | None:
    """The elements a for loop over a folded value sees, or None when not known."""
    if value is UNKNOWN:
        return None
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, (list, tuple, str)):
        return list(value)
    return None
