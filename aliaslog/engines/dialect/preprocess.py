"""Soufflé's front door: a C-preprocessor-style lexer (`#include`, `.include`, `#define`,
`#if[n]def`, `#if`, `#elif`, `#else`, `#endif`, `.once`) turning files into located tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aliaslog.engines.base import EngineError
from extractor.diagnostics import Span

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


def _without_annotations(tokens: list[Token]) -> list[Token]:
    """Drop Soufflé 2.5's annotations `@[...]` / `@![...]`: metadata, no meaning for a run."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "p" and t.value in ("@", "@!") and i + 1 < len(tokens) \
                and tokens[i + 1].kind == "p" and tokens[i + 1].value == "[":
            depth, i = 1, i + 2
            while i < len(tokens) and depth:
                if tokens[i].kind == "p" and tokens[i].value in ("[", "]"):
                    depth += 1 if tokens[i].value == "[" else -1
                i += 1
            continue
        out.append(t)
        i += 1
    return out


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
        self.tokens = _without_annotations(self.tokens)
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
        if key in self._once:
            return  # a `.once` file is read once; including it again adds nothing
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
            if kind == "id" and val == "__LINE__":
                self.tokens.append(Token("num", str(tok_span.line), tok_span))
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
        if word == "error":  # a rule file refusing its -M defines, as cpp does
            raise EngineError(f"#error {rest}", span)
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
            seen = set()
            while re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t or "-") and t not in seen:
                seen.add(t)  # a macro naming a macro expands, as in cpp; a word that names
                t = self.macros.get(t, "0").strip()  # no macro is 0
            if re.fullmatch(r"-?\d+", t):
                return int(t)
            if seen:
                return 0 if t in seen else 1 if t else 0
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
