"""Relax module -> facts -> relax.dl (the shared pipeline) -> RelaxResult: verdicts, effects
and the alias-safety violations, placed on TVMScript lines."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import tvm
from tvm import relax

from datalog_rules import RELAX_MAIN
from extractor.effect_table import effect_sources
from extractor.kernel_access import load_tir_effects
from extractor.relax_facts import RelaxExtraction, extract_relax, load_relax_effects
from extractor.relax_load import point_passes, require_well_formed, to_point
from extractor.runtime import gc_paused

from .. import pipeline
from ..options import DEFAULT_ENGINE, EngineOptions
from ..pipeline import Verdicts

READ_BACK = frozenset({"keep_reason", "kept", "removable", "metric", "violation", "observable",
                       "observable_root", "pts", "may_alias", "write_obj", "clone_site"})

KIND_TEXT = {
    "inplace-live": "in-place write to a value that is used afterwards",
    "inplace-param": "write into a parameter of an entry function (the caller's tensor changes)",
    "inplace-const": "write into a module constant (later calls see it)",
    "use-after-kill": "use of a tensor after kill_tensor ended its lifetime",
    "storage-reuse": "write into a storage that a live tensor still occupies",
    "write-overlap": "packed call given an argument that may share memory with one it "
                     "writes",
    "purity-asserted": "call TVM treats as pure that may have an observable effect "
                       "(passes may delete or reorder it)",
}


# Findings that are worth a look but not an error: `check` exits 1 on them only with --strict.
WARNINGS = frozenset({"purity-asserted"})


@dataclass(frozen=True)
class Place:
    """Where a binding is, for people: its function, variable name and TVMScript line."""

    function: str
    name: str
    line: int | None
    source: str  # a file name, or "script" when the line is in `mod.script()`
    text: str = ""

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"`{self.name}` in @{self.function} ({where})"

    def as_json(self, role: str) -> dict[str, object]:
        """The binding as `check --json` lists it; `line` is of `source` (a file, or "script":
        the module as `mod.script()` prints it)."""
        return {"role": role, "name": self.name, "function": self.function, "line": self.line,
                "source": self.source, "text": self.text}


@dataclass(frozen=True)
class Violation:
    """One failed alias-safety check, with the bindings involved."""

    kind: str
    site: Place  # the write, kill or call
    var: Place | None  # the variable whose value is at risk
    obj: str  # what memory is at stake, in words
    point: str = "input"
    memory: tuple = ()  # that memory's identity across points (a parameter, a constant, ...)
    site_id: str | None = field(default=None, compare=False)  # binding ids in the result
    var_id: str | None = field(default=None, compare=False)

    @property
    def severity(self) -> str:
        return "warning" if self.kind in WARNINGS else "error"

    def describe(self) -> str:
        head = f"{self.severity} {self.kind}: {KIND_TEXT.get(self.kind, self.kind)}"
        lines = [head, f"  at    {self.site}" + (f"   {self.site.text}" if self.site.text else "")]
        if self.var is not None:
            lines.append(f"  value {self.var}" + (f"   {self.var.text}" if self.var.text else ""))
        lines.append(f"  memory {self.obj}   [{self.point}]" if self.obj else f"  [{self.point}]")
        return "\n".join(lines)

    def as_json(self) -> dict[str, object]:
        """The finding as `check --json` prints it."""
        bindings = [self.site.as_json("site")]
        if self.var is not None:
            bindings.append(self.var.as_json("value"))
        return {"check": self.kind, "severity": self.severity,
                "message": KIND_TEXT.get(self.kind, self.kind), "point": self.point,
                "memory": self.obj, "bindings": bindings, "text": self.describe()}

    def key(self) -> tuple:
        """Identity across extraction points: kind and the memory at stake when it outlives a
        call (a parameter, a constant, memory from outside: the writing code may move to
        another function, as LambdaLift moves a closure body), else kind, function and the
        variable at risk (lowering renames the memory a function allocates)."""
        if self.memory:
            return (self.kind, self.memory)
        return (self.kind, self.site.function,
                ("var", self.var.name if self.var else self.site.name))


@dataclass(kw_only=True)
class RelaxResult(Verdicts):
    """The pipeline's verdicts on a Relax module, read back onto its bindings."""

    extraction: RelaxExtraction
    point: str
    timings: dict[str, float] = field(default_factory=dict)
    _places: dict[str, Place] | None = field(default=None, repr=False)
    _kinds: dict[str, tuple[str, str]] | None = field(default=None, repr=False)
    _script: str | None = field(default=None, repr=False)
    _relocate: Callable[[Place], Place] | None = field(default=None, repr=False)

    @property
    def module(self) -> tvm.IRModule:
        return self.extraction.module

    # ------------------------------------------------------------------ bindings
    def binding_ids(self) -> list[str]:
        """Every binding id, in extraction (program) order."""
        return sorted(self.extraction.ids.binding_of, key=lambda b: int(b[1:]))

    def binding(self, bid: str) -> Any:
        return self.extraction.ids.binding_of[bid]

    def removable(self) -> list[Any]:
        """The Binding objects DCE may delete."""
        return [self.binding(b) for b in self.binding_ids() if b in self.removable_ids]

    def why_kept(self, bid: str) -> str:
        """The reasons a binding is kept, in words."""
        return "; ".join(f"{r.describe()} ({self.describe(r.witness)})"
                         for r in sorted(self.reasons.get(bid, []),
                                         key=lambda r: (r.reason, r.witness)))

    def observable_ids(self) -> list[str]:
        """Bindings whose evaluation may have an effect the outside world sees, in order."""
        obs = {n for (n,) in self.relations["observable"]}
        ids = self.extraction.ids
        out = []
        for bid in self.binding_ids():
            value = self.binding(bid).value
            if ids.node_id.get(value) in obs:
                out.append(bid)
        return out

    def signature(self, bid: str) -> str:
        """What a binding calls, stable across passes: op, packed function or global name."""
        ids = self.extraction.ids
        value = self.binding(bid).value
        nid = ids.node_id.get(value)
        if nid in ids.callee_name:
            return ids.callee_name[nid]
        return type(value).__name__

    def script(self) -> str:
        """The module at this point as `mod.script()` prints it (what `script` lines cite)."""
        if self._script is None:
            self._places, self._script = _places(self.extraction)
        return self._script

    # ------------------------------------------------------------------- places
    def place(self, bid: str) -> Place:
        """Where a binding is (through the relocation a caller set, if any)."""
        if self._places is None:
            self._places, self._script = _places(self.extraction)
        p = self._places[bid]
        return self._relocate(p) if self._relocate is not None else p

    def relocate_places(self, mapper: Callable[[Place], Place]) -> None:
        """Name places through `mapper` from now on (a later point's bindings as the module
        as given names them)."""
        self._relocate = mapper

    def binding_of_node(self, nid: str) -> str | None:
        """The binding whose variable or value is node nid (outputs map to their call)."""
        return self.extraction.ids.node_binding.get(nid)

    def describe(self, nid: str) -> str:
        """A node or object in words: a parameter, a constant, or the binding that makes it."""
        ids = self.extraction.ids
        if nid == "$opaque":
            return "memory from outside the module"
        obj = ids.nodes.get(nid)
        if obj is None and "@" in nid:  # a heap clone: `site@c1@c2` (relax_contexts.dl)
            site, *ctx = nid.split("@")
            calls = [self.describe(c) for c in ctx if c in ids.nodes]
            return f"{self.describe(site)}, the one made under {', '.join(calls)}"
        if isinstance(obj, tuple) and obj and obj[0] == "output":
            return f"output {obj[2]} of " + self.describe(obj[1])
        if isinstance(obj, relax.Var):
            bid = self.binding_of_node(nid)
            if bid is None:
                return f"parameter `{obj.name}`"
            return str(self.place(bid))
        if isinstance(obj, tvm.ir.GenericConst):
            return "a module constant"
        bid = self.binding_of_node(nid)
        if bid:
            return str(self.place(bid))
        kind, fn = self._node_kinds().get(nid, ("", ""))
        where = self.extraction.ids.func_name.get(fn, "a function")
        if kind == "let":
            return f"the body of {where}"
        if kind == "tuple":
            return f"a tuple in {where}"
        if kind == "fn":
            return "a function literal" if where == "fn" else f"function {where}"
        return f"a {kind or 'node'} in {where}"

    def _node_kinds(self) -> dict[str, tuple[str, str]]:
        """Node id -> (kind, id of its function), from the facts."""
        if self._kinds is None:
            self._kinds = {n: (k, f) for n, k, f in self.extraction.facts.rows["node"]}
        return self._kinds

    def violations(self) -> list[Violation]:
        """The checks' findings in program order, one per kind, site and object at stake
        (named by the first-defined variable that reaches it: `x`, not its alias `gv0 = x`)."""
        def order(nid: str) -> int:  # program order of a node's binding; parameters first
            bid = self.binding_of_node(nid)
            return int(bid[1:]) if bid else -1

        first: dict[tuple[str, str, str], tuple[str, str, str, str]] = {}
        for row in sorted(self.relations["violation"], key=lambda r: (order(r[1]), r[0],
                                                                       order(r[2]), r)):
            first.setdefault((row[0], row[1], row[3]), row)
        out = []
        for kind, site, var, obj in first.values():
            sb = self.binding_of_node(site)
            vb = self.binding_of_node(var)
            var_place = self.place(vb) if vb else None
            if var_place is None and var != "$opaque":
                o = self.extraction.ids.nodes.get(var)
                if isinstance(o, relax.Var):
                    fn = self.place(sb).function if sb else "?"
                    var_place = Place(fn, str(o.name), None, "parameter")
            if kind == "purity-asserted":  # the call is all there is to say
                out.append(Violation(kind, self.place(sb), None, "", self.point, site_id=sb))
                continue
            out.append(Violation(kind, self.place(sb), var_place, self.describe(obj), self.point,
                                 self.memory_identity(obj), site_id=sb, var_id=vb))
        return list(dict.fromkeys(out))

    def memory_identity(self, nid: str) -> tuple:
        """What names an object at every extraction point: an entry parameter by function and
        position, a module constant by its contents, outside memory; () for allocations."""
        if nid == "$opaque":
            return ("outside",)
        ids = self.extraction.ids
        obj = ids.nodes.get(nid)
        if isinstance(obj, tvm.ir.GenericConst):
            arr = obj.value.numpy()
            digest = hashlib.sha1(arr.tobytes()).hexdigest()
            return ("constant", str(arr.dtype), arr.shape, digest)
        for fid, i, pid in self.extraction.facts.rows["param"]:
            if pid == nid:
                return ("param", ids.func_name[fid], int(i))
        return ()


