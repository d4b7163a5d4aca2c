"""Relay text printer: TVM v0.19's text format v0.0.5 (relay-notes §1.3), in graph-normal form.

Mirrors `src/relay/printer/relay_text_printer.cc`: non-atomic sub-expressions in argument, field,
ref and callee position are hoisted to `%N = e;` in the current scope (one counter per print, a
function's inner temporaries numbered before the `%N` naming the function), shared nodes are
hoisted once and referred to by number, let values and scope bodies are inlined when they have a
single parent, scalar constants print as literals and other constants as `meta[relay.Constant][k]`
with a `#[metadata]` section. Deviations, all so that the output re-parses to the same graph:
a let whose value is a let prints the value parenthesised (`let %a = (\n  let %b = ..\n);`, which
v0.19's own parser needs), free variables are declared with `free_var` at the top of the item
rather than where first met, names with characters the lexer cannot read have them replaced by
`_`, and a shared let in the middle of a chain is hoisted rather than printed twice.

Let chains are walked iteratively; other deep nesting is printed recursively and, when Python's
default recursion limit is too small, re-run on a thread with a large stack (`run_deep`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..runtime import run_deep
from .ast import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    Let,
    Match,
    MetaRef,
    Module,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Type,
    TypeData,
    Var,
    children,
    dim_str,
    post_order,
    type_str,
)
from .json_io import save_metadata
from .ops import printed_call_attrs

VERSION_HEADER = '#[version = "0.0.5"]'
META_OMITTED = (
    "/* For debugging purposes the metadata section has been omitted.\n"
    " * If you would like to see the full metadata section you can set the\n"
    " * option to `True` when invoking `astext`.\n"
    " */"
)

# A document is a rope: a str, a list of documents, NL, or an _Indent; `render` lays it out.
Doc = Any

_F32_MAX = float(np.finfo(np.float32).max)
_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_/]")
_LITERAL_FLOATS = {"float32": ("f", np.float32, 9), "float16": ("f16", np.float16, 5),
                   "float64": ("f64", np.float64, 17)}


# ------------------------------------------------------------------------------ small helpers


class _Newline:
    """A line break; it takes the indentation of the _Indent blocks around it."""

    __slots__ = ()


NL = _Newline()


class _Indent:
    """Line breaks inside `doc` are indented by `n` more columns."""

    __slots__ = ("n", "doc")

    def __init__(self, n: int, doc: Doc) -> None:
        self.n = n
        self.doc = doc


def _join(docs: list[Doc], sep: Doc = ", ") -> Doc:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return out


def _nest(open_: str, body: Doc, close: str) -> Doc:
    """`open_` body `close` with the body on its own indented lines."""
    return [open_, _Indent(2, [NL, body]), NL, close]


_END = object()


def render(doc: Doc) -> str:
    """Lay a document out as text, iteratively (documents nest as deep as the program)."""
    out: list[str] = []
    stack: list[tuple[Any, int]] = [(iter((doc,)), 0)]
    pending = False  # a newline waits for the next text to know its indentation
    while stack:
        it, ind = stack[-1]
        item = next(it, _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, str):
            if item:
                if pending:
                    out.append("\n" + " " * ind)
                    pending = False
                out.append(item)
        elif item is NL:
            if pending:
                out.append("\n")
            pending = True
        elif isinstance(item, list):
            stack.append((iter(item), ind))
        elif isinstance(item, _Indent):
            stack.append((iter((item.doc,)), ind + item.n))
        else:
            raise TypeError(f"bad document part {item!r}")
    if pending:
        out.append("\n")
    return "".join(out)



def format_float(x: float, dtype: str = "float64") -> str:
    """The shortest `%g` text that reads back (via float()) as exactly x at the given width."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    _, cast, digits = _LITERAL_FLOATS.get(dtype, _LITERAL_FLOATS["float64"])
    target = cast(x)
    limit = float(np.finfo(cast).max)
    with np.errstate(over="ignore"):
        for p in range(1, digits + 1):
            s = f"{float(x):.{p}g}"
            # the text must also stay within range before rounding (lexers check that)
            if cast(float(s)) == target and abs(float(s)) <= limit:
                return s
    return repr(float(x))


