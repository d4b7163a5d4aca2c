"""Parser of the Soufflé subset aliaslog's rules use, so the embedded engine runs the same files.

Stages: a C-preprocessor-style lexer (`#include`, `.include`, `#define`, `#if[n]def`, `#if`,
`#elif`, `#else`, `#endif`), a recursive-descent parser into a small AST, elaboration of
components (`.comp`/`.init`, dotted names) and types into a flat `Program`, and checks Soufflé
makes (declared relations, arities, groundedness, stratification). Anything outside the subset is
an `EngineError` located at the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from aliaslog.engines.base import EngineError, RecordKind
from extractor.relay.errors import Span

# --- tokens -------------------------------------------------------------------------------------

_DIRECTIVES = (
    "decl|functor|input|output|printsize|limitsize|type|comp|init|number_type|symbol_type|"
    "override|pragma|plan|lattice|include|once"
)
_TOKEN_RE = re.compile(
    r"""
 (?P<ws>[ \t\r\f\v]+)
|(?P<nl>\n)
|(?P<lc>//[^\n]*)
|(?P<bc>/\*)
|(?P<dir>\.(?:""" + _DIRECTIVES + r""")(?![_?a-zA-Z0-9]))
|(?P<str>"(?:\\.|[^"\\])*")
|(?P<ip>\d+\.\d+\.\d+\.\d+)
|(?P<float>\d+\.\d+)
|(?P<num>0x[0-9a-fA-F]+u?|0b[01]+u?|\d+u?)
|(?P<id>[_?a-zA-Z][_?a-zA-Z0-9]*(?:\.[_?a-zA-Z][_?a-zA-Z0-9]*)*)
|(?P<p>:-|<:|<=|>=|!=|::|->|@!|[()\[\]{},.:;=!<>+\-*/%^|$@&~])
|(?P<hash>\#)
""",
    re.X,
)

_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "n": "\n",
            "r": "\r", "t": "\t", "v": "\v"}


@dataclass(frozen=True, slots=True)
class Token:
    """One lexeme: kind is ws-free (`id`, `num`, `str`, `dir`, `p`, `ip`, `float`, `eof`)."""

    kind: str
    value: str
    span: Span


def _unescape(lit: str, span: Span) -> str:
    """Soufflé's string literal escapes (`lexString`): an unknown escape is an error."""
    body = lit[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt not in _ESCAPES:
                raise EngineError(f"unknown escape sequence \\{nxt}", span)
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _LineIndex:
    """Offsets of line starts, to turn a string offset into line:col quickly."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def pos(self, offset: int) -> tuple[int, int]:
        import bisect

        i = bisect.bisect_right(self.starts, offset) - 1
        return i + 1, offset - self.starts[i] + 1


@dataclass
class _Cond:
    taking: bool  # this branch is active (given the parent is)
    done: bool  # some branch of this #if group was already taken
    parent_active: bool
    span: Span
    seen_else: bool = False


class Preprocessor:
    """Lex files into tokens, applying includes, conditionals and object-like macros like cpp."""

    MAX_DEPTH = 64

    def __init__(self, include_dirs: list[Path], defines: dict[str, str]) -> None:
        self.include_dirs = [Path(d) for d in include_dirs]
        self.macros: dict[str, str] = {"RAM_DOMAIN_SIZE": "32"}
        for k, v in defines.items():
            self.macros[k] = v
        self.tokens: list[Token] = []
        self.files: list[Path] = []
        self.texts: dict[str, str] = {}
        self._stack: list[Path] = []
        self._once: set[Path] = set()
        self.tsv_unsafe: list[Span] = []  # string constants Soufflé's TSV output cannot carry

    def run(self, path: Path) -> list[Token]:
        """Tokens of the whole program rooted at path (plus an `eof` token)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise EngineError(f"Datalog program {path} not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise EngineError(f"cannot read Datalog program {path}: {exc}") from None
        self._lex_file(path, str(path), text)
        last = self.tokens[-1].span if self.tokens else Span(str(path), 1, 1)
        self.tokens.append(Token("eof", "", Span(last.source, last.line, last.col)))
        return self.tokens

    # include resolution ----------------------------------------------------------------------
    def _resolve_include(self, name: str, current: Path, span: Span) -> Path:
        cand = Path(name)
        if cand.is_absolute():
            if cand.is_file():
                return cand
        else:
            for base in [current.parent, *self.include_dirs]:
                p = base / name
                if p.is_file():
                    return p
        raise EngineError(f"included file `{name}` not found (searched {current.parent}"
                          + "".join(f", {d}" for d in self.include_dirs) + ")", span)

    def _include(self, name: str, current: Path, span: Span) -> None:
        target = self._resolve_include(name, current, span)
        key = target.resolve()
        if any(p.resolve() == key for p in self._stack):
            raise EngineError(f"recursive include of `{name}`", span)
        if len(self._stack) >= self.MAX_DEPTH:
            raise EngineError(f"includes nested deeper than {self.MAX_DEPTH} files", span)
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise EngineError(f"cannot read included file `{name}`: {exc}", span) from None
        self._lex_file(target, str(target), text)

    # lexing ----------------------------------------------------------------------------------
    def _lex_file(self, path: Path, source: str, text: str) -> None:
        self._stack.append(path)
        self.files.append(path)
        self.texts[source] = text
        try:
            self._lex_text(path, source, text)
        except EngineError as exc:
            if exc.text is None and exc.span is not None and exc.span.source in self.texts:
                exc.with_text(self.texts[exc.span.source])
            raise
        finally:
            self._stack.pop()

    def _lex_text(self, path: Path, source: str, text: str) -> None:
        idx = _LineIndex(text)
        conds: list[_Cond] = []
        pos = 0
        n = len(text)
        line_start = 0  # offset where the current line begins

        def span_at(a: int, b: int) -> Span:
            line, col = idx.pos(a)
            eline, ecol = idx.pos(b)
            return Span(source, line, col, eline, ecol)

        def active() -> bool:
            return not conds or (conds[-1].taking and conds[-1].parent_active)

        while pos < n:
            m = _TOKEN_RE.match(text, pos)
            if m is None:
                sp = span_at(pos, pos + 1)
                if active():
                    raise EngineError(f"unexpected character {text[pos]!r}", sp)
                pos += 1
                continue
            kind = m.lastgroup
            val = m.group()
            end = m.end()
            if kind == "ws" or kind == "lc":
                pos = end
                continue
            if kind == "nl":
                pos = end
                line_start = end
                continue
            if kind == "bc":
                close = text.find("*/", end)
                if close < 0:
                    raise EngineError("unterminated comment", span_at(pos, end))
                nl = text.rfind("\n", pos, close)
                if nl >= 0:
                    line_start = nl + 1
                pos = close + 2
                continue
            if kind == "hash":
                if text[line_start:pos].strip(" \t\r\f\v"):
                    if active():
                        raise EngineError("unexpected `#`", span_at(pos, end))
                    pos = end
                    continue
                eol = pos
                while True:
                    eol = text.find("\n", eol)
                    if eol < 0:
                        eol = n
                        break
                    if text[eol - 1] == "\\":
                        eol += 1
                        continue
                    break
                line = text[end:eol].replace("\\\n", " ")
                line = re.sub(r"/\*.*?\*/", " ", line)
                line = re.sub(r"//.*$", "", line)
                self._directive(line.strip(), path, span_at(pos, eol), conds, active())
                pos = eol
                continue
            tok_span = span_at(pos, end)
            pos = end
            if not active():
                continue
            if kind == "dir" and val == ".include":
                m2 = re.compile(r'[ \t\r\f\v\n]*"((?:\\.|[^"\\])*)"').match(text, pos)
                if m2 is None:
                    raise EngineError("expected a file name after `.include`", tok_span)
                pos = m2.end()
                nl = text.rfind("\n", 0, pos)
                if nl + 1 > line_start:
                    line_start = nl + 1
                self._include(_unescape('"' + m2.group(1) + '"', tok_span), path, tok_span)
                continue
            if kind == "dir" and val == ".once":
                if path.resolve() in self._once:
                    break
                self._once.add(path.resolve())
                continue
            if kind == "id" and val in self.macros:
                self._expand_macro(val, tok_span)
                continue
            if kind == "str":
                value = _unescape(val, tok_span)
                if "\t" in value or "\n" in value or "\r" in value:
                    self.tsv_unsafe.append(tok_span)
                self.tokens.append(Token("str", value, tok_span))
                continue
            self.tokens.append(Token(kind, val, tok_span))
        if conds:
            raise EngineError("`#if` without `#endif`", conds[-1].span)

    def _expand_macro(self, name: str, span: Span, depth: int = 0) -> None:
        if depth > 32:
            raise EngineError(f"macro `{name}` expands recursively", span)
        value = self.macros[name]
        pos = 0
        while pos < len(value):
            m = _TOKEN_RE.match(value, pos)
            if m is None:
                raise EngineError(f"cannot tokenize the value of macro `{name}`: {value!r}", span)
            pos = m.end()
            kind, val = m.lastgroup, m.group()
            if kind in ("ws", "nl", "lc"):
                continue
            if kind in ("bc", "hash", "dir"):
                raise EngineError(f"unsupported macro value for `{name}`: {value!r}", span)
            if kind == "id" and val in self.macros and val != name:
                self._expand_macro(val, span, depth + 1)
            elif kind == "str":
                self.tokens.append(Token("str", _unescape(val, span), span))
            else:
                self.tokens.append(Token(kind, val, span))

    def _directive(self, line: str, path: Path, span: Span, conds: list[_Cond],
                   is_active: bool) -> None:
        m = re.match(r"([A-Za-z_]+)?\s*(.*)$", line, re.S)
        word = (m.group(1) or "") if m else ""
        rest = (m.group(2) if m else "").strip()
        if word in ("ifdef", "ifndef"):
            name = rest.split()[0] if rest.split() else ""
            if not name:
                raise EngineError(f"`#{word}` needs a macro name", span)
            cond = (name in self.macros) == (word == "ifdef")
            conds.append(_Cond(taking=cond, done=cond, parent_active=is_active, span=span))
            return
        if word == "if":
            cond = bool(self._eval_if(rest, span)) if is_active else False
            conds.append(_Cond(taking=cond, done=cond, parent_active=is_active, span=span))
            return
        if word in ("elif", "else", "endif"):
            if not conds:
                raise EngineError(f"`#{word}` without `#if`", span)
            top = conds[-1]
            if word == "endif":
                conds.pop()
                return
            if top.seen_else:
                raise EngineError(f"`#{word}` after `#else`", span)
            if word == "else":
                top.seen_else = True
                top.taking = not top.done
                top.done = True
                return
            if top.done:
                top.taking = False
            else:
                cond = bool(self._eval_if(rest, span)) if top.parent_active else False
                top.taking = cond
                top.done = cond
            return
        if conds and not (conds[-1].taking and conds[-1].parent_active):
            return  # other directives in a skipped group are ignored, as cpp does
        if word == "include":
            inc = re.match(r'"([^"]*)"|<([^>]*)>', rest)
            if inc is None:
                raise EngineError("expected `#include \"file\"`", span)
            self._include(inc.group(1) or inc.group(2), path, span)
            return
        if word == "define":
            dm = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(\()?\s*(.*)$", rest, re.S)
            if dm is None:
                raise EngineError("expected a macro name after `#define`", span)
            if dm.group(2):
                raise EngineError("unsupported Soufflé construct `#define` with parameters", span)
            self.macros[dm.group(1)] = dm.group(3).strip()
            return
        if word == "undef":
            self.macros.pop(rest.split()[0] if rest.split() else "", None)
            return
        if word in ("line", "pragma") or word == "" and re.match(r"\d", rest or "x"):
            return  # line markers and pragmas do not change the program's meaning
        if word == "" and not rest:
            return  # a null directive
        raise EngineError(f"unsupported Soufflé construct `#{word or rest}`", span)

    def _eval_if(self, expr: str, span: Span) -> int:
        """Evaluate a `#if` expression: defined(), integers, macros, ! && || == != < > <= >= + -."""
        toks = re.findall(r"\d+|[A-Za-z_][A-Za-z0-9_]*|&&|\|\||==|!=|<=|>=|[!()<>+\-]|\S", expr)
        pos = 0

        def peek() -> str:
            return toks[pos] if pos < len(toks) else ""

        def take() -> str:
            nonlocal pos
            pos += 1
            return toks[pos - 1]

        def primary(depth: int) -> int:
            if depth > 100:
                raise EngineError("`#if` expression nested too deeply", span)
            t = take() if pos < len(toks) else ""
            if t == "!":
                return int(not primary(depth + 1))
            if t == "-":
                return -primary(depth + 1)
            if t == "(":
                v = disj(depth + 1)
                if take() != ")" if pos < len(toks) else True:
                    raise EngineError(f"bad `#if` expression: {expr}", span)
                return v
            if t == "defined":
                paren = peek() == "("
                if paren:
                    take()
                name = take() if pos < len(toks) else ""
                if paren and (pos >= len(toks) or take() != ")"):
                    raise EngineError(f"bad `#if` expression: {expr}", span)
                return int(name in self.macros)
            if t.isdigit():
                return int(t)
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t or "-"):
                val = self.macros.get(t, "0").strip()
                return int(val) if re.fullmatch(r"-?\d+", val) else (1 if val else 0)
            raise EngineError(f"bad `#if` expression: {expr}", span)

        def binary(depth: int, ops: tuple[str, ...], sub) -> int:
            v = sub(depth)
            while peek() in ops:
                op = take()
                w = sub(depth)
                v = {"==": v == w, "!=": v != w, "<": v < w, ">": v > w, "<=": v <= w,
                     ">=": v >= w, "+": v + w, "-": v - w, "&&": bool(v and w),
                     "||": bool(v or w)}[op]
                v = int(v)
            return v

        def add(d: int) -> int:
            return binary(d, ("+", "-"), primary)

        def cmp(d: int) -> int:
            return binary(d, ("==", "!=", "<", ">", "<=", ">="), add)

        def conj(d: int) -> int:
            return binary(d, ("&&",), cmp)

        def disj(d: int) -> int:
            return binary(d, ("||",), conj)

        v = disj(0)
        if pos != len(toks):
            raise EngineError(f"bad `#if` expression: {expr}", span)
        return v


# --- AST ----------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Var:
    name: str
    span: Span


@dataclass(eq=False, slots=True)
class Wildcard:
    span: Span


@dataclass(eq=False, slots=True)
class Num:
    value: int
    span: Span


@dataclass(eq=False, slots=True)
class Str:
    value: str
    span: Span


@dataclass(eq=False, slots=True)
class Nil:
    span: Span


@dataclass(eq=False, slots=True)
class Record:
    items: list
    span: Span


@dataclass(eq=False, slots=True)
class BinOp:
    op: str  # + - * / % ^ band bor bxor
    left: object
    right: object
    span: Span


@dataclass(eq=False, slots=True)
class UnOp:
    op: str  # - bnot
    arg: object
    span: Span


@dataclass(eq=False, slots=True)
class Aggregate:
    kind: str  # count sum min max
    expr: object | None
    body: list  # a conjunction of literals
    span: Span


@dataclass(eq=False, slots=True)
class Atom:
    rel: str
    args: list
    span: Span


@dataclass(eq=False, slots=True)
class Neg:
    atom: Atom
    span: Span


@dataclass(eq=False, slots=True)
class Constraint:
    op: str  # = != < <= > >=
    left: object
    right: object
    span: Span


@dataclass(eq=False, slots=True)
class BoolLit:
    value: bool
    span: Span


@dataclass(eq=False, slots=True)
class Clause:
    """`h1, h2 :- body.`; body is in disjunctive normal form (a list of conjunctions)."""

    heads: list[Atom]
    body: list[list] | None
    span: Span


@dataclass(eq=False, slots=True)
class TypeDecl:
    name: str
    form: str  # sub | alias | union | record
    refs: list[str]  # base / alias target / union members / record field types
    fields: list[str]
    span: Span


@dataclass(eq=False, slots=True)
class Decl:
    names: list[str]
    attrs: list[tuple[str, str]]
    qualifiers: list[str]
    span: Span


@dataclass(eq=False, slots=True)
class IODirective:
    kind: str  # input | output | printsize
    names: list[str]
    params: dict[str, str]
    span: Span
    name_spans: list[Span] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class CompDecl:
    name: str
    params: list[str]
    bases: list[tuple[str, list[str], Span]]
    items: list
    span: Span


@dataclass(eq=False, slots=True)
class InitDecl:
    inst: str
    comp: str
    args: list[str]
    span: Span


# --- parser -------------------------------------------------------------------------------------

_QUALIFIERS_IGNORED = {"brie", "btree", "btree_delete", "inline", "no_inline", "magic", "no_magic",
                       "overridable"}
_QUALIFIERS_IO = {"input", "output", "printsize"}
_FUNCTOR_KEYWORDS = {"cat", "ord", "range", "strlen", "substr", "to_float", "to_number",
                     "to_string", "to_unsigned", "match", "contains", "autoinc", "mean",
                     "lnot", "land", "lor", "lxor", "bshl", "bshr", "bshru", "stateful",
                     "recursive_iteration_cnt", "debug_delta", "choice", "eqrel"}
_RESERVED = _FUNCTOR_KEYWORDS | {"count", "sum", "min", "max", "nil", "true", "false", "as",
                                 "band", "bor", "bxor", "bnot"}
_CMP = {"=", "!=", "<", "<=", ">", ">="}


class _Backtrack(Exception):
    """Internal: a speculative parse did not apply."""


class Parser:
    """Recursive-descent parser of the Soufflé subset (nesting depth is bounded and reported)."""

    MAX_NESTING = 60

    def __init__(self, tokens: list[Token], lenient: bool = False) -> None:
        self.toks = tokens
        self.i = 0
        self.lenient = lenient
        self.skipped: list[EngineError] = []
        self._depth = 0

    # helpers ---------------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def at(self, value: str, kind: str | None = None) -> bool:
        t = self.toks[self.i]
        return t.value == value and (kind is None or t.kind == kind) and t.kind != "str"

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def expect(self, value: str) -> Token:
        if not self.at(value):
            self.error(f"expected `{value}`")
        return self.advance()

    def error(self, msg: str, tok: Token | None = None):
        t = tok or self.tok
        found = "end of input" if t.kind == "eof" else f"`{t.value}`"
        raise EngineError(f"{msg}, found {found}", t.span)

    def unsupported(self, what: str, tok: Token | None = None):
        t = tok or self.tok
        raise EngineError(f"unsupported Soufflé construct `{what}`", t.span)

    def ident(self, what: str = "a name") -> Token:
        t = self.tok
        if t.kind != "id":
            self.error(f"expected {what}")
        return self.advance()

    def _enter(self) -> None:
        self._depth += 1
        if self._depth > self.MAX_NESTING:
            raise EngineError(f"expression nested deeper than {self.MAX_NESTING} levels",
                              self.tok.span)

    # items -----------------------------------------------------------------------------------
    def parse_program(self) -> list:
        items = self._items(top=True)
        return items

    def _items(self, top: bool) -> list:
        items: list = []
        while True:
            t = self.tok
            if t.kind == "eof":
                if not top:
                    self.error("expected `}` closing the component")
                return items
            if not top and t.value == "}" and t.kind == "p":
                return items
            start = self.i
            try:
                item = self._item()
            except EngineError as exc:
                if not self.lenient:
                    raise
                self.skipped.append(exc)
                self.i = start
                self._skip_statement()
                continue
            if item is not None:
                items.append(item)

    def _skip_statement(self) -> None:
        """Lenient mode: skip to the end of the current statement (`.` at bracket depth 0)."""
        depth = 0
        first = True
        while self.tok.kind != "eof":
            t = self.tok
            if t.kind == "dir" and not first and depth == 0:
                return
            self.advance()
            first = False
            if t.kind == "p":
                if t.value in "([{":
                    depth += 1
                elif t.value in ")]}":
                    depth -= 1
                    if depth < 0:
                        return
                elif t.value == "." and depth == 0:
                    return

    def _item(self):
        t = self.tok
        if t.kind == "dir":
            d = t.value
            if d == ".type":
                return self._type_decl()
            if d in (".number_type", ".symbol_type"):
                self.advance()
                name = self.ident("a type name")
                base = "number" if d == ".number_type" else "symbol"
                return TypeDecl(name.value, "sub", [base], [], t.span)
            if d == ".decl":
                return self._decl()
            if d in (".input", ".output", ".printsize"):
                return self._io()
            if d == ".comp":
                return self._comp()
            if d == ".init":
                return self._init()
            if d == ".plan":
                self.advance()
                while self.tok.kind == "num" or (
                        self.tok.kind == "p" and self.tok.value in (":", "(", ")", ",")):
                    self.advance()
                return None
            self.unsupported(d)
        if t.kind == "id":
            return self._clause()
        self.error("expected a declaration or a rule")

    def _qualified_type(self) -> str:
        t = self.ident("a type name")
        if t.value in ("unsigned", "float"):
            self.unsupported(f"{t.value} type", t)
        return t.value

    def _type_decl(self) -> TypeDecl:
        start = self.advance()
        name = self.ident("a type name")
        if self.at("<:"):
            self.advance()
            base = self._qualified_type()
            return TypeDecl(name.value, "sub", [base], [], start.span)
        self.expect("=")
        if self.at("["):
            self.advance()
            fields, ftypes = [], []
            while not self.at("]"):
                fname = self.ident("a field name")
                self.expect(":")
                fields.append(fname.value)
                ftypes.append(self._qualified_type())
                if not self.at(","):
                    break
                self.advance()
            self.expect("]")
            return TypeDecl(name.value, "record", ftypes, fields, start.span)
        if self.at("$") or (self.tok.kind == "id" and self.toks[self.i + 1].value == "{"):
            self.unsupported("algebraic data type")
        members = [self._qualified_type()]
        while self.at("|"):
            self.advance()
            if self.tok.kind == "id" and self.toks[self.i + 1].value == "{":
                self.unsupported("algebraic data type")
            members.append(self._qualified_type())
        if len(members) == 1:
            return TypeDecl(name.value, "alias", members, [], start.span)
        return TypeDecl(name.value, "union", members, [], start.span)

    def _decl(self) -> Decl:
        start = self.advance()
        names = [self.ident("a relation name").value]
        while self.at(","):
            self.advance()
            names.append(self.ident("a relation name").value)
        self.expect("(")
        attrs: list[tuple[str, str]] = []
        while not self.at(")"):
            aname = self.ident("an attribute name")
            self.expect(":")
            attrs.append((aname.value, self._qualified_type()))
            if self.at("<") and self.toks[self.i + 1].value == "-":
                self.unsupported("lattice attribute")
            if not self.at(","):
                break
            self.advance()
        self.expect(")")
        quals: list[str] = []
        while self.tok.kind == "id" and (
            self.tok.value in _QUALIFIERS_IGNORED | _QUALIFIERS_IO
            or self.tok.value in ("eqrel", "choice")
        ):
            q = self.tok
            if q.value == "eqrel":
                self.unsupported("eqrel")
            if q.value == "choice":
                self.unsupported("choice-domain")
            quals.append(self.advance().value)
        return Decl(names, attrs, quals, start.span)

    def _io(self) -> IODirective:
        start = self.advance()
        kind = start.value[1:]
        names, spans = [], []
        t = self.ident("a relation name")
        names.append(t.value)
        spans.append(t.span)
        while self.at(","):
            self.advance()
            t = self.ident("a relation name")
            names.append(t.value)
            spans.append(t.span)
        params: dict[str, str] = {}
        if self.at("("):
            self.advance()
            while not self.at(")"):
                key = self.ident("a parameter name").value
                while self.at("-") and self.toks[self.i + 1].kind == "id":
                    self.advance()
                    key += "-" + self.advance().value
                self.expect("=")
                v = self.tok
                if v.kind not in ("str", "id", "num"):
                    self.error("expected a parameter value")
                params[key] = self.advance().value
                if not self.at(","):
                    break
                self.advance()
            self.expect(")")
        return IODirective(kind, names, params, start.span, spans)

    def _type_args(self) -> list[str]:
        args: list[str] = []
        if self.at("<"):
            self.advance()
            while True:
                args.append(self.ident("a type name").value)
                if self.at(","):
                    self.advance()
                    continue
                break
            self.expect(">")
        return args

    def _comp(self) -> CompDecl:
        start = self.advance()
        name = self.ident("a component name").value
        params = self._type_args()
        bases: list[tuple[str, list[str], Span]] = []
        if self.at(":"):
            self.advance()
            while True:
                b = self.ident("a base component name")
                bases.append((b.value, self._type_args(), b.span))
                if self.at(","):
                    self.advance()
                    continue
                break
        self.expect("{")
        self._enter()
        items = self._items(top=False)
        self._depth -= 1
        self.expect("}")
        return CompDecl(name, params, bases, items, start.span)

    def _init(self) -> InitDecl:
        start = self.advance()
        inst = self.ident("an instance name").value
        self.expect("=")
        comp = self.ident("a component name").value
        args = self._type_args()
        return InitDecl(inst, comp, args, start.span)

    # clauses ---------------------------------------------------------------------------------
    def _clause(self) -> Clause:
        start = self.tok
        heads = [self._atom()]
        while self.at(","):
            self.advance()
            heads.append(self._atom())
        if self.at("<="):
            self.unsupported("subsumption `<=`")
        if self.at("."):
            self.advance()
            return Clause(heads, None, start.span)
        self.expect(":-")
        body = self._disjunction()
        if not self.at("."):
            self.error("expected `.` ending the rule")
        self.advance()
        return Clause(heads, body, start.span)

    def _atom(self) -> Atom:
        name = self.tok
        if name.kind != "id":
            self.error("expected a relation name")
        if name.value in _RESERVED:
            self.unsupported(name.value)
        self.advance()
        if not self.at("("):
            self.error(f"expected `(` after relation name `{name.value}`")
        self.advance()
        args = []
        while not self.at(")"):
            args.append(self._term())
            if not self.at(","):
                break
            self.advance()
        self.expect(")")
        return Atom(name.value, args, name.span)

    def _disjunction(self) -> list[list]:
        self._enter()
        alts = self._conjunction()
        while self.at(";"):
            self.advance()
            alts = alts + self._conjunction()
        self._depth -= 1
        return alts

    def _conjunction(self) -> list[list]:
        """A conjunction, already multiplied out into DNF alternatives."""
        alts: list[list] = [[]]
        while True:
            lit_alts = self._literal()
            alts = [a + b for a in alts for b in lit_alts]
            if len(alts) > 4096:
                raise EngineError("rule body expands to more than 4096 disjuncts", self.tok.span)
            if not self.at(","):
                return alts
            self.advance()

    def _literal(self) -> list[list]:
        t = self.tok
        if self.at("!"):
            self.advance()
            if self.at("("):
                self.unsupported("negation of a parenthesised body")
            if self.tok.kind == "id" and self.tok.value in ("match", "contains"):
                self.unsupported(self.tok.value)
            if self.tok.kind == "id" and self.toks[self.i + 1].value == "(":
                atom = self._atom()
                return [[Neg(atom, t.span)]]
            self.error("expected an atom after `!`")
        if t.kind == "id" and t.value in ("true", "false"):
            self.advance()
            return [[BoolLit(t.value == "true", t.span)]]
        if t.kind == "id" and t.value not in _RESERVED and self.toks[self.i + 1].value == "(" \
                and self.toks[self.i + 1].kind == "p":
            return [[self._atom()]]
        if t.kind == "id" and t.value in ("match", "contains"):
            self.unsupported(t.value)
        if self.at("("):
            start, depth = self.i, self._depth
            try:
                return [[self._constraint()]]
            except (EngineError, _Backtrack):
                self.i, self._depth = start, depth
            self.advance()
            alts = self._disjunction()
            self.expect(")")
            return alts
        return [[self._constraint()]]

    def _constraint(self) -> Constraint:
        left = self._term()
        op = self.tok
        if op.kind != "p" or op.value not in _CMP:
            self.error("expected a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`)")
        self.advance()
        right = self._term()
        return Constraint(op.value, left, right, op.span)

    # terms: precedence climbing --------------------------------------------------------------
    _LEVELS: list[tuple[str, ...]] = [("bor",), ("bxor",), ("band",), ("+", "-"), ("*", "/", "%")]

    def _term(self, level: int = 0):
        if level == 0:
            self._enter()
        try:
            if level == len(self._LEVELS):
                return self._unary()
            left = self._term(level + 1)
            while True:
                t = self.tok
                if t.kind == "id" and t.value in ("lor", "lxor", "land", "bshl", "bshr", "bshru"):
                    self.unsupported(t.value)
                if (t.kind == "p" or t.kind == "id") and t.value in self._LEVELS[level]:
                    self.advance()
                    right = self._term(level + 1)
                    left = BinOp(t.value, left, right, t.span)
                    continue
                return left
        finally:
            if level == 0:
                self._depth -= 1

    def _unary(self):
        t = self.tok
        if self.at("-", "p"):
            self.advance()
            arg = self._unary()
            if isinstance(arg, Num):
                return Num(-arg.value, t.span)
            return UnOp("-", arg, t.span)
        if t.kind == "id" and t.value == "bnot":
            self.advance()
            return UnOp("bnot", self._unary(), t.span)
        if t.kind == "id" and t.value == "lnot":
            self.unsupported("lnot")
        base = self._primary()
        if self.at("^", "p"):
            op = self.advance()
            self._enter()
            exp = self._unary()
            self._depth -= 1
            return BinOp("^", base, exp, op.span)
        return base

    def _primary(self):
        t = self.tok
        if t.kind == "num":
            self.advance()
            v = t.value
            if v.endswith("u"):
                self.unsupported("unsigned constant", t)
            if v.startswith("0x"):
                n = int(v, 16)
            elif v.startswith("0b"):
                n = int(v[2:], 2)
            else:
                n = int(v)
            if n > 2**31 - 1 and not (v.startswith("0x") or v.startswith("0b")) \
                    and n != 2**31:
                raise EngineError(f"number constant {v} out of 32-bit range", t.span)
            if n >= 2**31 and (v.startswith("0x") or v.startswith("0b")):
                if n >= 2**32:
                    raise EngineError(f"number constant {v} out of 32-bit range", t.span)
                n -= 2**32
            return Num(n, t.span)
        if t.kind == "float":
            self.unsupported("float constant", t)
        if t.kind == "ip":
            self.unsupported("IP address constant", t)
        if t.kind == "str":
            self.advance()
            return Str(t.value, t.span)
        if t.kind == "p":
            if t.value == "(":
                self.advance()
                inner = self._term()
                if not self.at(")"):
                    raise _Backtrack()
                self.advance()
                return inner
            if t.value == "[":
                self.advance()
                items = []
                while not self.at("]"):
                    items.append(self._term())
                    if not self.at(","):
                        break
                    self.advance()
                self.expect("]")
                return Record(items, t.span)
            if t.value == "$":
                self.unsupported("$ (algebraic data type branch)")
            if t.value in ("@", "@!"):
                nxt = self.toks[self.i + 1]
                self.unsupported(t.value + (nxt.value if nxt.kind == "id" else ""))
            self.error("expected a term")
        if t.kind == "id":
            v = t.value
            if v == "_":
                self.advance()
                return Wildcard(t.span)
            if v == "nil":
                self.advance()
                return Nil(t.span)
            if v in ("count", "sum", "min", "max"):
                return self._aggregate()
            if v == "as" and self.toks[self.i + 1].value == "(":
                self.advance()
                self.advance()
                inner = self._term()
                self.expect(",")
                self.ident("a type name")
                self.expect(")")
                return inner
            if v in _FUNCTOR_KEYWORDS:
                self.unsupported(v)
            if self.toks[self.i + 1].value == "(" and self.toks[self.i + 1].kind == "p":
                raise EngineError(f"unexpected atom `{v}(...)` where a term is expected", t.span)
            self.advance()
            if "." in v:
                raise EngineError(f"`{v}` is not a valid variable name", t.span)
            return Var(v, t.span)
        self.error("expected a term")

    def _aggregate(self) -> Aggregate:
        t = self.advance()
        expr = None
        if t.value != "count":
            expr = self._term()
        self.expect(":")
        if self.at("{"):
            self.advance()
            alts = self._disjunction()
            self.expect("}")
        else:
            alts = [[self._atom()]]
        if len(alts) != 1:
            self.unsupported("disjunction inside an aggregate", t)
        return Aggregate(t.value, expr, alts[0], t.span)


# --- elaboration: components and types ---------------------------------------------------------


@dataclass
class Relation:
    """A declared relation after component expansion (name is the full dotted Soufflé name)."""

    name: str
    attrs: list[str]
    type_names: list[str]
    kinds: list[object]
    span: Span
    input: dict[str, str] | None = None
    input_span: Span | None = None
    output: dict[str, str] | None = None
    printsize: bool = False


@dataclass
class Program:
    """A whole program: relations by name, flattened rules (resolved names), record field kinds."""

    relations: dict[str, Relation]
    clauses: list[Clause]
    records: dict[str, list[object]]
    files: list[Path]
    texts: dict[str, str]
    warnings: list[str] = field(default_factory=list)
    tsv_unsafe: list[Span] = field(default_factory=list)

    def outputs(self) -> list[str]:
        return [r.name for r in self.relations.values() if r.output is not None]


@dataclass
class _Scope:
    prefix: str
    parent: _Scope | None
    comps: dict[str, tuple[CompDecl, _Scope]] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)  # local name -> full type name


@dataclass
class _TypeDef:
    decl: TypeDecl
    scope: _Scope


_PRIMS = {"symbol": "s", "number": "i"}


class _Elaborator:
    """Expand `.init` instances, resolve relation and type names, build `Program`."""

    def __init__(self, lenient: bool) -> None:
        self.lenient = lenient
        self.typedefs: dict[str, _TypeDef] = {}
        self.decls: list[tuple[Decl, _Scope]] = []
        self.ios: list[tuple[IODirective, _Scope]] = []
        self.clauses: list[tuple[Clause, _Scope]] = []
        self.inst_stack: list[str] = []
        self.warnings: list[str] = []

    def run(self, items: list) -> None:
        root = _Scope("", None)
        self._walk(items, root, {})

    def _lookup_comp(self, name: str, scope: _Scope | None) -> tuple[CompDecl, _Scope] | None:
        while scope is not None:
            if name in scope.comps:
                return scope.comps[name]
            scope = scope.parent
        return None

    def _walk(self, items: list, scope: _Scope, tparams: dict[str, str]) -> None:
        for it in items:
            if isinstance(it, CompDecl):
                scope.comps[it.name] = (it, scope)
        for it in items:
            if isinstance(it, TypeDecl):
                full = scope.prefix + it.name
                if full in self.typedefs:
                    raise EngineError(f"type `{it.name}` declared twice", it.span)
                scope.types[it.name] = full
                decl = TypeDecl(full, it.form, [tparams.get(r, r) for r in it.refs], it.fields,
                                it.span)
                self.typedefs[full] = _TypeDef(decl, scope)
            elif isinstance(it, Decl):
                attrs = [(a, tparams.get(t, t)) for a, t in it.attrs]
                self.decls.append((Decl(it.names, attrs, it.qualifiers, it.span), scope))
            elif isinstance(it, IODirective):
                self.ios.append((it, scope))
            elif isinstance(it, Clause):
                self.clauses.append((it, scope))
            elif isinstance(it, InitDecl):
                self._instantiate(it, scope, tparams)

    def _instantiate(self, init: InitDecl, scope: _Scope, tparams: dict[str, str]) -> None:
        found = self._lookup_comp(init.comp, scope)
        if found is None:
            raise EngineError(f"unknown component `{init.comp}`", init.span)
        if len(self.inst_stack) > 50:
            raise EngineError("components instantiate each other recursively", init.span)
        child = _Scope(scope.prefix + init.inst + ".", scope)
        args = [tparams.get(a, a) for a in init.args]
        self.inst_stack.append(init.inst)
        try:
            self._expand_comp(found, args, child, init.span, set())
        finally:
            self.inst_stack.pop()

    def _expand_comp(self, found: tuple[CompDecl, _Scope], args: list[str], child: _Scope,
                     span: Span, seen: set[str]) -> None:
        comp, _defscope = found
        if comp.name in seen:
            raise EngineError(f"component `{comp.name}` inherits from itself", span)
        if len(comp.params) != len(args):
            raise EngineError(
                f"component `{comp.name}` takes {len(comp.params)} type arguments, "
                f"given {len(args)}", span)
        binding = dict(zip(comp.params, args, strict=False))
        for bname, bargs, bspan in comp.bases:
            base = self._lookup_comp(bname, found[1]) or self._lookup_comp(bname, child)
            if base is None:
                raise EngineError(f"unknown base component `{bname}`", bspan)
            self._expand_comp(base, [binding.get(a, a) for a in bargs], child, bspan,
                              seen | {comp.name})
        self._walk(comp.items, child, binding)

    # types -----------------------------------------------------------------------------------
    def _resolve_type_name(self, name: str, scope: _Scope | None) -> str:
        if name in _PRIMS:
            return name
        s = scope
        while s is not None:
            if name in s.types:
                return s.types[name]
            s = s.parent
        return name

    def kind_of(self, name: str, scope: _Scope | None, span: Span, records: dict) -> object:
        seen: set[str] = set()
        full = self._resolve_type_name(name, scope)
        while True:
            if full in _PRIMS:
                return _PRIMS[full]
            if full in ("unsigned", "float"):
                raise EngineError(f"unsupported Soufflé construct `{full} type`", span)
            td = self.typedefs.get(full)
            if td is None:
                if self.lenient:
                    self.warnings.append(f"unknown type `{name}` read as symbol")
                    return "s"
                raise EngineError(f"unknown type `{name}`", span)
            if full in seen:
                raise EngineError(f"type `{name}` is defined in terms of itself", td.decl.span)
            seen.add(full)
            d = td.decl
            if d.form == "record":
                if full not in records:
                    records[full] = []  # placeholder for recursive records
                    records[full] = [self.kind_of(r, td.scope, d.span, records) for r in d.refs]
                return RecordKind(full)
            if d.form == "union":
                kinds = {self._kind_nonrec(r, td.scope, d.span, records, seen) for r in d.refs}
                if len(kinds) != 1:
                    raise EngineError(f"union type `{name}` mixes number and symbol types",
                                      d.span)
                return kinds.pop()
            full = self._resolve_type_name(d.refs[0], td.scope)

    def _kind_nonrec(self, name, scope, span, records, seen) -> object:
        return self.kind_of(name, scope, span, records)

    # relations -------------------------------------------------------------------------------
    def build(self, files: list[Path], texts: dict[str, str]) -> Program:
        records: dict[str, list[object]] = {}
        relations: dict[str, Relation] = {}
        for decl, scope in self.decls:
            for name in decl.names:
                full = scope.prefix + name
                if full in relations:
                    raise EngineError(f"relation `{full}` declared twice", decl.span)
                kinds = [self.kind_of(t, scope, decl.span, records) for _, t in decl.attrs]
                rel = Relation(full, [a for a, _ in decl.attrs], [t for _, t in decl.attrs],
                               kinds, decl.span)
                if "input" in decl.qualifiers:
                    rel.input, rel.input_span = {}, decl.span
                if "output" in decl.qualifiers:
                    rel.output = {}
                if "printsize" in decl.qualifiers:
                    rel.printsize = True
                relations[full] = rel

        def resolve(name: str, scope: _Scope, span: Span) -> str:
            s: _Scope | None = scope
            while s is not None:
                if s.prefix + name in relations:
                    return s.prefix + name
                s = s.parent
            raise EngineError(f"relation `{name}` is not declared", span)

        for io, scope in self.ios:
            spans = io.name_spans or [io.span] * len(io.names)
            for name, span in zip(io.names, spans, strict=False):
                rel = relations[resolve(name, scope, span)]
                params = dict(io.params)
                iokind = params.pop("IO", "file")
                bad = sorted(set(params) - {"filename", "delimiter", "headers"})
                if iokind != "file" or bad:
                    what = f"IO={iokind}" if iokind != "file" else f"{bad[0]} IO parameter"
                    err = EngineError(f"unsupported Soufflé construct `{what}`", io.span)
                    if not self.lenient:
                        raise err
                    self.warnings.append(err.message + f" at {io.span}; `{name}` not read back")
                    continue
                if io.kind == "input":
                    rel.input, rel.input_span = params, span
                elif io.kind == "output":
                    rel.output = params
                else:
                    rel.printsize = True

        clauses: list[Clause] = []
        for clause, scope in [] if self.lenient else self.clauses:

            def fix_atom(a: Atom, scope=scope) -> Atom:
                return Atom(resolve(a.rel, scope, a.span), a.args, a.span)

            heads = [fix_atom(h) for h in clause.heads]
            body = None
            if clause.body is not None:
                body = [[_map_atoms(lit, fix_atom) for lit in conj] for conj in clause.body]
            clauses.append(Clause(heads, body, clause.span))
        return Program(relations, clauses, records, files, texts, self.warnings)


def _map_atoms(lit, fn):
    """Rebuild a literal with every atom (also inside aggregates in its terms) passed through fn."""
    if isinstance(lit, Atom):
        return fn(Atom(lit.rel, [_map_term(a, fn) for a in lit.args], lit.span))
    if isinstance(lit, Neg):
        return Neg(_map_atoms(lit.atom, fn), lit.span)
    if isinstance(lit, Constraint):
        return Constraint(lit.op, _map_term(lit.left, fn), _map_term(lit.right, fn), lit.span)
    return lit


def _map_term(t, fn):
    if isinstance(t, Aggregate):
        expr = _map_term(t.expr, fn) if t.expr is not None else None
        return Aggregate(t.kind, expr, [_map_atoms(lit, fn) for lit in t.body], t.span)
    if isinstance(t, BinOp):
        return BinOp(t.op, _map_term(t.left, fn), _map_term(t.right, fn), t.span)
    if isinstance(t, UnOp):
        return UnOp(t.op, _map_term(t.arg, fn), t.span)
    if isinstance(t, Record):
        return Record([_map_term(x, fn) for x in t.items], t.span)
    return t


# --- checks -------------------------------------------------------------------------------------


def term_vars(t, out: list[Var]) -> None:
    """Variables of a term, not looking inside aggregates (their variables are local)."""
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            out.append(x)
        elif isinstance(x, BinOp):
            stack.append(x.right)
            stack.append(x.left)
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, Record):
            stack.extend(reversed(x.items))


def aggregates_in(t, out: list[Aggregate]) -> None:
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Aggregate):
            out.append(x)
        elif isinstance(x, BinOp):
            stack.append(x.right)
            stack.append(x.left)
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, Record):
            stack.extend(reversed(x.items))


