"""The `tvm` package tree the rewritten tests import: names the project can stand for, and
what every other one needs (NotExpressible / Needs / NotInShim when used)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import adapter
from ..classify import NotExpressible, NotInShim
from ..metadata import metadata_section
from ..static_meta import MetaEntry
from . import builders as B
from . import hooks
from .execute import create_executor
from .hooks import AnyDim
from .module import GlobalTypeVar, IRModule, parse_into, type_data
from .ns import NS, node_class
from .passes import PassContext, Sequential, transform_attr
from .testing import Feature, Prelude, detect_feature, free_type_vars, free_vars, make_testing

A = adapter.ast


# ------------------------------------------------------------------------ devices, targets


class Device:
    """tvm.runtime.Device."""

    _TYPES = {"cpu": 1, "llvm": 1, "c": 1, "cuda": 2, "gpu": 2, "nvptx": 2}

    def __init__(self, dev_type: Any, dev_id: int = 0) -> None:
        self.device_type = dev_type if isinstance(dev_type, int) else self._TYPES.get(
            str(dev_type).split()[0], 99)
        self.device_id = dev_id


class Target:
    """tvm.target.Target: an opaque compilation object here."""

    def __init__(self, target: Any, host: Any = None) -> None:
        self.kind = str(target).split()[0]

    def with_host(self, host: Any = None) -> Target:
        return self


class VirtualDevice:
    """tvm.target.VirtualDevice (written into `#[metadata]` with a null target)."""

    def __init__(self, device: Device | None = None, target: Any = None,
                 memory_scope: str = "") -> None:
        d = device if device is not None else Device(-1, -1)
        self.device_type_int = d.device_type
        self.virtual_device_id = d.device_id
        self.target = target
        self.memory_scope = memory_scope


def _meta_entries(table: dict[str, list[Any]]) -> dict[str, list[MetaEntry]]:
    out: dict[str, list[MetaEntry]] = {}
    for key, items in table.items():
        entries = []
        for o in items:
            if isinstance(o, VirtualDevice):
                entries.append(MetaEntry("VirtualDevice", {
                    "device_type_int": o.device_type_int,
                    "virtual_device_id": o.virtual_device_id,
                    "memory_scope": o.memory_scope, "has_target": o.target is not None}))
            elif isinstance(o, A.Constant):
                entries.append(MetaEntry("relay.Constant", {"value": o.data,
                                                            "dtype": str(o.data.dtype)}))
            else:
                raise NotExpressible(f"meta table object {type(o).__name__} built by Python")
        out[key] = entries
    return out


# -------------------------------------------------------------------------------- parsing


def parse(source: str, source_name: str = "from_string", init_module: IRModule | None = None,
          init_meta_table: dict[str, list[Any]] | None = None) -> IRModule:
    """tvm.relay.parse: init module's texts + source (+ the meta table as #[metadata])."""
    meta = metadata_section(_meta_entries(init_meta_table)) if init_meta_table else ""
    return parse_into(init_module, source, meta)


def fromtext(source: str, source_name: str = "from_string") -> IRModule:
    return parse(source, source_name)


def parse_expr(source: str) -> Any:
    return adapter.parse_expr(source, "string")


# ---------------------------------------------------------------------------- comparisons


def _comparable(x: Any) -> Any:
    return x.to_module() if isinstance(x, IRModule) else x


def _same_free_vars(a: Any, b: Any) -> bool:
    if isinstance(a, A.Module) or not isinstance(a, A.Expr):
        return True
    return [id(v) for v in A.free_vars(a)] == [id(v) for v in A.free_vars(b)]


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> bool:
    a, b = _comparable(lhs), _comparable(rhs)
    if not isinstance(a, (A.Expr, A.Module)) or not isinstance(b, (A.Expr, A.Module)):
        return a == b
    return adapter.alpha_equal(a, b) and (map_free_vars or _same_free_vars(a, b))


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    a, b = _comparable(lhs), _comparable(rhs)
    if not isinstance(a, (A.Expr, A.Module)) or not isinstance(b, (A.Expr, A.Module)):
        if a != b:
            raise AssertionError(f"structural_equal: {a} vs {b}")
        return
    adapter.assert_alpha_equal(a, b)
    if not map_free_vars and not _same_free_vars(a, b):
        raise AssertionError("structural_equal: the free variables differ (map_free_vars=False)")


def assert_allclose(actual: Any, desired: Any, rtol: float = 1e-7, atol: float = 1e-7) -> None:
    """tvm.testing.assert_allclose: shapes first, then values."""
    actual, desired = np.asanyarray(actual), np.asanyarray(desired)
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=True)


