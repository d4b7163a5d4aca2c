"""The Relax fuzzer's oracle (tests/support/relax_oracle.py) and generator (randmod_relax.py).

The oracle must see a clobbered value that only a read shows (the outputs are right), see no
hazard on modules that keep the in-place contract, and follow every call of the modules the
generator makes; the generator must make every shape in-place bugs come in, as loadable
TVMScript with a meaning.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

pytest.importorskip("tvm")

from tests.support import randmod_relax as rm  # noqa: E402
from tests.support.fuzz_relax import _candidates, features, judge, load, shrink  # noqa: E402
from tests.support.relax_oracle import OracleError, noalias_overlaps, observe  # noqa: E402


def _p(name: str, shape: list[int]) -> dict[str, Any]:
    return {"name": name, "shape": shape}


def _s(var: str, op: str, args: list[str], **attr: Any) -> dict[str, Any]:
    return {"var": var, "op": op, "args": args, "attr": attr}


def _zeros(var: str, shape: list[int]) -> dict[str, Any]:
    return _s(var, "const", [], shape=shape, values=[0.0] * rm._count(shape))


def _helper(write: bool) -> dict[str, Any]:
    body = [_s("v1", "inplace_packed", ["p0"], fn="inc_ip")] if write else \
        [_s("v1", "call_tir", ["p0"], kernel="add_one", plain=False)]
    return {"name": "h0", "kind": "helper", "params": [_p("p0", [2, 3])], "dataflow": False,
            "stmts": body, "outputs": ["v1"]}


def _zero_offset_of_clobbered(at: int) -> dict[str, Any]:
    """v1 at byte offset `at` of a storage, filled; v2, 12 bytes after it, filled over its
    tail; then ensure_zero_offset(v1), whose result nobody reads; v2 is returned."""
    return {
        "params": [_p("x0", [6])], "dataflow": False, "lowered": True, "stmts": [
            _s("v0", "storage", [], size=48),
            _s("v1", "alloc", ["v0"], offset=at, shape=[6]),
            _s("v2", "alloc", ["v0"], offset=at + 12, shape=[6]),
            _s("v3", "dps", ["x0", "v1"], kernel="add_one"),
            _s("v4", "dps", ["x0", "v2"], kernel="copy"),
            _s("v5", "zero_off", ["v1"])],
        "outputs": ["v2"]}


# A clobbered value only a read sees: each module's outputs are right on every run.
HIDDEN = {
    # v0 written in place, then multiplied by zeros: the product is right, the read is not
    "read-by-multiply-by-zeros": {
        "params": [_p("x0", [2, 3])], "dataflow": False, "stmts": [
            _s("v0", "call_tir", ["x0"], kernel="add_one", plain=False),
            _s("v1", "inplace", ["v0"], kernel="inc", plain=False),
            _zeros("z", [2, 3]), _s("v2", "binop", ["v0", "z"], fn="multiply")],
        "outputs": ["v1", "v2"]},
    # v0 written in place, then copied by a packed call whose result nothing uses
    "read-by-dropped-packed-call": {
        "params": [_p("x0", [2, 3])], "dataflow": False, "stmts": [
            _s("v0", "call_tir", ["x0"], kernel="add_one", plain=False),
            _s("v1", "inplace", ["v0"], kernel="inc", plain=False),
            _s("v2", "packed", ["v0"], fn="copy")],
        "outputs": ["v1"]},
    # a helper writes its argument; the caller reads the old name (times zeros)
    "helper-written-arg-read-again": {
        "params": [_p("x0", [2, 3])], "dataflow": True, "functions": [_helper(True)],
        "stmts": [_s("v0", "call_tir", ["x0"], kernel="add_one", plain=False),
                  _s("v2", "call", ["v0"], fn="h0"), _zeros("z", [2, 3]),
                  _s("v3", "binop", ["v0", "z"], fn="multiply")],
        "outputs": ["v2", "v3"]},
    # two tensors at overlapping offsets of one storage: writing v2 clobbers v1's tail, which a
    # kernel whose result nobody uses reads (the VM runs it; no output shows it, whatever the
    # inputs, infinite ones too)
    "lowered-overlapping-allocations": {
        "params": [_p("x0", [6])], "dataflow": False, "lowered": True, "stmts": [
            _s("v0", "storage", [], size=48),
            _s("v1", "alloc", ["v0"], offset=0, shape=[6]),
            _s("v2", "alloc", ["v0"], offset=12, shape=[6]),
            _s("v3", "dps", ["x0", "v1"], kernel="add_one"),
            _s("v4", "dps", ["x0", "v2"], kernel="copy"),
            _zeros("z", [6]), _s("v5", "binop", ["v1", "z"], fn="multiply")],
        "outputs": ["v2"]},
    # the same clobber, read by an ensure_zero_offset that copies (v1 at byte offset 12) into
    # a tensor nobody reads
    "lowered-copy-of-a-clobbered-tensor": _zero_offset_of_clobbered(12),
}

# Modules that keep the contract: nothing read ever differs.
CORRECT = {
    "helper-result-only": {
        "params": [_p("x0", [2, 3])], "dataflow": True, "functions": [_helper(True)],
        "stmts": [_s("v0", "call_tir", ["x0"], kernel="add_one", plain=False),
                  _s("v2", "call", ["v0"], fn="h0"),
                  _s("v3", "scalar", ["v2"], fn="multiply", k=2.0)],
        "outputs": ["v3"]},
    "lowered-disjoint-allocations": {
        "params": [_p("x0", [6])], "dataflow": False, "lowered": True, "stmts": [
            _s("v0", "storage", [], size=48),
            _s("v1", "alloc", ["v0"], offset=0, shape=[6]),
            _s("v2", "alloc", ["v0"], offset=24, shape=[6]),
            _s("v3", "dps", ["x0", "v1"], kernel="add_one"),
            _s("v4", "dps", ["v1", "v2"], kernel="copy"),
            _zeros("z", [6]), _s("v5", "binop", ["v1", "z"], fn="multiply")],
        "outputs": ["v2", "v5"]},
    "offset-views-disjoint": {
        "params": [_p("x0", [6])], "dataflow": True, "stmts": [
            _s("v0", "call_tir", ["x0"], kernel="add_one", plain=False),
            _s("v1", "view_off", ["v0"], shape=[2], offset=0),
            _s("v2", "view_off", ["v0"], shape=[2], offset=12),
            _s("v3", "inplace", ["v1"], kernel="inc", plain=False),
            _s("v4", "call_tir", ["v2"], kernel="scale2", plain=False)],
        "outputs": ["v3", "v4"]},
    # the same at byte offset 0: ensure_zero_offset returns v1 itself, reading nothing
    "lowered-tensor-at-offset-0-passed-on": _zero_offset_of_clobbered(0),
    # x * 0.0 is simplified by LegalizeOps: the kernel never reads the clobbered v0
    "clobbered-but-never-read": {
        "params": [_p("x0", [2, 3])], "dataflow": False, "stmts": [
            _s("v0", "call_tir", ["x0"], kernel="add_one", plain=False),
            _s("v1", "inplace", ["v0"], kernel="inc", plain=False),
            _s("v2", "scalar", ["v0"], fn="multiply", k=0.0)],
        "outputs": ["v1", "v2"]},
}

# DataflowUseInplaceCalls makes `v3 = v0 * 2` write v0, which closure v2 captured
CLOSURE = {
    "params": [_p("x0", [6])], "dataflow": True, "functions": [
        {"name": "c0", "kind": "closure", "ncap": 1, "params": [_p("p0", [6]), _p("p1", [6])],
         "dataflow": False, "stmts": [_s("v1", "binop", ["p1", "p0"], fn="add")],
         "outputs": ["v1"]}],
    "stmts": [_s("v0", "binop", ["x0", "x0"], fn="add"),
              _s("v2", "closure", ["v0"], fn="c0", inner=False),
              _s("v3", "scalar", ["v0"], fn="multiply", k=2.0),
              _s("v4", "invoke", ["v2", "x0"])],
    "outputs": ["v3", "v4"]}


def _module(spec: dict[str, Any]) -> Any:
    rm.register_packed()
    return load(rm.render(spec))


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_a_read_shows_a_clobber_the_outputs_hide(name: str):
    spec = HIDDEN[name]
    mod = _module(spec)
    assert observe(mod, spec, 1, reads=False) is None  # outputs and parameters agree
    hazard = observe(mod, spec, 1)
    assert hazard is not None and "read v" in hazard and "expected" in hazard, hazard


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_module_that_keeps_the_contract_has_no_hazard(name: str):
    spec = CORRECT[name]
    assert observe(_module(spec), spec, 1) is None


def test_a_closure_reads_the_capture_the_inplace_pass_clobbered():
    from tvm import relax

    mod = _module(CLOSURE)
    assert observe(mod, CLOSURE, 1) is None
    with contextlib.redirect_stderr(io.StringIO()):
        mod = relax.transform.DataflowUseInplaceCalls()(mod)
    hazard = observe(mod, CLOSURE, 1)
    assert hazard is not None and hazard.startswith("run 1: in c0,") and "read p1" in hazard


# a split whose second part the memory planner puts on the first row of the split tensor
SPLIT_OVER_INPUT = {
    "params": [{"name": "x0", "shape": [2, 3]}], "dataflow": True,
    "stmts": [_s("v1", "binop", ["x0", "x0"], fn="add"),
              _s("v2", "inplace_packed", ["v1"], fn="inc_ip"),
              _s("v3", "split", ["v2"], axis=0, sections=2),
              _s("v4", "get", ["v3"], index=0)],
    "outputs": ["v4"]}


def test_the_vm_witnesses_a_kernel_given_memory_overlapping_what_it_stores():
    """The planner puts the split's second part on bytes of its input; nothing else meets."""
    mod = _module(SPLIT_OVER_INPUT)
    assert set(noalias_overlaps(mod, SPLIT_OVER_INPUT, 1)) == {"split"}
    assert noalias_overlaps(_module(CORRECT[sorted(CORRECT)[0]]), CORRECT[sorted(CORRECT)[0]],
                            1) == {}


