"""The Relax fuzzer's ground truth: a module built by `relax.build` and run on TVM's VM, every
value a VM call reads compared with value semantics (randmod_relax.run_function).

A clobbered value whose later reads do not change the results is still a hazard, so outputs
and parameters after the call are not enough. The VM's instrument (`set_instrument`) sees every
Call instruction before it runs, with its arguments — kernels, packed functions, the Relax
functions and closures it enters, and the builtins lowering added. Which source value each
argument holds is read off the module at the `legalized` point of the default pipeline
(LegalizeOps .. ToNonDataflow, run here on the same module `relax.build` compiles; nothing is
added to the module): there every binding still has its source name, and every call the VM
will make for it is there, in order, with its arguments in the VM's positions — kernels of
call_tir with their outputs after them, packed functions, Relax functions, closure
invocations. Later passes rename values (an in-place kernel's result takes its argument's
register), so the names at the VM cannot say which value a read means; the order of calls,
which those passes keep, can. Each call's trace is matched to that plan, call by call, in a
stack of frames for the Relax functions and closures entered; a call the plan does not expect
is the oracle's failure (OracleError), never a verdict.

What a call reads: the parameters a kernel's TIR loads from, the positions PACKED_READS names
for a packed function, the argument of an ensure_zero_offset that returns a copy of it;
passing a tensor on (to a view, a tuple, a function) reads nothing.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import randmod_relax as rm


class OracleError(RuntimeError):
    """The VM made calls the plan did not expect: the oracle cannot say what a read means."""


@dataclass
class Planned:
    """One call the VM will make for a binding at the legalized point."""

    symbol: str  # the callee's name as the VM's instrument sees it
    var: str  # the binding's variable
    reads: list[tuple[int, Any]]  # VM argument position -> source name (str) or constant
    enters: str | None = None  # a Relax function the call runs ("" when a closure's)
    args: list[Any] = field(default_factory=list)  # what its arguments hold, as in reads
    if_copied: bool = False  # it reads only when it returns a copy (ensure_zero_offset)


LEGALIZE = ("DispatchSampling", "DispatchSortScan", "LegalizeOps", "RewriteDataflowReshape",
            "ToNonDataflow")  # relax.build's default pipeline up to RemovePurityChecking


def legalized(mod: Any) -> Any:
    """The module as the default pipeline has it before RemovePurityChecking."""
    import tvm
    from tvm import relax

    passes = [getattr(relax.backend, n)() if n.startswith("Dispatch")
              else getattr(relax.transform, n)() for n in LEGALIZE]
    with tvm.target.Target("llvm"), contextlib.redirect_stderr(io.StringIO()):
        return tvm.transform.Sequential(passes)(mod)


def loaded_params(pf: Any) -> set[int] | None:
    """The parameters a PrimFunc's body loads from (None: a load the oracle cannot place)."""
    import tvm
    import tvm_ffi

    params = list(pf.params)
    found: set[int] = set()
    unplaced = []

    def on_load(node: Any) -> None:
        for i, p in enumerate(params):
            if node.source.same_as(p):
                found.add(i)
                return
        unplaced.append(node)

    tvm_ffi.structural_walk(pf.body, [(tvm.ir.expr.TensorLoad, on_load)])
    return None if unplaced else found


def _packed_reads(symbol: str) -> tuple[int, ...]:
    short = "vmcopy" if symbol == "vm.builtin.copy" else symbol.removeprefix(rm.PACKED_PREFIX)
    return rm.PACKED_READS.get(short, ())


def plan(legal: Any) -> dict[str, list[Planned]]:
    """Per Relax function of the legalized module, the calls it makes, in order."""
    from tvm import relax

    out: dict[str, list[Planned]] = {}
    for gv, fn in legal.functions.items():
        if isinstance(fn, relax.Function):
            out[gv.name_hint] = _plan_function(legal, fn)
    return out


def _name(e: Any) -> Any:
    """What an argument holds: a variable's name, a constant's value (copied now, before any
    run can write it), or None."""
    import tvm
    from tvm import relax

    if isinstance(e, relax.Var):
        return e.name
    if isinstance(e, tvm.ir.GenericConst):
        return np.array(e.value.numpy(), copy=True)
    return None


