"""save_json writes tvm.ir.save_json documents (relay-notes §6); load_json reads them back."""

from __future__ import annotations

import base64
import json
import struct

import numpy as np
import pytest

from extractor.relay.alpha import assert_alpha_equal
from extractor.relay.ast import (
    Attrs,
    Call,
    Clause,
    Constant,
    Constructor,
    Function,
    FuncType,
    GlobalVar,
    Let,
    Match,
    Module,
    Op,
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
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    const,
)
from extractor.relay.errors import JsonLoadError
from extractor.relay.json_io import (
    NDARRAY_MAGIC,
    decode_ndarray,
    encode_ndarray,
    load_json,
    load_metadata,
    save_json,
    save_metadata,
)
from extractor.relay.parser import parse

T = TensorType((5, 10), "float32")
A = TypeVar("A")
CONS = Constructor("Cons", (A, TypeCall("List", (A,))), "List", 0)
NIL = Constructor("Nil", (), "List", 1)
LIST = TypeData("List", (A,), (CONS, NIL))


def nodes_of(text: str) -> list[dict]:
    return json.loads(text)["nodes"]


def test_document_shape_and_let_fields() -> None:
    x, y = Var("x", T), Var("y")
    fn = Function((x,), Let(y, Call(Op("negative"), (x,)), y))
    doc = json.loads(save_json(fn))
    assert doc["root"] == 1 and doc["attrs"] == {"tvm_version": "0.19.0"}
    nodes = doc["nodes"]
    assert nodes[0] == {"type_key": ""}
    root = nodes[1]
    assert root["type_key"] == "relay.Function"
    assert list(root["attrs"]) == ["params", "body", "ret_type", "type_params", "attrs",
                                   "virtual_device_", "span", "_checked_type_"]
    assert root["attrs"]["ret_type"] == "0"
    let = nodes[int(root["attrs"]["body"])]
    assert let["type_key"] == "relay.Let"
    assert list(let["attrs"])[:3] == ["var", "value", "body"]
    var = nodes[int(let["attrs"]["var"])]
    assert var["type_key"] == "relay.Var"
    vid = nodes[int(var["attrs"]["vid"])]
    assert vid["type_key"] == "relay.Id"
    assert nodes[int(vid["attrs"]["name_hint"])] == {"type_key": "runtime.String",
                                                      "repr_str": "y"}
    call = nodes[int(let["attrs"]["value"])]
    assert nodes[int(call["attrs"]["op"])] == {"type_key": "Op", "repr_str": "negative"}
    assert call["attrs"]["attrs"] == "0"  # an op without an attrs type has null attrs
    # the let body is the same Var node as the let var: shared by index
    assert let["attrs"]["body"] == let["attrs"]["var"]
    # pre-order (NodeIndexer): a node, then its fields' subtrees in VisitAttrs order
    let_index = int(root["attrs"]["body"])
    assert let_index < int(let["attrs"]["var"]) < int(let["attrs"]["value"])


def test_tensor_type_shape_and_types() -> None:
    x = Var("x", TensorType((None, 3), "int64"))
    r = Var("r", RefType(FuncType((), TupleType(()))))
    nodes = nodes_of(save_json(Function((x, r), x)))
    tt = next(n for n in nodes if n["type_key"] == "relay.TensorType")
    assert tt["attrs"]["dtype"] == "int64"
    dims = [nodes[i] for i in nodes[int(tt["attrs"]["shape"])]["data"]]
    assert dims[0]["type_key"] == "tir.Any"
    assert dims[1] == {"type_key": "IntImm",
                       "attrs": {"dtype": "int32", "value": "3", "span": "0"}}
    keys = {n["type_key"] for n in nodes}
    assert {"relay.RefType", "FuncType", "TupleType"} <= keys


