"""The Relax fuzzer in the test run: a few generated modules, and every saved counterexample.

Generated modules go through tests/support/fuzz_relax.py's worker processes (a TVM pass that
crashes takes a worker, not pytest). Each counterexample under tests/data/relax/regressions/ is a
module the fuzzer shrank while aliaslog missed its hazard (or failed on it): the VM must
still show the hazard, and `aliaslog check` must now report it.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("tvm")

from tests.support import randmod_relax as rm  # noqa: E402
from tests.support.fuzz_relax import (  # noqa: E402
    FAILURES,
    REGRESSIONS,
    VARIANTS,
    _folded_writes,
    _run_jobs,
    judge,
    load,
    save_regression,
    shrink,
)
from tests.support.regressions import RELAX_TEST, reproduce_command, spec_hash  # noqa: E402

SEEDS = range(8)
CASES = sorted(REGRESSIONS.glob("*.py"))


def test_generated_modules_have_no_missed_hazard():
    rows = _run_jobs(list(SEEDS), list(VARIANTS), jobs=2)
    verdicts = [(r["seed"], v, d) for r in rows for v, d in r["variants"].items()]
    assert len(verdicts) == len(SEEDS) * len(VARIANTS)
    bad = [(s, v, d["status"], d["hazard"] or d["detail"]) for s, v, d in verdicts
           if d["status"] in FAILURES]
    assert bad == []
    statuses = {d["status"] for _, _, d in verdicts}
    assert {"caught", "clean"} <= statuses  # the oracle sees hazards, and their absence


def test_a_stopped_campaign_resumes_from_its_verdict_log(tmp_path: Path):
    """Verdicts are logged as they come; a run with the same log judges only what is missing
    and returns every row, the logged verdicts as they were."""
    log = tmp_path / "verdicts.jsonl"
    first = _run_jobs([0], ["as-written"], jobs=1, log=log)
    logged = log.read_text().splitlines()
    assert len(logged) == 1
    log.write_text(logged[0] + "\n" + '{"seed": 1, "stm')  # a torn last line: dropped
    rows = _run_jobs([0, 1], ["as-written"], jobs=1, log=log)
    assert [r["seed"] for r in rows] == [0, 1]
    assert rows[0]["variants"] == first[0]["variants"]
    assert rows[1]["variants"]["as-written"]["status"] not in FAILURES
    assert len(log.read_text().splitlines()) == 2  # the torn line cut, one new verdict


def test_a_module_whose_constant_a_run_wrote_is_parsed_again():
    """Variants share one parse; a VM run or a compile-time kernel that wrote a constant's
    tensor in place (seed 2800976: DataflowUseInplaceCalls writes `c * c` into c) must not
    leak into the next variant: every constant is checked, however many the module has."""
    import numpy as np

    from tests.support.fuzz_relax import _constant_values, _load_once

    text = rm.render(rm.generate(2800976))
    first = _load_once(text)
    consts = _constant_values(first)
    assert len(consts) == text.count("R.const(")
    for tensor, value in consts:
        tensor.copyfrom(np.full(value.shape, 7.0, value.dtype))
    again = _load_once(text)
    assert again is not first
    assert all(np.array_equal(t.numpy(), v) for t, v in zip(
        [t for t, _ in _constant_values(again)], [v for _, v in consts], strict=True))
    assert _load_once(text) is again  # unwritten: the same parse


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_regression_is_fixed(path: Path):
    """A missed hazard is still a hazard on the VM and is now caught; a false alarm is now
    clean; a kernel given memory overlapping what it stores is reported and, when no read
    differs, counted as class (u); an internal error is gone (any verdict but a failure)."""
    ns = runpy.run_path(str(path))
    spec, variant = ns["SPEC"], ns["VARIANT"]
    assert rm.render(spec).split("@I.ir_module")[1] in path.read_text()  # file = its spec
    verdict = judge(spec, variant, ns["SEED"])
    if ns["FAILED_AS"] == "missed":
        assert verdict.status == "caught", verdict
    elif ns["FAILED_AS"] == "false-alarm":
        assert verdict.status == "clean", verdict
    elif ns["FAILED_AS"] == "noalias":  # a true finding no read shows: counted apart
        assert (verdict.status, verdict.alarm) == ("false-alarm", "u"), verdict
    else:
        assert verdict.status not in FAILURES, verdict


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_regression_names_its_hash_and_how_to_replay_it(path: Path):
    """A regression is named after what it pins; its docstring keeps the hash of its SPEC (its
    first name) and the command that replays it, which names the file as it is now."""
    ns = runpy.run_path(str(path))
    doc = ns["__doc__"]
    assert f"\nHash: {spec_hash(ns['SPEC'])} (of its SPEC)\n" in doc
    assert f"\nReproduce: {reproduce_command(RELAX_TEST, path)}\n" in doc


def test_save_regression_writes_a_replayable_file(tmp_path: Path):
    from tests.support.fuzz_relax import Verdict

    spec = rm.generate(1)
    verdict = Verdict("missed", hazard="run 1: output 0 differs")
    path = save_regression(spec, "inplace", 7, verdict, directory=tmp_path)
    assert path.name == f"missed_inplace_{spec_hash(spec)}.py"
    test_regression_names_its_hash_and_how_to_replay_it(path)
    ns = runpy.run_path(str(path))
    assert (ns["SPEC"], ns["VARIANT"], ns["SEED"], ns["FAILED_AS"]) == (spec, "inplace", 7,
                                                                        "missed")


def test_shrink_keeps_the_failure_and_drops_the_rest():
    spec = rm.generate(1)
    n = len(spec["stmts"])

    def uses_inplace(s: dict) -> bool:  # a stand-in failure: "has an in-place call"
        return any(t["op"] == "inplace" for t in s["stmts"])

    assert uses_inplace(spec)
    small = shrink(spec, uses_inplace)
    rm.types(small)
    assert uses_inplace(small) and len(small["stmts"]) < n


DEAD_READ = {"params": [{"name": "x1", "shape": [3, 2]}], "dataflow": True, "stmts": [
    {"var": "v1", "op": "scalar", "args": ["x1"], "attr": {"fn": "add", "k": 2.0}},
    {"var": "v2", "op": "inplace_packed", "args": ["v1"], "attr": {"fn": "inc_ip"}},
    {"var": "v3", "op": "flatten", "args": ["v1"], "attr": {}}],
    "outputs": ["v2"]}
DEAD_ADD = {"var": "v3", "op": "binop", "args": ["v1", "v1"], "attr": {"fn": "add"}}


def _held(index: int) -> dict:
    """DEAD_READ with the view held in a tuple beside x1, and field `index` projected out."""
    return {"stmts": [*DEAD_READ["stmts"], {"var": "v4", "op": "tuple", "args": ["x1", "v3"],
                                            "attr": {}},
                      {"var": "v5", "op": "get", "args": ["v4"], "attr": {"index": index}}],
            "outputs": ["v2", "v5"]}


def _passed(reads: str) -> dict:
    """DEAD_READ with the view given to a closure (capturing x1) whose function reads `reads`."""
    c1 = {"name": "c1", "kind": "closure", "params": [{"name": "p6", "shape": [6]},
                                                      {"name": "p7", "shape": [3, 2]}],
          "dataflow": False, "ncap": 1, "outputs": ["v8"],
          "stmts": [{"var": "v8", "op": "scalar", "args": [reads.replace("x1", "p7")],
                     "attr": {"fn": "add", "k": 1.0}}]}
    return {"stmts": [*DEAD_READ["stmts"],
                      {"var": "v4", "op": "closure", "args": ["x1"],
                       "attr": {"fn": "c1", "inner": False}},
                      {"var": "v5", "op": "invoke", "args": ["v4", "v3"], "attr": {}}],
            "outputs": ["v2", "v5"], "functions": [c1]}


WRITER_PUTS_BACK = {"params": [{"name": "x1", "shape": [6]}], "dataflow": True, "stmts": [
    {"var": "v0", "op": "call_tir", "args": ["x1"], "attr": {"kernel": "add_one", "plain": False}},
    {"var": "v1", "op": "packed", "args": ["x1", "v0"], "attr": {"fn": "writer"}},
    {"var": "v3", "op": "tuple", "args": ["v1", "v0"], "attr": {}},
    {"var": "v5", "op": "get", "args": ["v3"], "attr": {"index": 1}}], "outputs": ["v5"]}


def test_a_write_only_a_packed_functions_values_make_harmless_is_class_b():
    """writer stores x1 + 1 into v0, which holds x1 + 1 (add_one), and v0 is returned: no run
    differs, but only the values writer computes hide the hazard (no effect table says them);
    once it stores other values with the same effects, the VM shows it: class (b)."""
    verdict = judge(WRITER_PUTS_BACK, "as-written", 1)
    assert (verdict.status, verdict.alarm) == ("false-alarm", "b")
    with rm.skewed(0.5):
        assert judge(WRITER_PUTS_BACK, "as-written", 2).status == "caught"


@pytest.mark.parametrize("change, status", [
    ({}, "clean"),  # RewriteDataflowReshape makes the dead flatten a view: the VM reads nothing
    ({"outputs": ["v2", "v3"]}, "caught"),  # the view returned: its read of v1 is seen
    ({"dataflow": False}, "caught"),  # outside a dataflow block a copying kernel runs and reads
    ({"stmts": [*DEAD_READ["stmts"][:2], DEAD_ADD]}, "caught"),  # a dead add still runs
    (_held(0), "clean"),  # held in a tuple whose other field alone is used: still dead
    (_held(1), "caught"),  # its own field projected and returned: read
    (_passed("x1"), "clean"),  # given to a closure whose function never mentions it
    (_passed("p6"), "caught"),  # ... or reads it
])
def test_a_dead_binding_reads_unless_the_vm_computes_nothing_for_it(change: dict, status: str):
    """A read of a written tensor counts wherever TVM's VM makes it, used or not; only a copy
    relax.build turns into a view, and that nothing reads, reads nothing (oracle and check)."""
    assert judge({**DEAD_READ, **change}, "as-written", 1).status == status


CONST_WRITE = {"params": [{"name": "x0", "shape": [6]}], "dataflow": True, "stmts": [
    {"var": "v1", "op": "const", "args": [],
     "attr": {"shape": [6], "values": [-3.0, 1.0, -1.0, 2.0, 0.5, -1.0]}},
    {"var": "v2", "op": "scalar", "args": ["v1"], "attr": {"fn": "add", "k": 1.0}},
    {"var": "v3", "op": "scalar", "args": ["x0"], "attr": {"fn": "add", "k": 1.0}}],
    "outputs": ["v3"]}


@pytest.mark.parametrize("fn, status", [
    ("add", "caught"),  # the in-place add loads the constant: the next call sees it changed
    ("multiply", "clean"),  # TVM's kernel for `c * 0` stores zeros and never loads c
])
def test_a_constant_written_in_place_matters_once_something_loads_it(fn: str, status: str):
    """DataflowUseInplaceCalls writes a dead `c op k` into the constant c; the VM's next call
    reads the changed constant only where a kernel loads it (kernel_unread, read_base)."""
    stmts = [dict(s) for s in CONST_WRITE["stmts"]]
    stmts[1]["attr"] = {"fn": fn, "k": 0.0 if fn == "multiply" else 1.0}
    assert judge({**CONST_WRITE, "stmts": stmts}, "inplace", 1).status == status


def _folded_dirty(read_first: bool) -> dict:
    """A constant c that `dirty` (out = c + 1, then c = 0) is given: FoldConstant runs it once,
    at compile time; with read_first, `c + x0`, bound before it, reads c at run time."""
    const = {"var": "v1", "op": "const", "args": [],
             "attr": {"shape": [6], "values": [-3.0, 1.0, -1.0, 2.0, 0.5, -1.0]}}
    dirty = {"var": "v2", "op": "call_tir", "args": ["v1"],
             "attr": {"kernel": "dirty", "plain": False}}
    read = {"var": "v3", "op": "binop", "args": ["v1", "x0"], "attr": {"fn": "add"}}
    other = {"var": "v3", "op": "scalar", "args": ["x0"], "attr": {"fn": "add", "k": 1.0}}
    return {"params": [{"name": "x0", "shape": [6]}], "dataflow": True,
            "stmts": [const, read, dirty] if read_first else [const, dirty, other],
            "outputs": ["v3"]}


def test_what_fold_constant_folds_includes_ops_with_attribute_arguments():
    """strided_slice of a constant has shape and prim-value arguments too: FoldConstant folds
    it, before the folded `dirty` zeroes the constant, and the module judged as the pass ran
    it keeps it (it was dropped as never run: the module was not well-formed)."""
    spec = _folded_dirty(False)
    spec["stmts"].insert(1, {"var": "v4", "op": "slice", "args": ["v1"], "attr": {}})
    spec["outputs"] = ["v3", "v4"]
    assert "v4" in _folded_writes(load(rm.render(spec)))[0]
    assert judge(spec, "fold", 1).status == "clean"


@pytest.mark.parametrize("read_first, status", [
    (False, "clean"),  # nothing reads c after the one compile-time run: no next call of it
    (True, "caught"),  # c + x0 runs at run time, after the fold zeroed c, though bound before
])
def test_a_kernel_folded_at_compile_time_runs_once(read_first: bool, status: str):
    """What FoldConstant runs is checked as a module that runs once (`check --once main`),
    its folded bindings first: a constant the fold wrote is stale only for later reads."""
    assert judge(_folded_dirty(read_first), "fold", 1).status == status


PUT_BACK_CAPTURE = {  # seed 2900569, shrunk: c3 puts its capture back (0 + 0, NaN + NaN)
    "params": [{"name": "x1", "shape": [2, 3]}, {"name": "x2", "shape": [1, 6]}],
    "dataflow": True, "stmts": [
        {"var": "v1", "op": "binop", "args": ["x1", "x1"], "attr": {"fn": "subtract"}},
        {"var": "v9", "op": "closure", "args": ["v1"], "attr": {"fn": "c3", "inner": False}},
        {"var": "v10", "op": "invoke", "args": ["v9", "x2"], "attr": {}}],
    "outputs": ["v1"],
    "functions": [{"name": "c3", "kind": "closure", "ncap": 1, "dataflow": False, "params": [
        {"name": "p4", "shape": [1, 6]}, {"name": "p5", "shape": [2, 3]}], "stmts": [
        {"var": "v6", "op": "inplace", "args": ["p5", "p5"],
         "attr": {"kernel": "addto", "plain": True}},
        {"var": "v7", "op": "call_tir", "args": ["p5"], "attr": {"kernel": "add_one",
                                                                 "plain": False}},
        {"var": "v8", "op": "call_tir", "args": ["v7"], "attr": {"kernel": "dirty",
                                                                 "plain": False}}],
        "outputs": ["v6"]}]}


@pytest.mark.parametrize("capture, status", [
    ("subtract", "clean"),  # x - x: the closure's in-place add puts it back; its other write
    # is into memory of its own, which changes nothing the caller holds
    ("add", "caught"),  # x + x: the add doubles the capture the caller returns
])
def test_a_call_that_only_puts_back_what_the_caller_holds_changes_none_of_it(capture: str,
                                                                             status: str):
    """A call is judged per object: one whose writes into the caller's memory are all
    put-backs leaves it as it was, though the function writes memory of its own too."""
    stmts = [dict(s) for s in PUT_BACK_CAPTURE["stmts"]]
    stmts[0] = {**stmts[0], "attr": {"fn": capture}}
    assert judge({**PUT_BACK_CAPTURE, "stmts": stmts}, "as-written", 2900569).status == status


def _two_put_backs(capture: str, view: bool) -> dict:
    """Seed 2900662, shrunk: FoldConstant makes `v6 - v6` a constant, which a closure (adding a
    copy of its capture to it) and then main (adding it to itself) write in place."""
    c9 = [{"var": "v14", "op": "inplace", "args": ["p11", "v12" if view else "p11"],
           "attr": {"kernel": "addto", "plain": False}}]
    if view:
        c9.insert(0, {"var": "v12", "op": "reshape", "args": ["p11"], "attr": {"shape": [6]}})
    return {"params": [{"name": "x0", "shape": [3, 2]}], "dataflow": True, "stmts": [
        {"var": "v6", "op": "const", "args": [],
         "attr": {"shape": [6], "values": [-2.0, 2.0, -2.0, 3.0, -1.0, 3.0]}},
        {"var": "v8", "op": "binop", "args": ["v6", "v6"], "attr": {"fn": capture}},
        {"var": "v15", "op": "closure", "args": ["v8"], "attr": {"fn": "c9", "inner": False}},
        {"var": "v16", "op": "invoke", "args": ["v15", "v6"], "attr": {}},
        {"var": "v17", "op": "inplace", "args": ["v8", "v8"],
         "attr": {"kernel": "addto", "plain": False}},
        {"var": "v18", "op": "tuple", "args": ["v17", "v6", "v17"], "attr": {}}],
        "outputs": ["v16", "v18"],
        "functions": [{"name": "c9", "kind": "closure", "ncap": 1, "dataflow": False,
                       "params": [{"name": "p10", "shape": [6]}, {"name": "p11", "shape": [6]}],
                       "stmts": c9, "outputs": ["v14"]}]}


@pytest.mark.parametrize("capture, view, status", [
    ("subtract", False, "clean"),  # zeros: each write puts back what the other left
    ("subtract", True, "clean"),  # ... adding a copy of the constant, which nothing changes
    ("add", False, "caught"),  # 2 v6: the first write doubles it, the next call sees that
])
def test_a_constant_only_ever_put_back_keeps_its_bytes(capture: str, view: bool, status: str):
    """Put-backs into one constant by two writers: neither is the other's excuse alone, but
    every write storing what the constant holds, loading nothing a write changes, keeps it."""
    assert judge(_two_put_backs(capture, view), "fold", 2900662).status == status


def _put_back_then_helper(capture: str) -> dict:
    """Seed 2900988, shrunk: a closure's `dirty` zeroes its capture v2, then a helper adds v2
    to itself in place; each is a put-back when v2 is zeros, and the helper runs after."""
    return {"params": [{"name": "x0", "shape": [6]}], "dataflow": True, "stmts": [
        {"var": "v1", "op": "const", "args": [],
         "attr": {"shape": [3, 2], "values": [2.0, -3.0, -1.0, 1.0, 1.0, -2.0]}},
        {"var": "v2", "op": "binop", "args": ["v1", "v1"], "attr": {"fn": capture}},
        {"var": "v8", "op": "closure", "args": ["v2"], "attr": {"fn": "c3", "inner": False}},
        {"var": "v10", "op": "invoke", "args": ["v8", "x0"], "attr": {}},
        {"var": "v16", "op": "call", "args": ["v2"], "attr": {"fn": "h11"}}],
        "outputs": ["v16"],
        "functions": [
            {"name": "c3", "kind": "closure", "ncap": 1, "dataflow": True, "outputs": ["v7"],
             "params": [{"name": "p4", "shape": [6]}, {"name": "p5", "shape": [3, 2]}],
             "stmts": [{"var": "v7", "op": "call_tir", "args": ["p5"],
                        "attr": {"kernel": "dirty", "plain": False}}]},
            {"name": "h11", "kind": "helper", "dataflow": False, "outputs": ["p12"],
             "params": [{"name": "p12", "shape": [3, 2]}],
             "stmts": [{"var": "v14", "op": "inplace", "args": ["p12", "p12"],
                        "attr": {"kernel": "addto", "plain": False}}]}]}


@pytest.mark.parametrize("capture, variant, status", [
    ("subtract", "as-written", "clean"),  # zeros: the closure's write and the helper's, after
    ("add", "as-written", "caught"),  # 2 v1: the closure zeroes it, the helper reads zeros
])
def test_a_put_back_in_a_function_called_later_is_after_it(capture: str, variant: str,
                                                           status: str):
    """A put-back's inputs are changed by a write in a function every call of which runs
    after it (claim_order): no change it could have seen."""
    assert judge(_put_back_then_helper(capture), variant, 2900988).status == status


def test_a_kernel_putting_back_a_constant_while_filling_its_output_changes_no_constant():
    """Folded, v2 is a constant the closure captures; lowered, its `dirty` kernel stores zeros
    back into it and fills an output of its own: the one write into the constant puts back."""
    spec = _put_back_then_helper("subtract")
    spec = {**spec, "stmts": spec["stmts"][:-1], "outputs": ["v10"],
            "functions": spec["functions"][:1]}
    assert judge(spec, "fold", 2900988).status == "clean"


def _two_captures(use_p5: str) -> dict:
    """Seed 3000066, shrunk: a closure capturing v2 and x1 reads x1; v2, written in place
    before the invocation, it only names (`ident`) or, with use_p5 "copy", reads."""
    return {"params": [{"name": "x1", "shape": [1, 6]}, {"name": "x2", "shape": [2, 3]}],
            "dataflow": True, "stmts": [
                {"var": "v2", "op": "call_tir", "args": ["x2"],
                 "attr": {"kernel": "add_one", "plain": False}},
                {"var": "v10", "op": "closure", "args": ["v2", "x1"],
                 "attr": {"fn": "c3", "inner": False}},
                {"var": "v12", "op": "inplace", "args": ["v2"],
                 "attr": {"kernel": "inc", "plain": False}},
                {"var": "v22", "op": "invoke", "args": ["v10", "v12"], "attr": {}}],
            "outputs": ["v12", "v22"],
            "functions": [{"name": "c3", "kind": "closure", "ncap": 2, "dataflow": True,
                           "params": [{"name": "p4", "shape": [2, 3]},
                                      {"name": "p5", "shape": [2, 3]},
                                      {"name": "p6", "shape": [1, 6]}],
                           "stmts": [{"var": "v8", "op": "packed", "args": ["p5"],
                                      "attr": {"fn": use_p5}},
                                     {"var": "v9", "op": "binop", "args": ["p6", "p6"],
                                      "attr": {"fn": "subtract"}}],
                           "outputs": ["v9"]}]}


@pytest.mark.parametrize("use_p5, status", [
    ("ident", "clean"),  # the clobbered capture is only named: invoking reads x1 alone
    ("copy", "caught"),  # copied: the invocation reads the clobbered capture
])
def test_invoking_a_closure_reads_only_the_captures_its_function_touches(use_p5: str,
                                                                          status: str):
    """Capture by capture: a closure whose function reads one capture and only names another
    reads nothing of the second when invoked (capture_read)."""
    assert judge(_two_captures(use_p5), "as-written", 3000066).status == status


def test_a_write_into_a_constant_shows_in_an_equal_constant_returned_after_it():
    """Seed 3000381: FoldConstant makes v4 = 2 v0 and v6 = v4[:] two equal constants, which
    the VM keeps as one tensor; `writer` then writes v4's, and v6 returned after it shows the
    write. A constant literal after a write is its own value (not the write's result, as a
    lowered in-place kernel's argument is)."""
    spec = {"params": [{"name": "x1", "shape": [1, 6]}], "dataflow": True, "stmts": [
        {"var": "v0", "op": "const", "args": [],
         "attr": {"shape": [1, 6], "values": [1.0, 0.0, -2.0, 2.0, -3.0, 1.0]}},
        {"var": "v4", "op": "call_tir", "args": ["v0"],
         "attr": {"kernel": "scale2", "plain": False}},
        {"var": "v5", "op": "packed", "args": ["v0", "v4"], "attr": {"fn": "writer"}},
        {"var": "v6", "op": "slice", "args": ["v4"], "attr": {}}],
        "outputs": ["v5", "v6"]}
    assert judge(spec, "fold", 3000381).status == "caught"


UNUSED_CAPTURE = {"params": [{"name": "x0", "shape": [6]}], "dataflow": False, "stmts": [
    {"var": "v1", "op": "scalar", "args": ["x0"], "attr": {"fn": "add", "k": 2.0}},
    {"var": "v2", "op": "closure", "args": ["v1"], "attr": {"fn": "c1", "inner": False}},
    {"var": "v3", "op": "inplace_packed", "args": ["v1"], "attr": {"fn": "inc_ip"}},
    {"var": "v4", "op": "invoke", "args": ["v2", "x0"], "attr": {}}],
    "outputs": ["v3", "v4"],
    "functions": [{"name": "c1", "kind": "closure", "params": [
        {"name": "p2", "shape": [6]}, {"name": "p3", "shape": [6]}], "dataflow": False,
        "stmts": [{"var": "v5", "op": "scalar", "args": ["p2"], "attr": {"fn": "add", "k": 1.0}}],
        "outputs": ["v5"], "ncap": 1}]}


@pytest.mark.parametrize("uses, status", [
    ("p2", "clean"),  # the closure's function never mentions its capture p3
    ("p3", "caught"),  # it reads the capture, clobbered before the invocation
])
def test_invoking_a_closure_reads_the_captures_its_function_mentions(uses: str, status: str):
    """A capture the function never mentions is bound to a parameter nothing reads: a write
    into it before the invocation is no hazard there (unused_capture)."""
    c1 = {**UNUSED_CAPTURE["functions"][0]}
    c1["stmts"] = [{**c1["stmts"][0], "args": [uses]}]
    assert judge({**UNUSED_CAPTURE, "functions": [c1]}, "as-written", 1).status == status


TUPLE_OF_OLD_AND_NEW = {"params": [{"name": "x2", "shape": [3, 2]}], "dataflow": True, "stmts": [
    {"var": "v0", "op": "call_tir", "args": ["x2"], "attr": {"kernel": "scale2", "plain": False}},
    {"var": "v1", "op": "inplace_packed", "args": ["v0"], "attr": {"fn": "inc_ip"}},
    {"var": "v3", "op": "tuple", "args": ["v1", "v0"], "attr": {}},
    {"var": "v4", "op": "get", "args": ["v3"], "attr": {"index": 0}}],
    "outputs": ["v4"]}


@pytest.mark.parametrize("index, status", [
    (0, "clean"),  # field 0 is v1, the write's result: the new value
    (1, "caught"),  # field 1 is v0, the name the write clobbered
])
def test_a_field_of_a_tuple_literal_names_the_variable_it_holds(index: int, status: str):
    """A tuple made after an in-place write holding both the written tensor's old name and the
    write's result: reading the field that holds the result reads no older name."""
    stmts = [*TUPLE_OF_OLD_AND_NEW["stmts"][:3],
             {**TUPLE_OF_OLD_AND_NEW["stmts"][3], "attr": {"index": index}}]
    assert judge({**TUPLE_OF_OLD_AND_NEW, "stmts": stmts}, "as-written", 1).status == status


PUT_BACK = {"params": [{"name": "x0", "shape": [2, 3]}], "dataflow": True, "stmts": [
    {"var": "v1", "op": "scalar", "args": ["x0"], "attr": {"fn": "add", "k": 2.0}},
    {"var": "v2", "op": "tuple", "args": ["x0", "v1"], "attr": {}},
    {"var": "v3", "op": "scalar", "args": ["v1"], "attr": {"fn": "add", "k": 0.0}}],
    "outputs": ["v2"]}


@pytest.mark.parametrize("k, status", [
    (0.0, "clean"),  # TE makes the in-place `v1 + 0` the kernel `a[i] = a[i]`: nothing changes
    (1.0, "caught"),  # `v1 + 1` in place changes v1, which the returned tuple holds
])
def test_a_kernel_that_puts_back_what_it_loads_writes_nothing(k: float, status: str):
    """DataflowUseInplaceCalls writes the dead `v1 + k` into v1; a store of the value just
    loaded from that very element is no write (kernel_access._puts_back)."""
    stmts = [*PUT_BACK["stmts"][:2], {**PUT_BACK["stmts"][2], "attr": {"fn": "add", "k": k}}]
    assert judge({**PUT_BACK, "stmts": stmts}, "inplace", 1).status == status


def _overlapping_writer(use_result: bool, returns: str) -> dict:
    """Seed 3000734, shrunk: a closure gives `writer` one tensor as source and destination;
    the closure returns `returns`, which main reads only when use_result."""
    return {"params": [{"name": "x1", "shape": [1, 6]}], "dataflow": True, "stmts": [
        {"var": "v8", "op": "closure", "args": ["x1"], "attr": {"fn": "c1", "inner": False}},
        {"var": "v9", "op": "invoke", "args": ["v8", "x1"], "attr": {}},
        {"var": "v10", "op": "call_tir", "args": ["x1"],
         "attr": {"kernel": "scale2", "plain": False}}],
        "outputs": ["v10", "v9"] if use_result else ["v10"],
        "functions": [{"name": "c1", "kind": "closure", "ncap": 1, "dataflow": False,
                       "params": [{"name": "p2", "shape": [1, 6]},
                                  {"name": "p3", "shape": [1, 6]}],
                       "stmts": [{"var": "v5", "op": "call_tir", "args": ["p3"],
                                  "attr": {"kernel": "scale2", "plain": False}},
                                 {"var": "v7", "op": "packed", "args": ["v5", "v5"],
                                  "attr": {"fn": "writer"}}],
                       "outputs": [returns]}]}


@pytest.mark.parametrize("use_result, returns, status", [
    (False, "v7", "clean"),  # nothing reads what the overlapped call computed
    (True, "v7", "caught"),  # main returns its result, computed from the written source
    (True, "v5", "caught"),  # main returns the destination it wrote
])
def test_an_overlapped_packed_call_matters_only_where_its_work_is_read(use_result: bool,
                                                                      returns: str,
                                                                      status: str):
    """`write-overlap` needs a read of the call's result, or of the memory it writes, after it;
    a closure's result is read only where an invocation's variable is live."""
    spec = _overlapping_writer(use_result, returns)
    assert judge(spec, "as-written", 3000734).status == status


def _first_of(fields: list[str]) -> dict:
    """Seed 3100514, shrunk: helper h14 doubles its argument v8 in place and returns it (v19);
    `first` returns field 0 of a tuple literal of `fields`."""
    return {"params": [{"name": "x2", "shape": [3, 2]}], "dataflow": False, "stmts": [
        {"var": "v2", "op": "view_off", "args": ["x2"], "attr": {"shape": [3], "offset": 0}},
        {"var": "v7", "op": "split", "args": ["v2"], "attr": {"axis": 0, "sections": 3}},
        {"var": "v8", "op": "get", "args": ["v7"], "attr": {"index": 0}},
        {"var": "v19", "op": "call", "args": ["v2", "v8"], "attr": {"fn": "h14"}},
        {"var": "v25", "op": "tuple", "args": fields, "attr": {}},
        {"var": "v26", "op": "packed", "args": ["v25"], "attr": {"fn": "first"}}],
        "outputs": ["v26"],
        "functions": [{"name": "h14", "kind": "helper", "dataflow": True,
                       "params": [{"name": "p15", "shape": [3]}, {"name": "p16", "shape": [1]}],
                       "stmts": [{"var": "v18", "op": "inplace_packed", "args": ["p16", "p16"],
                                  "attr": {"fn": "acc_ip"}}],
                       "outputs": ["v18"]}]}


@pytest.mark.parametrize("fields, status", [
    (["v19", "v8"], "clean"),  # `first` returns v19, the helper's result: the new value
    (["v8", "v19"], "caught"),  # it returns v8, the name the helper's write clobbered
])
def test_a_result_shape_into_a_tuple_literal_names_the_variable_it_holds(fields: list[str],
                                                                         status: str):
    """`result=0.0` of a tuple literal names the variable at field 0, as a projection does."""
    assert judge(_first_of(fields), "as-written", 3100514).status == status


# v1 and v2: tensors at the same bytes of storage v0
SAME_BYTES = [{"var": "v0", "op": "storage", "args": [], "attr": {"size": 48}},
              *({"var": v, "op": "alloc", "args": ["v0"], "attr": {"offset": 24, "shape": [1, 6]}}
                for v in ("v1", "v2"))]


def _viewed_and_scaled(src: str, storage: str, offset: int) -> list[dict]:
    """v9, a (2, 3) view of src, read by `scale2` into v13, allocated in storage at offset."""
    return [{"var": "v9", "op": "view_off", "args": [src], "attr": {"shape": [2, 3], "offset": 0}},
            {"var": "v13", "op": "alloc", "args": [storage],
             "attr": {"offset": offset, "shape": [2, 3]}},
            {"var": "v17", "op": "dps", "args": ["v9", "v13"], "attr": {"kernel": "scale2"}}]


def _two_tensors_one_storage(fill_first: bool) -> dict:
    """Seed 3100129, shrunk: v1 and v2 at the same bytes of storage v0; `sum2` fills v2 and
    `dirty` fills v1, in either order; v9 is a view of v1 made after both, read by `scale2`."""
    fill_v2 = {"var": "v5", "op": "dps", "args": ["x2", "x2", "v2"], "attr": {"kernel": "sum2"}}
    fill_v1 = {"var": "v8", "op": "dps", "args": ["v7", "v1"], "attr": {"kernel": "dirty"}}
    return {"params": [{"name": "x2", "shape": [1, 6]}], "dataflow": False, "lowered": True,
            "stmts": [
                *SAME_BYTES,
                {"var": "v3", "op": "storage", "args": [], "attr": {"size": 72}},
                {"var": "v7", "op": "call_tir", "args": ["x2"],
                 "attr": {"kernel": "add_one", "plain": False}},
                *([fill_v1, fill_v2] if fill_first else [fill_v2, fill_v1]),
                *_viewed_and_scaled("v1", "v3", 24)],
            "outputs": ["v13"]}


@pytest.mark.parametrize("fill_first, status", [
    (False, "clean"),  # v1 held nothing when sum2 wrote its bytes: v9 sees dirty's values
    (True, "caught"),  # v1 was filled first: sum2 clobbers it, and v9 reads the clobbered bytes
])
def test_a_view_made_later_of_a_tensor_empty_at_the_write_names_what_fills_it(fill_first: bool,
                                                                               status: str):
    """A name older than a write whose memory held nothing yet there (an allocation nothing
    had filled) makes no view made after the write stale."""
    assert judge(_two_tensors_one_storage(fill_first), "as-written", 3100129).status == status


def _refilled_view(refill: bool) -> dict:
    """v4, a view of the filled v1, shares its bytes with v2, which `sum2` fills; `copy` then
    stores every element of v4 again (or not); v9 is a view of v4 made after, read by scale2."""
    return {"params": [{"name": "x2", "shape": [1, 6]}], "dataflow": False, "lowered": True,
            "stmts": [
                *SAME_BYTES,
                {"var": "v3", "op": "dps", "args": ["x2", "v1"], "attr": {"kernel": "add_one"}},
                {"var": "v4", "op": "view_off", "args": ["v1"],
                 "attr": {"shape": [1, 6], "offset": 0}},
                {"var": "v5", "op": "dps", "args": ["x2", "x2", "v2"], "attr": {"kernel": "sum2"}},
                *([{"var": "v6", "op": "dps", "args": ["x2", "v4"], "attr": {"kernel": "copy"}}]
                  if refill else []),
                {"var": "v10", "op": "storage", "args": [], "attr": {"size": 24}},
                *_viewed_and_scaled("v4", "v10", 0)],
            "outputs": ["v13"]}


@pytest.mark.parametrize("refill, status", [
    (True, "clean"),  # copy stored every element of v4 after sum2: v9 sees copy's values
    (False, "caught"),  # v9 reads v1's bytes, which sum2 clobbered
])
def test_a_view_made_after_a_kernel_refilled_its_source_names_what_it_stored(refill: bool,
                                                                             status: str):
    """A name older than a write that a kernel then fills again, every element, names what the
    kernel stored: a view made of it after that is no stale name."""
    assert judge(_refilled_view(refill), "as-written", 3100129).status == status


MERGED_COPIES = {"params": [{"name": "x0", "shape": [6]}], "dataflow": False, "lowered": True,
                 "stmts": [
                     {"var": "v0", "op": "storage", "args": [], "attr": {"size": 48}},
                     {"var": "v3", "op": "alloc", "args": ["v0"],
                      "attr": {"offset": 24, "shape": [6]}},
                     {"var": "v5", "op": "dps", "args": ["x0", "v3"],
                      "attr": {"kernel": "add_one"}},
                     {"var": "v11", "op": "zero_off", "args": ["v3"], "attr": {}},
                     {"var": "v15", "op": "zero_off", "args": ["v3"], "attr": {}},
                     {"var": "v16", "op": "dps", "args": ["x0", "v15"],
                      "attr": {"kernel": "copy"}}],
                 "outputs": ["v11"]}


@pytest.mark.parametrize("variant, status", [
    ("as-written", "clean"),  # two copies of v3 (at byte 24): `copy` fills v15's, not v11's
    ("cse", "pass-changed"),  # CSE makes v15 v11: the module it made returns x0, as it says
])
def test_a_pass_that_changes_what_a_module_computes_is_no_miss_of_check(variant: str,
                                                                         status: str):
    """Seed 3100091, shrunk: EliminateCommonSubexpr merges two `ensure_zero_offset` copies of
    which a kernel then fills one. The module it makes agrees with its own value semantics
    (own_spec): no read there differs, and `check` has nothing to find; TVM's pass changed
    the result."""
    assert judge(MERGED_COPIES, variant, 3100091).status == status


def test_own_spec_reads_a_renaming_pass_back_and_nothing_else():
    """CSE's output is the spec with v15 gone and its use renamed; the module as written is no
    rewrite (None), and neither is one whose statements a pass replaced by constants."""
    import tvm
    from tvm import relax

    from tests.support.own_spec import own_spec

    rm.register_packed()
    mod = load(rm.render(MERGED_COPIES))
    assert own_spec(MERGED_COPIES, mod) is None
    with tvm.target.Target("llvm"):
        own = own_spec(MERGED_COPIES, relax.transform.EliminateCommonSubexpr()(mod))
    assert own is not None
    assert [s["var"] for s in own["stmts"]] == ["v0", "v3", "v5", "v11", "v16"]
    assert own["stmts"][-1]["args"] == ["x0", "v11"]


def _zeroed_twice(k: float) -> dict:
    """Seed 3100647, shrunk: `dirty` zeroes v0 = x0 * k (and fills its own output), twice;
    v8, a view of v0 made between the calls, is returned."""
    dirty = {"op": "call_tir", "args": ["v0"], "attr": {"kernel": "dirty", "plain": False}}
    return {"params": [{"name": "x0", "shape": [1, 6]}], "dataflow": True, "stmts": [
        {"var": "v0", "op": "scalar", "args": ["x0"], "attr": {"fn": "multiply", "k": k}},
        {"var": "v7", **dirty},
        {"var": "v8", "op": "view_off", "args": ["v0"], "attr": {"shape": [1, 6], "offset": 0}},
        {"var": "v10", **dirty}],
        "outputs": ["v8"]}


@pytest.mark.parametrize("k, status", [
    (0.0, "clean"),  # v0 is zeros: each call puts back what it holds, while filling its output
    (1.0, "caught"),  # the first call zeroes x0's copy, which v8 returns
])
def test_a_kernel_that_put_back_its_input_is_no_change_of_it_for_a_later_one(k: float,
                                                                            status: str):
    """A write that puts back one argument while filling another is excused for that
    argument (excused_on) when a later put-back asks whether its memory kept its value."""
    assert judge(_zeroed_twice(k), "as-written", 3100647).status == status


def _writer_on_capture(k: float, invocations: int) -> dict:
    """Seed 3100246, shrunk: closure c6 gives `writer` its capture v0 as source and
    destination and returns its result times k; main invokes it `invocations` times."""
    calls = [{"var": f"v1{3 + n}", "op": "invoke", "args": ["v12", "v2"], "attr": {}}
             for n in range(invocations)]
    return {"params": [{"name": "x1", "shape": [1, 6]}], "dataflow": True, "stmts": [
        {"var": "v0", "op": "scalar", "args": ["x1"], "attr": {"fn": "multiply", "k": 2.0}},
        {"var": "v2", "op": "const", "args": [],
         "attr": {"shape": [1, 6], "values": [-1.0, -2.0, -2.0, -3.0, -3.0, -3.0]}},
        {"var": "v12", "op": "closure", "args": ["v0"], "attr": {"fn": "c6", "inner": False}},
        *calls],
        "outputs": [calls[-1]["var"]],
        "functions": [{"name": "c6", "kind": "closure", "ncap": 1, "dataflow": False,
                       "params": [{"name": "p7", "shape": [1, 6]},
                                  {"name": "p8", "shape": [1, 6]}],
                       "stmts": [{"var": "v9", "op": "packed", "args": ["p8", "p8"],
                                  "attr": {"fn": "writer"}},
                                 {"var": "v10", "op": "scalar", "args": ["v9"],
                                  "attr": {"fn": "multiply", "k": k}}],
                       "outputs": ["v10"]}]}


@pytest.mark.parametrize("k, invocations, status", [
    (0.0, 1, "clean"),  # `v9 * 0` loads nothing of v9, and the capture is not read after
    (1.0, 1, "caught"),  # the result, computed from the written source, is returned
    (0.0, 2, "caught"),  # the second invocation reads the capture the first one wrote
])
def test_an_overlapped_call_in_a_closure_is_seen_by_a_later_invocation(k: float,
                                                                       invocations: int,
                                                                       status: str):
    """The invocation that runs a write reads its captures before it; a later one reads what
    the write left (call_seen: first_call_of)."""
    assert judge(_writer_on_capture(k, invocations), "as-written", 3100246).status == status


def _local_function_of(k: float) -> dict:
    """Seed 3100457, shrunk: local function v22 computes its free variable v11 times k; v11
    is incremented in place before v22 is invoked."""
    return {"params": [{"name": "x2", "shape": [1, 6]}], "dataflow": False, "stmts": [
        {"var": "v2", "op": "const", "args": [],
         "attr": {"shape": [6], "values": [-3.0, -3.0, 2.0, -1.0, 1.0, -3.0]}},
        {"var": "v11", "op": "packed", "args": ["v2"], "attr": {"fn": "copy"}},
        {"var": "v22", "op": "closure", "args": ["v11"], "attr": {"fn": "c16", "inner": True}},
        {"var": "v23", "op": "inplace_packed", "args": ["v11"], "attr": {"fn": "inc_ip"}},
        {"var": "v24", "op": "invoke", "args": ["v22", "v23"], "attr": {}}],
        "outputs": ["v24"],
        "functions": [{"name": "c16", "kind": "closure", "ncap": 1, "dataflow": True,
                       "params": [{"name": "p17", "shape": [6]}, {"name": "p18", "shape": [6]}],
                       "stmts": [{"var": "v19", "op": "scalar", "args": ["p18"],
                                  "attr": {"fn": "multiply", "k": k}}],
                       "outputs": ["v19"]}]}


@pytest.mark.parametrize("k, status", [
    (0.0, "clean"),  # `v11 * 0` loads nothing of v11: invoking v22 reads none of it
    (1.0, "caught"),  # v22 reads v11, incremented in place before the invocation
])
def test_invoking_a_local_function_reads_the_free_variables_its_body_touches(k: float,
                                                                            status: str):
    """A local function's invocation reads only what the free variables its body touches
    hold (free_touched), as a closure's reads only its touched captures."""
    assert judge(_local_function_of(k), "as-written", 3100457).status == status


def _added_to_a_multiple(first: str, k: float) -> dict:
    """Seed 3100827, shrunk: v9 = x2 `first` x2; `addto` adds v19 = v9 * k into v9 in place."""
    return {"params": [{"name": "x2", "shape": [2, 3]}], "dataflow": True, "stmts": [
        {"var": "v9", "op": "binop", "args": ["x2", "x2"], "attr": {"fn": first}},
        {"var": "v19", "op": "scalar", "args": ["v9"], "attr": {"fn": "multiply", "k": k}},
        {"var": "v20", "op": "inplace", "args": ["v9", "v19"],
         "attr": {"kernel": "addto", "plain": True}}],
        "outputs": ["v9"]}


@pytest.mark.parametrize("first, k, status", [
    ("subtract", 1.0, "clean"),  # v9 is 0 or NaN, and v9 * 1 is v9: v9 + v9 keeps each
    ("subtract", 2.0, "clean"),  # v9 + 2 v9, element by element, keeps 0 and NaN too
    ("add", 2.0, "caught"),  # v9 = 2 x2 becomes 6 x2, and v9 is returned
])
def test_an_operand_that_is_a_function_of_the_written_one_moves_with_it(first: str, k: float,
                                                                        status: str):
    """`x * 1` is x; an operand each element of which is a function of the same element of
    another (`v9 * 2`) takes the value picked for that one when a kernel is run on the values
    its elements may hold, so `v9 += 2 v9` is seen to keep the 0 and NaN of `x - x`."""
    assert judge(_added_to_a_multiple(first, k), "as-written", 3100827).status == status


def _writer_on_a_closure_result(split: str) -> dict:
    """Seed 3100957, shrunk: `writer` gets v8, a closure's copy of x0, as source and
    destination; helper h10 splits its parameter `split` and returns a part."""
    return {"params": [{"name": "x0", "shape": [1, 6]}], "dataflow": True, "stmts": [
        {"var": "v7", "op": "closure", "args": ["x0"], "attr": {"fn": "c1", "inner": False}},
        {"var": "v8", "op": "invoke", "args": ["v7", "x0"], "attr": {}},
        {"var": "v9", "op": "packed", "args": ["v8", "v8"], "attr": {"fn": "writer"}},
        {"var": "v16", "op": "call", "args": ["v9", "x0"], "attr": {"fn": "h10"}}],
        "outputs": ["v16"],
        "functions": [
            {"name": "c1", "kind": "closure", "ncap": 1, "dataflow": False,
             "params": [{"name": "p2", "shape": [1, 6]}, {"name": "p3", "shape": [1, 6]}],
             "stmts": [{"var": "v6", "op": "packed", "args": ["p3"], "attr": {"fn": "copy"}}],
             "outputs": ["v6"]},
            {"name": "h10", "kind": "helper", "dataflow": True,
             "params": [{"name": "p11", "shape": [1, 6]}, {"name": "p12", "shape": [1, 6]}],
             "stmts": [{"var": "v14", "op": "split", "args": [split],
                        "attr": {"axis": 1, "sections": 2}},
                       {"var": "v15", "op": "get", "args": ["v14"], "attr": {"index": 1}}],
             "outputs": ["v15"]}]}


@pytest.mark.parametrize("split, status", [
    ("p12", "clean"),  # h10 never reads the overlapped call's result; the closure ran before
    ("p11", "caught"),  # h10 returns part of that result
])
def test_a_read_in_a_function_that_ran_before_an_overlapped_call_does_not_see_it(split: str,
                                                                                  status: str):
    """The closure returning v8 reads it (its result) before `writer` writes it: a read in
    a function every run of which is before the call is no read of what the call computed."""
    assert judge(_writer_on_a_closure_result(split), "as-written", 3100957).status == status


def _three_put_backs(first: str) -> dict:
    """Seed 3100827 again, shrunk: DataflowUseInplaceCalls writes `v9 * 2` into v9, then `v18
    * v18` (dead) into v18, after `addto` added v18 to itself in place: three writes into one
    tensor, each of which puts back the 0 and NaN of `x2 - x2`."""
    return {"params": [{"name": "x2", "shape": [2, 3]}], "dataflow": True, "stmts": [
        {"var": "v9", "op": "binop", "args": ["x2", "x2"], "attr": {"fn": first}},
        {"var": "v18", "op": "scalar", "args": ["v9"], "attr": {"fn": "multiply", "k": 2.0}},
        {"var": "v20", "op": "inplace", "args": ["v18", "v18"],
         "attr": {"kernel": "addto", "plain": True}},
        {"var": "v21", "op": "binop", "args": ["v18", "v18"], "attr": {"fn": "multiply"}}],
        "outputs": ["v20"]}


@pytest.mark.parametrize("first, status", [
    ("subtract", "clean"),  # 0 and NaN: each of the three writes puts back what v9 held
    ("add", "caught"),  # 2 x2: `v18 * v18` overwrites v20, the returned sum
])
def test_a_put_back_after_two_put_backs_is_judged_as_the_first(first: str, status: str):
    """The put-back judgement runs three times: the third write of a chain of put-backs into
    one tensor is excused what the first two did."""
    assert judge(_three_put_backs(first), "inplace", 3100827).status == status


def test_an_alarm_about_values_computed_from_a_packed_write_is_class_b():
    """Seed 3100647, shrunk: `mystery_ip` (opaque; it adds 2 in place) writes v4, and `dirty`
    zeroes v5 = v4 - v4, which is returned. Only a packed function storing inf there (NaN in
    v5) shows the hazard the analysis fears: class (b), a value no effect table says."""
    spec = {"params": [{"name": "x0", "shape": [1, 6]}], "dataflow": True, "stmts": [
        {"var": "v0", "op": "scalar", "args": ["x0"], "attr": {"fn": "multiply", "k": 0.0}},
        {"var": "v4", "op": "inplace_packed", "args": ["v0"], "attr": {"fn": "mystery_ip"}},
        {"var": "v5", "op": "binop", "args": ["v4", "v4"], "attr": {"fn": "subtract"}},
        {"var": "v10", "op": "call_tir", "args": ["v5"],
         "attr": {"kernel": "dirty", "plain": False}}],
        "outputs": ["v5", "v10"]}
    verdict = judge(spec, "as-written", 3100647)
    assert (verdict.status, verdict.alarm) == ("false-alarm", "b")


@pytest.mark.parametrize("first, status", [
    ("subtract", "clean"),  # v1 = 2 v0 and v0 are 0 or NaN together: v1 + v0 keeps v1
    ("add", "caught"),  # v1 = 4 x2 becomes 6 x2, and the view v12 of v1 is returned
])
def test_a_written_tensor_that_is_a_function_of_the_other_operand_moves_with_it(first: str,
                                                                               status: str):
    """Seed 3200081, shrunk: `addto` adds v0 in place into v1 = scale2(v0); the written
    operand, itself a function of v0's elements, follows the value picked for v0."""
    spec = {"params": [{"name": "x2", "shape": [2, 3]}], "dataflow": True, "stmts": [
        {"var": "v0", "op": "binop", "args": ["x2", "x2"], "attr": {"fn": first}},
        {"var": "v1", "op": "call_tir", "args": ["v0"],
         "attr": {"kernel": "scale2", "plain": False}},
        {"var": "v10", "op": "inplace", "args": ["v1", "v0"],
         "attr": {"kernel": "addto", "plain": False}},
        {"var": "v12", "op": "view_off", "args": ["v1"], "attr": {"shape": [3], "offset": 12}}],
        "outputs": ["v12"]}
    assert judge(spec, "as-written", 3200081).status == status