def lit_terms(lit) -> list:
    if isinstance(lit, Atom):
        return list(lit.args)
    if isinstance(lit, Neg):
        return list(lit.atom.args)
    if isinstance(lit, Constraint):
        return [lit.left, lit.right]
    return []


def _binding_vars(t, out: set[str]) -> None:
    """Variables an atom argument binds: plain variables and those inside record patterns."""
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            out.add(x.name)
        elif isinstance(x, Record):
            stack.extend(x.items)


def _free(t, bound: set[str]) -> list[Var]:
    vs: list[Var] = []
    term_vars(t, vs)
    return [v for v in vs if v.name not in bound]


def _check_conj(conj: list, outer: set[str], heads: list[Atom], program: Program,
                depth: int = 0) -> None:
    """Soufflé's groundedness: every variable must be bound by a positive atom or an equality."""
    if depth > 20:
        raise EngineError("aggregates nested too deeply", conj[0].span if conj else None)
    bound = set(outer)
    for lit in conj:
        if isinstance(lit, Atom):
            for a in lit.args:
                _binding_vars(a, bound)
    changed = True
    while changed:
        changed = False
        for lit in conj:
            if isinstance(lit, Constraint) and lit.op == "=":
                for a, b in ((lit.left, lit.right), (lit.right, lit.left)):
                    if isinstance(a, (Var, Record)) and not _free(b, bound):
                        before = len(bound)
                        _binding_vars(a, bound)
                        if len(bound) != before:
                            changed = True
    # aggregate bodies: their local variables are bound inside
    for lit in [*conj, *heads]:
        for t in lit_terms(lit):
            aggs: list[Aggregate] = []
            aggregates_in(t, aggs)
            for agg in aggs:
                if not agg.body:
                    raise EngineError("empty aggregate body", agg.span)
                inner_heads = []
                if agg.expr is not None:
                    inner_heads = [Atom("", [agg.expr], agg.span)]
                _check_conj(agg.body, bound, inner_heads, program, depth + 1)
    for lit in conj:
        for t in lit_terms(lit):
            for v in _free(t, bound):
                raise EngineError(f"ungrounded variable `{v.name}`", v.span)
            if isinstance(lit, (Neg, Constraint)):
                _no_wild(t, "in a constraint" if isinstance(lit, Constraint) else None)
    for h in heads:
        for t in h.args:
            for v in _free(t, bound):
                raise EngineError(f"ungrounded variable `{v.name}`", v.span)
            _no_wild(t, "in a rule head")