_MARK = re.compile(r"#\s*@@aliaslog(b\d+)\s*$")


def _places(ex: RelaxExtraction) -> tuple[dict[str, Place], str]:
    """Names and lines of every binding: source spans, else lines of `mod.script()`; and that
    script, whose lines `script` places cite."""
    ids = ex.ids
    marks = {b: f"@@aliaslog{bid}" for bid, b in ids.binding_of.items()
             if not isinstance(b.value, relax.Function)}  # printed as a def, not a statement
    with contextlib.redirect_stderr(io.StringIO()):
        text = ex.module.script(obj_to_annotate=marks)
    script_line: dict[str, tuple[int, str]] = {}
    lines = []
    for lineno, line in enumerate(text.splitlines(), 1):
        m = _MARK.search(line)
        if m:
            script_line[m.group(1)] = (lineno, line[: m.start()].strip())
            line = line[: m.start()].rstrip()
        lines.append(line)
    out = {}
    for bid, b in ids.binding_of.items():
        fn = ids.binding_func[bid]
        name = str(b.var.name)
        line, stmt = script_line.get(bid, (None, ""))
        span = getattr(b.value, "span", None)
        if span is not None and getattr(span, "source_name", None) is not None:
            src = Path(str(span.source_name.name)).name
            out[bid] = Place(fn, name, int(span.line), src, _short(stmt))
        else:
            out[bid] = Place(fn, name, line, "script", _short(stmt))
    return out, "\n".join(lines) + "\n"