def _plan_function(legal: Any, fn: Any) -> list[Planned]:
    import tvm
    from tvm import relax

    calls: list[Planned] = []
    closures: dict[str, str] = {}  # closure variable -> the Relax function it runs
    for block in fn.body.blocks:
        for b in block.bindings:
            v = b.value
            if not isinstance(v, relax.Call):
                continue
            var = b.var.name
            op = v.op
            if isinstance(op, tvm.ir.Op):
                name = op.name
                if name in ("relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed"):
                    args = list(v.args[1].fields) if isinstance(v.args[1], relax.Tuple) \
                        else [v.args[1]]
                    calls.append(_callee_call(legal, v.args[0], var, args))
                elif name in ("relax.call_pure_packed", "relax.call_inplace_packed"):
                    calls.append(_callee_call(legal, v.args[0], var, list(v.args[1:])))
                elif name in ("relax.invoke_pure_closure", "relax.invoke_closure"):
                    args = list(v.args[1].fields)
                    clo = _name(v.args[0])
                    calls.append(Planned("vm.builtin.invoke_closure", var, [],
                                         closures.get(clo, "") if isinstance(clo, str) else "",
                                         [clo] + [_name(a) for a in args]))
                elif name == "relax.make_closure":
                    closures[var] = v.args[0].name_hint
                elif name == "relax.memory.ensure_zero_offset" and _name(v.args[0]) is not None:
                    calls.append(Planned(ZERO_OFFSET, var, [(0, _name(v.args[0]))],
                                         if_copied=True))
                continue
            if isinstance(op, (tvm.ir.GlobalVar, relax.ExternFunc)):
                calls.append(_callee_call(legal, op, var, list(v.args)))
            elif isinstance(op, relax.Var):  # a closure called by name
                calls.append(Planned("vm.builtin.invoke_closure", var, [],
                                     closures.get(op.name, ""),
                                     [op.name] + [_name(a) for a in v.args]))
    return calls


def _callee_call(legal: Any, callee: Any, var: str, args: list[Any]) -> Planned:
    """A call of a PrimFunc, a Relax function or a packed function with these arguments."""
    import tvm
    from tvm import relax

    if isinstance(callee, relax.ExternFunc):
        symbol = str(callee.global_symbol)
        return Planned(symbol, var, [(i, _name(args[i])) for i in _packed_reads(symbol)
                                     if i < len(args) and _name(args[i]) is not None])
    assert isinstance(callee, tvm.ir.GlobalVar)
    target = legal[callee]
    if isinstance(target, relax.Function):
        return Planned(callee.name_hint, var, [], callee.name_hint, [_name(a) for a in args])
    loads = loaded_params(target)
    positions = range(len(args)) if loads is None else sorted(i for i in loads if i < len(args))
    return Planned(callee.name_hint, var, [(i, _name(args[i])) for i in positions
                                           if _name(args[i]) is not None])


# ---------------------------------------------------------------------------------- tracing

# vm.builtin.copy: lowering also emits it (a register copy, reading nothing) where the source
# has no call, so one the plan does not expect next is not the oracle's confusion
LOWERING_COPY = "vm.builtin.copy"
# returns its argument, or a view of it, at a byte offset of 0 or a multiple of 64, and
# otherwise a copy, which reads it (src/runtime/vm/builtin.cc)
ZERO_OFFSET = "vm.builtin.ensure_zero_offset"


def spec_function(spec: dict[str, Any], name: str | None) -> tuple[str | None, list[str]]:
    """The spec function a Relax function runs, and the names (in its caller) of captures it
    takes but is not passed: its own name and none, or, for a local function that LambdaLift
    lifted to a direct call (it uses none of its captures), `<outer>_<binding>` mapped back to
    the function the binding made and the values the binding captured."""
    if name is None or name in rm.functions(spec):
        return name, []
    bodies = [("main", spec), *((f["name"], f) for f in spec.get("functions", []))]
    for owner, body in bodies:
        for s in body["stmts"]:
            if s["op"] == "closure" and f"{owner}_{s['var']}" == name:
                return s["attr"]["fn"], list(s["args"])
    return name, []


@dataclass
class Frame:
    """A Relax function the VM runs: its planned calls, and its values by source name."""

    fn: str
    calls: list[Planned]
    env: dict[str, Any]
    depth: int
    pos: int = 0

    @property
    def symbols(self) -> set[str]:
        return {c.symbol for c in self.calls}


