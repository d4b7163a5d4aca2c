"""The fact schema, one table: every input relation's columns, types and meaning.

Like cclyzer++'s predicates table, this is the single source of truth: the fact writer
(`extractor.facts`) checks rows against it and `datalog_rules/schema.dl` (the `.type`, `.decl`
and `.input` block every rule file includes) is generated from it; a test fails on drift.
Regenerate with `python -m extractor.schema > datalog_rules/schema.dl`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

# The effect vocabulary: every kind of effect an operator or packed function may have, and the
# classes the rules join on (never chains of `e != "..."`, which a new kind would slip past).
# Every fact set holds these as `effect_class` facts.
EFFECT_KINDS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("none", (), "no effect: the result is computed from the arguments, in fresh memory"),
    ("reads", ("local",), "reads memory it is given"),
    ("allocates", ("local",), "allocates fresh memory"),
    ("writes", ("memory",), "destination passing: writes its last argument"),
    ("view", ("memory",), "its result is a view of its first argument"),
    ("alias", ("memory",), "its result may be any of its arguments"),
    ("io", ("opaque",), "input or output"),
    ("random", ("opaque",), "draws random numbers"),
    ("unknown", ("opaque",), "may do anything"),
)
EFFECT_CLASSES: dict[str, str] = {
    "local": "seen by the rules as what it is: a read, an allocation",
    "memory": "an effect on memory the Relax rules model (writes, views, aliases); the Relay "
              "rules, which have no such memory, treat it as opaque",
    "opaque": "an effect nobody can see through: never removed; what the call returns may be "
              "anything it was given",
}
EFFECTS = tuple(kind for kind, _, _ in EFFECT_KINDS)

# Soufflé subtypes of symbol: mixing ids of different kinds is a type error in the rules.
TYPES: tuple[tuple[str, str, str], ...] = (
    ("Node", "symbol", "an expression node (variables and functions included); also an object id"),
    ("Binding", "symbol", "a let binding, the unit DCE keeps or removes"),
    ("Pat", "symbol", "a match pattern"),
    ("Op", "symbol", "an operator name"),
    ("Block", "symbol", "a straight-line sequence of bindings (a let chain)"),
    ("Effect", "symbol", "an effect kind: " + " ".join(EFFECTS)),
)


@dataclass(frozen=True)
class Relation:
    """One input relation: name, (column, type) pairs, and a doc line."""

    name: str
    columns: tuple[tuple[str, str], ...]
    doc: str

    @property
    def arity(self) -> int:
        return len(self.columns)


def _rel(name: str, cols: str, doc: str) -> Relation:
    pairs = tuple(tuple(c.strip().split(":")) for c in cols.split(","))
    return Relation(name, pairs, doc)  # type: ignore[arg-type]


SCHEMA: tuple[Relation, ...] = (
    # --- structure and value flow (IR-agnostic core)
    _rel("node", "n:Node, kind:symbol, func:Node",
         "every expression node, its syntactic kind and the function it sits in (for a "
         "variable: the function that binds it)"),
    _rel("node_loc", "n:Node, line:number, col:number", "source position of a node"),
    _rel("func", "f:Node, body:Node", "a function (global or literal) and its body expression"),
    _rel("global_func", "name:symbol, f:Node", "a module-level function `@name`"),
    _rel("entry", "f:Node", "the function whose result and parameters the outside world sees"),
    _rel("param", "f:Node, i:number, v:Node", "the i-th parameter variable of a function"),
    _rel("fn_literal", "n:Node", "evaluating n creates a closure of function n (an object)"),
    _rel("global_ref", "n:Node, f:Node", "node n names global function f (its value is f)"),
    _rel("let_bind", "b:Binding, let:Node, v:Node, value:Node, body:Node",
         "binding b is `let v = value; body`, the let expression being node `let`"),
    _rel("copy", "to:Node, from:Node",
         "the value of `from` may become the value of `to` unchanged (let, if, match merges)"),
    _rel("evaluates", "parent:Node, child:Node",
         "evaluating parent may evaluate child (not function bodies: they run when called)"),
    _rel("var_ref", "parent:Node, v:Node", "node parent mentions variable v directly"),
    _rel("segment", "n:Node, owner:symbol",
         "n is part of the code of binding `owner`'s value, or of function `owner`'s body"),
    _rel("tuple_field", "t:Node, i:number, a:Node",
         "field i of the tuple (or constructor value) built at t is the value of a"),
    _rel("proj", "e:Node, t:Node, i:number", "e is `t.i`"),
    _rel("call", "c:Node, callee:Node", "c calls the value of callee"),
    _rel("call_arg", "c:Node, i:number, a:Node", "argument i of call c"),
    _rel("call_op", "c:Node, op:Op", "c calls a primitive operator"),
    _rel("ctor_call", "c:Node, ctor:symbol", "c builds an ADT value with constructor ctor"),
    _rel("ref_create", "e:Node, init:Node", "e is `ref(init)`: a fresh cell (an object)"),
    _rel("ref_read", "e:Node, r:Node", "e is `ref_read(r)`"),
    _rel("ref_write", "e:Node, r:Node, v:Node", "e is `ref_write(r, v)`"),
    _rel("if_cond", "e:Node, cond:Node", "e is an if on cond"),
    _rel("match_data", "m:Node, d:Node", "m matches on the value of d"),
    _rel("match_clause", "m:Node, k:number, p:Pat, rhs:Node", "clause k of match m"),
    _rel("pat_var", "p:Pat, v:Node", "pattern p binds variable v to the matched value"),
    _rel("pat_ctor", "p:Pat, ctor:symbol", "pattern p matches constructor ctor"),
    _rel("pat_field", "p:Pat, i:number, sub:Pat", "sub-pattern i of p matches field i"),
    _rel("block_pos", "b:Binding, blk:Block, i:number",
         "binding b is the i-th of a straight-line let chain"),
    # --- straight-line order (flow-sensitive facts; syntactic, so always sound)
    _rel("last_write", "read:Node, write:Node",
         "`ref_read(%r)` must see the value of `ref_write(%r, v)`: same variable, same "
         "straight-line region, and nothing evaluated in between may write a cell or call"),
    _rel("overwritten", "write:Node, by:Node",
         "`ref_write(%r, _)` is followed by `by` through the same variable with no read, call "
         "or branch in between: no read can see the first write's value"),
    _rel("final_write", "write:Node",
         "`ref_write` is the last read, write, call or branch of its function's body: "
         "nothing in that body runs after it that could read a cell"),
    # --- effects
    _rel("op_effect", "op:Op, effect:Effect", "what calling an operator may do (data table)"),
    _rel("op_sig", "op:Op, item:symbol, pos:number",
         "op's signature says what it does with argument pos: reads, writes (in place), returns "
         "(its result may be or hold that argument's memory), keeps (after it returns); item "
         "`signature` with pos -1: op has a signature (and is opaque in nothing else); item "
         "`result`: its result is exactly made of (fields of) these arguments (result=)"),
    _rel("run_nonce", "token:symbol",
         "a token chosen afresh for each solve (empty in written fact files); the rules echo it "
         "in results_of, so the read-back knows the results are of these facts"),
    _rel("effect_class", "effect:Effect, class:symbol",
         "effect kind `effect` belongs to class `class` (local, memory, opaque; from the "
         "schema's effect table, in every fact set)"),
    # --- memory (Relax): tensors, storages, views, in-place and destination-passing writes
    _rel("rx_call", "c:Node, kind:symbol, callee:Op",
         "c calls an operator (kind op), a packed function (extern) or a PrimFunc (primfunc) "
         "by name; its tensor arguments are call_arg"),
    _rel("alloc_site", "n:Node, kind:symbol",
         "evaluating n yields a fresh object of this kind: tensor, storage, constant, param, "
         "value"),
    _rel("view_of", "n:Node, src:Node, why:symbol",
         "n's value may share memory with src's: a view, an in-place result, or an identity op "
         "that lowering turns into a view"),
    _rel("mem_write", "n:Node, target:Node, how:symbol",
         "evaluating n writes into the memory of target's value (inplace: the old value is "
         "consumed, n's result is the new version; dps: a kernel or packed function fills a "
         "destination)"),
    _rel("vm_view", "n:Node",
         "relax.build turns the value n into a view of its input, computing nothing: "
         "RewriteDataflowReshape, still to run, makes it a reshape (a copy kernel of a reshape, "
         "flatten, unit-dimension transpose or identity astype bound to a dataflow variable)"),
    _rel("kernel_unread", "c:Node, a:Node",
         "the PrimFunc called at c (call_tir, call_tir_inplace or directly) never loads "
         "argument a, at any position it is passed: at most it stores into it"),
    _rel("fills_same", "c:Node, d:Node, x:Node",
         "the lowered kernel call c fills its destination d with the value variable x holds "
         "(value numbers: the same kernel on equal arguments filled x); whether x's memory "
         "still holds it, and where d lies, are the rules' question"),
    _rel("fills_agree", "c:Node, d:Node, x:Node",
         "the lowered kernel call c fills its destination d, allocated in the storage of "
         "variable x at static offsets, with bytes known at compile time that equal the bytes "
         "x holds wherever the two meet; whether x's memory still holds them is the rules' "
         "question"),
    _rel("refills", "c:Node, a:Node",
         "the lowered kernel call c stores every element of argument a, which it never loads "
         "and which held a value before (no fresh allocation): after c, a names what c "
         "stored"),
    _rel("puts_back", "c:Node, a:Node",
         "the call c writes into argument a, in place or as the destination it fills, the "
         "values a holds (value numbers: the same kernel or packed function on equal values, "
         "or bytes known at compile time); whether a's memory still holds a's value there is "
         "the rules' question"),
    _rel("in_storage", "t:Node, s:Node", "the tensor allocated at t lives in the storage s holds"),
    _rel("overwrite_ok", "n:Node, dst:number, src:number, how:symbol",
         "the kernel called at n may write its argument dst over argument src's memory: from "
         "its first byte (same: each element of src is read before the one over it is written; "
         "dst may be smaller); copy: every store into dst is src's element at the same "
         "offset, so over src's first bytes it puts back what is there"),
    _rel("extent", "n:Node, lo:number, hi:number",
         "the view or tensor made at n covers bytes [lo, hi) of its source (view_of) or of its "
         "storage (in_storage); absent where offset or size is not static"),
    _rel("make_closure", "n:Node, f:Node, k:number",
         "n makes a closure of function f holding captured values (its tuple_field 0, 1, ...), "
         "which a call of it passes as f's parameters k, k+1, ... after the call's arguments"),
    _rel("param_mode", "p:Node, mode:symbol",
         "the caller declares what entry parameter p is for: donated (it gives the tensor up, "
         "so writes into it are allowed), mutable (state the function updates in place: writes "
         "into it are intended)"),
    _rel("runs_once", "f:Node",
         "the caller declares that entry function f runs once (an initializer, or what a "
         "compile-time pass evaluates): no later call of it reads a constant it wrote"),
    _rel("closure_call", "c:Node, clo:Node",
         "c calls the closure value of clo; its other arguments are call_arg 0, 1, ..."),
    _rel("kill", "n:Node, target:Node, what:symbol",
         "evaluating n ends the lifetime of target's tensor or storage"),
    _rel("func_purity", "f:Node, purity:symbol",
         "how TVM declares function f: pure, impure, or force_pure (pure despite impure calls)"),
    _rel("tvm_impure", "c:Node, why:symbol",
         "TVM's own purity judgment calls c impure (FPurity, or the callee's FuncType)"),
    _rel("block_end", "blk:Block, result:Node, n:number",
         "after its n bindings, block blk evaluates to result"),
)

SCHEMA_BY_NAME = {r.name: r for r in SCHEMA}


def souffle_decls() -> str:
    """The `.type`/`.decl`/`.input` block of datalog_rules/schema.dl, generated from SCHEMA."""
    out = [
        "// GENERATED from extractor/schema.py (python -m extractor.schema); do not edit.",
        "// Input relations of aliaslog's analysis: the facts the extractor writes.",
        "",
    ]
    for name, base, doc in TYPES:
        out.append(f".type {name} <: {base}  // {doc}")
    out.append("")
    for rel in SCHEMA:
        cols = ", ".join(f"{c}: {t}" for c, t in rel.columns)
        out.append(f"// {rel.doc}")
        out.append(f".decl {rel.name}({cols})")
        out.append(f".input {rel.name}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(souffle_decls())
