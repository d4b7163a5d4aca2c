"""Planned and peak storage of a Relax module, as relax.build's memory planner lays it out.

`plan` runs relax.build's default pipeline up to and including StaticPlanBlockMemory. On that
module, the planned bytes of a function are what it allocates: every `alloc_storage` and every
tensor the planner left unplanned (`builtin.alloc_tensor`). The peak is the largest sum of the
allocations whose memory may still be read at one binding of the function: an allocation is
live from its binding to the last read of anything that reaches it (aliaslog's may-alias, with
views, in-place results, tuples and closures), and to the end when it is returned or escapes.
Sizes that depend on symbolic shapes are expressions. (Allocations in both arms of an `if` are
counted as live together; a call's callee is reported on its own.)
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from typing import Any

import tvm
from tvm import relax, tirx
from tvm.sym.analyzer import Analyzer

from datalog_rules import RELAX_PEAK
from extractor.relax_pipeline import passes_through, run_passes

from .analysis import READ_BACK, analyze_relax

# relax.build's default pipeline up to and including the memory planner
PLAN_PASSES = passes_through("StaticPlanBlockMemory")


def plan(mod: tvm.IRModule, target: str = "llvm") -> tvm.IRModule:
    """The module as relax.build's default pipeline has it right after StaticPlanBlockMemory."""
    with contextlib.redirect_stderr(io.StringIO()):
        return run_passes(mod, PLAN_PASSES, target)


Bytes = Any  # an int, or a tvm PrimExpr when a size depends on a symbolic shape


def _tensor_bytes(shape: Any, dtype: str) -> Bytes:
    dt = tvm.DataType(dtype)
    n: Any = (dt.bits * dt.lanes + 7) // 8
    for d in shape.values:
        n = n * d
    return _simplify(n)


def _simplify(e: Any) -> Bytes:
    if isinstance(e, int):
        return e
    e = Analyzer().simplify(e)
    return int(e.value) if isinstance(e, tirx.IntImm) else e


def _add(a: Bytes, b: Bytes) -> Bytes:
    return a + b if isinstance(a, int) and isinstance(b, int) else _simplify(a + b)


def bytes_text(b: Bytes) -> str:
    """A size for people and JSON: an integer, or the expression of a symbolic one."""
    return str(b) if isinstance(b, int) else str(b)


@dataclass
class Allocation:
    """One allocation of a planned function: where, how big, and while it may be read."""

    name: str  # the variable bound to it
    kind: str  # storage, or tensor (left unplanned)
    size: Bytes
    start: int  # binding position in the function's body
    end: int  # last position at which its memory may be read


@dataclass
class FunctionMemory:
    """Planned bytes and peak live bytes of one Relax function."""

    function: str
    allocations: list[Allocation] = field(default_factory=list)
    planned: Bytes = 0
    peak: Bytes = 0
    peak_at: int | None = None  # the binding position of a static peak

    def as_json(self) -> dict[str, Any]:
        return {"function": self.function, "planned_bytes": bytes_text(self.planned),
                "peak_bytes": bytes_text(self.peak),
                "allocations": [{"name": a.name, "kind": a.kind, "bytes": bytes_text(a.size),
                                 "live": [a.start, a.end]} for a in self.allocations]}


def _allocation(value: Any) -> tuple[str, Bytes] | None:
    """(kind, bytes) of an allocating call of the planned module, or None."""
    if not isinstance(value, relax.Call) or not isinstance(value.op, tvm.ir.Op):
        return None
    name = str(value.op.name)
    if name == "relax.memory.alloc_storage":
        size = value.args[0]
        return "storage", _simplify(size.values[0]) if isinstance(size, relax.ShapeExpr) \
            else 0
    if name == "relax.builtin.alloc_tensor":
        ty = value.ty
        if isinstance(ty, relax.TensorType) and isinstance(ty.shape, relax.ShapeExpr):
            return "tensor", _tensor_bytes(ty.shape, str(ty.dtype))
    return None


def allocations_of(fn: relax.Function) -> list[tuple[int, Any, str, Bytes]]:
    """(position, binding, kind, bytes) of every allocation in a planned function's body."""
    bindings = [b for blk in fn.body.blocks for b in blk.bindings]
    out = []
    for pos, b in enumerate(bindings):
        got = _allocation(b.value)
        if got is not None:
            out.append((pos, b, *got))
    return out


def planned_sizes(planned: tvm.IRModule) -> dict[str, Bytes]:
    """Planned bytes per Relax function of a planned module (no liveness: cheap)."""
    out: dict[str, Bytes] = {}
    for gv, fn in planned.functions.items():
        if isinstance(fn, relax.Function):
            total: Bytes = 0
            for _, _, _, size in allocations_of(fn):
                total = _add(total, size)
            out[str(gv.name_hint)] = total
    return out


def memory_of(planned: tvm.IRModule, entries: list[str] | None = None,
              **options: Any) -> dict[str, FunctionMemory]:
    """Per Relax function of a planned module (see `plan`): its allocations, planned bytes and
    peak live bytes, with liveness from aliaslog's analysis (`options`: analyze_relax's)."""
    res = analyze_relax(planned, point="input", entries=entries, program=RELAX_PEAK,
                        read_back=READ_BACK | {"alloc_read_at", "alloc_escapes"}, **options)
    ids = res.extraction.ids
    last: dict[str, int] = {}
    for o, _blk, j in res.relations["alloc_read_at"]:
        last[o] = max(last.get(o, -1), int(j))
    escapes = {o for (o,) in res.relations["alloc_escapes"]}
    out: dict[str, FunctionMemory] = {}
    for gv, fn in sorted(planned.functions.items(), key=lambda kv: str(kv[0].name_hint)):
        if not isinstance(fn, relax.Function):
            continue
        name = str(gv.name_hint)
        fm = FunctionMemory(name)
        n = sum(len(blk.bindings) for blk in fn.body.blocks)
        for pos, b, kind, size in allocations_of(fn):
            nid = ids.node_id.get(b.value)
            end = n if nid in escapes else max(last.get(nid, pos), pos)
            fm.allocations.append(Allocation(str(b.var.name), kind, size, pos, end))
        for a in fm.allocations:
            fm.planned = _add(fm.planned, a.size)
        fm.peak, fm.peak_at = _peak(fm.allocations)
        out[name] = fm
    return out


def _peak(allocs: list[Allocation]) -> tuple[Bytes, int | None]:
    """The largest sum of sizes live at one position (a max of expressions if symbolic)."""
    if not allocs:
        return 0, None
    points = sorted({a.start for a in allocs})
    sums = []
    for p in points:
        total: Bytes = 0
        for a in allocs:
            if a.start <= p <= a.end:
                total = _add(total, a.size)
        sums.append((total, p))
    static = [(t, p) for t, p in sums if isinstance(t, int)]
    if len(static) == len(sums):
        best = max(static, key=lambda tp: tp[0])
        return best[0], best[1]
    expr: Any = None
    for t, _ in sums:
        expr = t if expr is None else tirx.max(expr, t)
    return _simplify(expr), None


def total(sizes: Any) -> Bytes:
    """The sum of sizes (ints or expressions)."""
    out: Bytes = 0
    for s in sizes:
        out = _add(out, s)
    return out


def not_more(a: Bytes, b: Bytes) -> bool:
    """a <= b, proven (symbolic sizes for every value of their variables)."""
    if isinstance(a, int) and isinstance(b, int):
        return a <= b
    return bool(Analyzer().can_prove(tirx.IntImm("int64", a) <= b if isinstance(a, int)
                                     else a <= b))
