"""Find every Relay text program in a TVM test file, statically (Python's `ast`, no execution).

A program is the text handed to `tvm.relay.parse` / `relay.fromtext` / `tvm.parser.parse` /
`relay.parse_expr` (directly, or through a helper of the same file whose parameter flows into
such a call, e.g. test_ir_parser's `parse_module(code)`), or any string that starts with the
`#[version = "0.0.5"]` header. Its text is folded from constants (`fold.py`), once per value of
the enclosing `for` loops and `pytest.mark.parametrize` lists. Each program records what TVM's
test does with it: module or expression, whether the call sits in a `pytest.raises` block, the
init module and meta table the call passes, and the passes / executors the test runs.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .fold import Folder, Scope, assigned_names, iterate
from .static_meta import MetaEntry, StaticMeta, call_arg

PARSE_FUNCS = {"parse": "module", "fromtext": "module", "parse_expr": "expr",
               "from_text": "module"}
VERSION_RE = re.compile(r'\s*#\[version = "0\.0\.5"\]')
TYPE_PASSES = frozenset({"InferType", "InferTypeLocal"})
PASS_INFRA = frozenset({"Sequential", "PassContext", "ModulePass", "FunctionPass"})
EXECUTORS = ("create_executor", "relay.build", "vm.compile", "VirtualMachine", "graph_executor",
             "tvm.build", "build_module", "run_as_python", "check_result", "_create_executor")
_MAX_VARIANTS = 64


@dataclass
class Program:
    """One Relay text program of a test file and what the test does with it."""

    file: str
    test: str
    line: int
    kind: str  # "module" | "expr"
    text: str | None  # None: assembled by Python at run time
    expect_error: bool = False
    via: str = ""
    variant: str = ""
    meta: dict[str, list[MetaEntry]] | None = None
    meta_problem: str = ""
    # the init module: std files it imports ("core.rly"), or "text:<its Relay text>"
    init_std: list[str] = field(default_factory=list)
    init_problem: str = ""
    typechecked_by_test: bool = False  # the test runs InferType on it (modules: always)


@dataclass
class TestInfo:
    """What a test function (with the same-file helpers it calls) runs besides parsing."""

    name: str
    line: int
    passes: set[str] = field(default_factory=set)
    executors: set[str] = field(default_factory=set)
    infer_type: bool = False


# ------------------------------------------------------------------------------ the walk


def _dotted(n: ast.expr) -> str:
    try:
        return ast.unparse(n)
    except Exception:  # ast.unparse of odd nodes
        return ""


class _File:
    """One parsed test file: scopes, functions by name, parents, imports of parse functions."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.tree = ast.parse(text)
        self.parents: dict[int, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
        self.module_scope = Scope.of(self.tree.body, None, nested=False)
        self.folder = Folder(self.module_scope)
        self.scopes: dict[int, Scope] = {}
        self.funcs: dict[str, ast.FunctionDef] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef):
                self.funcs.setdefault(node.name, node)
        self.imported = {a.asname or a.name for n in ast.walk(self.tree)
                         if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("tvm")
                         for a in n.names if a.name in PARSE_FUNCS}
        self.fixture_params = self._fixture_params()
        self.wrappers = self._wrappers()

    # -- scopes and ancestry

    def enclosing_func(self, node: ast.AST) -> ast.FunctionDef | None:
        p = self.parents.get(id(node))
        while p is not None and not isinstance(p, ast.FunctionDef):
            p = self.parents.get(id(p))
        return p

    def scope(self, func: ast.FunctionDef | None) -> Scope:
        if func is None:
            return self.module_scope
        s = self.scopes.get(id(func))
        if s is None:
            parent = self.scope(self.enclosing_func(func))
            s = Scope.of(func.body, parent)
            for a in func.args.args + func.args.kwonlyargs:
                s.assigns.setdefault(a.arg, [])
            self.scopes[id(func)] = s
        return s

    def outermost_func(self, node: ast.AST) -> ast.FunctionDef | None:
        f = self.enclosing_func(node)
        while f is not None:
            up = self.enclosing_func(f)
            if up is None:
                return f
            f = up
        return None

    def ancestors(self, node: ast.AST, stop: ast.AST | None) -> Iterator[ast.AST]:
        p = self.parents.get(id(node))
        while p is not None and p is not stop:
            yield p
            p = self.parents.get(id(p))

    def in_raises(self, node: ast.AST) -> bool:
        for a in self.ancestors(node, None):
            if isinstance(a, ast.With) and any(
                    isinstance(i.context_expr, ast.Call)
                    and _dotted(i.context_expr.func).endswith("raises") for i in a.items):
                return True
        return False

    # -- parse calls and wrappers

    def parse_kind(self, call: ast.Call) -> str | None:
        d = _dotted(call.func)
        last = d.rsplit(".", 1)[-1]
        if last not in PARSE_FUNCS:
            return None
        if "." in d:
            prefix = d.rsplit(".", 1)[0]
            return PARSE_FUNCS[last] if prefix.endswith(("relay", "parser", "IRModule")) else None
        return PARSE_FUNCS[last] if d in self.imported else None

    def _depends(self, func: ast.FunctionDef) -> set[str]:
        params = {a.arg for a in func.args.args + func.args.kwonlyargs}
        dep = set(params)
        changed = True
        while changed:
            changed = False
            for node in ast.walk(func):
                if isinstance(node, ast.stmt):
                    for name, value, _ in assigned_names(node):
                        if name not in dep and value is not None and _mentions(value, dep):
                            dep.add(name)
                            changed = True
        return dep

    def _wrappers(self) -> dict[str, ast.FunctionDef]:
        """Functions with a parameter that flows into a parse call's text (to a fixpoint)."""
        out: dict[str, ast.FunctionDef] = {}
        deps = {name: self._depends(fn) for name, fn in self.funcs.items()}
        changed = True
        while changed:
            changed = False
            for name, fn in self.funcs.items():
                if name in out or name.startswith("test"):  # pytest calls tests, not the file
                    continue
                for call in _calls(fn):
                    if self._is_site(call, out) and call.args and _mentions(call.args[0],
                                                                          deps[name]):
                        out[name] = fn
                        changed = True
                        break
        return out

    def _is_site(self, call: ast.Call, wrappers: dict[str, ast.FunctionDef]) -> bool:
        if self.parse_kind(call) is not None:
            return True
        return isinstance(call.func, ast.Name) and call.func.id in wrappers

    def _fixture_params(self) -> dict[str, list[Any]]:
        """Module-level `x = tvm.testing.parameter(a, b)` fixtures and their values."""
        out: dict[str, list[Any]] = {}
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and _dotted(node.value.func).endswith("testing.parameter"):
                vals = [self.folder.fold(a, self.module_scope, node.lineno)
                        for a in node.value.args]
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        out[t.id] = vals
        return out