def scalar_literal(data: np.ndarray) -> str | None:
    """A scalar constant's literal (`3f`, `42i16`, `42`, `42i64`, `3f16`, `True`), or None for
    meta: v0.19 writes the dtypes of support/scalars.cc IsSimpleScalarDtype (int16/32/64,
    float16/32/64, bool) as literals. A NaN has no literal that reads back, so it stays meta."""
    if data.ndim != 0:
        return None
    dtype = str(data.dtype)
    v = data.item()
    if dtype == "bool":
        return "True" if v else "False"
    if dtype == "int16":
        return f"{int(v)}i16"
    if dtype == "int32":
        return str(int(v))
    if dtype == "int64":
        return f"{int(v)}i64"
    if dtype in _LITERAL_FLOATS:
        suffix = _LITERAL_FLOATS[dtype][0]
        if math.isnan(v):
            return None
        return format_float(v, dtype) + suffix
    return None


def _str_literal(s: str) -> str:
    body = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{body}"'


# ------------------------------------------------------------------------------------ printer


class _Printer:
    """One print: memo of printed nodes, the unique-name table, the temp counter, meta table."""

    def __init__(
        self,
        types: Mapping[int, Type] | None,
        show_meta: bool,
        binding_notes: Callable[[Expr], str | None] | None = None,
        spans: bool = False,
    ) -> None:
        self.types = types or {}
        self.spans = spans
        self.binding_notes = binding_notes
        self.show_meta = show_meta
        self.memo: dict[int, str] = {}  # atoms and hoisted nodes: their printed reference
        self.names: dict[str, int] = {}
        self.counter = 0
        self.scopes: list[list[Doc]] = [[]]  # statements of each open scope
        self.base = 0  # scope receiving `free_var` declarations
        self.parents: dict[int, int] = {}
        self.info_done: set[int] = set()
        self.meta: dict[str, list[object]] = {}
        self.meta_index: dict[int, str] = {}
        self.alive: list[object] = []  # keeps every id() used as a key valid

    # -------------------------------------------------------------------------- bookkeeping

    def count_parents(self, roots: list[Expr]) -> None:
        seen: set[int] = set()
        for root in roots:
            for node in post_order(root):
                if id(node) in seen:
                    continue
                seen.add(id(node))
                for c in children(node):
                    self.parents[id(c)] = self.parents.get(id(c), 0) + 1

    def unique(self, prefix: str) -> str:
        name = prefix
        if prefix in self.names:
            while True:
                self.names[prefix] += 1
                cand = f"{prefix}{self.names[prefix]}"
                if cand not in self.names:
                    name = cand
                    break
        self.names[name] = 0
        return name

    def info(self, node: object) -> str:
        """` /* ty=T span=file:line:col */` once per node, with what is known of it
        (relay_text_printer.cc PrintOptionalInfo); spans only when asked for."""
        if id(node) in self.info_done:
            return ""
        t = self.types.get(id(node))
        # v0.19's parser binds variables without a span (parser.cc BindVar), so a parsed
        # program's vars print none; ours keep theirs for error messages, not for printing
        sp = getattr(node, "span", None) if self.spans and not isinstance(node, Var) else None
        if t is None and sp is None:
            return ""
        self.info_done.add(id(node))
        parts = ([f"ty={type_str(t)}"] if t is not None else []) + \
            ([f"span={sp.source}:{sp.line}:{sp.col}"] if sp is not None else [])
        return f" /* {' '.join(parts)} */"

    def alloc_var(self, v: Var) -> str:
        """Name a variable at its binding site: `%x: T /* ty=T */`."""
        name = _BAD_NAME_CHARS.sub("_", v.name_hint)
        if not name or not (name[0].isascii() and name[0].isalpha()):
            name = "v" + name
        ref = self.unique("%" + name)
        self.memo[id(v)] = ref
        self.alive.append(v)
        out = ref
        if v.virtual_device is not None:
            out += f" {{virtual_device={self.attr_value(v.virtual_device)}}}"
        if v.type_annotation is not None:
            out += ": " + type_str(v.type_annotation)
        return out + self.info(v)

    def meta_ref(self, key: str, obj: object) -> str:
        """`meta[key][i]` for obj; an object read from a `#[metadata]` section keeps its
        reference (its table is written back as it came)."""
        if isinstance(obj, MetaRef):
            if obj.source is None:
                raise ValueError(f"cannot print meta[{obj.type_key}][{obj.index}]: the object "
                                 "it refers to is not known (it was not read from a "
                                 "#[metadata] section)")
            table = self.meta.setdefault(obj.type_key, [])
            if id(obj) not in self.meta_index:
                table.append(obj)
                self.meta_index[id(obj)] = f"meta[{obj.type_key}][{obj.index}]"
                self.alive.append(obj)
            return self.meta_index[id(obj)]
        ref = self.meta_index.get(id(obj))
        if ref is None:
            table = self.meta.setdefault(key, [])
            ref = f"meta[{key}][{len(table)}]"
            table.append(obj)
            self.meta_index[id(obj)] = ref
            self.alive.append(obj)
        return ref

    # -------------------------------------------------------------------------- expressions

    def expr(self, e: Expr, try_inline: bool = False) -> Doc:
        """Print e where it is used: inline when atomic or unique, else as a hoisted `%N`."""
        hit = self.memo.get(id(e))
        if hit is not None:
            return hit
        if isinstance(e, Var):  # first met outside a binding site: a free variable
            decl = self.alloc_var(e)
            self.scopes[min(self.base, len(self.scopes) - 1)].append(f"free_var {decl};")
            return self.memo[id(e)]
        self.alive.append(e)
        inline = isinstance(e, (GlobalVar, Constant, Op, Constructor)) or (
            try_inline and self.parents.get(id(e), 0) <= 1
        )
        if isinstance(e, Let):
            doc = _nest("(", self.scope(e, expand_head=True), ")")
        else:
            doc = self.visit(e)
        if isinstance(e, (Call, Constant, Function, Tuple, TupleGetItem)):
            doc = [doc, self.info(e)]
        if inline:
            if isinstance(e, (GlobalVar, Constant, Op, Constructor)):
                self.memo[id(e)] = render(doc)
            return doc  # a unique node is met once: no memo, so no copy of big documents
        tmp = f"%{self.counter}"
        self.counter += 1
        self.memo[id(e)] = tmp
        note = self.binding_notes(e) if self.binding_notes else None
        self.scopes[-1].append([tmp, " = ", doc, ";", f" /* {note} */" if note else ""])
        return tmp

    def scope(self, e: Expr, expand_head: bool = False) -> Doc:
        """Print e in a new scope: its hoisted bindings and lets, then its value."""
        self.scopes.append([])
        doc = self.body(e, expand_head)
        return _join([*self.scopes.pop(), doc], NL)

    def body(self, e: Expr, expand_head: bool = False) -> Doc:
        """Emit a let chain into the current scope iteratively; return the final expression."""
        first = expand_head
        while isinstance(e, Let) and (
            first or (id(e) not in self.memo and self.parents.get(id(e), 0) <= 1)
        ):
            first = False
            self.alive.append(e)
            head = f"let {self.alloc_var(e.var)} = "
            value = self.expr(e.value, try_inline=True)
            note = self.binding_notes(e) if self.binding_notes else None
            self.scopes[-1].append([head, value, ";", f" /* {note} */" if note else ""])
            e = e.body
        return self.expr(e, try_inline=True)

    def block(self, e: Expr) -> Doc:
        return _nest("{", self.scope(e), "}")

    def visit(self, e: Expr) -> Doc:
        if isinstance(e, GlobalVar):
            return "@" + e.name_hint
        if isinstance(e, Op):
            return e.name
        if isinstance(e, Constructor):
            return e.name_hint
        if isinstance(e, Constant):
            lit = scalar_literal(e.data)
            return lit if lit is not None else self.meta_ref("relay.Constant", e)
        if isinstance(e, Tuple):
            fields = [self.expr(f) for f in e.fields]
            return ["(", _join(fields), ",)" if len(fields) == 1 else ")"]
        if isinstance(e, TupleGetItem):
            inner = self.expr(e.tuple_value)
            if isinstance(e.tuple_value, Constant):
                inner = ["(", inner, ")"]  # `42.0` would lex as one (bad) number
            return [inner, f".{e.index}"]
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, If):
            cond = self.expr(e.cond)
            then = self.block(e.true_branch)
            other = self.block(e.false_branch)
            return ["if (", cond, ") ", then, " else ", other]
        if isinstance(e, Function):
            return self.func("fn ", e)
        if isinstance(e, RefCreate):
            return ["ref(", self.expr(e.value), ")"]
        if isinstance(e, RefRead):
            return ["ref_read(", self.expr(e.ref), ")"]
        if isinstance(e, RefWrite):
            ref = self.expr(e.ref)
            value = self.expr(e.value)
            return ["ref_write(", ref, ", ", value, ")"]
        if isinstance(e, Match):
            return self.match(e)
        raise TypeError(f"cannot print {type(e).__name__}")

    def call(self, e: Call) -> Doc:
        args = [self.expr(a) for a in e.args]  # arguments first, so the callee stays close
        items = printed_call_attrs(e.op, e.attrs)
        attrs: list[Doc] = [[f"{k}=", self.attr_value(v)] for k, v in items]
        if not isinstance(e.op, Op) and e.attrs.type_key is not None:
            attrs.append(f"attrs_type_key={_str_literal(e.attrs.type_key)}")
        if isinstance(e.op, Constructor) and not e.op.inputs and not args and not attrs:
            return e.op.name_hint  # a nullary constructor prints bare
        callee = self.expr(e.op)
        return [callee, "(", _join(args + attrs), ")"]

    def attr_value(self, v: Any) -> Doc:
        if v is None:
            return "None"
        if isinstance(v, (bool, np.bool_)):
            return "True" if v else "False"
        if isinstance(v, (int, np.integer)):
            return dim_str(int(v))
        if isinstance(v, (float, np.floating)):
            f = float(v)  # a C++ double; `f64` keeps values beyond float32's range readable
            return format_float(f) + ("f64" if math.isfinite(f) and abs(f) > _F32_MAX else "f")
        if isinstance(v, str):
            return _str_literal(v)
        if isinstance(v, (tuple, list)):
            return ["[", _join([self.attr_value(x) for x in v]), "]"]
        if isinstance(v, Expr):
            return self.expr(v)
        if isinstance(v, Type):
            return type_str(v)
        if isinstance(v, MetaRef):
            return self.meta_ref(v.type_key, v)
        return self.meta_ref(type(v).__name__, v)

    def func(self, prefix: str, fn: Function) -> Doc:
        """`fn [A](%x: T, Primitive=1) -> R {` body `}` (also `def @f(...)` in a module)."""
        head = prefix
        if fn.type_params:
            head += f"[{', '.join(t.name for t in fn.type_params)}]"
        params: list[Doc] = [self.alloc_var(p) for p in fn.params]
        params += [[f"{k}=", self.attr_value(v)] for k, v in fn.attrs.items_]
        if fn.virtual_device is not None:  # after the attributes (relay_text_printer.cc PrintFunc)
            params.append(["virtual_device=", self.attr_value(fn.virtual_device)])
        sig: Doc = [head, "(", _join(params), ") "]
        if fn.ret_type is not None:
            sig = [sig, f"-> {type_str(fn.ret_type)} "]
        return [sig, _nest("{", self.scope(fn.body), "}")]

    def match(self, e: Match) -> Doc:
        data = self.expr(e.data)
        clauses: list[Doc] = []
        for c in e.clauses:
            pat = self.pattern(c.lhs)
            self.scopes.append([])
            value = self.body(c.rhs)
            stmts = self.scopes.pop()
            rhs = _nest("{", _join([*stmts, value], NL), "}") if stmts else value
            clauses.append([pat, " => ", rhs, ","])
        head = "match?" if not e.complete else "match"
        return [f"{head} (", data, _nest(") {", _join(clauses, NL), "}")]

    def pattern(self, p: Pattern) -> str:
        if isinstance(p, PatternWildcard):
            return "_"
        if isinstance(p, PatternVar):
            return self.alloc_var(p.var)
        if isinstance(p, PatternConstructor):
            if not p.patterns:
                return p.constructor.name_hint
            return f"{p.constructor.name_hint}({', '.join(self.pattern(q) for q in p.patterns)})"
        if isinstance(p, PatternTuple):
            return f"({', '.join(self.pattern(q) for q in p.patterns)})"
        raise TypeError(f"cannot print pattern {type(p).__name__}")

    # ------------------------------------------------------------------------------ modules

    def typedef(self, td: TypeData) -> Doc:
        tvs = f"[{', '.join(t.name for t in td.type_vars)}]" if td.type_vars else ""
        if td.extern and not td.constructors:
            return f"extern type {td.name}{tvs}"
        ctors = []
        for c in td.constructors:
            fields = f"({', '.join(type_str(t) for t in c.inputs)})" if c.inputs else ""
            ctors.append(f"{c.name_hint}{fields},")
        if not ctors:
            return f"type {td.name}{tvs} {{}}"
        return _nest(f"type {td.name}{tvs} {{", _join(ctors, NL), "}")

    def module(self, m: Module) -> Doc:
        self.count_parents(list(m.functions.values()))
        items: list[Doc] = [self.typedef(m.type_defs[n]) for n in sorted(m.type_defs)]
        for name in sorted(m.functions):
            self.scopes = [[]]
            self.base = 1  # the function body's scope
            items.append(self.func(f"def @{name}", m.functions[name]))
        return _join(items, [NL, NL])

    def top_expr(self, e: Expr) -> Doc:
        self.count_parents([e])
        self.scopes = []
        self.base = 0
        return self.scope(e)

    def metadata(self) -> str | None:
        if not self.meta:
            return None
        if not self.show_meta:
            return META_OMITTED
        return "#[metadata]\n" + save_metadata(self.meta)


