"""A test's Python meta table written as the `#[metadata]` section TVM's printer would emit.

The harness writes TVM's `save_json` format itself (not through the project), so the project's
reader is what is being checked. VirtualDevices keep their device type, id and memory scope;
their Target is written as null (a target is a compilation object, and parsing and type
checking never look at it), which the check's detail says.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import numpy as np

from .static_meta import MetaEntry

_MAGIC = 0xDD5E40F096B4A13F
_CODES = {"i": 0, "u": 1, "f": 2, "b": 1}


def encode_ndarray(a: np.ndarray) -> str:
    """A DLTensor blob (runtime/ndarray.h SaveDLTensor), base64 as in b64ndarrays."""
    a = np.ascontiguousarray(a)
    bits = 1 if a.dtype == np.bool_ else a.dtype.itemsize * 8
    head = struct.pack("<QQiii", _MAGIC, 0, 1, 0, a.ndim)
    head += struct.pack("<BBH", _CODES[a.dtype.kind], bits, 1)
    head += struct.pack(f"<{a.ndim}q", *a.shape) if a.ndim else b""
    data = a.astype(np.uint8).tobytes() if a.dtype == np.bool_ else a.tobytes()
    return base64.b64encode(head + struct.pack("<q", len(data)) + data).decode()


def metadata_section(table: dict[str, list[MetaEntry]]) -> str:
    """`#[metadata]` plus the JSON of the Map<String, Array<Object>> the table stands for."""
    nodes: list[dict[str, Any]] = [{"type_key": ""}]
    arrays: list[str] = []

    def add(node: dict[str, Any]) -> int:
        nodes.append(node)
        return len(nodes) - 1

    def string(s: str) -> int:
        return add({"type_key": "runtime.String", "repr_str": s})

    root = add({"type_key": "Map", "keys": list(table), "data": []})
    for key in table:
        arr = add({"type_key": "Array", "data": []})
        nodes[root]["data"].append(arr)
        for e in table[key]:
            if e.type_key == "VirtualDevice":
                idx = add({"type_key": "VirtualDevice", "attrs": {
                    "device_type_int": str(e.fields["device_type_int"]),
                    "virtual_device_id": str(e.fields["virtual_device_id"]),
                    "target": "0",
                    "memory_scope": "0"}})
                nodes[idx]["attrs"]["memory_scope"] = str(string(e.fields["memory_scope"]))
            else:
                value = np.asarray(e.fields["value"], dtype=e.fields["dtype"])
                if e.fields["dtype"] is None:  # relay.const's int64/float64 -> 32-bit rule
                    value = value.astype({np.dtype("int64"): np.int32,
                                          np.dtype("float64"): np.float32}.get(value.dtype,
                                                                               value.dtype))
                arrays.append(encode_ndarray(value))
                idx = add({"type_key": "relay.Constant", "attrs": {
                    "_checked_type_": "0", "data": str(len(arrays) - 1), "span": "0",
                    "virtual_device_": "0"}})
            nodes[arr]["data"].append(idx)
    doc = {"root": root, "nodes": nodes, "b64ndarrays": arrays,
           "attrs": {"tvm_version": "0.19.0"}}
    return "#[metadata]\n" + json.dumps(doc, indent=2)


def dropped_targets(table: dict[str, list[MetaEntry]]) -> bool:
    """Whether a VirtualDevice of the table had a Target (written as null)."""
    return any(e.fields.get("has_target") for es in table.values() for e in es)
