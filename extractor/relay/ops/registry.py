"""The operator declaration: one `OpDef` per Relay operator, holding every piece of it.

An `OpDef` is everything the front end knows about one operator: its arity, its attributes
(the `relay.attrs.*Attrs` type key and fields, with TVM v0.19's defaults), its type relation,
its numpy kernel, its gradient rule, and what calling it may do (`stateful`, TVM's
TOpIsStateful, which the purity DCE reads, and `effect`, the default the fact extractor
writes). Every stage reads this one table: the parser (names, attribute keys), the printer
and save_json (which attributes are printed or written, normalised here), type inference, the
interpreter, the gradient, the baseline DCEs and the fact extractor.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from extractor.effect_table import EFFECTS

from ..ast import Attrs, Call, Expr, MetaRef, Op, Type

NO_DEFAULT = object()  # a field without a default is always printed (e.g. `units=None`)


@dataclass(frozen=True)
class AttrField:
    """One attribute field: its name, default (NO_DEFAULT when TVM declares none) and kind.

    `nullable`: a field without a default whose null means something (`units` inferred from
    the weight, `axes` reversed) rather than a missing value. `pod_int`: a C++ `int`, which
    save_json writes as a string rather than as an `Integer` node.
    """

    name: str
    default: object = NO_DEFAULT
    nullable: bool = False
    pod_int: bool = False

    @property
    def unset(self) -> object:
        """What the field reads when a call leaves it out: its default, else None."""
        return None if self.default is NO_DEFAULT else self.default


def F(name: str, default: object = NO_DEFAULT, *, nullable: bool = False,
      pod_int: bool = False) -> AttrField:
    """Shorthand for `AttrField` in the declarations."""
    return AttrField(name, default, nullable, pod_int)


class OpError(Exception):
    """An operator was applied to arguments or attributes it does not accept."""


Relation = Callable[[Sequence[Type], "OpAttrs"], Any]  # -> Type | relation.Result | Same
Kernel = Callable[[list[Any], Attrs], Any]
GradRule = Callable[[Call, Expr], list[Expr]]

# Where a gradient rule comes from (`OpDef.grad_origin`).
GRAD_V019 = "v0.19"
"""v0.19's rule in `python/tvm/relay/op/_tensor_grad.py`, building the same calls."""
GRAD_V019_VARIANT = "v0.19-variant"
"""v0.19's rule, computed with other ops (its family module says which and why)."""
GRAD_EXTENSION = "aliaslog"
"""v0.19 registers no rule: an aliaslog extension, checked against finite differences."""
GRAD_ORIGINS = (GRAD_V019, GRAD_V019_VARIANT, GRAD_EXTENSION)


@dataclass(frozen=True)
class OpDef:
    """A registered operator: arity (None = variadic), attributes, and its pieces.

    `relation(arg_types, attrs)` gives the result type (`relation.py`), `kernel(args, attrs)`
    computes it on numpy values (`kernel.py`), `gradient(call, grad)` gives one gradient per
    argument (`grad.py`); each is None when the operator has none. `grad_origin` says where the
    rule comes from (`GRAD_ORIGINS`: v0.19's, v0.19's computed otherwise, or an aliaslog
    extension where v0.19 has none). `effect` is what calling it may do, one of
    `extractor.effect_table.EFFECTS` (`--op-effects FILE` overrides it).
    """

    name: str
    num_inputs: int | None
    attrs_type_key: str | None = None
    attr_fields: tuple[AttrField, ...] = ()
    stateful: bool = False  # TOpIsStateful in v0.19: memory.kill, nn.dropout, vm.invoke_tvm_op
    effect: str = "none"
    relation: Relation | None = None
    kernel: Kernel | None = None
    gradient: GradRule | None = None
    grad_origin: str = GRAD_V019

    def __post_init__(self) -> None:
        if self.effect not in EFFECTS:
            raise ValueError(f"{self.name}: effect {self.effect!r} is not one of "
                             f"{', '.join(EFFECTS)}")
        if self.grad_origin not in GRAD_ORIGINS:
            raise ValueError(f"{self.name}: grad_origin {self.grad_origin!r} is not one of "
                             f"{', '.join(GRAD_ORIGINS)}")

    @property
    def gradient_is_extension(self) -> bool:
        """Whether the gradient rule is aliaslog's own (v0.19 has none for this op)."""
        return self.gradient is not None and self.grad_origin == GRAD_EXTENSION

    def field(self, name: str) -> AttrField | None:
        for f in self.attr_fields:
            if f.name == name:
                return f
        return None

    def value(self, attrs: Mapping[str, Any], name: str) -> Any:
        """The attribute `name` as given at the call, else its default (None without one)."""
        if name in attrs:
            return attrs[name]
        f = self.field(name)
        return None if f is None else f.unset


OPS: dict[str, OpDef] = {}
# attrs type key -> its fields, as the first operator registered with that key declares them
ATTRS_TYPES: dict[str, dict[str, AttrField]] = {}


