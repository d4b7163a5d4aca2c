"""Text fidelity to v0.19: metadata objects the project does not model (VirtualDevice) print back
as they came, virtual devices on parameters and functions, `span=` comments, and structural
equality's special cases (the empty tuple, projections, constructors, `_` annotations)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from aliaslog.cli import main
from extractor.diagnostics import Span
from extractor.relay.alpha import alpha_equal, assert_alpha_equal
from extractor.relay.ast import (
    Call,
    Constructor,
    Function,
    IncompleteType,
    Let,
    MetaRef,
    Module,
    Op,
    PatternConstructor,
    PatternVar,
    TensorType,
    Tuple,
    TupleGetItem,
    TypeCall,
    TypeVar,
    Var,
    const,
)
from extractor.relay.errors import ParseError
from extractor.relay.json_io import JsonLoadError, load_json, save_json
from extractor.relay.parser import parse, parse_expr, parse_file
from extractor.relay.printer import astext
from extractor.relay.typeinfer import infer_types

DEVICES = Path(__file__).parent / "data" / "relay" / "virtual_devices.relay"
HEADER = '#[version = "0.0.5"]\n'


def _section(text: str) -> dict:
    return json.loads(text.split("#[metadata]\n", 1)[1])


def _devices(mod: Module) -> list[tuple[str, int] | None]:
    fn = mod["main"]
    refs = [p.virtual_device for p in fn.params] + [fn.virtual_device]
    return [None if r is None else (r.type_key, r.index) for r in refs]


# ------------------------------------------------------------------------ metadata objects


def test_virtual_devices_are_kept_on_parameters_and_the_function():
    mod = parse_file(DEVICES)
    assert _devices(mod) == [("VirtualDevice", 1)] * 3 + [("VirtualDevice", 0),
                                                          ("VirtualDevice", 1)]
    assert mod["main"].attrs.items_ == ()  # promoted out of the attributes, as parser.cc does
    d0, d1 = mod["main"].params[3].virtual_device, mod["main"].params[0].virtual_device
    assert d0 != d1 and d0.fields["device_type_int"] == "1" and d1.fields["device_type_int"] == "2"


def test_metadata_objects_print_back_as_they_came():
    text = DEVICES.read_text()
    mod = parse_file(DEVICES)
    out = astext(mod)
    assert "%d {virtual_device=meta[VirtualDevice][0]}: Tensor[(5, 7), float32]" in out
    assert ", virtual_device=meta[VirtualDevice][1]) {" in out  # after the attributes
    assert _section(out)["nodes"] == _section(text)["nodes"]  # the same document, unchanged
    back = parse(out)
    assert_alpha_equal(back, mod)
    assert _devices(back) == _devices(mod)
    assert astext(back) == out  # printing is a fixed point
    x = [np.ones((5, 7), "float32")] * 4
    from extractor.relay.interpreter import evaluate

    np.testing.assert_allclose(evaluate(infer_types(back).module, x), np.ones((5, 7)))


def test_a_new_constant_beside_kept_objects_gets_its_own_table():
    mod = parse_file(DEVICES)
    fn = mod["main"]
    body = Call(Op("add"), (fn.body, const(np.full((5, 7), 2.0, "float32"))))
    out = astext(Module({"main": Function(fn.params, body, None, (), fn.attrs,
                                          virtual_device=fn.virtual_device)}))
    assert "meta[relay.Constant][1]" in out and "virtual_device=meta[VirtualDevice][1]" in out
    back = parse(out)
    outer = back["main"].body
    consts = [outer.args[1], outer.args[0].args[1]]
    assert [float(c.data.flat[0]) for c in consts] == [2.0, 1.0]


def test_commands_keep_virtual_devices(capsys, tmp_path):
    """`parse`, `grad` and `dce` used to crash with `cannot serialise MetaRef`; the passes
    keep the function's own device too (v0.19 rebuilds functions with WithFields)."""
    for argv in (["parse"], ["parse", "--types"], ["dce", "--mode", "purity"],
                 ["dce", "--mode", "assume-pure"], ["dce"], ["anf"], ["annotate"], ["grad"],
                 ["grad", "--training-step"], ["grad", "--mode", "first-order"]):
        assert main([*argv, str(DEVICES)]) == 0, argv
        out = capsys.readouterr().out
        assert "{virtual_device=meta[VirtualDevice][0]}" in out, argv
        assert "virtual_device=meta[VirtualDevice][1]) " in out, argv
        assert '"type_key": "VirtualDevice"' in out, argv
        path = tmp_path / "out.relay"
        path.write_text(out)
        parse_file(path)


