"""Relay in `tvm.ir.save_json` form (relay-notes §6): save, and load back into the Python AST.

The document is `{"root", "nodes", "b64ndarrays", "attrs": {"tvm_version"}}`; `nodes[0]` is the
null node and every other node is `{"type_key", "attrs", "keys", "data"}` (or `repr_str` for
`runtime.String` and `Op`). Nodes are indexed in pre-order as `src/node/serialization.cc` does, a
shared node is written once, and constants are DLTensor blobs in `b64ndarrays`. Both directions
use explicit stacks, so 20k-long let chains need no recursion.

Op attributes are written as their `relay.attrs.*Attrs` node with every field, POD fields
(`int`, `bool`, `double`, `DataType`) as strings and the rest as `IntImm`, `FloatImm`,
`runtime.String` or `Array` nodes; which int fields are POD the op registry declares (`pod_int`).
Loading keeps only the fields the text printer would print, so `load_json` builds the same AST as
parsing the printed text does. Objects the project does not model (a var's or function's
`VirtualDevice`, its `Target`) go both ways as `#[metadata]` objects (MetaRef), copied as they are.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..diagnostics import Span
from .ast import (
    EMPTY_ATTRS,
    Attrs,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalVar,
    If,
    IncompleteType,
    Let,
    Match,
    MetaRef,
    MetaSource,
    Module,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
)
from .errors import JsonLoadError
from .ops import ATTRS_TYPES, NO_DEFAULT, attr_norm, closest, effective_call_attrs, lookup

TVM_VERSION = "0.19.0"
NDARRAY_MAGIC = 0xDD5E40F096B4A13F
_KIND_TYPE = 0  # TypeKind::kType
_KIND_ADT = 5  # TypeKind::kAdtHandle

_DTYPE_FIELDS = frozenset({"dtype", "out_dtype"})

_NP_TO_DL = {"bool": (1, 1)}
for _bits in (8, 16, 32, 64):
    _NP_TO_DL[f"int{_bits}"] = (0, _bits)
    _NP_TO_DL[f"uint{_bits}"] = (1, _bits)
for _bits in (16, 32, 64):
    _NP_TO_DL[f"float{_bits}"] = (2, _bits)
_DL_TO_NP = {v: k for k, v in _NP_TO_DL.items()}


# ------------------------------------------------------------------------------- ndarrays


def encode_ndarray(a: np.ndarray) -> str:
    """A DLTensor blob (magic, reserved, CPU device, ndim, dtype, shape, size, data) in base64."""
    dtype = str(a.dtype)
    if dtype not in _NP_TO_DL:
        raise ValueError(f"cannot serialise a constant of dtype {dtype}")
    code, bits = _NP_TO_DL[dtype]
    le = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    data = le.tobytes()
    head = struct.pack("<QQiiiBBH", NDARRAY_MAGIC, 0, 1, 0, a.ndim, code, bits, 1)
    shape = struct.pack(f"<{a.ndim}q", *a.shape)
    return base64.b64encode(head + shape + struct.pack("<q", len(data)) + data).decode("ascii")


def decode_ndarray(b64: str) -> np.ndarray:
    """Inverse of encode_ndarray; ValueError says what is wrong with the blob."""
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError, TypeError) as ex:
        raise ValueError(f"not base64: {ex}") from None
    head = struct.calcsize("<QQiiiBBH")
    if len(raw) < head:
        raise ValueError("truncated NDArray header")
    magic, _res, _dev, _dev_id, ndim, code, bits, lanes = struct.unpack_from("<QQiiiBBH", raw)
    if magic != NDARRAY_MAGIC:
        raise ValueError(f"bad NDArray magic {magic:#x}")
    if lanes != 1 or (code, bits) not in _DL_TO_NP:
        raise ValueError(f"unsupported dtype code={code} bits={bits} lanes={lanes}")
    if not 0 <= ndim <= 32 or len(raw) < head + 8 * ndim + 8:
        raise ValueError(f"bad ndim {ndim}")
    shape = struct.unpack_from(f"<{ndim}q", raw, head)
    (size,) = struct.unpack_from("<q", raw, head + 8 * ndim)
    dtype = np.dtype(_DL_TO_NP[(code, bits)]).newbyteorder("<")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if min(shape, default=0) < 0 or size != count * dtype.itemsize:
        raise ValueError(f"data size {size} does not match shape {list(shape)}")
    start = head + 8 * ndim + 8
    if len(raw) < start + size:
        raise ValueError("truncated NDArray data")
    arr = np.frombuffer(raw, dtype=dtype, count=count, offset=start).reshape(shape)
    return arr.astype(dtype.newbyteorder("="))


# ---------------------------------------------------------------------------------- saving


@dataclass(eq=False)
class _W:
    """A serialisable non-AST object (String, Array, Map, IntImm, attrs ...), one node each."""

    type_key: str
    attrs: list[tuple[str, Any]] = field(default_factory=list)  # value: _Pod | child | None
    data: list[Any] | None = None
    keys: list[str] | None = None
    repr_str: str | None = None
    intern: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class _Pod:
    text: str


def _s(text: str) -> _W:
    return _W("runtime.String", repr_str=text)


def _arr(items: Sequence[Any]) -> _W:
    return _W("Array", data=list(items))


def _gtv(name: str) -> _W:
    return _W("GlobalTypeVar", [("name_hint", _s(name)), ("kind", _Pod(str(_KIND_ADT))),
                                ("span", None)], intern=("gtv", name))


def _int_imm(v: int) -> _W:
    dtype = "int32" if -(2**31) <= v < 2**31 else "int64"
    return _W("IntImm", [("dtype", _Pod(dtype)), ("value", _Pod(str(v))), ("span", None)])


def _value_node(v: Any) -> Any:
    """An attribute value held by reference: IntImm, FloatImm, String, Array, an Expr, or null."""
    if v is None or isinstance(v, (Expr, Type, MetaRef)):
        return v
    if isinstance(v, (bool, np.bool_)):
        return _W("IntImm", [("dtype", _Pod("bool")), ("value", _Pod(str(int(v)))),
                             ("span", None)])
    if isinstance(v, (int, np.integer)):
        return _int_imm(int(v))
    if isinstance(v, (float, np.floating)):
        return _W("FloatImm", [("dtype", _Pod("float32")), ("value", _Pod(_float_text(v))),
                               ("span", None)])
    if isinstance(v, str):
        return _s(v)
    if isinstance(v, (tuple, list)):
        return _arr([_value_node(x) for x in v])
    raise ValueError(f"cannot serialise attribute value {v!r}")


def _float_text(v: float) -> str:
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return repr(f)


def _attr_field(type_key: str, name: str, v: Any) -> Any:
    """One attrs field: POD fields as strings, the rest as nodes."""
    if v is None and _pod_int(type_key, name):
        return _Pod("")  # an unset C++ int (only in programs that omit a required field)
    if isinstance(v, (bool, np.bool_)):
        return _Pod("1" if v else "0")
    if isinstance(v, (float, np.floating)):
        return _Pod(_float_text(v))
    if isinstance(v, (int, np.integer)) and _pod_int(type_key, name):
        return _Pod(str(int(v)))
    if name in _DTYPE_FIELDS and (v is None or isinstance(v, str)):
        return _Pod(v or "")  # a DataType; unset (None) is written as the empty string
    return _value_node(v)


def _dict_attrs(items: Sequence[tuple[str, Any]]) -> _W:
    m = _W("Map", keys=[k for k, _ in items], data=[_value_node(v) for _, v in items])
    return _W("DictAttrs", [("__dict__", m)])


def _call_attrs(call: Call) -> Any:
    opdef = lookup(call.op.name) if isinstance(call.op, Op) else None
    if opdef is not None and opdef.attrs_type_key is not None:
        tk, items = effective_call_attrs(call.op, call.attrs)
        assert tk is not None
        return _W(tk, [(k, _attr_field(tk, k, v)) for k, v in items])
    if not call.attrs.items_ and call.attrs.type_key is None:
        return None
    if call.attrs.type_key is None or call.attrs.type_key == "DictAttrs":
        return _dict_attrs(call.attrs.items_)
    tk = call.attrs.type_key
    return _W(tk, [(k, _attr_field(tk, k, v)) for k, v in call.attrs.items_])


def _expr_tail(virtual_device: MetaRef | None = None) -> list[tuple[str, Any]]:
    return [("virtual_device_", virtual_device), ("span", None), ("_checked_type_", None)]


def _describe(obj: Any, arrays: list[str]) -> _W:
    """The node for one object: its type key and fields in VisitAttrs order."""
    if isinstance(obj, _W):
        return obj
    if isinstance(obj, Var):
        vid = _W("relay.Id", [("name_hint", _s(obj.name_hint))])
        return _W("relay.Var", [("vid", vid), ("type_annotation", obj.type_annotation),
                                *_expr_tail(obj.virtual_device)])
    if isinstance(obj, GlobalVar):
        return _W("GlobalVar", [("name_hint", _s(obj.name_hint)), *_expr_tail(),
                                ("struct_info_", None)])
    if isinstance(obj, Op):
        return _W("Op", repr_str=obj.name)
    if isinstance(obj, Constant):
        arrays.append(encode_ndarray(obj.data))
        return _W("relay.Constant", [("data", _ArrIdx(len(arrays) - 1)), *_expr_tail()])
    if isinstance(obj, Tuple):
        return _W("relay.Tuple", [("fields", _arr(obj.fields)), *_expr_tail()])
    if isinstance(obj, Call):
        return _W("relay.Call", [("op", obj.op), ("args", _arr(obj.args)),
                                 ("attrs", _call_attrs(obj)), ("type_args", _arr(obj.type_args)),
                                 *_expr_tail()])
    if isinstance(obj, Let):
        return _W("relay.Let", [("var", obj.var), ("value", obj.value), ("body", obj.body),
                                *_expr_tail()])
    if isinstance(obj, If):
        return _W("relay.If", [("cond", obj.cond), ("true_branch", obj.true_branch),
                               ("false_branch", obj.false_branch), *_expr_tail()])
    if isinstance(obj, TupleGetItem):
        return _W("relay.TupleGetItem", [("tuple_value", obj.tuple_value),
                                         ("index", _Pod(str(obj.index))), *_expr_tail()])
    if isinstance(obj, RefCreate):
        return _W("relay.RefCreate", [("value", obj.value), *_expr_tail()])
    if isinstance(obj, RefRead):
        return _W("relay.RefRead", [("ref", obj.ref), *_expr_tail()])
    if isinstance(obj, RefWrite):
        return _W("relay.RefWrite", [("ref", obj.ref), ("value", obj.value), *_expr_tail()])
    if isinstance(obj, Function):
        return _W("relay.Function", [("params", _arr(obj.params)), ("body", obj.body),
                                     ("ret_type", obj.ret_type),
                                     ("type_params", _arr(obj.type_params)),
                                     ("attrs", _dict_attrs(obj.attrs.items_)),
                                     *_expr_tail(obj.virtual_device)])
    if isinstance(obj, Match):
        return _W("relay.Match", [("data", obj.data), ("clauses", _arr(obj.clauses)),
                                  ("complete", _Pod("1" if obj.complete else "0")),
                                  *_expr_tail()])
    if isinstance(obj, Clause):
        return _W("relay.Clause", [("lhs", obj.lhs), ("rhs", obj.rhs), ("span", None)])
    if isinstance(obj, PatternWildcard):
        return _W("relay.PatternWildcard", [("span", None)])
    if isinstance(obj, PatternVar):
        return _W("relay.PatternVar", [("var", obj.var), ("span", None)])
    if isinstance(obj, PatternConstructor):
        return _W("relay.PatternConstructor", [("constructor", obj.constructor),
                                               ("patterns", _arr(obj.patterns)), ("span", None)])
    if isinstance(obj, PatternTuple):
        return _W("relay.PatternTuple", [("patterns", _arr(obj.patterns)), ("span", None)])
    if isinstance(obj, Constructor):
        return _W("relay.Constructor", [("name_hint", _s(obj.name_hint)),
                                        ("inputs", _arr(obj.inputs)),
                                        ("belong_to", _gtv(obj.belong_to)),
                                        ("tag", _Pod(str(obj.tag))), *_expr_tail()])
    if isinstance(obj, TypeData):
        return _W("relay.TypeData", [("header", _gtv(obj.name)),
                                     ("type_vars", _arr(obj.type_vars)),
                                     ("constructors", _arr(obj.constructors)), ("span", None)])
    if isinstance(obj, TensorType):
        dims = [_W("tir.Any", [("dtype", _Pod("int32")), ("span", None)]) if d is None
                else _int_imm(d) for d in obj.shape]
        return _W("relay.TensorType", [("shape", _arr(dims)), ("dtype", _Pod(obj.dtype)),
                                       ("span", None)])
    if isinstance(obj, TupleType):
        return _W("TupleType", [("fields", _arr(obj.fields)), ("span", None)])
    if isinstance(obj, FuncType):
        return _W("FuncType", [("arg_types", _arr(obj.arg_types)), ("ret_type", obj.ret_type),
                               ("type_params", _arr(obj.type_params)),
                               ("type_constraints", _arr([])), ("span", None)])
    if isinstance(obj, RefType):
        return _W("relay.RefType", [("value", obj.value), ("span", None)])
    if isinstance(obj, TypeVar):
        return _W("TypeVar", [("name_hint", _s(obj.name)), ("kind", _Pod(str(_KIND_TYPE))),
                              ("span", None)])
    if isinstance(obj, TypeCall):
        return _W("TypeCall", [("func", _gtv(obj.name)), ("args", _arr(obj.args)),
                               ("span", None)])
    if isinstance(obj, IncompleteType):
        return _W("IncompleteType", [("kind", _Pod(str(_KIND_TYPE))), ("span", None)])
    if isinstance(obj, Module):
        fn_pairs: list[Any] = []
        for name, fn in obj.functions.items():
            fn_pairs += [GlobalVar(name), fn]
        td_pairs: list[Any] = []
        for name, td in obj.type_defs.items():
            td_pairs += [_gtv(name), td]
        gv_map = _W("Map", keys=list(obj.functions), data=[GlobalVar(n) for n in obj.functions])
        gtv_map = _W("Map", keys=list(obj.type_defs), data=[_gtv(n) for n in obj.type_defs])
        return _W("IRModule", [("functions", _W("Map", data=fn_pairs)),
                               ("type_definitions", _W("Map", data=td_pairs)),
                               ("global_var_map_", gv_map), ("global_type_var_map_", gtv_map),
                               ("source_map", None), ("attrs", None),
                               ("global_infos", _W("Map", keys=[], data=[]))])
    raise TypeError(f"cannot serialise {type(obj).__name__}")


@dataclass(frozen=True, eq=False)
class _Orig:
    """A node of a kept metadata document (a MetaRef's object, or one of its tables)."""

    source: MetaSource
    node: int


@dataclass(frozen=True)
class _ArrIdx:
    """A constant's blob: its position among the arrays this document writes."""

    k: int


def _key(obj: Any) -> tuple[Any, ...]:
    """Identity of a node for sharing: AST nodes by object, globals/ops/ctors/type vars by name."""
    if isinstance(obj, _W) and obj.intern is not None:
        return obj.intern
    if isinstance(obj, GlobalVar):
        return ("gv", obj.name_hint)
    if isinstance(obj, Op):
        return ("op", obj.name)
    if isinstance(obj, Constructor):
        return ("ctor", obj.belong_to, obj.name_hint, obj.tag)
    if isinstance(obj, TypeVar):
        return ("tv", obj.name)
    if isinstance(obj, (_Orig, MetaRef)):
        return ("orig", obj.node)
    return ("id", id(obj))


def _orig(obj: MetaRef | _Orig) -> _Orig:
    """The kept document node behind a MetaRef (ValueError for one made without a document)."""
    if isinstance(obj, _Orig):
        return obj
    if obj.source is None or not 0 <= obj.node < len(obj.source.nodes):
        raise ValueError(f"cannot serialise meta[{obj.type_key}][{obj.index}]: the object it "
                         "refers to is not known (it was not read from a #[metadata] section)")
    return _Orig(obj.source, obj.node)


def _serialise(root: Any) -> str:
    """The document for root, pre-order like NodeIndexer::MakeIndex. Objects from a parsed
    `#[metadata]` section the project does not model (MetaRef) are written back as they came:
    that document's nodes and arrays come first, unchanged, so their indices stay valid."""
    descs: list[_W] = []  # new nodes; provisional index = position + 1
    index: dict[tuple[Any, ...], int] = {}
    alive: list[Any] = []
    arrays: list[str] = []
    prefix: MetaSource | None = None
    stack = [root]
    while stack:
        obj = stack.pop()
        k = _key(obj)
        if k in index:
            continue
        alive.append(obj)
        if isinstance(obj, (MetaRef, _Orig)):
            o = _orig(obj)
            if prefix is None:
                prefix = o.source
            elif prefix is not o.source:
                raise ValueError("cannot serialise objects from two different #[metadata] "
                                 "sections in one document")
            index[k] = -o.node - 1  # resolved below: kept nodes keep their own index
            continue
        index[k] = len(descs) + 1
        desc = _describe(obj, arrays)
        descs.append(desc)
        kids = [v for _, v in desc.attrs if v is not None and not isinstance(v, (_Pod, _ArrIdx))]
        kids += [v for v in desc.data or () if v is not None]
        stack.extend(reversed(kids))

    kept_nodes = prefix.nodes if prefix is not None else [{"type_key": ""}]
    kept_arrays = prefix.arrays if prefix is not None else []
    shift = len(kept_nodes) - 1  # the new null node is the kept document's node 0

    def ref(v: Any) -> str:
        if v is None:
            return "0"
        if isinstance(v, _Pod):
            return v.text
        if isinstance(v, _ArrIdx):
            return str(v.k + len(kept_arrays))
        j = index[_key(v)]
        return str(-j - 1 if j < 0 else j + shift)

    nodes: list[dict[str, Any]] = list(kept_nodes)
    for desc in descs:
        node: dict[str, Any] = {"type_key": desc.type_key}
        if desc.repr_str is not None:
            node["repr_str"] = desc.repr_str
        if desc.attrs:
            node["attrs"] = {name: ref(v) for name, v in desc.attrs}
        if desc.keys:
            node["keys"] = list(desc.keys)
        if desc.data:
            node["data"] = [int(ref(v)) for v in desc.data]
        nodes.append(node)
    all_arrays = [*kept_arrays, *arrays]
    # One node per line: readable, and json's C encoder does the work (indent= would not).
    return "".join([
        f'{{\n  "root": {ref(root)},\n  "nodes": [\n    ',
        ",\n    ".join(json.dumps(n) for n in nodes),
        '\n  ],\n  "b64ndarrays": [',
        ",".join("\n    " + json.dumps(a) for a in all_arrays),
        "\n  ]" if all_arrays else "]",
        f',\n  "attrs": {{"tvm_version": "{TVM_VERSION}"}}\n}}\n',
    ])


def save_json(node: Module | Expr) -> str:
    """`tvm.ir.save_json` of a Relay module or expression."""
    if not isinstance(node, (Module, Expr)):
        raise TypeError(f"save_json expects a Module or an Expr, not {type(node).__name__}")
    return _serialise(node)


def save_metadata(table: Mapping[str, Sequence[Any]]) -> str:
    """The `#[metadata]` section: save_json of a Map<String, Array<Object>> (e.g. constants).

    When it holds objects read from a parsed section (MetaRef), that section is written back
    as it came and `meta[K][i]` keeps its i: their tables are the Array nodes they were read
    from, constants read from it are its own nodes, and a table that lists exactly what the
    section's table listed is that table (so parse, print, parse again changes nothing)."""
    keys = list(table)
    src: MetaSource | None = None
    for k in keys:
        for o in table[k]:
            if isinstance(o, MetaRef) and src is None:
                if o.source is None or k not in o.source.tables:
                    raise ValueError(f"cannot serialise meta[{k}][{o.index}]: the object it "
                                     "refers to is not known (it was not read from a "
                                     "#[metadata] section)")
                src = o.source
    if src is None:
        return _serialise(_W("Map", keys=keys, data=[_arr(list(table[k])) for k in keys]))

    def from_src(o: Any) -> int | None:
        if isinstance(o, MetaRef) and o.source is src:
            return o.node
        if isinstance(o, Constant) and o.origin is not None and o.origin.source is src:
            return o.origin.node
        return None

    data: list[Any] = []
    for k in keys:
        objs = list(table[k])
        nodes = [from_src(o) for o in objs]
        refs = [o for o in objs if isinstance(o, MetaRef)]
        if k in src.tables and (nodes == src.entries(k) or (
                len(refs) == len(objs) and all(o.source is src for o in refs))):
            data.append(_Orig(src, src.tables[k]))  # MetaRefs keep their index in it
        elif any(isinstance(o, MetaRef) for o in objs):
            raise ValueError(f"cannot serialise the meta[{k}] table: it mixes objects of two "
                             "#[metadata] sections")
        else:
            data.append(_arr([_Orig(src, j) if j is not None else o
                              for o, j in zip(objs, nodes, strict=True)]))
    if keys == list(src.tables) and all(isinstance(d, _Orig) for d in data):
        return _serialise(_Orig(src, src.root))
    return _serialise(_W("Map", keys=keys, data=data))


def meta_fingerprint(nodes: Sequence[Mapping[str, Any]], i: int) -> tuple[Any, ...]:
    """A comparable form of node i of a metadata document, independent of node numbering: the
    fields v0.19 declares as object references (and every Array/Map entry) are followed, the
    other fields compared as the strings they are (unknown types: all of them)."""
    seen: set[int] = set()

    def go(j: int) -> Any:
        if j == 0:
            return None
        if j in seen or not 0 <= j < len(nodes) or not isinstance(nodes[j], Mapping):
            return ("node", j)
        seen.add(j)
        n = nodes[j]
        tk = str(n.get("type_key", ""))
        refs = _META_REF_FIELDS.get(tk, frozenset())
        attrs = n.get("attrs") if isinstance(n.get("attrs"), Mapping) else {}
        fields = []
        for name in sorted(attrs):
            v = attrs[name]
            if name in refs and isinstance(v, str) and v.isdigit():
                fields.append((name, go(int(v))))
            else:
                fields.append((name, str(v)))
        data = n.get("data") if isinstance(n.get("data"), list) else []
        keys = n.get("keys") if isinstance(n.get("keys"), list) else []
        out = (tk, n.get("repr_str"), n.get("repr_b64"), tuple(fields),
               tuple(str(x) for x in keys),
               tuple(go(x) if isinstance(x, int) else str(x) for x in data))
        seen.discard(j)
        return out

    return go(i)  # type: ignore[no-any-return]


# the fields of the non-Relay objects metadata holds that are object references (VisitAttrs
# order in include/tvm/target/virtual_device.h and target.h); anything else is a string
_META_REF_FIELDS: dict[str, frozenset[str]] = {
    "VirtualDevice": frozenset({"target", "memory_scope"}),
    "Target": frozenset({"kind", "tag", "keys", "attrs", "features", "host"}),
}


# --------------------------------------------------------------------------------- loading

_REF, _OPT, _INT, _STR, _BOOL, _FLOAT, _ND = "ref", "opt", "int", "str", "bool", "float", "nd"

# type_key -> the fields we read (field name, kind); other fields (span, _checked_type_, ...)
# are ignored and never resolved (a var's or function's virtual_device_ is read by device()).
_SCHEMA: dict[str, tuple[tuple[str, str], ...]] = {
    "relay.Id": (("name_hint", _REF),),
    "relay.Var": (("vid", _REF), ("type_annotation", _OPT)),
    "GlobalVar": (("name_hint", _REF),),
    "relay.Constant": (("data", _ND),),
    "relay.Tuple": (("fields", _REF),),
    "relay.Call": (("op", _REF), ("args", _REF), ("attrs", _OPT), ("type_args", _OPT)),
    "relay.Let": (("var", _REF), ("value", _REF), ("body", _REF)),
    "relay.If": (("cond", _REF), ("true_branch", _REF), ("false_branch", _REF)),
    "relay.TupleGetItem": (("tuple_value", _REF), ("index", _INT)),
    "relay.RefCreate": (("value", _REF),),
    "relay.RefRead": (("ref", _REF),),
    "relay.RefWrite": (("ref", _REF), ("value", _REF)),
    "relay.Function": (("params", _REF), ("body", _REF), ("ret_type", _OPT),
                       ("type_params", _OPT), ("attrs", _OPT)),
    "relay.Match": (("data", _REF), ("clauses", _REF), ("complete", _BOOL)),
    "relay.Clause": (("lhs", _REF), ("rhs", _REF)),
    "relay.PatternWildcard": (),
    "relay.PatternVar": (("var", _REF),),
    "relay.PatternConstructor": (("constructor", _REF), ("patterns", _REF)),
    "relay.PatternTuple": (("patterns", _REF),),
    "relay.Constructor": (("name_hint", _REF), ("inputs", _REF), ("belong_to", _REF),
                          ("tag", _INT)),
    "relay.TypeData": (("header", _REF), ("type_vars", _REF), ("constructors", _REF)),
    "relay.TensorType": (("shape", _REF), ("dtype", _STR)),
    "TupleType": (("fields", _REF),),
    "FuncType": (("arg_types", _REF), ("ret_type", _REF), ("type_params", _OPT)),
    "relay.RefType": (("value", _REF),),
    "TypeVar": (("name_hint", _REF),),
    "GlobalTypeVar": (("name_hint", _REF),),
    "TypeCall": (("func", _REF), ("args", _REF)),
    "IncompleteType": (),
    "IntImm": (("dtype", _STR), ("value", _INT)),
    "FloatImm": (("dtype", _STR), ("value", _FLOAT)),
    "tir.StringImm": (("value", _STR),),
    "tir.Any": (),
    "DictAttrs": (("__dict__", _OPT),),
    "IRModule": (("functions", _REF), ("type_definitions", _OPT)),
}
_ALIASES = {"relay.TupleType": "TupleType", "relay.FuncType": "FuncType",
            "RefType": "relay.RefType",
            "relay.TypeVar": "TypeVar", "relay.GlobalTypeVar": "GlobalTypeVar",
            "relay.TypeCall": "TypeCall", "relay.IncompleteType": "IncompleteType",
            "relay.GlobalVar": "GlobalVar", "relay.TensorType": "relay.TensorType",
            "TensorType": "relay.TensorType", "relay.IRModule": "IRModule",
            "ir.IRModule": "IRModule", "String": "runtime.String", "ffi.String": "runtime.String",
            "ffi.Array": "Array", "ffi.Map": "Map", "Attrs": "DictAttrs"}
_IGNORED = frozenset({"Span", "SourceName", "VirtualDevice", "Target", "SourceMap", "ir.Source",
                      "relay.TypeRelation", "TypeRelation"})
_LEAVES = frozenset({"runtime.String", "Op"})
_VALUE_KEYS = frozenset({"IntImm", "FloatImm", "Array", "runtime.String", "tir.StringImm", "Map",
                         "tir.Any", "relay.Constant", "relay.Var", "relay.Tuple", "relay.Call",
                         "GlobalVar", "Op"})


def _field_default(type_key: str, name: str) -> object:
    """The registry's default of a field of an op attrs type (NO_DEFAULT if it declares none)."""
    f = ATTRS_TYPES.get(type_key, {}).get(name)
    return NO_DEFAULT if f is None else f.default


def _pod_int(type_key: str, name: str) -> bool:
    """Whether a field of an op attrs type is a C++ `int` (written as a string, not a node)."""
    f = ATTRS_TYPES.get(type_key, {}).get(name)
    return f is not None and f.pod_int


class _Reader:
    """Builds AST objects from a parsed document, children first, with an explicit stack."""

    def __init__(self, doc: dict[str, Any], source: str) -> None:
        self.nodes = doc["nodes"]
        self.arrays = doc.get("b64ndarrays") or []
        self.source = source
        self.built: dict[int, Any] = {0: None}
        self.field_cache: dict[int, tuple[str, tuple[tuple[str, str], ...]]] = {}
        self.devices: _DeviceTable | None = None

    def fail(self, i: int, msg: str) -> JsonLoadError:
        tk = self.type_key(i) if 0 <= i < len(self.nodes) else "?"
        return JsonLoadError(f"{self.source}: node {i} ({tk}): {msg}")

    def type_key(self, i: int) -> str:
        node = self.nodes[i]
        tk = node.get("type_key") if isinstance(node, dict) else None
        if not isinstance(tk, str):
            raise JsonLoadError(f"{self.source}: node {i} has no type_key")
        return _ALIASES.get(tk, tk)

    def attr(self, i: int, name: str, required: bool = True) -> str | None:
        attrs = self.nodes[i].get("attrs", {})
        if not isinstance(attrs, dict):
            raise self.fail(i, "`attrs` is not an object")
        v = attrs.get(name)
        if v is None:
            if required:
                raise self.fail(i, f"missing field `{name}`")
            return None
        if not isinstance(v, str):
            raise self.fail(i, f"field `{name}` is not a string")
        return v

    def index(self, i: int, name: str, text: str) -> int:
        try:
            j = int(text)
        except ValueError:
            raise self.fail(i, f"field `{name}` = {text!r} is not a node index") from None
        if not 0 <= j < len(self.nodes):
            raise self.fail(i, f"field `{name}` refers to missing node {j}")
        return j

    def attrs_kinds(self, i: int, tk: str) -> list[tuple[str, str]]:
        """Field kinds of an op attrs node: POD by the registry's defaults, else by the value."""
        attrs = self.nodes[i].get("attrs", {})
        if not isinstance(attrs, dict):
            raise self.fail(i, "`attrs` is not an object")
        out = []
        for name, text in attrs.items():
            if not isinstance(text, str):
                raise self.fail(i, f"field `{name}` is not a string")
            d = _field_default(tk, name)
            if _pod_int(tk, name):
                kind = _INT
            elif isinstance(d, bool):
                kind = _BOOL
            elif isinstance(d, float):
                kind = _FLOAT
            elif name in _DTYPE_FIELDS:
                kind = _STR
            else:
                kind = self.guess_kind(i, text)
            out.append((name, kind))
        return out

    def guess_kind(self, i: int, text: str) -> str:
        """A field of unknown C++ type: a node reference if it names a value node, else POD."""
        try:
            j = int(text)
        except ValueError:
            try:
                float(text)
            except ValueError:
                return _STR
            return _FLOAT
        if j == 0 or (0 < j < len(self.nodes) and j != i and self.type_key(j) in _VALUE_KEYS):
            return _OPT
        return _INT

    def fields(self, i: int) -> tuple[str, tuple[tuple[str, str], ...]]:
        """The node's type key and the fields read from it, with their kinds."""
        hit = self.field_cache.get(i)
        if hit is not None:
            return hit
        tk = self.type_key(i)
        if tk in _SCHEMA:
            out = tk, _SCHEMA[tk]
        elif tk in _LEAVES or tk in _IGNORED or tk in ("Array", "Map"):
            out = tk, ()
        elif tk.startswith("relay.attrs.") or tk in ATTRS_TYPES:
            out = tk, tuple(self.attrs_kinds(i, tk))
        else:
            raise self.fail(i, f"unknown type_key `{tk}`")
        self.field_cache[i] = out
        return out

    def deps(self, i: int) -> list[int]:
        tk, fields = self.fields(i)
        out = [self.index(i, n, t) for n, k in fields if k in (_REF, _OPT)
               for t in [self.attr(i, n, k == _REF)] if t is not None]
        if tk in ("Array", "Map"):
            data = self.nodes[i].get("data", [])
            if not isinstance(data, list):
                raise self.fail(i, "`data` is not a list")
            for j in data:
                if not isinstance(j, int) or not 0 <= j < len(self.nodes):
                    raise self.fail(i, f"`data` refers to missing node {j!r}")
                out.append(j)
        return out

    def build(self, root: int) -> Any:
        stack: list[tuple[int, bool]] = [(root, False)]
        open_: set[int] = set()
        while stack:
            i, expanded = stack.pop()
            if expanded:
                self.built[i] = self.make(i)
                open_.discard(i)
                continue
            if i in self.built:
                continue
            if i in open_:
                raise self.fail(i, "the node graph has a cycle")
            open_.add(i)
            stack.append((i, True))
            stack.extend((j, False) for j in reversed(self.deps(i)) if j not in self.built)
        return self.built[root]

    # ------------------------------------------------------------------------ construction

    def get(self, i: int, name: str, *kinds: type, optional: bool = False) -> Any:
        text = self.attr(i, name, not optional)
        if text is None:
            return None
        v = self.built[self.index(i, name, text)]
        if v is None and optional:
            return None
        if kinds and not isinstance(v, kinds):
            want = " or ".join(k.__name__ for k in kinds)
            raise self.fail(i, f"field `{name}` must be {want}, got {type(v).__name__}")
        return v

    def seq(self, i: int, name: str, kind: type, optional: bool = False) -> tuple[Any, ...]:
        v = self.get(i, name, list, optional=optional)
        if v is None:
            return ()
        for x in v:
            if not isinstance(x, kind):
                raise self.fail(i, f"field `{name}` must hold {kind.__name__}, got "
                                   f"{type(x).__name__}")
        return tuple(v)

    def pod_int(self, i: int, name: str) -> int:
        text = self.attr(i, name)
        assert text is not None
        try:
            return int(text)
        except ValueError:
            raise self.fail(i, f"field `{name}` = {text!r} is not an integer") from None

    def pod_float(self, i: int, name: str) -> float:
        text = self.attr(i, name)
        assert text is not None
        try:
            return float(text)
        except ValueError:
            raise self.fail(i, f"field `{name}` = {text!r} is not a number") from None

    def make(self, i: int) -> Any:
        """Build node i (its children are built already)."""
        try:
            return self._make(i)
        except JsonLoadError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError) as ex:
            raise self.fail(i, str(ex)) from None

    def _make(self, i: int) -> Any:  # noqa: C901 - one case per type key
        tk, fields = self.fields(i)
        node = self.nodes[i]
        if tk in _IGNORED:
            return None
        if tk in ("runtime.String", "Op"):
            s = node.get("repr_str")
            if not isinstance(s, str):
                b64 = node.get("repr_b64")
                if not isinstance(b64, str):
                    raise self.fail(i, "missing repr_str")
                s = base64.b64decode(b64).decode("utf-8")
            if tk == "Op":
                if lookup(s) is None:
                    hint = closest(s)
                    more = f" (did you mean {', '.join(hint)}?)" if hint else ""
                    raise self.fail(i, f"unknown operator `{s}`{more}")
                return Op(s)
            return s
        if tk == "Array":
            return [self.built[j] for j in node.get("data", [])]
        if tk == "Map":
            data = [self.built[j] for j in node.get("data", [])]
            keys = node.get("keys")
            if keys:
                if not isinstance(keys, list) or len(keys) != len(data):
                    raise self.fail(i, "`keys` and `data` differ in length")
                return dict(zip(keys, data, strict=True))
            if len(data) % 2:
                raise self.fail(i, "a map's `data` must alternate keys and values")
            return _Pairs(zip(data[0::2], data[1::2], strict=True))
        if tk == "IntImm":
            v = self.pod_int(i, "value")
            return bool(v) if self.attr(i, "dtype") == "bool" else v
        if tk == "FloatImm":
            return self.pod_float(i, "value")
        if tk == "tir.StringImm":
            return self.attr(i, "value")
        if tk == "tir.Any":
            return _ANY
        if tk == "relay.Id":
            return _Id(self.get(i, "name_hint", str))
        if tk == "relay.Var":
            vid = self.get(i, "vid", _Id)
            ann = self.get(i, "type_annotation", Type, optional=True)
            return Var(vid.name, ann, virtual_device=self.device(i))
        if tk == "GlobalVar":
            return GlobalVar(self.get(i, "name_hint", str))
        if tk == "relay.Constant":
            k = self.pod_int(i, "data")
            if not 0 <= k < len(self.arrays) or not isinstance(self.arrays[k], str):
                raise self.fail(i, f"field `data` refers to missing b64ndarray {k}")
            try:
                return Constant(decode_ndarray(self.arrays[k]))
            except ValueError as ex:
                raise self.fail(i, f"b64ndarray {k}: {ex}") from None
        if tk == "relay.Tuple":
            return Tuple(self.seq(i, "fields", Expr))
        if tk == "relay.Call":
            op = self.get(i, "op", Expr)
            args = self.seq(i, "args", Expr)
            attrs = self.get(i, "attrs", Attrs, optional=True) or EMPTY_ATTRS
            return Call(op, args, attrs, self.seq(i, "type_args", Type, optional=True))
        if tk == "relay.Let":
            return Let(self.get(i, "var", Var), self.get(i, "value", Expr),
                       self.get(i, "body", Expr))
        if tk == "relay.If":
            return If(self.get(i, "cond", Expr), self.get(i, "true_branch", Expr),
                      self.get(i, "false_branch", Expr))
        if tk == "relay.TupleGetItem":
            return TupleGetItem(self.get(i, "tuple_value", Expr), self.pod_int(i, "index"))
        if tk == "relay.RefCreate":
            return RefCreate(self.get(i, "value", Expr))
        if tk == "relay.RefRead":
            return RefRead(self.get(i, "ref", Expr))
        if tk == "relay.RefWrite":
            return RefWrite(self.get(i, "ref", Expr), self.get(i, "value", Expr))
        if tk == "relay.Function":
            attrs = self.get(i, "attrs", Attrs, optional=True) or EMPTY_ATTRS
            return Function(self.seq(i, "params", Var), self.get(i, "body", Expr),
                            self.get(i, "ret_type", Type, optional=True),
                            self.seq(i, "type_params", TypeVar, optional=True),
                            Attrs(attrs.items_), virtual_device=self.device(i))
        if tk == "relay.Match":
            return Match(self.get(i, "data", Expr), self.seq(i, "clauses", Clause),
                         self.pod_int(i, "complete") != 0)
        if tk == "relay.Clause":
            return Clause(self.get(i, "lhs", Pattern), self.get(i, "rhs", Expr))
        if tk == "relay.PatternWildcard":
            return PatternWildcard()
        if tk == "relay.PatternVar":
            return PatternVar(self.get(i, "var", Var))
        if tk == "relay.PatternConstructor":
            return PatternConstructor(self.get(i, "constructor", Constructor),
                                      self.seq(i, "patterns", Pattern))
        if tk == "relay.PatternTuple":
            return PatternTuple(self.seq(i, "patterns", Pattern))
        if tk == "relay.Constructor":
            return Constructor(self.get(i, "name_hint", str), self.seq(i, "inputs", Type),
                               self.get(i, "belong_to", _GTV).name, self.pod_int(i, "tag"))
        if tk == "GlobalTypeVar":
            return _GTV(self.get(i, "name_hint", str))
        if tk == "relay.TypeData":
            ctors = self.seq(i, "constructors", Constructor)
            return TypeData(self.get(i, "header", _GTV).name, self.seq(i, "type_vars", TypeVar),
                            ctors, extern=not ctors)
        if tk == "relay.TensorType":
            dims = self.get(i, "shape", list)
            shape: list[int | None] = []
            for d in dims:
                if d is _ANY:
                    shape.append(None)
                elif isinstance(d, int) and not isinstance(d, bool):
                    shape.append(d)
                else:
                    raise self.fail(i, f"shape dimension {d!r} is not an integer or `?`")
            return TensorType(tuple(shape), self.attr(i, "dtype") or "float32")
        if tk == "TupleType":
            return TupleType(self.seq(i, "fields", Type))
        if tk == "FuncType":
            return FuncType(self.seq(i, "arg_types", Type), self.get(i, "ret_type", Type),
                            self.seq(i, "type_params", TypeVar, optional=True))
        if tk == "relay.RefType":
            return RefType(self.get(i, "value", Type))
        if tk == "TypeVar":
            return TypeVar(self.get(i, "name_hint", str))
        if tk == "TypeCall":
            return TypeCall(self.get(i, "func", _GTV).name, self.seq(i, "args", Type))
        if tk == "IncompleteType":
            return IncompleteType()
        if tk == "DictAttrs":
            d = self.get(i, "__dict__", dict, _Pairs, optional=True) or {}
            pairs = list(d.items()) if isinstance(d, dict) else list(d)
            if not all(isinstance(k, str) for k, _ in pairs):
                raise self.fail(i, "`__dict__` must have string keys")
            return Attrs(tuple((k, _attr_value(v)) for k, v in pairs))
        if tk == "IRModule":
            return self.module(i)
        return self.op_attrs(i, tk, fields)

    def device(self, i: int) -> MetaRef | None:
        """Node i's `virtual_device_`, when it constrains anything (TVM gives every expression
        the fully unconstrained one, which v0.19's printer omits), as `meta[VirtualDevice][k]`
        of a metadata document this load makes (so it prints and saves as it came)."""
        text = self.attr(i, "virtual_device_", False)
        if text is None or text == "0":
            return None
        j = self.index(i, "virtual_device_", text)
        if self.type_key(j) != "VirtualDevice":
            raise self.fail(i, f"`virtual_device_` refers to a {self.type_key(j)}, not a "
                               "VirtualDevice")
        if self.unconstrained(j):
            return None
        if self.devices is None:
            self.devices = _DeviceTable(self)
        return self.devices.ref(j)

    def unconstrained(self, j: int) -> bool:
        """VirtualDeviceNode::IsFullyUnconstrained: no device type, id, target or scope."""
        scope = self.attr(j, "memory_scope", False)
        scope_text = ""
        if scope not in (None, "0"):
            k = self.index(j, "memory_scope", scope)  # type: ignore[arg-type]
            scope_text = str(self.nodes[k].get("repr_str", ""))
        return (self.attr(j, "device_type_int", False) in (None, "-1")
                and self.attr(j, "virtual_device_id", False) in (None, "-1")
                and self.attr(j, "target", False) in (None, "0") and scope_text == "")

    def op_attrs(self, i: int, tk: str, fields: tuple[tuple[str, str], ...]) -> Attrs:
        """An op attrs node, keeping only what the printer would print (as the parser sees it)."""
        values: dict[str, Any] = {}
        for name, kind in fields:
            text = self.attr(i, name)
            assert text is not None
            if text == "" and kind in (_INT, _BOOL, _FLOAT):
                values[name] = None
            elif kind == _INT:
                values[name] = self.pod_int(i, name)
            elif kind == _BOOL:
                values[name] = self.pod_int(i, name) != 0
            elif kind == _FLOAT:
                values[name] = self.pod_float(i, name)
            elif kind == _STR:
                unset = text == "" and _field_default(tk, name) is NO_DEFAULT
                values[name] = None if unset and name in _DTYPE_FIELDS else text
            else:
                values[name] = _attr_value(self.built[self.index(i, name, text)])
        items = []
        for name, v in values.items():
            d = _field_default(tk, name)
            if d is NO_DEFAULT or attr_norm(v) != attr_norm(d):
                items.append((name, v))
        return Attrs(tuple(items), tk)

    def module(self, i: int) -> Module:
        fns = self.get(i, "functions", _Pairs, dict)
        tds = self.get(i, "type_definitions", _Pairs, dict, optional=True) or _Pairs()
        functions: dict[str, Function] = {}
        for k, v in fns.items() if isinstance(fns, dict) else fns:
            name = k.name_hint if isinstance(k, GlobalVar) else k
            if not isinstance(name, str) or not isinstance(v, Function):
                raise self.fail(i, "`functions` must map GlobalVar to relay.Function")
            functions[name] = v
        type_defs: dict[str, TypeData] = {}
        for k, v in tds.items() if isinstance(tds, dict) else tds:
            name = k.name if isinstance(k, _GTV) else k
            if not isinstance(name, str) or not isinstance(v, TypeData):
                raise self.fail(i, "`type_definitions` must map GlobalTypeVar to relay.TypeData")
            type_defs[name] = v
        return Module(functions, type_defs, self.source)