def register(op: OpDef) -> None:
    """Add (or replace) an operator; users may register their own before parsing."""
    OPS[op.name] = op
    if op.attrs_type_key is not None:
        fields = ATTRS_TYPES.setdefault(op.attrs_type_key, {})
        for f in op.attr_fields:
            fields.setdefault(f.name, f)


def lookup(name: str) -> OpDef | None:
    """The registered operator called name, or None."""
    return OPS.get(name)


def closest(name: str, n: int = 3) -> list[str]:
    """Known operator names closest to a misspelt one, for 'did you mean' messages."""
    return difflib.get_close_matches(name, OPS.keys(), n=n, cutoff=0.6)


# ------------------------------------------------------------------------ reading attributes


class OpAttrs:
    """A call's attrs read through its operator's declaration: `attrs[key]` is the value given
    at the call, else the field's default (None without one, or for an unknown operator)."""

    __slots__ = ("attrs", "opdef")

    def __init__(self, attrs: Attrs, opdef: OpDef | None) -> None:
        self.attrs = attrs
        self.opdef = opdef

    def __getitem__(self, key: str) -> Any:
        if self.opdef is None:
            return self.attrs.get(key)
        return self.opdef.value(self.attrs, key)


def attr(attrs: Mapping[str, Any], op: OpDef | str, name: str) -> Any:
    """Like `OpAttrs`, for a kernel: a field the operator lacks, or a required field the call
    leaves out, is an OpError (a nullable field reads None)."""
    od = OPS[op] if isinstance(op, str) else op
    if name not in attrs:
        f = od.field(name)
        if f is None:
            raise OpError(f"{od.name} has no attribute {name!r}")
        if f.default is NO_DEFAULT and not f.nullable:
            raise OpError(f"{od.name} requires the attribute {name!r}")
    return od.value(attrs, name)


# ---------------------------------------------------------------------- normalising attributes


def attr_norm(v: Any) -> Any:
    """A comparable form of an attribute value that keeps bool, int, float and str apart."""
    if v is None:
        return ("none",)
    if isinstance(v, (bool, np.bool_)):
        return ("bool", bool(v))
    if isinstance(v, (int, np.integer)):
        return ("int", int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return ("float", "nan" if math.isnan(f) else f)
    if isinstance(v, str):
        return ("str", v)
    if isinstance(v, (tuple, list)):
        return ("tuple", tuple(attr_norm(x) for x in v))
    if isinstance(v, MetaRef):
        return ("meta", v.type_key, v.index)
    return ("obj", id(v))


def effective_call_attrs(op: Expr, attrs: Attrs) -> tuple[str | None, list[tuple[str, Any]]]:
    """(type key, every field with its value or default) for an op call; else attrs as given."""
    opdef = lookup(op.name) if isinstance(op, Op) else None
    if opdef is None:
        return attrs.type_key, list(attrs.items_)
    given = dict(attrs.items_)
    out: list[tuple[str, Any]] = []
    for f in opdef.attr_fields:
        out.append((f.name, given.pop(f.name) if f.name in given else f.unset))
    out.extend((k, v) for k, v in attrs.items_ if k in given)
    return attrs.type_key or opdef.attrs_type_key, out


def printed_call_attrs(op: Expr, attrs: Attrs) -> list[tuple[str, Any]]:
    """The attrs v0.19 prints for an op call: fields without a default, then non-default ones."""
    opdef = lookup(op.name) if isinstance(op, Op) else None
    if opdef is None:
        return list(attrs.items_)
    given = dict(attrs.items_)
    out: list[tuple[str, Any]] = []
    for f in opdef.attr_fields:
        if f.name in given:
            v = given.pop(f.name)
        elif f.default is NO_DEFAULT:
            v = None
        else:
            continue
        if f.default is NO_DEFAULT or attr_norm(v) != attr_norm(f.default):
            out.append((f.name, v))
    out.extend((k, v) for k, v in attrs.items_ if k in given)
    return out


# ------------------------------------------------------------------------------ building calls


def make_call(name: str, *args: Expr, **attrs: object) -> Call:
    """`name(args, attrs)`: attrs in declared field order, fields at their default left out.

    Leaving defaults out is the form the printer writes and the parser reads back; passes that
    build calls (gradient rules, SimplifyInference) all go through here.
    """
    d = lookup(name)
    if d is None:
        raise KeyError(name)
    items = []
    for f in d.attr_fields:
        if f.name in attrs:
            v = _attr_value(attrs.pop(f.name))
            if f.default is NO_DEFAULT or v != _attr_value(f.default):
                items.append((f.name, v))
    if attrs:
        raise KeyError(f"{name}: unknown attributes {sorted(attrs)}")
    return Call(Op(name), tuple(args), Attrs(tuple(items), d.attrs_type_key if items else None))


def _attr_value(v: object) -> object:
    if isinstance(v, list | tuple):
        return tuple(_attr_value(x) for x in v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v