def _mentions(e: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(e))


def _calls(fn: ast.AST) -> Iterator[ast.Call]:
    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            yield n


# --------------------------------------------------------------------------- variants


def _bind_target(t: ast.expr, v: Any, env: dict[str, Any]) -> bool:
    if isinstance(t, ast.Name):
        env[t.id] = v
        return True
    if isinstance(t, (ast.Tuple, ast.List)) and isinstance(v, (tuple, list)) \
            and len(v) == len(t.elts):
        return all(_bind_target(a, b, env) for a, b in zip(t.elts, v, strict=True))
    return False


def _param_variants(f: _File, test: ast.FunctionDef | None) -> list[dict[str, Any]]:
    """One env per combination of the test's parametrize lists and fixture parameters."""
    if test is None:
        return [{}]
    axes: list[list[dict[str, Any]]] = []
    for dec in test.decorator_list:
        if isinstance(dec, ast.Call) and _dotted(dec.func).endswith("parametrize") \
                and len(dec.args) >= 2:
            names = f.folder.fold(dec.args[0], f.module_scope, dec.lineno)
            values = iterate(f.folder.fold(dec.args[1], f.module_scope, dec.lineno))
            if not isinstance(names, (str, list, tuple)) or values is None:
                continue
            keys = [k.strip() for k in names.split(",")] if isinstance(names, str) else list(names)
            axis = []
            for v in values:
                vs = v if len(keys) > 1 else (v,)
                if isinstance(vs, (tuple, list)) and len(vs) == len(keys):
                    axis.append(dict(zip(keys, vs, strict=True)))
            if axis:
                axes.append(axis)
    for a in test.args.args:
        if a.arg in f.fixture_params:
            axes.append([{a.arg: v} for v in f.fixture_params[a.arg]])
    out = []
    for combo in itertools.islice(itertools.product(*axes), _MAX_VARIANTS):
        env: dict[str, Any] = {}
        for d in combo:
            env.update(d)
        out.append(env)
    return out or [{}]


