"""The spec a TVM pass's output module is, when the pass only dropped bindings and made uses
name other variables (EliminateCommonSubexpr, DeadCodeElimination): its own value semantics.

The fuzzer's reference is the spec it generated. A pass that changes what a module computes
(CSE merging two `ensure_zero_offset` copies of which a kernel then fills one) leaves a module
whose VM run may differ from that reference while agreeing with its own: no read in it sees
another value than its own value semantics give, so `check` has nothing to find there. Reading
the output back as a spec tells the two apart.
"""

from __future__ import annotations

import copy
from typing import Any

from . import randmod_relax as rm


def own_spec(spec: dict[str, Any], mod: Any) -> dict[str, Any] | None:
    """spec as `mod` has it (statements the pass dropped gone, arguments renamed as the
    module uses them), or None when the module is no such rewrite of spec."""
    from tvm import relax

    own = copy.deepcopy(spec)
    bodies = [(own, "main"), *((f, f["name"]) for f in own.get("functions", []))]
    renamed: dict[str, str] = {}
    for body, name in bodies:
        fn = next((f for gv, f in mod.functions.items() if gv.name_hint == name), None)
        if not isinstance(fn, relax.Function) or not _rewrite(body, fn, renamed):
            return None
    if own == spec:
        return None
    try:
        rm.types(own)
    except rm.SpecError:
        return None
    return own


def _rewrite(body: dict[str, Any], fn: Any, renamed: dict[str, str]) -> bool:
    """body's statements and outputs as fn has them; False when fn is not body rewritten so."""
    from tvm import relax

    if [p.name for p in fn.params] != [p["name"] for p in body["params"]]:
        return False
    bindings = [b for block in fn.body.blocks for b in block.bindings]
    bound = {b.var.name: _vars(b.value) for b in bindings}
    alias = {b.var.name: b.value.name for b in bindings if isinstance(b.value, relax.Var)}
    stmts = []
    for s in body["stmts"]:
        if s["var"] not in bound:
            continue  # the pass dropped it
        if s["var"] in alias:  # the pass bound it to another variable (CSE: `v15 = v11`)
            if renamed.setdefault(s["var"], alias[s["var"]]) != alias[s["var"]]:
                return False
            continue
        used = bound[s["var"]]
        if len(used) != len(s["args"]):
            return False
        for was, now in zip(s["args"], used, strict=True):
            if was != now and renamed.setdefault(was, now) != now:
                return False
        stmts.append({**s, "args": used})
    outputs = _vars(fn.body.body)
    if len(outputs) != len(body["outputs"]) or any(renamed.get(o, o) != n for o, n in
                                                  zip(body["outputs"], outputs, strict=True)):
        return False
    if any(was in bound and was not in alias for was in renamed):
        return False  # a name the pass kept stands for another: no renaming
    body["stmts"], body["outputs"] = stmts, outputs
    return True


def _vars(e: Any) -> list[str]:
    """The variables e names, in order (as the spec lists a statement's arguments)."""
    from tvm import relax

    if isinstance(e, relax.Var):
        return [e.name]
    if isinstance(e, relax.Tuple):
        return [n for f in e.fields for n in _vars(f)]
    if isinstance(e, relax.TupleGetItem):
        return _vars(e.tuple_value)
    if isinstance(e, relax.Call):
        return [n for a in e.args for n in _vars(a)]
    return []