def _short(stmt: str, width: int = 90) -> str:
    return stmt if len(stmt) <= width else stmt[: width - 3] + "..."


@gc_paused()
def analyze_relax(
    mod: tvm.IRModule,
    *,
    point: str = "input",
    engine: EngineOptions = DEFAULT_ENGINE,
    op_effects: Any = (),
    tir_effects: Any = (),
    entries: list[str] | None = None,
    keep_files: str | os.PathLike[str] | None = None,
    param_modes: dict[tuple[str, str], str] | None = None,
    once: frozenset[str] = frozenset(),
    after: frozenset[str] | None = None,
    program: Path = RELAX_MAIN,
    read_back: frozenset[str] = READ_BACK,
) -> RelaxResult:
    """Lower `mod` to an extraction point, extract facts, and run the pipeline on relax.dl.

    `op_effects` / `tir_effects`: extra effect tables for Relax ops and packed functions, and
    for the packed functions TIR kernels call: a path, a {name: effect} dict, or a list of
    them. `param_modes`: (entry function, parameter name) -> `donated`. `once`: entry
    functions that run once (a constant they write is no later call's stale read). `after`: the TVM
    passes that have run on `mod` (default: those relax.build runs before `point`).
    `program` / `read_back`: a rule file that includes relax.dl and asks more of it
    (relax_inplace.dl), and the relations to read back from it.
    """
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    require_well_formed(mod)
    at = to_point(mod, point)
    timings["lower"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    extraction = extract_relax(at, load_relax_effects(*effect_sources(op_effects)), entries,
                               load_tir_effects(*effect_sources(tir_effects)), param_modes,
                               frozenset(point_passes(point)) if after is None else after,
                               once)
    timings["facts"] = time.perf_counter() - t0
    verdicts = pipeline.run(program, extraction.facts, engine=engine, read_back=set(read_back),
                            keep_files=keep_files, timings=timings)
    return RelaxResult(**{f.name: getattr(verdicts, f.name) for f in fields(Verdicts)},
                       extraction=extraction, point=point, timings=timings)