def test_the_oracle_follows_every_call_of_generated_modules():
    """Including local functions (lifted), helpers, closures, offsets and lowered modules."""
    from tvm import relax

    seen: set[str] = set()
    for seed in range(12):
        spec = rm.generate(seed)
        seen |= set(features(spec))
        mod = _module(spec)
        with contextlib.redirect_stderr(io.StringIO()):
            mod = relax.transform.LambdaLift()(mod)
        try:
            observe(mod, spec, seed)
        except OracleError:
            raise
        except Exception:  # noqa: BLE001, S112 - a module TVM cannot build is not the oracle's
            continue
    assert {"closure:local", "call", "view_off:offset", "lowered"} <= seen


def test_an_opaque_call_false_alarm_is_class_b():
    """mystery may return its argument: inc of its result could write v0 for all the analysis
    knows; described as what it is (it returns v0 itself, which nothing reads), the alarm goes."""
    spec = {"params": [_p("x0", [2, 3])], "dataflow": True, "stmts": [
        _s("v0", "call_tir", ["x0"], kernel="add_one", plain=False),
        _s("v1", "packed", ["v0"], fn="mystery"),
        _s("v2", "inplace", ["v1"], kernel="inc", plain=False),
        _s("v3", "call_tir", ["x0"], kernel="scale2", plain=False)],
        "outputs": ["v2", "v3"]}
    verdict = judge(spec, "as-written", 1)
    assert (verdict.status, verdict.alarm) == ("false-alarm", "b"), verdict