class Tracer:
    """The VM instrument: matches each call to the plan and checks what it reads."""

    def __init__(self, spec: dict[str, Any], plans: dict[str, list[Planned]],
                 inputs: list[np.ndarray], run: int) -> None:
        self.spec, self.plans, self.run = spec, plans, run
        self.frames = [Frame("main", plans["main"], rm.run_function(spec, None, inputs), 0)]
        self.depth = 0
        self.hazard: str | None = None
        self.confused: str | None = None
        self.reads = 0  # values compared
        # an ensure_zero_offset under way: its frame, call, arguments and depth
        self.copying: tuple[Frame, Planned, tuple[Any, ...], int] | None = None

    def __call__(self, func: Any, symbol: str, before: bool, ret: Any, *args: Any) -> None:
        try:
            self._event(str(symbol), bool(before), args, ret)
        except Exception as exc:  # noqa: BLE001 - never let the VM see the oracle fail
            self.confused = self.confused or f"{type(exc).__name__}: {exc}"

    def _event(self, symbol: str, before: bool, args: tuple[Any, ...], ret: Any) -> None:
        if not before:
            if self.copying is not None and self.copying[3] == self.depth:
                fr, call, given, _ = self.copying
                self.copying = None
                if self.hazard is None and ret.data_ptr() != given[0].data_ptr():
                    for pos, ref in call.reads:  # it copied: it read its argument
                        self._check(fr, call, pos, ref, given)
            if len(self.frames) > 1 and self.frames[-1].depth == self.depth:
                self._close(self.frames.pop())
            self.depth -= 1
            return
        self.depth += 1
        fr = self.frames[-1]
        if symbol not in fr.symbols or self.confused:
            return
        if (symbol == LOWERING_COPY and (fr.pos >= len(fr.calls)
                                         or fr.calls[fr.pos].symbol != symbol)):
            return  # a register copy lowering added: it reads nothing
        if fr.pos >= len(fr.calls) or fr.calls[fr.pos].symbol != symbol:
            want = fr.calls[fr.pos].symbol if fr.pos < len(fr.calls) else "nothing more"
            self.confused = f"{fr.fn}: the VM called {symbol}, the plan expects {want}"
            return
        call = fr.calls[fr.pos]
        fr.pos += 1
        if call.if_copied:  # judged once it returns, by whether it returned a copy
            self.copying = (fr, call, args, self.depth)
        elif self.hazard is None:
            for pos, ref in call.reads:
                self._check(fr, call, pos, ref, args)
        if call.enters is not None:
            self.frames.append(self._enter(fr, call))

    def _check(self, fr: Frame, call: Planned, pos: int, ref: Any,
               args: tuple[Any, ...]) -> None:
        want = ref if isinstance(ref, np.ndarray) else fr.env.get(ref)
        if not isinstance(want, np.ndarray) or pos >= len(args):
            return  # a value the source does not name (or not a tensor): nothing to compare
        got = args[pos].numpy()
        self.reads += 1
        if got.shape != want.shape:
            self.confused = (f"{fr.fn}: {call.symbol} argument {pos} has shape {got.shape}, "
                             f"the plan's value {ref if isinstance(ref, str) else 'const'} "
                             f"{want.shape}")
        elif not np.array_equal(got, want, equal_nan=True) and self.hazard is None:
            what = ref if isinstance(ref, str) else "a constant"
            self.hazard = (f"run {self.run}: in {fr.fn}, {call.symbol} (for {call.var}) read "
                           f"{what} as {got.tolist()}, expected {want.tolist()}")

    def _enter(self, fr: Frame, call: Planned) -> Frame:
        """The frame of a Relax function or closure body a call runs."""
        vals = [a if isinstance(a, np.ndarray) else fr.env.get(a) if a is not None else None
                for a in call.args]
        if any(v is None for v in vals):
            raise OracleError(f"{fr.fn}: cannot tell what the arguments of {call.var} hold "
                              f"({call.args})")
        if call.symbol == "vm.builtin.invoke_closure":
            clo = vals[0]
            if not isinstance(clo, rm.Closure) or not call.enters:
                raise OracleError(f"{fr.fn}: cannot tell which closure {call.var} invokes")
            env = rm.run_function(self.spec, clo.fn, [*vals[1:], *clo.caps])
            env.update(zip(clo.names, clo.caps, strict=True))  # a local function's captures
            return Frame(call.enters, self.plans[call.enters], env, self.depth)
        fn, cap_names = spec_function(self.spec, call.enters)
        caps = [fr.env[n] for n in cap_names]
        env = rm.run_function(self.spec, fn, [*vals, *caps])
        env.update(zip(cap_names, caps, strict=True))
        return Frame(call.enters or "", self.plans[call.enters or ""], env, self.depth)

    def _close(self, fr: Frame) -> None:
        if fr.pos != len(fr.calls) and not self.confused:
            self.confused = f"{fr.fn}: returned before calling {fr.calls[fr.pos].symbol}"

    def finish(self) -> None:
        """After the run: every call main planned has run."""
        if len(self.frames) != 1 and not self.confused:
            self.confused = "the VM returned inside a function"
        self._close(self.frames[0])
        if self.confused:
            raise OracleError(self.confused)