def test_op_attrs_written_in_full_with_pod_fields() -> None:
    x, w = Var("x"), Var("w")
    dense = Call(Op("nn.dense"), (x, w), Attrs.of("relay.attrs.DenseAttrs", units=20))
    bias = Call(Op("nn.bias_add"), (dense, w), Attrs.of("relay.attrs.BiasAddAttrs", axis=-1))
    red = Call(Op("sum"), (bias,), Attrs.of("relay.attrs.ReduceAttrs", axis=(-1,),
                                             keepdims=True))
    nodes = nodes_of(save_json(Function((x, w), red)))
    by_key = {n["type_key"]: n for n in nodes}
    d = by_key["relay.attrs.DenseAttrs"]["attrs"]
    assert d["out_dtype"] == ""
    assert nodes[int(d["units"])]["attrs"]["value"] == "20"
    assert by_key["relay.attrs.BiasAddAttrs"]["attrs"] == {"axis": "-1"}
    r = by_key["relay.attrs.ReduceAttrs"]["attrs"]
    assert r["keepdims"] == "1" and r["exclude"] == "0"
    axis = nodes[int(r["axis"])]
    assert axis["type_key"] == "Array"
    assert nodes[axis["data"][0]]["attrs"]["value"] == "-1"


def test_ndarray_blob_layout() -> None:
    blob = base64.b64decode(encode_ndarray(np.asarray([[1.5, 2.0]], dtype="float32")))
    magic, reserved, dev, dev_id, ndim = struct.unpack_from("<QQiii", blob)
    assert (magic, reserved, dev, dev_id, ndim) == (NDARRAY_MAGIC, 0, 1, 0, 2)
    assert struct.unpack_from("<BBH", blob, 28) == (2, 32, 1)
    assert struct.unpack_from("<qqq", blob, 32) == (1, 2, 8)
    assert np.frombuffer(blob[56:], "<f4").tolist() == [1.5, 2.0]
    b = base64.b64decode(encode_ndarray(np.asarray([True, False])))
    assert struct.unpack_from("<BBH", b, 28) == (1, 1, 1) and b[-2:] == b"\x01\x00"


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int8", "int32", "int64",
                                   "uint8", "bool"])
def test_ndarray_round_trip(dtype: str) -> None:
    a = (np.arange(6).reshape(2, 3) % 2).astype(dtype)
    back = decode_ndarray(encode_ndarray(a))
    assert back.dtype == a.dtype and back.shape == a.shape and back.tobytes() == a.tobytes()
    s = np.asarray(1, dtype=dtype)
    assert decode_ndarray(encode_ndarray(s)).shape == ()


def _sample_module() -> Module:
    x, w, b = Var("x", T), Var("w", TensorType((20, 10), "float32")), Var("b")
    h, t, q, r = Var("h"), Var("t"), Var("q"), Var("r", RefType(T))
    dense = Call(Op("nn.dense"), (x, w), Attrs.of("relay.attrs.DenseAttrs", units=20))
    shared = Call(Op("negative"), (dense,))
    m = Match(Call(CONS, (shared, Call(NIL, ()))), (
        Clause(PatternConstructor(CONS, (PatternVar(h), PatternWildcard())), h),
        Clause(PatternTuple((PatternVar(t), PatternWildcard())), t),
        Clause(PatternWildcard(), shared),
    ), complete=False)
    body = Let(b, Call(Op("add"), (shared, shared)),
               Let(r, RefCreate(const(np.ones((5, 10), "float32"))),
                   Tuple((m, TupleGetItem(Tuple((b, const(2, "int64"))), 1), RefRead(r),
                          RefWrite(r, b), Call(GlobalVar("f"), (const(True),)),
                          Function((q,), q, None, (), Attrs.of(Primitive=1))))))
    main = Function((x, w), body, None)
    f = Function((Var("z"),), const(0.5, "float16"), TensorType((), "float16"))
    return Module({"main": main, "f": f}, {"List": LIST})


def test_module_round_trip_preserves_structure_and_sharing() -> None:
    mod = _sample_module()
    text = save_json(mod)
    back = load_json(text, "sample.json")
    assert isinstance(back, Module) and back.source_name == "sample.json"
    assert_alpha_equal(mod, back)
    add = back["main"].body.value
    assert add.args[0] is add.args[1]
    doc = json.loads(text)
    keys = [n["type_key"] for n in doc["nodes"]]
    assert keys[1] == "IRModule"
    assert keys.count("Op") == len({n.get("repr_str") for n in doc["nodes"]
                                    if n["type_key"] == "Op"})  # each op written once
    assert keys.count("GlobalVar") == 2
    assert len(doc["b64ndarrays"]) == 4


def test_load_matches_parser() -> None:
    mod = _sample_module()
    from extractor.relay.printer import astext

    assert_alpha_equal(parse(astext(mod)), load_json(save_json(mod)))