def _no_wild(t, where: str | None) -> None:
    if where is None:
        return
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Wildcard):
            raise EngineError(f"underscore `_` {where}", x.span)
        if isinstance(x, BinOp):
            stack += [x.left, x.right]
        elif isinstance(x, UnOp):
            stack.append(x.arg)
        elif isinstance(x, Record):
            stack.extend(x.items)


def _check_arity_and_types(atom: Atom, program: Program) -> None:
    rel = program.relations[atom.rel]
    if len(atom.args) != len(rel.kinds):
        raise EngineError(
            f"relation `{atom.rel}` has {len(rel.kinds)} columns, used with {len(atom.args)}",
            atom.span)
    for a, k in zip(atom.args, rel.kinds, strict=False):
        if isinstance(a, Str) and k != "s":
            raise EngineError(f"symbol constant where `{atom.rel}` expects a number or record",
                              a.span)
        if isinstance(a, Num) and k != "i":
            raise EngineError(f"number constant where `{atom.rel}` expects a symbol or record",
                              a.span)


def _all_atoms(conj: list, out: list[tuple[Atom, bool]], negative: bool = False) -> None:
    """(atom, is_negative_dependency) pairs; atoms under negation or aggregation are negative."""
    for lit in conj:
        if isinstance(lit, Atom):
            out.append((lit, negative))
        elif isinstance(lit, Neg):
            out.append((lit.atom, True))
        for t in lit_terms(lit):
            aggs: list[Aggregate] = []
            aggregates_in(t, aggs)
            for agg in aggs:
                _all_atoms(agg.body, out, True)
                if agg.expr is not None:
                    inner: list[Aggregate] = []
                    aggregates_in(agg.expr, inner)
                    if inner:
                        raise EngineError("unsupported Soufflé construct `nested aggregate`",
                                          inner[0].span)


