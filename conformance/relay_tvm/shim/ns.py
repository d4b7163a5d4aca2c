"""Namespaces and node classes of the shim: `tvm.relay.X` that builds our AST, or says it can't."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..classify import NotInShim


class NS:
    """A stand-in module: its members, a fallback for other names, else NotInShim(path.name)."""

    def __init__(self, path: str, fallback: Callable[[str], Any] | None = None,
                 **members: Any) -> None:
        self.__dict__["_path"] = path
        self.__dict__["_fallback"] = fallback
        self.__dict__.update(members)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        fb = self.__dict__["_fallback"]
        if fb is not None:
            v = fb(name)
            if v is not None:
                return v
        raise NotInShim(f"{self.__dict__['_path']}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value

    def __repr__(self) -> str:
        return f"<shim {self.__dict__['_path']}>"


class _NodeMeta(type):
    """isinstance(x, relay.Var) is isinstance(x, <our Var class>)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._targets)  # type: ignore[attr-defined]

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls._targets)  # type: ignore[attr-defined]


def node_class(name: str, targets: type | tuple[type, ...],
               build: Callable[..., Any] | None = None) -> type:
    """A class standing for TVM's `relay.<name>`: calling it builds our node (via build),
    isinstance checks against targets."""

    def __new__(cls: type, *args: Any, **kw: Any) -> Any:
        if build is None:
            raise NotInShim(f"relay.{name}(...)")
        return build(*args, **kw)

    tg = targets if isinstance(targets, tuple) else (targets,)
    return _NodeMeta(name, (), {"__new__": __new__, "_targets": tg})
