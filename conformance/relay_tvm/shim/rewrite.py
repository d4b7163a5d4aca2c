"""Run a TVM test file's own Python against the shim: `import tvm` gets the shim, and the
operators Relay overloads on its objects are routed through `hooks`.

TVM's Relay objects overload `+ - * /` (building calls), are callable (`f(x)` builds a Call)
and carry attributes our immutable AST spells differently (`.checked_type`, `.astext()`,
`.data.numpy()`). The test source is rewritten, line numbers kept, so that every binary
operator, unary minus, attribute read and call goes through `hooks`, which does what TVM's
Python API does for Relay objects and what Python does for everything else. The code object
is named `<tvm:PATH>`, so a traceback tells TVM's test code from the project's.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul"}
HOOK = "__shim__"


class _Rewriter(ast.NodeTransformer):
    """BinOp / USub / Attribute loads / Calls -> calls of the hooks object."""

    def _hook(self, name: str, node: ast.AST, args: list[ast.expr],
              keywords: list[ast.keyword] | None = None) -> ast.Call:
        fn = ast.Attribute(ast.Name(HOOK, ast.Load()), name, ast.Load())
        return ast.copy_location(ast.Call(fn, args, keywords or []), node)

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        op = _BINOPS.get(type(node.op))
        if op is None:
            return node
        return self._hook("binop", node, [ast.Constant(op), node.left, node.right])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.USub):
            return self._hook("neg", node, [node.operand])
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return self._hook("attr", node, [node.value, ast.Constant(node.attr)])

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        """`assert a == b` -> a check that says both sides when it fails (as pytest does)."""
        self.generic_visit(node)
        t = node.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and node.msg is None:
            op = ast.Constant(type(t.ops[0]).__name__)
            return ast.copy_location(ast.Expr(self._hook("assert_compare", node, [
                t.left, op, t.comparators[0]])), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        return self._hook("call", node, [node.func, *node.args], node.keywords)


def rewrite(source: str, filename: str) -> ast.Module:
    """The rewritten module AST of a test file (lines kept)."""
    tree = _Rewriter().visit(ast.parse(source, filename))
    return ast.fix_missing_locations(tree)


def make_import(resolve: Callable[[str], Any]) -> Callable[..., Any]:
    """An `__import__` that hands `tvm` and `tvm.*` to resolve(dotted) and the rest to Python."""
    real = builtins.__import__

    def _import(name: str, globals: Any = None, locals: Any = None,
                fromlist: Any = (), level: int = 0) -> Any:
        if level == 0 and (name == "tvm" or name.startswith("tvm.")):
            return resolve(name) if fromlist else resolve("tvm")
        return real(name, globals, locals, fromlist, level)

    return _import


def namespace(hooks: Any, resolve: Callable[[str], Any], filename: str) -> dict[str, Any]:
    """Fresh module globals for exec: the hooks, and builtins whose import sees the shim."""
    b = dict(vars(builtins))
    b["__import__"] = make_import(resolve)
    return {"__name__": "tvm_test", "__file__": filename, "__builtins__": b, HOOK: hooks}