def _identity_decorator(*args: Any, **kw: Any) -> Any:
    if len(args) == 1 and callable(args[0]) and not kw:
        return args[0]
    return lambda f: f


def _not_text(what: str) -> Any:
    def fail(*a: Any, **k: Any) -> Any:
        raise NotExpressible(what)
    return fail


# ------------------------------------------------------------------------------ the tree


def _op_ns(path: str, prefix: str) -> NS:
    def fallback(name: str) -> Any:
        return B.op_builder(prefix + name) if not name[:1].isupper() else None
    return NS(path, fallback)


def _relay_fallback(name: str) -> Any:
    if name[:1].isupper() or name.startswith("_"):
        return None
    return B.op_builder(name)


def _node(name: str, target: Any, build: Any) -> type:
    return node_class(name, target, build)


_ROOT: list[NS] = []


def tree() -> NS:
    """The root `tvm` namespace (built once per process; the mirror must be set first)."""
    if _ROOT:
        return _ROOT[0]
    interp = NS("tvm.relay.backend.interpreter",
                RefValue=node_class("RefValue", adapter.RefCell,
                                    lambda value: adapter.RefCell(value)),
                ConstructorValue=node_class(
                    "ConstructorValue", adapter.ConstructorValue,
                    lambda tag, fields, constructor: adapter.ConstructorValue(
                        constructor, tuple(fields))),
                Executor=create_executor)
    nn = _op_ns("tvm.relay.nn", "nn.")
    annotation = NS("tvm.relay.annotation", lambda n: B.op_builder(
        {"on_device": "on_device", "checkpoint": "annotation.checkpoint",
         "stop_fusion": "annotation.stop_fusion"}.get(n, "annotation." + n)))
    op = NS("tvm.relay.op", _relay_fallback, nn=nn, annotation=annotation,
            get=lambda name: A.Op(name), Op=node_class("Op", A.Op, A.Op))
    ty_members = dict(
        TensorType=B.TensorType, TupleType=lambda fields: A.TupleType(tuple(fields)),
        FuncType=lambda arg_types, ret_type, type_params=None, type_constraints=None:
        A.FuncType(tuple(arg_types), ret_type, tuple(type_params or ())),
        RefType=A.RefType, TypeVar=lambda name, kind=None: A.TypeVar(name),
        IncompleteType=lambda kind=None: A.IncompleteType(), TypeCall=lambda f, args:
        A.TypeCall(f.name_hint, tuple(args)), Any=AnyDim,
        scalar_type=lambda dtype: A.TensorType((), dtype), GlobalTypeVar=GlobalTypeVar)
    ty = NS("tvm.relay.ty", **ty_members)
    expr_members = dict(
        var=B.var, const=B.const, bind=B.bind,
        Var=_node("Var", A.Var, B.Var), Constant=_node("Constant", A.Constant,
                                                       lambda data: A.Constant(np.asarray(data))),
        Function=_node("Function", A.Function, B.Function), Call=_node("Call", A.Call, B.Call),
        Let=_node("Let", A.Let, lambda v, value, body, span=None: A.Let(v, value, body)),
        If=_node("If", A.If, lambda c, t, f, span=None: A.If(c, t, f)),
        Tuple=_node("Tuple", A.Tuple, lambda fields, span=None: A.Tuple(tuple(fields))),
        TupleGetItem=_node("TupleGetItem", A.TupleGetItem,
                           lambda t, i, span=None: A.TupleGetItem(t, i)),
        RefCreate=_node("RefCreate", A.RefCreate, lambda v, span=None: A.RefCreate(v)),
        RefRead=_node("RefRead", A.RefRead, lambda r, span=None: A.RefRead(r)),
        RefWrite=_node("RefWrite", A.RefWrite, lambda r, v, span=None: A.RefWrite(r, v)),
        GlobalVar=_node("GlobalVar", A.GlobalVar,
                        lambda name, type_annot=None: A.GlobalVar(name)),
        Expr=_node("Expr", A.Expr, None), RelayExpr=_node("RelayExpr", A.Expr, None))
    adt_members = dict(
        Constructor=_node("Constructor", A.Constructor, B.Constructor),
        TypeData=_node("TypeData", A.TypeData, type_data),
        Match=_node("Match", A.Match, lambda data, clauses, complete=True:
                    A.Match(data, tuple(clauses), complete)),
        Clause=_node("Clause", A.Clause, lambda lhs, rhs: A.Clause(lhs, rhs)),
        PatternWildcard=_node("PatternWildcard", A.PatternWildcard, A.PatternWildcard),
        PatternVar=_node("PatternVar", A.PatternVar, lambda v: A.PatternVar(v)),
        PatternConstructor=_node("PatternConstructor", A.PatternConstructor,
                                 lambda c, patterns=None: A.PatternConstructor(
                                     c, tuple(patterns or ()))),
        PatternTuple=_node("PatternTuple", A.PatternTuple,
                           lambda patterns=None: A.PatternTuple(tuple(patterns or ()))))
    transform = NS("tvm.relay.transform", transform_attr)
    analysis = NS("tvm.relay.analysis", free_vars=free_vars, free_type_vars=free_type_vars,
                  detect_feature=detect_feature, Feature=Feature)
    relay = NS("tvm.relay", _relay_fallback, **expr_members, **adt_members, **ty_members,
               op=op, nn=nn, annotation=annotation, transform=transform, analysis=analysis,
               ty=ty, expr=NS("tvm.relay.expr", **expr_members),
               adt=NS("tvm.relay.adt", **adt_members),
               function=NS("tvm.relay.function", Function=expr_members["Function"]),
               ScopeBuilder=B.ScopeBuilder,
               scope_builder=NS("tvm.relay.scope_builder", ScopeBuilder=B.ScopeBuilder),
               prelude=NS("tvm.relay.prelude", Prelude=Prelude), Prelude=Prelude,
               backend=NS("tvm.relay.backend", interpreter=interp), create_executor=create_executor,
               parse=parse, fromtext=fromtext, parse_expr=parse_expr,
               Span=B.Span, SourceName=lambda name: name,
               build=_not_text("relay.build (compilation for a target)"),
               vm=NS("tvm.relay.vm", lambda n: _not_text("the Relay VM (compilation)")),
               frontend=NS("tvm.relay.frontend", lambda n: _not_text("framework frontends")),
               gradient=transform_attr("gradient"))
    tvm_ir = NS("tvm.ir", assert_structural_equal=assert_structural_equal,
                structural_equal=structural_equal, make_node=B.make_node, IRModule=IRModule,
                Op=node_class("Op", A.Op, A.Op), load_json=adapter.load_json,
                save_json=adapter.save_json)
    testing_ns = NS("tvm.testing", assert_allclose=assert_allclose, main=lambda: None,
                    device_enabled=lambda t: str(t) == "llvm",
                    enabled_targets=lambda: [("llvm", Device("cpu"))],
                    requires_llvm=_identity_decorator, uses_gpu=_identity_decorator,
                    requires_gpu=_identity_decorator, requires_cuda=_identity_decorator,
                    parametrize_targets=_identity_decorator, skip_if_32bit=_identity_decorator,
                    known_failing_targets=_identity_decorator)
    error = NS("tvm.error", DiagnosticError=(adapter.ParseError, adapter.RelayTypeError),
               TVMError=adapter.LocatedError, InternalError=adapter.LocatedError,
               OpError=adapter.LocatedError)
    root = NS("tvm", IRModule=IRModule, relay=relay, ir=tvm_ir, testing=testing_ns,
              error=error, nd=NS("tvm.nd", array=lambda a, device=None: np.asarray(a),
                                 NDArray=np.ndarray),
              device=Device, cpu=lambda n=0: Device("cpu", n), cuda=lambda n=0: Device("cuda", n),
              gpu=lambda n=0: Device("cuda", n),
              target=NS("tvm.target", Target=Target, VirtualDevice=VirtualDevice,
                        make_compilation_config=_not_text("compilation config (targets)")),
              transform=NS("tvm.transform", Sequential=Sequential, PassContext=PassContext,
                           Pass=transform_attr("Pass")),
              tir=NS("tvm.tir", lambda n: _not_text(f"TIR (tvm.tir.{n})"), Any=AnyDim),
              te=NS("tvm.te", lambda n: _not_text(f"TIR expressions (tvm.te.{n})")),
              runtime=NS("tvm.runtime", enabled=lambda t: str(t) == "llvm",
                         container=NS("tvm.runtime.container", tuple_object=_not_text(
                             "runtime containers (tuple_object)"))),
              parser=NS("tvm.parser", parse=parse, fromtext=fromtext, parse_expr=parse_expr),
              script=NS("tvm.script", lambda n: _not_text("TVMScript (TIR)")),
              contrib=NS("tvm.contrib", lambda n: _not_text("tvm.contrib (targets)")))
    _ROOT.append(root)
    relay.testing = make_testing(hooks, resolve, relay)
    return root


def resolve(dotted: str) -> Any:
    """The shim object for an imported dotted name (`tvm.relay.testing`)."""
    obj: Any = tree()
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


__all__ = ["resolve", "tree", "NotInShim"]