def test_virtual_device_must_be_a_virtual_device():
    text = DEVICES.read_text().replace("%d {virtual_device=meta[VirtualDevice][0]}",
                                       "%d {virtual_device=3}")
    with pytest.raises(ParseError, match="must be a `meta\\[VirtualDevice\\]\\[i\\]`") as ei:
        parse(text, source_name="p.relay")
    assert ei.value.span is not None and ei.value.span.line == 5


def test_other_parameter_braces_are_ignored_as_in_v019():
    fn = parse_expr("fn (%x {foo=1, bar=2}: float32) { %x }")
    assert isinstance(fn, Function) and fn.params[0].virtual_device is None


def test_a_hand_made_meta_reference_is_refused_with_a_message():
    x = Var("x", TensorType((), "float32"), virtual_device=MetaRef("VirtualDevice", 0))
    with pytest.raises(ValueError, match="not read from a #\\[metadata\\] section"):
        astext(Function((x,), x))


def test_save_json_writes_the_objects_and_loads_back():
    mod = parse_file(DEVICES)
    doc = json.loads(save_json(mod))
    var_nodes = [n for n in doc["nodes"] if n.get("type_key") == "relay.Var"]
    devices = {doc["nodes"][int(n["attrs"]["virtual_device_"])]["type_key"] for n in var_nodes}
    assert devices == {"VirtualDevice"}
    back = load_json(json.dumps(doc))
    assert isinstance(back, Module)
    assert [p.name_hint for p in back["main"].params] == ["a", "b", "c", "d"]
    assert_alpha_equal(back, mod)  # the devices are compared by content
    # the load made its own section, numbered in the order it met the devices
    assert _devices(back) == [("VirtualDevice", 0)] * 3 + [("VirtualDevice", 1),
                                                          ("VirtualDevice", 0)]
    out = astext(back)
    assert "%d {virtual_device=meta[VirtualDevice][1]}: Tensor[(5, 7), float32]" in out
    kinds = [n["type_key"] for n in _section(out)["nodes"]]
    assert kinds.count("VirtualDevice") == 2 and "relay.Var" not in kinds  # only what it needs
    again = parse(out)
    assert_alpha_equal(again, mod)
    assert astext(again) == out
    assert_alpha_equal(load_json(save_json(back)), mod)


def _var_device(doc: dict, name: str) -> dict:
    """The VirtualDevice node of the relay.Var named name in a save_json document."""
    nodes = doc["nodes"]
    for n in nodes:
        if n.get("type_key") == "relay.Var":
            vid = nodes[int(n["attrs"]["vid"])]
            if nodes[int(vid["attrs"]["name_hint"])].get("repr_str") == name:
                return nodes[int(n["attrs"]["virtual_device_"])]
    raise AssertionError(name)


def test_an_unconstrained_virtual_device_loads_as_none():
    """TVM's save_json gives every expression a VirtualDevice; the fully unconstrained one
    (no device type, id, target or memory scope) is no device, as v0.19 prints it."""
    doc = json.loads(save_json(parse_file(DEVICES)))
    dev = _var_device(doc, "a")
    dev["attrs"].update(device_type_int="-1", virtual_device_id="-1")
    back = load_json(json.dumps(doc))
    # %a, %b, %c and the function share that node; %d keeps its own device
    assert _devices(back) == [None, None, None, ("VirtualDevice", 0), None]


def test_a_virtual_device_reaching_an_unknown_object_is_refused():
    doc = json.loads(save_json(parse_file(DEVICES)))
    dev = _var_device(doc, "a")
    doc["nodes"].append({"type_key": "SomethingElse", "attrs": {"x": "1"}})
    dev["attrs"]["target"] = str(len(doc["nodes"]) - 1)
    with pytest.raises(JsonLoadError, match=r"\(SomethingElse\): a virtual device refers to"):
        load_json(json.dumps(doc))


# ----------------------------------------------------------------------------------- spans


def test_spans_print_as_v019_and_read_back():
    mod = parse(HEADER + "def @main(%x: float32) {\n  %0 = (%x, 1f);\n  add(%0.0, %0.1)\n}\n",
                source_name="prog.relay")
    typed = infer_types(mod)
    out = astext(typed.module, typed.types, spans=True)
    assert "add(%1, %2) /* ty=float32 span=prog.relay:4:3 */" in out
    assert "%1 = %0.0 /* ty=float32 span=prog.relay:4:7 */;" in out
    # constants carry theirs too (parser.cc ParseAtomicExpr: Constant(number, next->span))
    assert ("%0 = (%x, 1f /* ty=float32 span=prog.relay:3:13 */) "
            "/* ty=(float32, float32) span=prog.relay:3:8 */;") in out
    assert "%x: float32 /* ty=float32 */" in out  # v0.19's parser gives vars no span
    assert "span=" not in astext(typed.module, typed.types)
    assert_alpha_equal(parse(out), typed.module)  # a dump reads back: spans are comments