def _loop_variants(f: _File, node: ast.AST, func: ast.FunctionDef | None,
                   env: dict[str, Any]) -> list[dict[str, Any]]:
    """env extended by the values of the for loops (inside func) around node."""
    loops = [a for a in f.ancestors(node, func) if isinstance(a, ast.For)]
    envs = [dict(env)]
    for loop in reversed(loops):  # outermost first
        nxt = []
        for e in envs:
            values = iterate(f.folder.fold(loop.iter, f.scope(func), loop.lineno, e))
            if values is None:
                nxt.append(e)
                continue
            for v in values:
                e2 = dict(e)
                if _bind_target(loop.target, v, e2):
                    nxt.append(e2)
        envs = nxt[:_MAX_VARIANTS]
    return envs


def _variant_label(env: dict[str, Any], base: dict[str, Any]) -> str:
    items = [f"{k}={v!r}" for k, v in env.items() if k not in base and isinstance(
        v, (str, int, float, bool, tuple))]
    return ", ".join(items)[:120]


# ----------------------------------------------------------------------------- programs


class _Finder:
    def __init__(self, f: _File) -> None:
        self.f = f
        self.meta = StaticMeta(f)
        self.out: list[Program] = []
        self.seen: set[tuple[Any, ...]] = set()

    def run(self) -> list[Program]:
        f = self.f
        for call in _calls(f.tree):
            func = f.enclosing_func(call)
            if func is not None and func.name in f.wrappers and self._inner(call, func):
                continue  # a wrapper's own parse call: its programs come from its callers
            if not f._is_site(call, f.wrappers):
                continue
            test = f.outermost_func(call)
            for penv in _param_variants(f, test):
                for env in _loop_variants(f, call, func, penv):
                    label = _variant_label(env, {})
                    for prog in self.site(call, func, env, depth=0, chain=[]):
                        prog.variant = label
                        self.add(prog, test)
        self.version_strings()
        return self.out

    def _inner(self, call: ast.Call, wrapper: ast.FunctionDef) -> bool:
        deps = self.f._depends(wrapper)
        return bool(call.args) and _mentions(call.args[0], deps)

    def add(self, p: Program, test: ast.FunctionDef | None) -> None:
        p.test = test.name if test is not None else "<module>"
        key = (p.test, p.kind, p.text, p.expect_error, p.meta_problem, p.init_problem,
               p.text is None and p.line)
        if key not in self.seen:
            self.seen.add(key)
            self.out.append(p)

    def site(self, call: ast.Call, func: ast.FunctionDef | None, env: dict[str, Any],
             depth: int, chain: list[str]) -> Iterator[Program]:
        f = self.f
        scope = f.scope(func)
        kind = f.parse_kind(call)
        name = _dotted(call.func)
        raises = f.in_raises(call)
        if kind is not None:
            arg = call.args[0] if call.args else None
            # `a if cond else b`: both texts are programs of the test
            for node in (arg.body, arg.orelse) if isinstance(arg, ast.IfExp) else (arg,):
                text = f.folder.fold(node, scope, call.lineno, env) if node is not None else None
                if not isinstance(text, str):
                    if node is None or (depth > 0 and not self._stringish(node, scope,
                                                                         call.lineno)):
                        continue
                    text = None
                p = Program(f.path, "", call.lineno, kind, text, raises,
                            via=" -> ".join([*chain, name]))
                if kind == "module":
                    p.meta, p.meta_problem = self.meta.table(
                        call_arg(call, 3, "init_meta_table"), scope, call.lineno)
                    p.init_std, p.init_problem = self.meta.init_module(
                        call_arg(call, 2, "init_module"), scope, call.lineno)
                yield p
            return
        wrapper = f.wrappers.get(name)
        if wrapper is None or depth > 6:
            return
        binds = self._bind(call, wrapper, scope, env)
        for inner in _calls(wrapper):
            if inner is call or not f._is_site(inner, f.wrappers) or not self._inner(inner,
                                                                                  wrapper):
                continue
            for e2 in _loop_variants(f, inner, wrapper, binds):
                for p in self.site(inner, wrapper, e2, depth + 1, [*chain, name]):
                    p.line = call.lineno
                    p.expect_error = p.expect_error or raises
                    yield p

    def _extended_later(self, node: ast.Constant, func: ast.FunctionDef | None) -> bool:
        """`text = "#[version..."` that later `text += ...` statements extend (a fragment)."""
        parent = self.f.parents.get(id(node))
        if not isinstance(parent, ast.Assign):
            return False
        names = {t.id for t in parent.targets if isinstance(t, ast.Name)}
        return any(isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
                   and n.target.id in names for n in ast.walk(func or self.f.tree))

    def _stringish(self, node: ast.expr, scope: Scope, line: int, depth: int = 0) -> bool:
        """Whether node builds a string (so an unknown value is text made at run time)."""
        if depth > 8:
            return False
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.BinOp):
            return self._stringish(node.left, scope, line, depth + 1) or \
                self._stringish(node.right, scope, line, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return node.func.attr in ("join", "format") and \
                self._stringish(node.func.value, scope, line, depth + 1)
        if isinstance(node, ast.Name):
            hits = [h for h in scope.assigns.get(node.id, []) if h[0] < line]
            return any(v is not None and self._stringish(v, scope, ln, depth + 1)
                       for ln, v, _ in hits)
        return False

    def _bind(self, call: ast.Call, fn: ast.FunctionDef, scope: Scope,
              env: dict[str, Any]) -> dict[str, Any]:
        f = self.f
        params = [a.arg for a in fn.args.args]
        defaults = fn.args.defaults
        out: dict[str, Any] = {}
        for i, d in enumerate(defaults):
            out[params[len(params) - len(defaults) + i]] = f.folder.fold(d, f.module_scope, 0)
        for p, a in zip(params, call.args, strict=False):
            out[p] = f.folder.fold(a, scope, call.lineno, env)
        for k in call.keywords:
            if k.arg is not None:
                out[k.arg] = f.folder.fold(k.value, scope, call.lineno, env)
        return out

    def version_strings(self) -> None:
        """String literals that start with the version header and no parse call took."""
        texts = [p.text for p in self.out if p.text]
        for node in ast.walk(self.f.tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and VERSION_RE.match(node.value) \
                    and re.search(r"\b(def|type|fn|extern)\b", node.value) \
                    and not any(node.value.strip() in t for t in texts):
                func = self.f.enclosing_func(node)
                if self._extended_later(node, func):
                    continue
                p = Program(self.f.path, "", node.lineno, "module", node.value,
                            self.f.in_raises(node), via="version-header string")
                self.add(p, self.f.outermost_func(node) if func is not None else None)


# ------------------------------------------------------------------------------- tests


def test_infos(f: _File) -> dict[str, TestInfo]:
    """Per top-level function: passes, executors and InferType it runs (helpers included)."""
    out: dict[str, TestInfo] = {}
    memo: dict[str, tuple[set[str], set[str], bool]] = {}
    # passes imported by name: `from tvm.relay.transform import PlanDevices`
    imported_passes = {a.asname or a.name for n in ast.walk(f.tree)
                       if isinstance(n, ast.ImportFrom) and "transform" in (n.module or "")
                       for a in n.names if a.name[:1].isupper()}

    def features(fn: ast.FunctionDef, stack: tuple[str, ...]) -> tuple[set[str], set[str], bool]:
        if fn.name in memo:
            return memo[fn.name]
        passes: set[str] = set()
        execs: set[str] = set()
        infer = False
        for call in _calls(fn):
            d = _dotted(call.func)
            m = re.search(r"(?:^|\.)(?:_?transform)\.([A-Z]\w+)$", d)
            if m is None and d in imported_passes:
                m = re.match(r"(\w+)", d)
            if m and m.group(1) not in PASS_INFRA:
                if m.group(1) in TYPE_PASSES:
                    infer = True
                else:
                    passes.add(m.group(1))
            if d.endswith(("run_infer_type", "infer_type")):
                infer = True
            if d.endswith("gradient") and "transform" in d or d == "gradient":
                mode = next((k.value.value for k in call.keywords if k.arg == "mode"
                             and isinstance(k.value, ast.Constant)), "higher_order")
                passes.add("gradient" if mode == "higher_order" else f"gradient:{mode}")
            for e in EXECUTORS:
                if e in d:
                    execs.add(e)
            if isinstance(call.func, ast.Name) and call.func.id in f.funcs \
                    and call.func.id not in stack:
                p2, e2, i2 = features(f.funcs[call.func.id], (*stack, fn.name))
                passes |= p2
                execs |= e2
                infer = infer or i2
        memo[fn.name] = (passes, execs, infer)
        return memo[fn.name]

    for node in f.tree.body:
        fns = [node] if isinstance(node, ast.FunctionDef) else [
            m for m in getattr(node, "body", []) if isinstance(m, ast.FunctionDef)
        ] if isinstance(node, ast.ClassDef) else []
        for fn in fns:
            passes, execs, infer = features(fn, ())
            out[fn.name] = TestInfo(fn.name, fn.lineno, passes, execs, infer)
    return out


def discover(path: str, text: str) -> tuple[list[Program], dict[str, TestInfo]]:
    """The programs of one test file and what each of its test functions runs."""
    f = _File(path, text)
    progs = _Finder(f).run()
    infos = test_infos(f)
    for p in progs:
        info = infos.get(p.test)
        p.typechecked_by_test = p.kind == "module" or bool(info and info.infer_type)
    return progs, infos