# the objects a virtual device may reach whose fields are all plain (or, for containers, the
# `data` entries): copied as they are
_META_LEAVES = frozenset({"runtime.String", "IntImm", "FloatImm", "TargetKind", "Array", "Map"})


class _DeviceTable:
    """The `#[metadata]` document of one load's virtual devices: each device and what it
    reaches copied out of the loaded graph (renumbered, pre-order), listed in one
    `VirtualDevice` table, as a parsed section would hold them."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        nodes: list[dict[str, Any]] = [
            {"type_key": ""}, {"type_key": "Map", "keys": ["VirtualDevice"], "data": [2]},
            {"type_key": "Array", "data": []}]
        self.source = MetaSource(nodes, [], {"VirtualDevice": 2}, 1)
        self.copied: dict[int, int] = {0: 0}
        self.refs: dict[int, MetaRef] = {}

    def ref(self, j: int) -> MetaRef:
        hit = self.refs.get(j)
        if hit is None:
            k = self.copy(j)
            table = self.source.nodes[2]["data"]
            table.append(k)
            nodes = self.source.nodes
            hit = MetaRef("VirtualDevice", len(table) - 1, dict(nodes[k].get("attrs", {})),
                          meta_fingerprint(nodes, k), self.source, k)
            self.refs[j] = hit
        return hit

    def copy(self, j: int) -> int:
        """Node j of the loaded graph in the new document (a JsonLoadError for an object
        whose fields aliaslog does not know, as it could not renumber them)."""
        hit = self.copied.get(j)
        if hit is not None:
            return hit
        r = self.reader
        tk = r.type_key(j)
        refs = _META_REF_FIELDS.get(tk)
        if refs is None and tk not in _META_LEAVES:
            raise r.fail(j, "a virtual device refers to this object, whose fields aliaslog "
                            "does not know")
        node = dict(r.nodes[j])
        k = len(self.source.nodes)
        self.copied[j] = k
        self.source.nodes.append(node)
        attrs = node.get("attrs")
        if isinstance(attrs, dict):
            node["attrs"] = {name: str(self.copy(r.index(j, name, v))) if name in (refs or ())
                             and isinstance(v, str) and v != "0" else v
                             for name, v in attrs.items()}
        if tk in ("Array", "Map"):
            data = node.get("data", [])
            if not isinstance(data, list) or not all(isinstance(x, int) for x in data):
                raise r.fail(j, "`data` is not a list of node indices")
            node["data"] = [self.copy(r.index(j, "data", str(x))) for x in data]
        return k


class _Pairs(list):  # type: ignore[type-arg]
    """A map with non-string keys, as (key, value) pairs."""


@dataclass(frozen=True)
class _Id:
    name: str


@dataclass(frozen=True)
class _GTV:
    name: str


_ANY = object()


def _attr_value(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_attr_value(x) for x in v)
    if v is _ANY:
        return None
    return v


def _parse_document(text: str, source_name: str) -> tuple[_Reader, int]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as ex:
        raise JsonLoadError(f"invalid JSON: {ex.msg}", Span(source_name, ex.lineno, ex.colno),
                            text) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise JsonLoadError(f"{source_name}: not a save_json document (no `nodes` list)")
    root = doc.get("root")
    if not isinstance(root, int) or not 0 <= root < len(doc["nodes"]):
        raise JsonLoadError(f"{source_name}: `root` is not a node index")
    arrays = doc.get("b64ndarrays", [])
    if not isinstance(arrays, list):
        raise JsonLoadError(f"{source_name}: `b64ndarrays` is not a list")
    for i, n in enumerate(doc["nodes"]):
        if not isinstance(n, dict):
            raise JsonLoadError(f"{source_name}: node {i} is not an object")
    return _Reader(doc, source_name), root


def load_json(text: str, source_name: str = "<json>") -> Module | Expr:
    """Rebuild a module or expression from save_json text; JsonLoadError names the bad node."""
    reader, root = _parse_document(text, source_name)
    out = reader.build(root)
    if not isinstance(out, (Module, Expr)):
        raise JsonLoadError(f"{source_name}: root node {root} ({reader.type_key(root)}) is not a "
                            "Relay module or expression")
    return out


def load_metadata(text: str, source_name: str = "<metadata>") -> dict[str, list[Any]]:
    """Decode a `#[metadata]` section: type key -> list of objects (e.g. relay.Constant)."""
    reader, root = _parse_document(text, source_name)
    out = reader.build(root)
    if not isinstance(out, dict) or not all(isinstance(v, list) for v in out.values()):
        raise JsonLoadError(f"{source_name}: the metadata root must map names to arrays")
    return out
