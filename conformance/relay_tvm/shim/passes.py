"""`relay.transform` / `tvm.transform` for the shim: the passes the project has, run through the
project; every other v0.19 pass says which one is missing when a test applies it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import adapter
from ..classify import Needs
from .module import IRModule

A = adapter.ast


class Pass:
    """tvm.transform.Pass: a function from IRModule to IRModule."""

    def __init__(self, name: str, fn: Callable[[IRModule], IRModule]) -> None:
        self.name = name
        self.fn = fn

    def __call__(self, mod: IRModule) -> IRModule:
        if not isinstance(mod, IRModule):
            raise TypeError(f"{self.name} expects an IRModule, got {type(mod).__name__}")
        return self.fn(mod)

    @property
    def info(self) -> Any:
        return self


def _module_pass(name: str, fn: Callable[[Any], Any]) -> Pass:
    def run(mod: IRModule) -> IRModule:
        out = IRModule.wrap(fn(mod.to_module()), mod.texts)
        out.added = set(mod.added)
        return out
    return Pass(name, run)


def InferType() -> Pass:  # TVM's names
    def run(mod: IRModule) -> IRModule:
        typed = adapter.infer_types(mod.to_module())
        out = IRModule.wrap(typed.module, mod.texts, typed.types)
        out.added = set(mod.added)
        return out
    return Pass("InferType", run)


def DeadCodeElimination(inline_once: bool = False, ignore_impurity: bool = False) -> Pass:
    """v0.19's DCE (purity); `ignore_impurity=True` is v0.19's pass with every binding pure,
    which still counts uses inside nested functions twice: not the pre-#9542 pass the
    project's assume-pure mode is, so it is reported missing rather than approximated."""
    if ignore_impurity:
        def missing(mod: IRModule) -> IRModule:
            raise Needs("pass:DeadCodeElimination(ignore_impurity=True)",
                        "v0.19's DCE with purity ignored (the project has pre-#9542 "
                        "assume-pure and post-#9542 purity, not this mix)")
        return Pass("DeadCodeElimination", missing)
    return _module_pass("DeadCodeElimination",
                        lambda m: adapter.dce(m, mode="purity", inline_once=inline_once))


def ToANormalForm() -> Pass:
    return _module_pass("ToANormalForm", lambda m: adapter.to_a_normal_form(m).module)


def EtaExpand(expand_constructor: bool = False, expand_global_var: bool = False) -> Pass:
    if expand_global_var:
        def missing(mod: IRModule) -> IRModule:
            raise Needs("pass:EtaExpand(expand_global_var=True)",
                        "the project's EtaExpand only expands constructors")
        return Pass("EtaExpand", missing)
    if not expand_constructor:
        return Pass("EtaExpand", lambda mod: mod)
    return _module_pass("EtaExpand", lambda m: adapter.eta_expand(m)[0])


def SimplifyInference() -> Pass:
    return _module_pass("SimplifyInference", adapter.simplify_inference)


def AnnotateSpans() -> Pass:
    """v0.19's AnnotateSpans prints the module and parses the text back (spans from the text)."""
    def run(mod: IRModule) -> IRModule:
        text = adapter.astext(mod.to_module())
        typed = adapter.infer_types(adapter.parse(text, "GeneratedSource"))
        return IRModule.wrap(typed.module, [text], typed.types)
    return Pass("AnnotateSpans", run)


def FirstOrderGradient() -> Pass:
    return _module_pass("FirstOrderGradient", adapter.first_order_gradient_module)


def Legalize(legalize_map_attr_name: str = "FTVMLegalize") -> Pass:
    """No op the project registers has an FTVMLegalize rule for the llvm target: identity."""
    return Pass("Legalize", lambda mod: mod)


def missing_pass(name: str) -> Callable[..., Pass]:
    """A v0.19 pass the project does not implement: building it is fine, running it is not."""
    def make(*args: Any, **kw: Any) -> Pass:
        def run(mod: IRModule) -> IRModule:
            raise Needs(f"pass:{name}", f"relay.transform.{name} is not implemented")
        return Pass(name, run)
    return make


def gradient(expr: Any, mod: IRModule | None = None, mode: str = "higher_order") -> Any:
    """relay.transform.gradient: the gradient function; `@f_grad` globals go into mod."""
    if mode == "first_order":
        if mod is not None:  # as v0.19's Python wrapper says
            raise adapter.LocatedError("to run first-order AD on a module, please use the "
                                       "FirstOrderGradient module pass.")
        return adapter.first_order_gradient(expr)
    if mode != "higher_order":
        raise adapter.LocatedError(f"unknown mode {mode}")
    base = mod.to_module() if mod is not None else A.Module({})
    if isinstance(expr, A.GlobalVar) and mod is None:
        raise adapter.LocatedError("gradient of a GlobalVar needs its module")
    fn, out = adapter.gradient(expr, base)
    if mod is not None:
        for name, f in out.functions.items():
            if name not in mod.functions:
                mod[name] = f
    return fn


class Sequential:
    """tvm.transform.Sequential: the passes in order."""

    def __init__(self, passes: Any = None, opt_level: int = 0, name: str = "sequential",
                 required: Any = None) -> None:
        self.passes = list(passes or [])

    def __call__(self, mod: IRModule) -> IRModule:
        for p in self.passes:
            mod = p(mod)
        return mod


class PassContext:
    """tvm.transform.PassContext: options are irrelevant to the passes the project has."""

    def __init__(self, opt_level: int = 2, required_pass: Any = None,
                 disabled_pass: Any = None, instruments: Any = None, config: Any = None) -> None:
        self.opt_level = opt_level

    def __enter__(self) -> PassContext:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    @staticmethod
    def current() -> PassContext:
        return PassContext()


IMPLEMENTED: dict[str, Callable[..., Any]] = {
    "InferType": InferType, "DeadCodeElimination": DeadCodeElimination,
    "ToANormalForm": ToANormalForm, "EtaExpand": EtaExpand,
    "SimplifyInference": SimplifyInference, "AnnotateSpans": AnnotateSpans,
    "Legalize": Legalize, "gradient": gradient, "gradient:first_order": gradient,
    "FirstOrderGradient": FirstOrderGradient, "Sequential": Sequential,
    "PassContext": PassContext, "Pass": Pass,
}


def transform_attr(name: str) -> Any:
    """relay.transform.<name>: a pass the project has, or a missing one (CamelCase names)."""
    if name in IMPLEMENTED:
        return IMPLEMENTED[name]
    if name[:1].isupper():
        return missing_pass(name)
    return None