def test_seed_program_round_trips(seed_path) -> None:  # noqa: ANN001
    mod = parse(seed_path.read_text())
    back = load_json(save_json(mod))
    assert_alpha_equal(mod, back)
    assert save_json(back) == save_json(mod)


def test_long_let_chain() -> None:
    x = Var("x")
    vs = [Var("v") for _ in range(12_000)]
    body: object = vs[-1]
    for i in reversed(range(len(vs))):
        body = Let(vs[i], Call(Op("negative"), (vs[i - 1] if i else x,)), body)  # type: ignore
    fn = Function((x,), body)  # type: ignore[arg-type]
    back = load_json(save_json(fn))
    assert_alpha_equal(fn, back)


def test_metadata_section() -> None:
    c = Constant(np.arange(3, dtype="int32"))
    table = load_metadata(save_metadata({"relay.Constant": [c, c]}))
    got = table["relay.Constant"]
    assert got[0] is got[1] and got[0].data.tolist() == [0, 1, 2]


# ------------------------------------------------------------------------------------ errors


def test_invalid_json_has_line_and_column() -> None:
    with pytest.raises(JsonLoadError) as info:
        load_json('{\n  "root": 1,\n  "nodes": [,]\n}', "bad.json")
    err = info.value
    assert err.span is not None and (err.span.line, err.span.col) == (3, 13)
    assert err.render().startswith("bad.json:3:13: json error: invalid JSON")


def _doc(nodes: list[dict], root: int = 1, arrays: list[str] | None = None) -> str:
    return json.dumps({"root": root, "nodes": [{"type_key": ""}, *nodes],
                       "b64ndarrays": arrays or [], "attrs": {"tvm_version": "0.19.0"}})


@pytest.mark.parametrize(
    ("nodes", "pattern"),
    [
        ([{"type_key": "relay.Frobnicate"}], r"node 1 \(relay.Frobnicate\): unknown type_key"),
        ([{"type_key": "relay.RefRead", "attrs": {}}], r"node 1 .*missing field `ref`"),
        ([{"type_key": "relay.RefRead", "attrs": {"ref": "9"}}], r"refers to missing node 9"),
        ([{"type_key": "relay.RefRead", "attrs": {"ref": "x"}}], r"not a node index"),
        ([{"type_key": "relay.RefRead", "attrs": {"ref": "1"}}], r"cycle"),
        ([{"type_key": "relay.RefRead", "attrs": {"ref": "2"}},
          {"type_key": "TupleType", "attrs": {"fields": "3"}}, {"type_key": "Array"}],
         r"field `ref` must be Expr, got TupleType"),
        ([{"type_key": "Op", "repr_str": "nn.densee"}], r"unknown operator `nn.densee`.*nn.dense"),
        ([{"type_key": "relay.Constant", "attrs": {"data": "0"}}], r"missing b64ndarray 0"),
        ([{"type_key": "runtime.String", "repr_str": "s"}], r"not a Relay module or expression"),
    ],
)
def test_malformed_documents_name_the_node(nodes, pattern) -> None:  # noqa: ANN001
    with pytest.raises(JsonLoadError, match=pattern):
        load_json(_doc(nodes))


def test_bad_ndarray_blob() -> None:
    raw = bytearray(base64.b64decode(encode_ndarray(np.zeros(2, "float32"))))
    raw[0] ^= 0xFF
    node = {"type_key": "relay.Constant", "attrs": {"data": "0"}}
    with pytest.raises(JsonLoadError, match=r"node 1 .*b64ndarray 0: bad NDArray magic"):
        load_json(_doc([node], arrays=[base64.b64encode(bytes(raw)).decode()]))
    with pytest.raises(JsonLoadError, match=r"truncated NDArray data"):
        short = base64.b64decode(encode_ndarray(np.zeros(2, "float32")))[:-4]
        load_json(_doc([node], arrays=[base64.b64encode(short).decode()]))


def test_not_a_document() -> None:
    with pytest.raises(JsonLoadError, match="no `nodes` list"):
        load_json("[1, 2]")
    with pytest.raises(JsonLoadError, match="`root` is not a node index"):
        load_json('{"root": 5, "nodes": [{"type_key": ""}]}')
