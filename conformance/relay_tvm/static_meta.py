"""The meta table and init module a test hands to `tvm.relay.parse`, read statically.

A VirtualDevice is known when its device is `tvm.device("cpu")`-like (its Target is kept only
as "had one"); a relay.Constant when its value is a literal (`np.array([64, 2])`); an init module
when it is `m = tvm.IRModule(); m.import_from_std(...)` or the parse of a folded text. Anything
else is Python-built, and the reason says what.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Protocol

from .fold import UNKNOWN, Folder, Scope


def _dotted(n: ast.expr) -> str:
    try:
        return ast.unparse(n)
    except Exception:  # ast.unparse of odd nodes
        return ""


@dataclass
class MetaEntry:
    """One object of a meta table the test builds in Python, as far as it is known statically."""

    type_key: str
    # VirtualDevice: device_type_int, memory_scope; relay.Constant: the numpy value
    fields: dict[str, Any]



def call_arg(call: ast.Call, index: int, name: str) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return call.args[index] if len(call.args) > index else None


class _TestFile(Protocol):
    """What the reader needs of a parsed test file (discover's `_File`)."""

    tree: ast.Module
    module_scope: Scope
    folder: Folder

    def parse_kind(self, call: ast.Call) -> str | None: ...


class StaticMeta:
    """Reads the meta table and init module a parse call passes, where they are static."""

    def __init__(self, f: _TestFile) -> None:
        self.f = f

    def resolve(self, node: ast.expr | None, scope: Scope, line: int,
                depth: int = 0) -> ast.expr | None:
        """A Name resolved to the expression last assigned to it (syntactically)."""
        while isinstance(node, ast.Name) and depth < 10:
            depth += 1
            s: Scope | None = scope
            found = None
            while s is not None and found is None:
                hits = s.assigns.get(node.id)
                if hits:
                    cands = hits if s is self.f.module_scope and s is not scope else \
                        [h for h in hits if h[0] < line]
                    if cands:
                        found = cands[-1][1]
                s = s.parent
            if found is None:
                return node
            node = found
        return node

    def table(self, node: ast.expr | None, scope: Scope, line: int
              ) -> tuple[dict[str, list[MetaEntry]] | None, str]:
        node = self.resolve(node, scope, line)
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return None, ""
        if not isinstance(node, ast.Dict):
            return None, f"meta table built by Python ({_dotted(node)[:60]})"
        out: dict[str, list[MetaEntry]] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            key = self.f.folder.fold(k, scope, line) if k is not None else UNKNOWN
            items = self.resolve(v, scope, line)
            if not isinstance(key, str) or not isinstance(items, (ast.List, ast.Tuple)):
                return None, f"meta table built by Python ({_dotted(v)[:60]})"
            entries = []
            for item in items.elts:
                e, why = self.entry(key, item, scope, line)
                if e is None:
                    return None, why
                entries.append(e)
            out[key] = entries
        return out, ""

    def entry(self, key: str, node: ast.expr, scope: Scope, line: int
              ) -> tuple[MetaEntry | None, str]:
        n = self.resolve(node, scope, line)
        text = _dotted(n)[:70]
        if key == "VirtualDevice" and isinstance(n, ast.Call) \
                and _dotted(n.func).endswith("VirtualDevice"):
            dev_node = call_arg(n, 0, "device")
            dev = self.resolve(dev_node, scope, line) if dev_node is not None else None
            dtype = _device_type(dev)
            if dtype is None:
                return None, f"VirtualDevice on a device built by Python ({text})"
            ms = call_arg(n, 99, "memory_scope")
            scope_s = self.f.folder.fold(ms, scope, line) if ms is not None else ""
            if scope_s is UNKNOWN:
                return None, f"VirtualDevice memory scope built by Python ({text})"
            return MetaEntry("VirtualDevice", {"device_type_int": dtype[0],
                                               "virtual_device_id": dtype[1],
                                               "memory_scope": scope_s,
                                               "has_target": call_arg(n, 1, "target")
                                               is not None}), ""
        if key == "relay.Constant" and isinstance(n, ast.Call) \
                and _dotted(n.func).endswith("const"):
            value = _np_literal(self.resolve(n.args[0], scope, line) if n.args else None,
                                self, scope, line)
            dt = call_arg(n, 1, "dtype")
            dtype = self.f.folder.fold(dt, scope, line) if dt is not None else None
            if value is None or dtype is UNKNOWN:
                return None, f"Python-built constant in the meta table ({text})"
            return MetaEntry("relay.Constant", {"value": value, "dtype": dtype}), ""
        return None, f"meta table entry {key} built by Python ({text})"

    def init_module(self, node: ast.expr | None, scope: Scope, line: int
                    ) -> tuple[list[str], str]:
        """The std files an init module imports (`m = tvm.IRModule(); m.import_from_std(..)`)."""
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return [], ""
        if not isinstance(node, ast.Name):
            return [], f"init module built by Python ({_dotted(node)[:60]})"
        value = self.resolve(node, scope, line)
        if isinstance(value, ast.Call) and self.f.parse_kind(value) == "module" and value.args:
            text = self.f.folder.fold(value.args[0], scope, line)
            if isinstance(text, str):
                return ["text:" + text], ""
        if not (isinstance(value, ast.Call) and _dotted(value.func).endswith("IRModule")
                and not value.args):
            what = _dotted(value)[:60] if value is not None else node.id
            tir = "TIR " if "prim_func" in what or "tir" in what.lower() else ""
            return [], f"{tir}init module built by Python ({what})"
        added = [t for n in ast.walk(self.f.tree) if isinstance(n, ast.Assign)
                 for t in n.targets if isinstance(t, ast.Subscript)
                 and isinstance(t.value, ast.Name) and t.value.id == node.id]
        if added:  # `mod[gv] = prim_func`: a TIR function text cannot hold
            return [], f"TIR init module: functions added by Python ({node.id}[...] = ...)"
        stds = []
        for call in (n for n in ast.walk(self.f.tree) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Attribute) and call.func.attr == "import_from_std" \
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == node.id:
                name = self.f.folder.fold(call.args[0], scope, line) if call.args else UNKNOWN
                if not isinstance(name, str):
                    return [], "init module imports a computed file"
                stds.append(name)
        return stds, ""


def _device_type(n: ast.expr | None) -> tuple[int, int] | None:
    """(device_type_int, virtual_device_id) of `tvm.device("cpu")`, `tvm.cuda(0)`, no device."""
    if n is None:
        return (-1, -1)  # VirtualDevice(): the unconstrained device
    d = _dotted(n).replace("'", '"')
    for pat, code in (("cpu", 1), ("llvm", 1), ("cuda", 2), ("gpu", 2)):
        if re.fullmatch(rf'tvm\.(device\("{pat}"(, 0)?\)|{pat}\((0)?\))', d):
            return (code, 0)
    return None


def _np_literal(n: ast.expr | None, meta: StaticMeta, scope: Scope, line: int) -> Any:
    import numpy as np

    if n is None:
        return None
    if isinstance(n, ast.Call) and _dotted(n.func) in ("np.array", "numpy.array") and n.args:
        v = meta.f.folder.fold(n.args[0], scope, line)
        dt = call_arg(n, 1, "dtype")
        dtype = meta.f.folder.fold(dt, scope, line) if dt is not None else None
        if v is UNKNOWN or dtype is UNKNOWN or _has_unknown(v):
            return None
        return np.array(v, dtype=dtype)
    v = meta.f.folder.fold(n, scope, line)
    if v is UNKNOWN or _has_unknown(v) or not isinstance(v, (int, float, bool, list, tuple)):
        return None
    return v


def _has_unknown(v: Any) -> bool:
    if v is UNKNOWN:
        return True
    if isinstance(v, (list, tuple)):
        return any(_has_unknown(x) for x in v)
    return False