def check_program(program: Program) -> None:
    """Soufflé's static checks that matter for the result: arity, groundedness, stratification."""
    edges: dict[str, list[tuple[str, bool, Span]]] = {name: [] for name in program.relations}
    for clause in program.clauses:
        for h in clause.heads:
            _check_arity_and_types(h, program)
        if clause.body is None:
            for h in clause.heads:
                for t in h.args:
                    vs: list[Var] = []
                    term_vars(t, vs)
                    if vs:
                        raise EngineError(f"variable `{vs[0].name}` in a fact", vs[0].span)
                    _no_wild(t, "in a fact")
                    aggs: list[Aggregate] = []
                    aggregates_in(t, aggs)
                    if aggs:
                        raise EngineError("aggregate in a fact", aggs[0].span)
            continue
        for conj in clause.body:
            atoms: list[tuple[Atom, bool]] = []
            _all_atoms(conj, atoms)
            for h in clause.heads:
                for t in h.args:
                    aggs = []
                    aggregates_in(t, aggs)
                    for agg in aggs:
                        _all_atoms(agg.body, atoms, True)
            for a, _neg in atoms:
                _check_arity_and_types(a, program)
            _check_conj(conj, set(), clause.heads, program)
            for h in clause.heads:
                for a, neg in atoms:
                    edges[h.rel].append((a.rel, neg, a.span))
    _check_stratified(edges, program)