def observe(mod: Any, spec: dict[str, Any], seed: int, reads: bool = True) -> str | None:
    """Build and run `mod` on one VM (two fresh random inputs, the first again, inputs a third
    of whose elements are infinities and NaNs, inputs all of whose elements are infinite, then
    one striped run per bit of the largest parameter's element index); how it differs from the
    reference, or None: a read (with `reads`) that sees another value than value semantics
    gives, a result, or a parameter the call changed. The later runs show a write that puts
    back what finite inputs had there (`x - x` zeroed, or added to a tensor) but not what
    infinite ones have (NaN): the fifth at every element, the striped ones also where one
    element of a value is put over another that finite inputs make equal to it."""
    import tvm
    from tvm import relax

    plans = plan(legalized(mod)) if reads else {}
    with contextlib.redirect_stderr(io.StringIO()):
        ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(seed)
    a, b = rm.random_inputs(spec, rng), rm.random_inputs(spec, rng)
    c = rm.random_inputs(spec, rng, nonfinite=True)
    d = rm.infinite_inputs(spec, rng)
    stripes = [rm.striped_inputs(spec, rng, bit) for bit in range(rm.stripe_bits(spec))]
    with np.errstate(all="ignore"):  # inf - inf is NaN: IEEE's answer, and the VM's
        return _runs(vm, spec, plans, (a, b, a, c, d, *stripes), reads)


def _runs(vm: Any, spec: dict[str, Any], plans: dict[str, list[Planned]],
          runs: tuple[list[np.ndarray], ...], reads: bool) -> str | None:
    """The runs of `observe`, one after another on one VM: the first difference, or None."""
    import tvm

    for run, inputs in enumerate(runs, 1):
        args = [tvm.runtime.tensor(x.copy()) for x in inputs]
        tracer = Tracer(spec, plans, inputs, run) if reads else None
        if tracer is not None:
            vm.set_instrument(tracer)
        got = vm["main"](*args)
        if tracer is not None:
            tracer.finish()
            if tracer.hazard:
                return tracer.hazard
        got_flat = [g.numpy() for g in _flat_vm(got)]
        want = rm.evaluate(spec, inputs)
        for i, (g, w) in enumerate(zip(got_flat, want, strict=True)):
            if g.shape != w.shape or not np.array_equal(g, w, equal_nan=True):
                return f"run {run}: output {i} is {g.tolist()}, expected {w.tolist()}"
        for p, arg, x in zip(spec["params"], args, inputs, strict=True):
            if not np.array_equal(arg.numpy(), x, equal_nan=True):
                return f"run {run}: the call changed parameter {p['name']}"
    return None


def _flat_vm(v: Any) -> list[Any]:
    import tvm_ffi

    if isinstance(v, (tvm_ffi.Array, list, tuple)):
        return [x for item in v for x in _flat_vm(item)]
    return [v]


# ------------------------------------------------------------------------- noalias witness

def stored_params(pf: Any) -> set[int]:
    """The parameters a PrimFunc's body stores into."""
    import tvm_ffi
    from tvm import tirx

    params = list(pf.params)
    found: set[int] = set()

    def on_store(node: Any) -> None:
        found.update(i for i, p in enumerate(params) if node.buffer.same_as(p))

    tvm_ffi.structural_walk(pf.body, [(tirx.BufferStore, on_store)])
    return found


class OverlapTracer:
    """The VM instrument of `noalias_overlaps`: a kernel called with an argument whose bytes
    meet those of an argument it stores into (TVM marks kernel buffers noalias, so LLVM may
    order their loads and stores as it likes: what the kernel reads is undefined)."""

    def __init__(self, writes: dict[str, set[int]]) -> None:
        self.writes = writes
        self.found: dict[str, str] = {}  # kernel -> which arguments met

    def __call__(self, func: Any, symbol: str, before: bool, ret: Any, *args: Any) -> None:
        symbol = str(symbol)
        if not before or symbol not in self.writes or symbol in self.found:
            return
        spans = [_span(a) for a in args]
        for j in self.writes[symbol]:
            for i, s in enumerate(spans):
                if i != j and j < len(spans) and s and spans[j] and \
                        s[0] < spans[j][1] and spans[j][0] < s[1]:
                    self.found[symbol] = f"argument {i} meets argument {j}, which it stores into"


def _span(a: Any) -> tuple[int, int] | None:
    """The bytes a tensor argument occupies, or None for anything else."""
    if not hasattr(a, "data_ptr") or not hasattr(a, "numel"):
        return None
    start = int(a.data_ptr())
    return start, start + int(a.numel()) * a.dtype.itemsize


def noalias_overlaps(mod: Any, spec: dict[str, Any], seed: int) -> dict[str, str]:
    """The kernels of `mod`'s build that one VM run gives memory overlapping an argument they
    store into (static memory planning: every run gives the same), with which arguments."""
    import tvm
    from tvm import relax, tirx

    writes = {gv.name_hint: stored_params(f) for gv, f in legalized(mod).functions.items()
              if isinstance(f, tirx.PrimFunc)}
    with contextlib.redirect_stderr(io.StringIO()):
        ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    tracer = OverlapTracer(writes)
    vm.set_instrument(tracer)
    inputs = rm.random_inputs(spec, np.random.default_rng(seed))
    vm["main"](*[tvm.runtime.tensor(x.copy()) for x in inputs])
    return tracer.found
