"""Parser for the Relay text format v0.0.5 (TVM's parser.cc grammar, relay-notes §1.2) into ast.py.

Deviations from v0.19, all extensions so real printouts parse: `ref(T)` types; a bare `let`,
`(let ...)` or `{ ... }` as a let value; several `.N` projections in a row; `else if`;
`fn [A](..) -> R` types; a module whose only item is an `fn` expression becomes `@main`.
Binding sequences, operator chains and let chains are parsed in loops (20k-binding gradient
programs need no recursion); other nesting is limited to MAX_DEPTH with a located error.
Type inference is not run here: annotations absent from the text stay None.
"""

from __future__ import annotations

import functools
import json
import re
import struct
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from typing import TypeVar as _TV

import numpy as np

from ..diagnostics import Span
from ..runtime import gc_paused, recursion_limit
from . import ops
from .ast import (
    EMPTY_ATTRS,
    UNIT,
    Attrs,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalVar,
    If,
    IncompleteType,
    Let,
    Match,
    MetaRef,
    MetaSource,
    Module,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
)
from .errors import ParseError
from .json_io import decode_ndarray, meta_fingerprint
from .lexer import (
    BOOL,
    EOF,
    FLOAT,
    GLOBAL,
    GRAPH,
    IDENT,
    INT,
    KEYWORD,
    LOCAL,
    META,
    METADATA,
    PUNCT,
    STRING,
    UNDERSCORE,
    VERSION,
    Token,
    tokenize,
)

__all__ = ["MAX_DEPTH", "parse", "parse_expr", "parse_file"]

MAX_DEPTH = 500  # levels of syntactic nesting (parens, blocks, bodies, types, patterns)
_FRAMES_PER_LEVEL = 10  # Python frames one nesting level may take (measured: at most ~6)
VERSION_STRING = '"0.0.5"'
FUNC_ATTRS_TYPE_KEY = "DictAttrs"
VIRTUAL_DEVICE = "virtual_device"  # kVirtualDevice

# Operator sugar (op_table.h): token -> (op name, precedence); all left-associative.
BINOPS: dict[str, tuple[str, int]] = {
    "*": ("multiply", 12),
    "/": ("divide", 12),
    "+": ("add", 10),
    "-": ("subtract", 10),
    "<": ("less", 8),
    "<=": ("less_equal", 8),
    ">": ("greater", 8),
    ">=": ("greater_equal", 8),
    "==": ("equal", 7),
    "!=": ("not_equal", 7),
}

_DTYPE_RE = re.compile(r"(?:(u?int|float)([0-9]*)|bool)(?:x[0-9]+)?")
_DTYPE_PREFIX = ("int", "uint", "float", "bool")
_T = _TV("_T")


@functools.lru_cache(maxsize=512)
def _dtype(name: str) -> str | None:
    """Normalise a dtype name (`int` -> int32, `float` -> float32); None if it is not one."""
    m = _DTYPE_RE.fullmatch(name)
    if m is None:
        return None
    if m.group(1) and not m.group(2):
        return m.group(1) + "32" + name[len(m.group(1)) :]
    return name


def _is_virtual_device(m: MetaRef) -> bool:
    """Whether the object behind a meta reference is a VirtualDevice (by its own type key)."""
    src = m.source
    return src is not None and 0 <= m.node < len(src.nodes) and \
        src.nodes[m.node].get("type_key") == "VirtualDevice"