def test_an_opaque_call_alarm_left_with_a_true_overlap_is_class_b():
    """Seed 2900685, shrunk: opaque, mystery_ip may keep v5, whose storage the planner gives
    the split's second output (storage-reuse); described (it returns v5), what is left is the
    split's output overlapping its input, which the VM does give it: true, class (u)."""
    helper = {"name": "h2", "kind": "helper", "dataflow": False, "outputs": ["v10"],
              "params": [_p("p3", [3, 2]), _p("p4", [3, 2])], "stmts": [
                  _s("v5", "call_tir", ["p4"], kernel="scale2", plain=False),
                  _s("v6", "inplace_packed", ["v5"], fn="mystery_ip"),
                  _s("v8", "split", ["v6"], axis=1, sections=2),
                  _s("v10", "get", ["v8"], index=0)]}
    spec = {"params": [_p("x1", [3, 2])], "dataflow": True, "outputs": ["v11"],
            "stmts": [_s("v11", "call", ["x1", "x1"], fn="h2")], "functions": [helper]}
    verdict = judge(spec, "dce", 2900685)
    assert (verdict.status, verdict.alarm, verdict.errors) == (
        "false-alarm", "b", ["storage-reuse", "write-overlap"]), verdict


# ------------------------------------------------------------------------------ generator

NEW_SHAPES = {"closure:local", "closure:make_closure", "invoke", "invoke:by-name", "call",
              "helper-writes-param", "helper-returns-written", "closure-writes-capture",
              "closure-writes-param", "view_off:offset", "view_off:0", "permute:general",
              "permute:unit", "lowered", "alloc:overlap", "alloc:disjoint", "dps:sum2",
              "inplace_packed:inc_ip", "inplace_packed:acc_ip", "inplace_packed:mystery_ip",
              "opaque-call", "dataflow", "binding-block", "split", "split:part-written"}


def test_the_generator_makes_every_shape_as_json_with_a_meaning():
    seen: set[str] = set()
    rng = __import__("numpy").random.default_rng(0)
    for seed in range(300):
        spec = rm.generate(seed)
        assert json.loads(json.dumps(spec)) == spec
        assert rm.generate(seed) == spec  # deterministic
        seen |= set(features(spec))
        rm.evaluate(spec, rm.random_inputs(spec, rng))
    assert NEW_SHAPES <= seen, NEW_SHAPES - seen


def test_generated_modules_load():
    for seed in [*range(40), 1002872]:  # 1002872: a tuple of a value with itself, untyped
        _module(rm.generate(seed))


def test_shrink_deletes_statements_of_functions_and_unused_functions():
    spec = json.loads(json.dumps(HIDDEN["helper-written-arg-read-again"]))
    spec["functions"][0]["stmts"].insert(0, _s("v9", "call_tir", ["p0"], kernel="copy",
                                                plain=False))
    spec["functions"].append(_helper(False) | {"name": "h1"})
    sizes = {(len(c["functions"][0]["stmts"]) if c.get("functions") else 0,
              len(c.get("functions", []))) for c in _candidates(spec)}
    assert (1, 2) in sizes and (2, 1) in sizes  # a body statement gone; h1 gone

    def writes_in_place(s: dict) -> bool:
        return any(t["op"] == "inplace_packed" for f in s.get("functions", [])
                   for t in f["stmts"])

    small = shrink(spec, writes_in_place)
    assert len(small["functions"]) == 1 and len(small["functions"][0]["stmts"]) == 1