def _check_stratified(edges: dict[str, list[tuple[str, bool, Span]]], program: Program) -> None:
    """Iterative Tarjan SCCs; a negative edge inside an SCC makes the program unstratifiable."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    comp: dict[str, int] = {}
    counter = 0
    ncomp = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            succ = edges[node]
            if i < len(succ):
                work.append((node, i + 1))
                nxt = succ[i][0]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = ncomp
                    if w == node:
                        break
                ncomp += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    for head, succ in edges.items():
        for body, neg, span in succ:
            if neg and comp[head] == comp[body]:
                members = sorted(r for r in comp if comp[r] == comp[head])
                raise EngineError(
                    f"program is not stratifiable: `{head}` depends on `{body}` through negation"
                    f" or an aggregate inside the recursive cycle {{{', '.join(members)}}}",
                    span).with_text(program.texts.get(span.source, ""))


# --- entry point --------------------------------------------------------------------------------


def load_program(path: Path, include_dirs: list[Path] | None = None,
                 defines: dict[str, str] | None = None, *, lenient: bool = False,
                 check: bool = True) -> Program:
    """Parse, elaborate and (unless lenient) check a Soufflé program; errors carry source text."""
    pre = Preprocessor(list(include_dirs or []), dict(defines or {}))
    try:
        tokens = pre.run(Path(path))
        parser = Parser(tokens, lenient=lenient)
        items = parser.parse_program()
        elab = _Elaborator(lenient)
        elab.run(items)
        program = elab.build(pre.files, pre.texts)
        program.warnings.extend(e.render() for e in parser.skipped)
        program.tsv_unsafe = list(pre.tsv_unsafe)
        if check and not lenient:
            check_program(program)
        return program
    except EngineError as exc:
        if exc.span is not None and exc.text is None:
            exc.with_text(pre.texts.get(exc.span.source, ""))
        raise