def astext(
    node: Module | Expr,
    types: Mapping[int, Type] | None = None,
    show_meta: bool = True,
    header: bool | None = None,
    binding_notes: Callable[[Expr], str | None] | None = None,
    names: dict[str, Expr] | None = None,
    spans: bool = False,
) -> str:
    """Print a module or expression as v0.19 would; `types` maps id(node) to its inferred type.

    `binding_notes(node)` may return a comment to print after a let or a graph binding
    (`/* note */`); `names`, when given, receives every printed `%name` and `%N` with the
    variable or the shared node it stands for. `spans` adds ` span=file:line:col` to the
    comments of nodes that have one, as v0.19 always does (the parser reads them as comments).
    """

    def go() -> str:
        p = _Printer(types, show_meta, binding_notes, spans)
        with_header = isinstance(node, Module) if header is None else header
        parts: list[str] = [VERSION_HEADER] if with_header else []
        if isinstance(node, Module):
            parts.append(render(p.module(node)))
        elif isinstance(node, Expr):
            parts.append(render(p.top_expr(node)))
        else:
            raise TypeError(f"astext expects a Module or an Expr, not {type(node).__name__}")
        meta = p.metadata()
        if meta is not None:
            parts.append(meta)
        text = "\n".join(parts)
        if names is not None:
            by_id = {id(o): o for o in p.alive}
            names.update((ref, by_id[k]) for k, ref in p.memo.items()
                         if ref.startswith("%") and k in by_id)
        return text + "\n" if isinstance(node, Module) else text

    return run_deep(go)