def _and_list(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


class _Scopes:
    """Lexical scopes as name -> stack of bindings, so lookups stay O(1) in 20k-let chains."""

    def __init__(self) -> None:
        self.names: dict[str, list[Any]] = {}
        self.frames: list[list[str]] = []

    def push(self) -> None:
        self.frames.append([])

    def pop(self) -> None:
        for name in reversed(self.frames.pop()):
            stack = self.names[name]
            stack.pop()
            if not stack:
                del self.names[name]

    def bind(self, name: str, value: Any) -> None:
        self.names.setdefault(name, []).append(value)
        self.frames[-1].append(name)

    def lookup(self, name: str) -> Any:
        stack = self.names.get(name)
        return stack[-1] if stack else None


class _Parser:
    """A recursive-descent parser over the token list; one instance per parse."""

    def __init__(self, text: str, source_name: str) -> None:
        self.text = text
        self.source = source_name
        self.toks = tokenize(text, source_name)
        self.i = 0
        self.block, self.lo = self.toks.block_of(0)  # the tokens around i, made as objects
        self.depth = 0
        self.scopes = _Scopes()
        self.scopes.push()
        self.tscopes = _Scopes()
        self.tscopes.push()
        self.free_vars: dict[str, Var] = {}
        self.graph: dict[int, Expr] = {}  # %N = e; — global for the parse, first binding wins
        self.type_names: set[str] = set()
        self.type_defs: dict[str, TypeData] = {}
        self.typedef_end: dict[int, int] = {}  # token index of a typedef -> index after it
        self.ctors: dict[str, Constructor] = {}
        self.global_uses: dict[str, Token] = {}
        self.meta: dict[str, list[int]] | None = None
        self.meta_doc: dict[str, Any] = {}
        self.meta_source: MetaSource | None = None
        self.meta_cache: dict[tuple[str, int], Any] = {}

    # ------------------------------------------------------------------------------- plumbing

    def peek(self, k: int = 0) -> Token:
        j = self.i + k - self.lo
        if 0 <= j < len(self.block):
            return self.block[j]
        return self.token(self.i + k)

    def token(self, i: int) -> Token:
        """Token i (past the end: the EOF token), its block made the current one."""
        i = min(i, len(self.toks) - 1)
        self.block, self.lo = self.toks.block_of(i)
        return self.block[i - self.lo]

    def next(self) -> Token:
        j = self.i - self.lo
        t = self.block[j] if 0 <= j < len(self.block) else self.token(self.i)
        if t.kind != EOF:  # the EOF token is never consumed
            self.i += 1
        return t

    def last(self) -> Token:
        """The most recently consumed token (for span ends)."""
        return self.peek(-1) if self.i else self.token(0)

    def tok_span(self, t: Token) -> Span:
        return Span(self.source, t.line, t.col, t.end_line, t.end_col)

    def span_from(self, start: Token, end: Token | None = None) -> Span:
        end = end if end is not None else self.last()
        return Span(self.source, start.line, start.col, end.end_line, end.end_col)

    def error(self, msg: str, t: Token | None = None) -> ParseError:
        t = t if t is not None else self.peek()
        return ParseError(msg, self.tok_span(t), self.text)

    def expected(self, what: str, t: Token | None = None) -> ParseError:
        t = t if t is not None else self.peek()
        return self.error(f"expected {what} but found {t.describe()}", t)

    def expect_punct(self, p: str, what: str | None = None) -> Token:
        t = self.peek()
        if not t.is_punct(p):
            raise self.expected(what or f"`{p}`", t)
        return self.next()

    def accept_punct(self, p: str) -> Token | None:
        if self.peek().is_punct(p):
            return self.next()
        return None

    def expect_kind(self, kind: str, what: str) -> Token:
        t = self.peek()
        if t.kind != kind:
            raise self.expected(what, t)
        return self.next()

    def enter(self, t: Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nesting too deep (limit {MAX_DEPTH})", t)

    def leave(self) -> None:
        self.depth -= 1

    def is_attr_start(self) -> bool:
        """`name=` (not `==`) starts a keyword attribute inside call or parameter parentheses."""
        t = self.peek()
        return t.kind in (IDENT, KEYWORD) and self.peek(1).is_punct("=")

    def sequence(self, close: str, item: Callable[[], _T], what: str) -> list[_T]:
        """`item (',' item)* ','? close` (possibly empty); consumes the closing token."""
        out: list[_T] = []
        while not self.peek().is_punct(close):
            out.append(item())
            if not self.accept_punct(","):
                if not self.peek().is_punct(close):
                    raise self.expected(f"`,` or `{close}` {what}")
                break
        self.next()
        return out

    # ------------------------------------------------------------------------------- entry

    def run(self, fn: Callable[[], _T]) -> _T:
        """Run a parse with stack room for MAX_DEPTH levels; never leak a RecursionError."""
        try:
            with recursion_limit(MAX_DEPTH * _FRAMES_PER_LEVEL + 2000):
                return fn()
        except RecursionError:
            raise self.error(f"nesting too deep (limit {MAX_DEPTH})") from None

    def check_version(self, required: bool) -> None:
        t = self.peek()
        if t.kind != VERSION:
            if required:
                raise self.expected('the version header `#[version = "0.0.5"]`', t)
            return
        self.next()
        if t.value != VERSION_STRING:
            raise self.error(
                f"unsupported text format version {t.value} (only {VERSION_STRING} is supported)", t
            )

    def finish(self) -> None:
        if self.peek().kind == METADATA:
            self.next()
        t = self.peek()
        if t.kind != EOF:
            raise self.expected("end of input", t)

    def parse_module(self) -> Module:
        self.load_metadata()
        self.check_version(required=True)
        self.parse_typedefs_first()
        functions: dict[str, Function] = {}
        while True:
            t = self.peek()
            if t.kind in (EOF, METADATA):
                break
            if t.is_kw("type") or t.is_kw("extern"):
                end = self.typedef_end.get(self.i)
                if end is None:  # not seen by the pre-pass (e.g. after an unbalanced brace)
                    self.parse_typedef()
                else:
                    self.i = end
            elif t.is_kw("def"):
                self.next()
                g = self.expect_kind(GLOBAL, "a global name (`@name`) after `def`")
                if g.value in functions:
                    raise self.error(f"duplicate definition of global `@{g.value}`", g)
                functions[g.value] = self.parse_funcdef(t)
            elif t.is_kw("fn") and not functions:
                # `astext()` of a bare function: the module's only item, taken as @main.
                fn = self.parse_expr_seq()
                if not isinstance(fn, Function):
                    raise self.error("a module body must be definitions or a single `fn`", t)
                functions["main"] = fn
            else:
                raise self.expected("`def`, `type` or `extern`", t)
        self.finish()
        for name, use in self.global_uses.items():
            if name not in functions:
                raise self.error(f"undefined global `@{name}`", use)
        return Module(functions, dict(self.type_defs), self.source)

    def parse_expression(self) -> Expr:
        self.load_metadata()
        self.check_version(required=False)
        t = self.peek()
        if t.kind in (EOF, METADATA):
            raise self.expected("an expression", t)
        e = self.parse_expr_seq()
        self.finish()
        return e

    # ------------------------------------------------------------------------------- metadata

    def load_metadata(self) -> None:
        """Read the trailing `#[metadata]` JSON (tvm.ir.save_json of Map<String, Array<Object>>)."""
        t = self.token(len(self.toks) - 2) if len(self.toks) >= 2 else None
        if t is None or t.kind != METADATA:
            return
        try:
            doc = json.loads(str(t.value))
            nodes = doc["nodes"]
            root = nodes[int(doc["root"])]
            if root.get("type_key") != "Map":
                raise ValueError(f"root is a `{root.get('type_key')}`, expected a `Map`")
            pairs: list[tuple[str, int]] = []
            if "keys" in root:
                pairs = [(str(k), int(v)) for k, v in zip(root["keys"], root["data"], strict=True)]
            else:
                data = [int(x) for x in root.get("data", [])]
                for k, v in zip(data[0::2], data[1::2], strict=True):
                    pairs.append((str(nodes[k].get("repr_str", "")), v))
            table: dict[str, list[int]] = {}
            arrays: dict[str, int] = {}
            for key, arr in pairs:
                arr_node = nodes[arr]
                if arr_node.get("type_key") != "Array":
                    raise ValueError(f"entry `{key}` is not an Array")
                table[key] = [int(x) for x in arr_node.get("data", [])]
                arrays[key] = arr
            blobs = doc.get("b64ndarrays", [])
            if not isinstance(nodes, list) or not isinstance(blobs, list):
                raise ValueError("`nodes` and `b64ndarrays` must be lists")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
            raise self.error(f"invalid #[metadata] section: {e}", t) from None
        self.meta = table
        self.meta_doc = doc
        self.meta_source = MetaSource(nodes, blobs, arrays, int(doc["root"]))

    def meta_node(self, t: Token) -> tuple[str, int, dict[str, Any]]:
        key, idx = t.value  # type: ignore[misc]
        if self.meta is None:
            raise self.error(
                f"`{t.text}` refers to metadata but the text has no `#[metadata]` section", t
            )
        entries = self.meta.get(key)
        if entries is None:
            known = ", ".join(f"`{k}`" for k in self.meta) or "none"
            raise self.error(f"`{t.text}`: the metadata has no `{key}` entries (has: {known})", t)
        if idx >= len(entries):
            raise self.error(
                f"`{t.text}` is out of range: the metadata has {len(entries)} `{key}` entries", t
            )
        return key, idx, self.meta_doc["nodes"][entries[idx]]

    def meta_value(self, t: Token) -> Constant | MetaRef:
        """A relay.Constant becomes a (shared) Constant; anything else an opaque MetaRef."""
        key, idx, node = self.meta_node(t)
        hit = self.meta_cache.get((key, idx))
        if hit is not None:
            return hit
        out: Constant | MetaRef
        if key == "relay.Constant" or node.get("type_key") == "relay.Constant":
            try:
                blob = self.meta_doc["b64ndarrays"][int(node["attrs"]["data"])]
                data = decode_ndarray(blob)
            except (ValueError, KeyError, IndexError, TypeError, struct.error) as e:
                raise self.error(f"`{t.text}`: cannot decode its tensor: {e}", t) from None
            j = self.meta[key][idx]  # type: ignore[index]
            out = Constant(data, span=self.tok_span(t),
                           origin=MetaRef(key, idx, None, (), self.meta_source, j))
        else:
            j = self.meta[key][idx]  # type: ignore[index]
            out = MetaRef(key, idx, dict(node.get("attrs", {})),
                          meta_fingerprint(self.meta_doc["nodes"], j), self.meta_source, j)
        self.meta_cache[(key, idx)] = out
        return out

    # ------------------------------------------------------------------------------- types

    def parse_typedefs_first(self) -> None:
        """Pre-pass: read every top-level type definition so constructors may be used before it."""
        found: list[int] = []
        depth = 0
        kinds, values = self.toks.kinds, self.toks.values  # (read by column: no token made)
        for j, (kind, value) in enumerate(zip(kinds, values, strict=True)):
            if kind == PUNCT:
                if value == "{":
                    depth += 1
                elif value == "}":
                    depth -= 1
            elif depth == 0 and kind == KEYWORD and value == "type":
                start = j - 1 if j and kinds[j - 1] == KEYWORD and values[j - 1] == "extern" \
                    else j
                found.append(start)
                if j + 1 < len(kinds) and kinds[j + 1] == IDENT:
                    self.type_names.add(str(values[j + 1]))
        saved = self.i
        for start in found:
            self.i = start
            self.parse_typedef()
            self.typedef_end[start] = self.i
        self.i = saved

    def parse_typedef(self) -> TypeData:
        start = self.peek()
        extern = False
        if start.is_kw("extern"):
            self.next()
            extern = True
            if not self.peek().is_kw("type"):
                raise self.expected("`type` after `extern`")
        self.next()  # 'type'
        name_t = self.expect_kind(IDENT, "a type name")
        name = str(name_t.value)
        if name in self.type_defs:
            raise self.error(f"duplicate definition of type `{name}`", name_t)
        if name in self.ctors:
            raise self.error(f"type `{name}` has the same name as a constructor of type "
                             f"`{self.ctors[name].belong_to}`", name_t)
        self.type_names.add(name)
        self.tscopes.push()
        tvars: list[TypeVar] = []
        if self.accept_punct("["):
            tvars = self.sequence("]", self.parse_type_param, "in type parameters")
        ctors: list[Constructor] = []
        if not extern and self.peek().is_punct("{"):
            self.next()
            while not self.peek().is_punct("}"):
                ct = self.expect_kind(IDENT, "a constructor name")
                cname = str(ct.value)
                if cname in self.ctors:
                    other = self.ctors[cname].belong_to
                    raise self.error(
                        f"duplicate constructor `{cname}` (already defined in type `{other}`)", ct
                    )
                if cname in self.type_names:
                    raise self.error(f"constructor `{cname}` has the same name as a type", ct)
                inputs: list[Type] = []
                if self.accept_punct("("):
                    inputs = self.sequence(")", self.parse_type, "in constructor fields")
                ctor = Constructor(cname, tuple(inputs), name, len(ctors), span=self.span_from(ct))
                self.ctors[cname] = ctor
                ctors.append(ctor)
                if not self.accept_punct(","):
                    break
            self.expect_punct("}", "`,` or `}` in the constructor list")
        self.tscopes.pop()
        td = TypeData(name, tuple(tvars), tuple(ctors), extern, span=self.span_from(start))
        self.type_defs[name] = td
        return td

    def parse_type_param(self) -> TypeVar:
        t = self.expect_kind(IDENT, "a type parameter name")
        tv = TypeVar(str(t.value))
        self.tscopes.bind(tv.name, tv)
        return tv

    def parse_type(self) -> Type:
        t = self.peek()
        self.enter(t)
        ty: Type
        if t.is_punct("("):
            self.next()
            if self.accept_punct(")"):
                ty = UNIT
            else:
                first = self.parse_type()
                if self.accept_punct(")"):
                    ty = first  # `(T)` is T; a 1-tuple prints as `(T,)`
                else:
                    self.expect_punct(",", "`,` or `)` in a tuple type")
                    rest = self.sequence(")", self.parse_type, "in a tuple type")
                    ty = TupleType((first, *rest))
        elif t.is_kw("fn"):
            self.next()
            self.tscopes.push()
            tparams: list[TypeVar] = []
            if self.accept_punct("["):
                tparams = self.sequence("]", self.parse_type_param, "in type parameters")
            self.expect_punct("(", "`(` after `fn` in a function type")
            args = self.sequence(")", self.parse_type, "in a function type")
            self.expect_punct("->", "`->` and a return type in a function type")
            ret = self.parse_type()
            self.tscopes.pop()
            ty = FuncType(tuple(args), ret, tuple(tparams))
        elif t.is_kw("ref"):
            self.next()
            self.expect_punct("(", "`(` after `ref` in a reference type")
            inner = self.parse_type()
            self.expect_punct(")", "`)` closing `ref(`")
            ty = RefType(inner)
        elif t.kind == UNDERSCORE:
            self.next()
            ty = IncompleteType()
        elif t.kind == IDENT:
            ty = self.parse_named_type()
        else:
            raise self.expected("a type", t)
        self.leave()
        return ty

    def parse_named_type(self) -> Type:
        t = self.next()
        name = str(t.value)
        if name == "Tensor":
            return self.parse_tensor_type()
        tv = self.tscopes.lookup(name)
        if tv is not None:
            return tv
        if name.startswith(_DTYPE_PREFIX) and name not in self.type_names:
            dt = _dtype(name)
            if dt is None:
                raise self.error(f"invalid dtype `{name}`", t)
            return TensorType((), dt)
        if name in self.type_names:
            args: list[Type] = []
            if self.accept_punct("["):
                args = self.sequence("]", self.parse_type, "in type arguments")
            return TypeCall(name, tuple(args))
        raise self.error(f"unknown type `{name}`", t)

    def parse_tensor_type(self) -> TensorType:
        self.expect_punct("[", "`[` after `Tensor`")
        shape: list[int | None] = []
        if self.accept_punct("("):
            shape = self.sequence(")", self.parse_dim, "in a tensor shape")
        else:
            shape = [self.parse_dim()]
        self.expect_punct(",", "`,` and a dtype after the tensor shape")
        dt_tok = self.peek()
        if dt_tok.kind != IDENT or _dtype(str(dt_tok.value)) is None:
            raise self.expected("a dtype (e.g. `float32`)", dt_tok)
        self.next()
        self.expect_punct("]", "`]` closing `Tensor[`")
        return TensorType(tuple(shape), _dtype(str(dt_tok.value)) or "")

    def parse_dim(self) -> int | None:
        t = self.peek()
        if t.kind == INT:
            self.next()
            v = t.value[0]  # type: ignore[index]
            if v < 0:
                raise self.error(f"negative tensor dimension `{t.text}`", t)
            return int(v)
        if t.is_punct("?"):
            self.next()
            return None
        if t.kind == META:
            self.next()
            self.meta_node(t)  # must exist; a symbolic dimension is treated as dynamic
            return None
        raise self.expected("a dimension (an integer or `?`)", t)

    # ------------------------------------------------------------------------------- expressions

    def bind(self, var: Var) -> None:
        self.scopes.bind(var.name_hint, var)

    def parse_expr_seq(self) -> Expr:
        """`stmt (';' stmt)*`: lets, `%N = e;` and `e;` in a loop; Lets built from the end."""
        start = self.peek()
        self.enter(start)
        if start.kind != KEYWORD and start.kind != GRAPH:
            # Fast path for the common single expression (call arguments, tuple fields).
            first = self.parse_binop()
            if not self.peek().is_punct(";"):
                self.leave()
                return first
        self.scopes.push()
        pending: list[tuple[Var, Expr, Token]] = []
        if start.kind != KEYWORD and start.kind != GRAPH:
            self.next()
            pending.append((Var("", None, span=self.span_from(start)), first, start))
        while True:
            t = self.peek()
            if t.is_kw("let"):
                pending.append(self.parse_let_binding())
                continue
            if t.kind == GRAPH and self.peek(1).is_punct("="):
                self.parse_graph_binding()
                continue
            if t.is_kw("free_var"):
                var = self.parse_free_var()
                if self.accept_punct(";"):
                    continue
                result: Expr = var
                break
            e = self.parse_binop()
            if self.peek().is_punct(";"):
                self.next()
                pending.append((Var("", None, span=self.span_from(t)), e, t))
                continue
            result = e
            break
        result = self.build_lets(pending, result)
        self.scopes.pop()
        self.leave()
        return result

    def build_lets(self, pending: list[tuple[Var, Expr, Token]], body: Expr) -> Expr:
        end = self.last()
        for var, value, st in reversed(pending):
            body = Let(var, value, body, span=self.span_from(st, end))
        return body

    def parse_let_binding(self) -> tuple[Var, Expr, Token]:
        let_t = self.next()
        vt = self.peek()
        if vt.kind != LOCAL:
            raise self.expected("a local variable (`%name`) after `let`", vt)
        self.next()
        ty = None
        if self.accept_punct(":"):
            ty = self.parse_type()
        var = Var(str(vt.value), ty, span=self.span_from(vt))
        self.expect_punct("=", "`=` in the let binding")
        self.bind(var)  # in scope in its own value: let-bound recursive closures
        value = self.parse_let_value()
        self.expect_punct(";", "`;` after the let value")
        return var, value, let_t

    def parse_let_value(self) -> Expr:
        """A binop, or a bare `let ...; e` (bindings then one binop) as the v0.19 printer writes."""
        t = self.peek()
        if not (t.is_kw("let") or (t.kind == GRAPH and self.peek(1).is_punct("="))):
            return self.parse_binop()
        self.enter(t)
        self.scopes.push()
        pending: list[tuple[Var, Expr, Token]] = []
        while True:
            t2 = self.peek()
            if t2.is_kw("let"):
                pending.append(self.parse_let_binding())
            elif t2.kind == GRAPH and self.peek(1).is_punct("="):
                self.parse_graph_binding()
            else:
                break
        result = self.build_lets(pending, self.parse_binop())
        self.scopes.pop()
        self.leave()
        return result

    def parse_graph_binding(self) -> None:
        gt = self.next()
        self.next()  # '='
        value = self.parse_let_value()
        self.expect_punct(";", f"`;` after the binding of `{gt.text}`")
        self.graph.setdefault(int(gt.value), value)  # type: ignore[arg-type]

    def parse_free_var(self) -> Var:
        self.next()
        vt = self.expect_kind(LOCAL, "a local variable (`%name`) after `free_var`")
        ty = None
        if self.accept_punct(":"):
            ty = self.parse_type()
        name = str(vt.value)
        if name in self.free_vars:
            raise self.error(f"duplicate free variable `%{name}`", vt)
        var = Var(name, ty, span=self.span_from(vt))
        self.free_vars[name] = var
        return var

    def parse_binop(self) -> Expr:
        """Operator chains by precedence climbing on explicit stacks (no recursion per operator)."""
        first = self.peek()
        operands: list[tuple[Expr, Token, Token]] = [(self.parse_postfix(), first, self.last())]
        pending_ops: list[tuple[str, int, Token]] = []
        while True:
            t = self.peek()
            info = BINOPS.get(str(t.value)) if t.kind == PUNCT else None
            if info is None:
                break
            self.next()
            while pending_ops and pending_ops[-1][1] >= info[1]:
                self.reduce(operands, pending_ops)
            pending_ops.append((info[0], info[1], t))
            st = self.peek()
            operands.append((self.parse_postfix(), st, self.last()))
        while pending_ops:
            self.reduce(operands, pending_ops)
        return operands[0][0]

    def reduce(
        self, operands: list[tuple[Expr, Token, Token]], pending: list[tuple[str, int, Token]]
    ) -> None:
        name, _, op_t = pending.pop()
        rhs, _, rend = operands.pop()
        lhs, lstart, _ = operands.pop()
        call = Call(Op(name, span=self.tok_span(op_t)), (lhs, rhs), EMPTY_ATTRS,
                    span=self.span_from(lstart, rend))
        operands.append((call, lstart, rend))

    def parse_postfix(self) -> Expr:
        """An atom followed by any number of calls `(args)` and projections `.N`."""
        start = self.peek()
        e = self.parse_atomic()
        while True:
            t = self.peek()
            if t.is_punct("("):
                e = self.parse_call(e, start)
            elif t.is_punct("."):
                self.next()
                it = self.peek()
                if it.kind != INT or it.text.startswith("-"):
                    raise self.expected("a tuple index after `.`", it)
                self.next()
                e = TupleGetItem(e, int(it.value[0]), span=self.span_from(start))  # type: ignore[index]
            else:
                return e

    def parse_atomic(self) -> Expr:
        t = self.peek()
        k = t.kind
        if k == INT or k == FLOAT:
            self.next()
            v, dt = t.value  # type: ignore[misc]
            return Constant(np.asarray(v, dtype=dt), span=self.tok_span(t))
        if k == BOOL:
            self.next()
            return Constant(np.asarray(bool(t.value), dtype="bool"), span=self.tok_span(t))
        if k == LOCAL:
            self.next()
            name = str(t.value)
            var = self.scopes.lookup(name)
            if var is None:
                var = self.free_vars.get(name)
            if var is None:
                raise self.error(f"unknown local variable `%{name}`", t)
            return var  # type: ignore[no-any-return]
        if k == GRAPH:
            self.next()
            node = self.graph.get(int(t.value))  # type: ignore[arg-type]
            if node is None:
                raise self.error(f"unbound graph variable `{t.text}` (no `{t.text} = ...;` before)",
                                 t)
            return node
        if k == GLOBAL:
            self.next()
            self.global_uses.setdefault(str(t.value), t)
            return GlobalVar(str(t.value), span=self.tok_span(t))
        if k == META:
            self.next()
            v = self.meta_value(t)
            if not isinstance(v, Constant):
                raise self.error(
                    f"`{t.text}` cannot be used as an expression (only `relay.Constant` can)", t
                )
            return v
        if k == IDENT:
            return self.parse_name()
        if k == KEYWORD:
            kw = t.value
            if kw == "fn":
                self.next()
                return self.parse_funcdef(t)
            if kw == "if":
                return self.parse_if()
            if kw == "match" or kw == "match?":
                return self.parse_match()
            if kw in ("ref", "ref_read", "ref_write"):
                return self.parse_ref()
        if k == PUNCT:
            if t.value == "(":
                return self.parse_paren()
            if t.value == "{":
                self.next()
                e = self.parse_expr_seq()
                self.expect_punct("}", "`}` closing the block")
                return e
        raise self.expected("an expression", t)

    def parse_name(self) -> Expr:
        """An identifier in expression position: a constructor or an operator name."""
        t = self.next()
        name = str(t.value)
        ctor = self.ctors.get(name)
        if ctor is not None:
            c = replace(ctor, span=self.tok_span(t))
            if not ctor.inputs and not self.peek().is_punct("("):
                return Call(c, (), EMPTY_ATTRS, span=self.tok_span(t))  # `Nil` means `Nil()`
            return c
        if ops.lookup(name) is None:
            msg = f"unknown operator `{name}`"
            near = ops.closest(name)
            if near:
                msg += f"; did you mean {_and_list(near)}?"
            raise self.error(msg, t)
        return Op(name, span=self.tok_span(t))

    def parse_paren(self) -> Expr:
        """`()`, `(e)`, `(e,)`, `(e1, e2, ...)`; `(let ...; e)` is a parenthesised sequence."""
        lp = self.next()
        if self.accept_punct(")"):
            return Tuple((), span=self.span_from(lp))
        first = self.parse_expr_seq()
        if self.accept_punct(")"):
            return first
        self.expect_punct(",", "`,` or `)`")
        rest = self.sequence(")", self.parse_expr_seq, "in the tuple")
        return Tuple((first, *rest), span=self.span_from(lp))

    def parse_ref(self) -> Expr:
        t = self.next()
        kw = str(t.value)
        self.expect_punct("(", f"`(` after `{kw}`")
        a = self.parse_expr_seq()
        if kw == "ref_write":
            self.expect_punct(",", "`,` and a value in `ref_write(ref, value)`")
            b = self.parse_expr_seq()
            self.expect_punct(")", "`)` closing `ref_write(`")
            return RefWrite(a, b, span=self.span_from(t))
        self.expect_punct(")", f"`)` closing `{kw}(`")
        if kw == "ref":
            return RefCreate(a, span=self.span_from(t))
        return RefRead(a, span=self.span_from(t))

    def parse_if(self) -> Expr:
        t = self.next()
        self.expect_punct("(", "`(` after `if`")
        cond = self.parse_expr_seq()
        self.expect_punct(")", "`)` after the condition")
        then = self.parse_braced("the `if` branch")
        els = self.peek()
        if not els.is_kw("else"):
            raise self.expected("`else`", els)
        self.next()
        if self.peek().is_kw("if"):  # `else if` (extension; the printer writes `else { if ... }`)
            self.enter(self.peek())
            other = self.parse_if()
            self.leave()
        else:
            other = self.parse_braced("the `else` branch")
        return If(cond, then, other, span=self.span_from(t))

    def parse_braced(self, what: str) -> Expr:
        self.expect_punct("{", f"`{{` opening {what}")
        e = self.parse_expr_seq()
        self.expect_punct("}", f"`}}` closing {what}")
        return e

    def parse_match(self) -> Expr:
        t = self.next()
        complete = t.value == "match"
        self.enter(t)
        data = self.parse_postfix()
        self.expect_punct("{", "`{` opening the match clauses")
        clauses: list[Clause] = []
        while not self.peek().is_punct("}"):
            ct = self.peek()
            self.scopes.push()
            lhs = self.parse_pattern()
            if self.accept_punct("=>") is None:
                if not (self.peek().is_punct("=") and self.peek(1).is_punct(">")):
                    raise self.expected("`=>` after the pattern")
                self.next()
                self.next()
            if self.peek().is_punct("{"):
                rhs = self.parse_braced("the clause body")
            else:
                rhs = self.parse_expr_seq()
            self.scopes.pop()
            clauses.append(Clause(lhs, rhs, span=self.span_from(ct)))
            if not self.accept_punct(","):
                break
        self.expect_punct("}", "`,` or `}` after a match clause")
        self.leave()
        return Match(data, tuple(clauses), complete, span=self.span_from(t))

    def parse_pattern(self) -> Pattern:
        t = self.peek()
        self.enter(t)
        p: Pattern
        if t.kind == UNDERSCORE:
            self.next()
            p = PatternWildcard(span=self.tok_span(t))
        elif t.kind == LOCAL:
            self.next()
            ty = None
            if self.accept_punct(":"):
                ty = self.parse_type()
            var = Var(str(t.value), ty, span=self.span_from(t))
            self.bind(var)
            p = PatternVar(var, span=self.span_from(t))
        elif t.kind == IDENT:
            self.next()
            ctor = self.ctors.get(str(t.value))
            if ctor is None:
                raise self.error(f"unknown constructor `{t.value}` in pattern", t)
            subs: list[Pattern] = []
            if self.accept_punct("("):
                subs = self.sequence(")", self.parse_pattern, "in the constructor pattern")
            p = PatternConstructor(ctor, tuple(subs), span=self.span_from(t))
        elif t.is_punct("("):
            self.next()
            subs = self.sequence(")", self.parse_pattern, "in the tuple pattern")
            p = PatternTuple(tuple(subs), span=self.span_from(t))
        else:
            raise self.expected("a pattern (`_`, `%x`, `Ctor(...)` or `(...)`)", t)
        self.leave()
        return p

    # ------------------------------------------------------------------------------- functions

    def parse_funcdef(self, start: Token) -> Function:
        """`[A, ...]? (params, attrs) -> R { body }` after `fn` or `def @name`."""
        self.tscopes.push()
        self.scopes.push()
        tparams: list[TypeVar] = []
        if self.accept_punct("["):
            tparams = self.sequence("]", self.parse_type_param, "in type parameters")
        self.expect_punct("(", "`(` opening the parameter list")
        params: list[Var] = []
        attr_items: list[tuple[str, Any]] = []
        attr_toks: list[Token] = []
        while not self.peek().is_punct(")"):
            if self.is_attr_start():
                attr_items, attr_toks = self.parse_attr_list(")")
                break
            t = self.peek()
            if t.kind != LOCAL:
                raise self.expected("a parameter (`%name`) or `)`", t)
            params.append(self.parse_param())
            if not self.accept_punct(","):
                break
        self.expect_punct(")", "`,` or `)` in the parameter list")
        ret = None
        if self.accept_punct("->"):
            ret = self.parse_type()
        body = self.parse_braced("the function body")
        self.scopes.pop()
        self.tscopes.pop()
        device: MetaRef | None = None
        for i, (k, v) in enumerate(attr_items):
            if k == VIRTUAL_DEVICE:  # promoted to the function's own field (parser.cc)
                device = self.virtual_device(v, attr_toks[i])
        attr_items = [(k, v) for k, v in attr_items if k != VIRTUAL_DEVICE]
        attrs = Attrs(tuple(attr_items), FUNC_ATTRS_TYPE_KEY) if attr_items else EMPTY_ATTRS
        return Function(tuple(params), body, ret, tuple(tparams), attrs,
                        span=self.span_from(start), virtual_device=device)

    def parse_param(self) -> Var:
        """`%x {virtual_device=meta[VirtualDevice][i]}: T`; as in v0.19 (parser.cc
        ParseFunctionDef), braces holding anything but that one attribute are ignored."""
        t = self.next()
        device: MetaRef | None = None
        if self.accept_punct("{"):
            items, toks = self.parse_attr_list("}")
            self.expect_punct("}", "`}` closing the parameter attributes")
            if len(items) == 1 and items[0][0] == VIRTUAL_DEVICE:
                device = self.virtual_device(items[0][1], toks[0])
        ty = None
        if self.accept_punct(":"):
            ty = self.parse_type()
        var = Var(str(t.value), ty, span=self.span_from(t), virtual_device=device)
        self.bind(var)
        return var

    def virtual_device(self, v: Any, t: Token) -> MetaRef:
        """A `virtual_device=` value: v0.19 ICHECKs it is a VirtualDevice object."""
        if not isinstance(v, MetaRef) or not (v.type_key == "VirtualDevice"
                                              or _is_virtual_device(v)):
            raise self.error("`virtual_device` must be a `meta[VirtualDevice][i]` reference", t)
        return v

    # ------------------------------------------------------------------------------- calls

    def parse_call(self, callee: Expr, start: Token) -> Expr:
        lp = self.next()
        args: list[Expr] = []
        items: list[tuple[str, Any]] = []
        item_toks: list[Token] = []
        meta_attrs: Token | None = None
        while not self.peek().is_punct(")"):
            t = self.peek()
            if self.is_attr_start():
                items, item_toks = self.parse_attr_list(")")
                break
            if t.kind == META and "Attrs" in str(t.value[0]) and self.peek(1).is_punct(")"):  # type: ignore[index]
                self.next()
                self.meta_node(t)
                meta_attrs = t
                break
            args.append(self.parse_expr_seq())
            if not self.accept_punct(","):
                break
        if not self.peek().is_punct(")"):
            raise self.expected("`,` or `)` in the argument list")
        self.next()
        span = self.span_from(start)
        if meta_attrs is not None:
            attrs = Attrs((), str(meta_attrs.value[0]))  # type: ignore[index]
        else:
            attrs = self.call_attrs(callee, items, item_toks, lp)
        return Call(callee, tuple(args), attrs, span=span)

    def call_attrs(
        self, callee: Expr, items: list[tuple[str, Any]], toks: list[Token], lp: Token
    ) -> Attrs:
        """Check keyword attributes against the op's schema, or require `attrs_type_key`."""
        by_name = {str(t.value): t for t in toks}
        if isinstance(callee, Op):
            opdef = ops.lookup(callee.name)
            assert opdef is not None  # parse_name checked it
            if opdef.attrs_type_key is None:
                if items:
                    raise self.error(f"operator `{opdef.name}` takes no attributes "
                                     f"(found `{items[0][0]}`)", toks[0])
                return EMPTY_ATTRS
            kept: list[tuple[str, Any]] = []
            for k, v in items:
                if k == "attrs_type_key":
                    if v != opdef.attrs_type_key:
                        raise self.error(f"`attrs_type_key={v!r}` does not match operator "
                                         f"`{opdef.name}` ({opdef.attrs_type_key})", by_name[k])
                    continue
                if opdef.field(k) is None:
                    valid = ", ".join(f"`{f.name}`" for f in opdef.attr_fields)
                    raise self.error(f"unknown attribute `{k}` for operator `{opdef.name}` "
                                     f"(valid: {valid})", by_name[k])
                kept.append((k, v))
            return Attrs(tuple(kept), opdef.attrs_type_key)
        if not items:
            return EMPTY_ATTRS
        key = dict(items).get("attrs_type_key")
        if key is None:
            raise self.error("attributes on a call of a non-operator need "
                             "`attrs_type_key=\"...\"`", toks[0])
        if not isinstance(key, str):
            raise self.error("`attrs_type_key` must be a string", by_name["attrs_type_key"])
        return Attrs(tuple((k, v) for k, v in items if k != "attrs_type_key"), key)

    def parse_attr_list(self, close: str) -> tuple[list[tuple[str, Any]], list[Token]]:
        """`name=value (, name=value)*` up to (not consuming) `close`; names may be dotted."""
        items: list[tuple[str, Any]] = []
        toks: list[Token] = []
        seen: set[str] = set()
        while not self.peek().is_punct(close):
            nt = self.peek()
            if nt.kind not in (IDENT, KEYWORD) or not self.peek(1).is_punct("="):
                raise self.expected("an attribute `name=value`", nt)
            self.next()
            self.next()
            name = str(nt.value)
            if name in seen:
                raise self.error(f"duplicate attribute `{name}`", nt)
            seen.add(name)
            toks.append(nt)
            items.append((name, self.parse_attr_value()))
            if not self.accept_punct(","):
                break
        if not self.peek().is_punct(close):
            raise self.expected(f"`,` or `{close}` after an attribute")
        return items, toks

    def parse_attr_value(self) -> Any:
        t = self.peek()
        self.enter(t)
        v: Any
        if t.kind in (INT, FLOAT):
            self.next()
            v = t.value[0]  # type: ignore[index]
        elif t.kind == BOOL:
            self.next()
            v = bool(t.value)
        elif t.kind == STRING:
            self.next()
            v = t.value
        elif t.kind == META:
            self.next()
            v = self.meta_value(t)
        elif t.is_punct("["):
            self.next()
            v = tuple(self.sequence("]", self.parse_attr_value, "in the attribute array"))
        elif t.is_punct("(") and self.peek(1).kind in (INT, FLOAT, BOOL, STRING, META):
            self.next()
            vals = self.sequence(")", self.parse_attr_value, "in the attribute value")
            v = vals[0] if len(vals) == 1 else tuple(vals)
        elif t.kind == IDENT and t.value in ("None", "nullptr"):
            self.next()
            v = None
        elif (t.kind == IDENT and _dtype(str(t.value)) is not None
              and str(t.value) not in self.ctors and ops.lookup(str(t.value)) is None):
            self.next()
            v = _dtype(str(t.value))  # a bare dtype, e.g. `dtype=float32`
        else:
            v = self.parse_postfix()
        self.leave()
        return v


@gc_paused()
def parse(text: str, source_name: str = "from_string") -> Module:
    """Parse a Relay module (the `#[version = "0.0.5"]` header is required)."""
    p = _Parser(text, source_name)
    return p.run(p.parse_module)


@gc_paused()
def parse_expr(text: str, source_name: str = "from_string") -> Expr:
    """Parse a Relay expression (version header optional; `free_var %x: T;` declares %x)."""
    p = _Parser(text, source_name)
    return p.run(p.parse_expression)


def decode_source(raw: bytes, path: str) -> str:
    """A file's bytes as text: UTF-8 (a BOM dropped), no newline translation (a lone `\r` is
    the lexer's to reject); a byte that is not UTF-8 is a ParseError at its line and column."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise ParseError(f"the file is not valid UTF-8 ({e.reason}: byte 0x{raw[e.start]:02x})",
                         Span(path, line, col, line, col + 1),
                         raw.decode("utf-8", errors="replace")) from None


def parse_file(path: str | Path) -> Module:
    """Parse the Relay module in a file; spans name the path."""
    return parse(decode_source(Path(path).read_bytes(), str(path)), str(path))
