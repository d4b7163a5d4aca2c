"""`tvm.relay.testing`, `Prelude` and `relay.analysis` for the shim.

Where v0.19's helpers are plain Python over the Relay API (run_infer_type, check_grad, rand,
the nat helpers) their own source is read from the mirror and run against the shim, so they
behave as TVM's do. The model zoo is the project's rebuild of `relay.testing` (`aliaslog.zoo`);
its parameters (Xavier-initialised arrays) are Python-built constants, so using them is not
expressible. Prelude loads prelude.rly as v0.19's does and names the same globals; the tensor
array functions it also registers are built by Python (TensorArrayOps) and are left out.
"""

from __future__ import annotations

import ast
import collections
import enum
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import adapter
from ..classify import NotExpressible, NotInShim
from .module import SOURCE, IRModule
from .ns import NS
from .rewrite import namespace, rewrite

A = adapter.ast
TESTING = "python/tvm/relay/testing/__init__.py"
NAT = "python/tvm/relay/testing/nat.py"
PRELUDE = "python/tvm/relay/prelude.py"


def exec_mirror(path: str, names: list[str] | None, extra: dict[str, Any],
                hooks: Any, resolve: Callable[[str], Any]) -> dict[str, Any]:
    """Run a v0.19 Python file (or only its functions called `names`) against the shim."""
    src = SOURCE[0].show(path)
    tree = rewrite(src, f"<tvm:{path}>")
    if names is not None:
        tree.body = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    ns = namespace(hooks, resolve, f"<tvm:{path}>")
    ns.update(extra)
    exec(compile(tree, f"<tvm:{path}>", "exec"), ns)  # TVM's own helper code
    return ns


class Unavailable:
    """A value TVM builds in Python (e.g. random parameters): any use is not expressible."""

    def __init__(self, why: str) -> None:
        self._why = why

    def _fail(self, *a: Any, **k: Any) -> Any:
        raise NotExpressible(self._why)

    __iter__ = __getitem__ = __len__ = __contains__ = __call__ = _fail

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotExpressible(self._why)


def workload(model: str) -> NS:
    """`relay.testing.<model>` with `get_workload` on the project's zoo."""
    builder = getattr(adapter.zoo, model)
    names = list(inspect.signature(builder).parameters)

    def get_workload(*args: Any, **kw: Any) -> tuple[IRModule, Unavailable]:
        kw.update(zip(names, args, strict=False))
        typed = adapter.infer_types(A.Module({"main": builder(**kw)}))
        return (IRModule.wrap(typed.module, types=typed.types),
                Unavailable(f"relay.testing.{model} parameters (Xavier-initialised arrays, "
                            "Python-built constants)"))

    def get_net(*args: Any, **kw: Any) -> Any:
        """The network function itself (get_net's arguments are the builder's)."""
        kw.update(zip(names, args, strict=False))
        return builder(**kw)

    return NS(f"tvm.relay.testing.{model}", get_workload=get_workload, get_net=get_net)


ZOO = ("mlp", "resnet", "resnet_3d", "mobilenet", "lstm", "dqn", "dcgan", "squeezenet", "vgg",
       "densenet", "inception_v3", "synthetic")


def count_ops(expr: Any) -> collections.Counter[str]:
    """relay.testing.count_ops: calls of each op, each node once (ExprVisitor memoises)."""
    c: collections.Counter[str] = collections.Counter()
    for n in A.post_order(expr):
        if isinstance(n, A.Call) and isinstance(n.op, A.Op):
            c[n.op.name] += 1
    return c


def _global_defs() -> list[str]:
    """The GLOBAL_DEFS list of v0.19's Prelude.load_prelude, read from its source."""
    tree = ast.parse(SOURCE[0].show(PRELUDE))
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "GLOBAL_DEFS"
                                             for t in n.targets):
            return list(ast.literal_eval(n.value))
    raise RuntimeError("GLOBAL_DEFS not found in prelude.py")