def test_a_span_set_by_hand_is_printed():
    """v0.19's test_span: calls built with Span(SourceName("Add0"), ...)."""
    x = Var("x", TensorType((3, 2), "float32"))
    z = Call(Op("add"), (x, const(10e10)), span=Span("Add0", 0, 0))
    z = Call(Op("add"), (z, z), span=Span("Add1", 0, 0))
    txt = astext(Function((x,), z), spans=True)
    assert "span=Add0:0:0" in txt and "span=Add1:0:0" in txt


def test_cli_spans_flag(capsys, tmp_path):
    p = tmp_path / "sq.relay"
    p.write_text(HEADER + "def @main(%x: float32) {\n  multiply(%x, %x)\n}\n")
    assert main(["parse", "--spans", str(p)]) == 0
    assert f"multiply(%x, %x) /* span={p}:3:3 */" in capsys.readouterr().out
    assert main(["grad", "--spans", "--types", str(p)]) == 0
    assert "span=" in capsys.readouterr().out


# ------------------------------------------------------------------------ structural equality


def test_the_empty_tuple_is_not_a_graph_node():
    assert alpha_equal(parse_expr("%0 = (); let %x = %0; %0"), parse_expr("let %x = (); ()"))
    assert not alpha_equal(parse_expr("%0 = (1,); let %x = %0; %0"),
                           parse_expr("let %x = (1,); (1,)"))


def test_a_projection_is_not_a_graph_node():
    t = Var("t")
    shared = TupleGetItem(t, 0)
    a = Function((t,), Call(Op("add"), (shared, shared)))
    t2 = Var("t")
    b = Function((t2,), Call(Op("add"), (TupleGetItem(t2, 0), TupleGetItem(t2, 0))))
    assert alpha_equal(a, b)
    c = Function((t2,), Call(Op("add"), (TupleGetItem(t2, 0), TupleGetItem(t2, 1))))
    assert not alpha_equal(a, c)


def test_constructors_compare_by_name_and_field_types():
    a = TypeVar("A")
    cons = Constructor("Cons", (a, TypeCall("List", (a,))), "List", 0)
    retagged = Constructor("Cons", cons.inputs, "List", 7)
    other = Constructor("Cons", (a,), "List", 0)
    v1, v2 = Var("x"), Var("x")
    assert alpha_equal(Call(cons, (v1, v1)), Call(retagged, (v2, v2)))
    assert not alpha_equal(Call(cons, (v1,)), Call(other, (v2,)))
    p1 = PatternConstructor(cons, (PatternVar(Var("h")),))
    p2 = PatternConstructor(retagged, (PatternVar(Var("h")),))
    from extractor.relay.ast import Clause, Match

    y1, y2 = Var("y"), Var("y")
    assert alpha_equal(Match(y1, (Clause(p1, const(0)),)), Match(y2, (Clause(p2, const(0)),)))


def test_incomplete_annotation_reads_as_none():
    """v0.19's test_seq and test_incomplete_type expect `_` to equal no annotation."""
    unit = Tuple(())
    assert alpha_equal(parse_expr("let %_ : _ = (); ()"), Let(Var("_"), unit, unit))
    assert alpha_equal(Let(Var("_", IncompleteType()), unit, unit), Let(Var("_"), unit, unit))
    assert not alpha_equal(Let(Var("_", TensorType((), "float32")), unit, unit),
                           Let(Var("_"), unit, unit))


def test_virtual_devices_take_part_in_equality():
    mod = parse_file(DEVICES)
    fn = mod["main"]
    d0 = fn.params[3].virtual_device
    moved = tuple(Var(p.name_hint, p.type_annotation, virtual_device=d0) for p in fn.params)

    from extractor.relay.ast import ExprMutator

    class Rename(ExprMutator):
        def visit_Var(self, e: Var) -> Var:  # noqa: N802 - ExprMutator's protocol
            return moved[fn.params.index(e)] if e in fn.params else e

    other = Function(moved, Rename().visit(fn.body), None, (), fn.attrs,
                     virtual_device=fn.virtual_device)
    assert not alpha_equal(Module({"main": other}), mod)
    assert alpha_equal(parse_file(DEVICES), mod)