class Prelude:
    """tvm.relay.prelude.Prelude: prelude.rly imported, its globals named; no tensor arrays."""

    def __init__(self, mod: IRModule | None = None) -> None:
        self.mod = mod if mod is not None else IRModule()
        self.load_prelude()

    def load_prelude(self) -> None:
        self.mod.import_from_std("prelude.rly")
        for name in _global_defs():
            setattr(self, name, self.mod.get_global_var(name))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotInShim(f"Prelude.{name} (tensor array functions are built by Python)")


# ------------------------------------------------------------------------------ analysis


class Feature(enum.IntEnum):
    """python/tvm/relay/analysis/feature.py."""

    fVar = 0
    fGlobalVar = 1
    fConstant = 2
    fTuple = 3
    fTupleGetItem = 4
    fFunction = 5
    fOp = 6
    fCall = 7
    fLet = 8
    fIf = 9
    fRefCreate = 10
    fRefRead = 11
    fRefWrite = 12
    fConstructor = 13
    fMatch = 14
    fGraph = 15
    fLetRec = 16


_FEATURE_OF = {"Var": Feature.fVar, "GlobalVar": Feature.fGlobalVar,
               "Constant": Feature.fConstant, "Tuple": Feature.fTuple,
               "TupleGetItem": Feature.fTupleGetItem, "Function": Feature.fFunction,
               "Op": Feature.fOp, "Call": Feature.fCall, "Let": Feature.fLet, "If": Feature.fIf,
               "RefCreate": Feature.fRefCreate, "RefRead": Feature.fRefRead,
               "RefWrite": Feature.fRefWrite, "Constructor": Feature.fConstructor,
               "Match": Feature.fMatch}
_ATOMIC = ("Var", "GlobalVar", "Constant", "Op", "Constructor")


def detect_feature(a: Any, b: Any = None) -> set[Feature]:
    """src/relay/analysis/feature.cc: node kinds present, fGraph for a shared non-atom,
    fLetRec for a let-bound function that refers to its own variable."""
    roots = [a] if not isinstance(a, IRModule) else list(a.functions.values())
    if isinstance(b, IRModule):
        roots += list(b.functions.values())
    out: set[Feature] = set()
    for root in roots:
        parents: collections.Counter[int] = collections.Counter()
        for n in A.post_order(root):
            out.add(_FEATURE_OF[type(n).__name__])
            for c in A.children(n):
                parents[id(c)] += 1
            if isinstance(n, A.Let) and isinstance(n.value, A.Function) \
                    and any(v is n.var for v in A.free_vars(n.value)):
                out.add(Feature.fLetRec)
        by_id = {id(n): n for n in A.post_order(root)}
        if any(k > 1 and type(by_id[i]).__name__ not in _ATOMIC for i, k in parents.items()):
            out.add(Feature.fGraph)
    return out


def free_vars(expr: Any) -> list[Any]:
    return list(A.free_vars(expr))


def free_type_vars(expr: Any, mod: Any = None) -> list[Any]:
    raise NotInShim("relay.analysis.free_type_vars")


def make_testing(hooks: Any, resolve: Callable[[str], Any], relay: Any) -> NS:
    """The relay.testing namespace (TVM's helper functions run from the mirror)."""
    from .passes import gradient

    extra = {"np": np, "tvm": resolve("tvm"), "relay": relay, "op": relay.op,
             "gradient": gradient, "Prelude": Prelude, "collections": collections,
             "enabled_targets": lambda: [("llvm", resolve("tvm").cpu(0))]}
    helpers = exec_mirror(TESTING, ["run_opt_pass", "run_infer_type", "_np_randn_from_type",
                                    "check_grad", "rand"], extra, hooks, resolve)
    nat = exec_mirror(NAT, None, {}, hooks, resolve)
    members: dict[str, Any] = {k: helpers[k] for k in ("run_opt_pass", "run_infer_type",
                                                       "check_grad", "rand")}
    members.update({k: nat[k] for k in ("count", "make_nat_value", "make_nat_expr")})
    members["count_ops"] = count_ops
    members["nat"] = NS("tvm.relay.testing.nat", **{k: nat[k] for k in (
        "get_type", "count", "make_nat_value", "make_nat_expr")})
    for m in ZOO:
        members[m] = workload(m)
    return NS("tvm.relay.testing", **members)
