"""Tokenizer for the Relay text format v0.0.5 with the quirks of tokenizer.h (relay-notes §1.1).

The lexer is regex-driven so that 20k-binding programs lex quickly; nested `/* */` comments and the
`#[metadata]` tail are the only hand-scanned parts. Every token carries its 1-based line/column so
the parser can put a caret under any mistake.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from ..diagnostics import Span
from .errors import ParseError

KEYWORDS = frozenset(
    "let fn def if else type match extern free_var ref ref_read ref_write".split()
)

# Token kinds.
LOCAL = "local"  # %name            value: the name (no '%')
GRAPH = "graph"  # %123             value: int
GLOBAL = "global"  # @name          value: the name (no '@')
IDENT = "ident"  # foo, nn.dense    value: the (possibly dotted) name
KEYWORD = "keyword"  # let, match?  value: the keyword text
INT = "int"  # value: (int, dtype)
FLOAT = "float"  # value: (float, dtype)
BOOL = "bool"  # value: bool
STRING = "string"  # value: the decoded string
UNDERSCORE = "_"
VERSION = "version"  # #[version = "0.0.5"]   value: the quoted version string, quotes included
METADATA = "metadata"  # #[metadata] ...     value: the JSON text after the attribute
META = "meta"  # meta[Key][N]       value: (type_key, index)
PUNCT = "punct"  # value: the punctuation text
EOF = "eof"

_IDENT_RE = r"[A-Za-z_][A-Za-z0-9_/]*"
_MASTER = re.compile(
    r"""
    (?P<ws>[ \t\n]+|\r\n)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*)
  | (?P<version>\#\[[ \t]*version[ \t]*=[ \t]*(?P<vstr>"[^"\n]*")[ \t]*\])
  | (?P<metadata>\#\[[ \t]*metadata[ \t]*\])
  | (?P<meta>meta\[(?P<mkey>[A-Za-z_][A-Za-z0-9_.]*)\]\[(?P<midx>[0-9]+)\])
  | (?P<graph>%[0-9]+(?![A-Za-z_/]))
  | (?P<local>%"(?P<qname>[^"\n]*)"|%(?P<lname>[A-Za-z_][A-Za-z0-9_/]*))
  | (?P<global>@(?P<gname>[A-Za-z_][A-Za-z0-9_/]*))
  | (?P<inf>-*inff(?:16|32|64)?(?![A-Za-z0-9_/]))
  | (?P<number>-*[0-9][0-9.eE+\-]*(?P<suffix>[fi][0-9]*)?(?P<junk>[A-Za-z0-9_/]*))
  | (?P<ident>"""
    + _IDENT_RE
    + r"""(?:\.[A-Za-z_][A-Za-z0-9_/]*)*\??)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<punct>->|=>|==|!=|<=|>=|[()\[\]{},.;:=+\-*/<>?])
    """,
    re.VERBOSE,
)
_DIGITS = re.compile(r"[0-9]+")
_SKIP = re.compile(r"(?:[ \t\n]+|\r\n|//[^\n]*)*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "0": "\0"}

_FLOAT_WIDTHS = {"": "float32", "16": "float16", "32": "float32", "64": "float64"}
_INT_WIDTHS = {"": "int32", "8": "int8", "16": "int16", "32": "int32", "64": "int64"}
_FLOAT_MAX = {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": float("inf")}


@dataclass(slots=True)
class Token:
    """One token: kind, decoded value, source text and its position (offsets and line/col)."""

    kind: str
    value: object
    text: str
    start: int
    line: int
    col: int

    # a token never spans lines, so where it ends follows from its text (and a token costs
    # three fields less: a long program has millions of them)
    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def end_line(self) -> int:
        return self.line

    @property
    def end_col(self) -> int:
        return self.col + len(self.text)

    def is_punct(self, p: str) -> bool:
        return self.kind == PUNCT and self.value == p

    def is_kw(self, k: str) -> bool:
        return self.kind == KEYWORD and self.value == k

    def describe(self) -> str:
        """How an error message names this token: "`;`", "local `%x`", "end of file"."""
        if self.kind == EOF:
            return "end of file"
        if self.kind in (PUNCT, KEYWORD, UNDERSCORE, BOOL):
            return f"`{self.text}`"
        names = {
            LOCAL: "local variable", GRAPH: "graph variable", GLOBAL: "global", IDENT: "identifier",
            INT: "integer", FLOAT: "float", STRING: "string", VERSION: "version attribute",
            METADATA: "metadata section", META: "meta reference",
        }
        shown = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return f"{names.get(self.kind, self.kind)} `{shown}`"


class _Lines:
    """Offset → (line, col) by bisecting the newline offsets."""

    def __init__(self, text: str) -> None:
        self.nl = [m.start() for m in re.finditer("\n", text)]

    def pos(self, off: int) -> tuple[int, int]:
        i = bisect.bisect_left(self.nl, off)
        start = self.nl[i - 1] + 1 if i else 0
        return i + 1, off - start + 1


def _err(msg: str, source: str, text: str, start: int, end: int) -> ParseError:
    lines = _Lines(text)  # only built when there is an error to locate
    line, col = lines.pos(start)
    end_line, end_col = lines.pos(max(end, start + 1))
    return ParseError(msg, Span(source, line, col, end_line, end_col), text)


def _number(m: re.Match[str], text: str) -> tuple[str, object]:
    """Decode a number token into (kind, (value, dtype)); raise ValueError with a message."""
    raw = m.group("number")
    if m.group("junk"):
        raise ValueError(f"invalid number `{raw}`")
    suffix = m.group("suffix") or ""
    body = raw[: len(raw) - len(suffix)]
    stripped = body.lstrip("-")
    negative = (len(body) - len(stripped)) % 2 == 1  # a leading run of '-' belongs to the number
    if suffix.startswith("f"):
        width = suffix[1:]
        if width not in _FLOAT_WIDTHS:
            raise ValueError(f"invalid float width `{suffix}` in `{raw}`")
        dtype = _FLOAT_WIDTHS[width]
        try:
            value = float(stripped)
        except ValueError:
            raise ValueError(f"invalid floating point number `{raw}`") from None
        if abs(value) > _FLOAT_MAX[dtype]:
            raise ValueError(f"float literal `{raw}` is out of range for {dtype}")
        return FLOAT, (-value if negative else value, dtype)
    if not stripped.isdigit():
        raise ValueError(f"invalid integer number `{raw}`")
    value_i = int(stripped)
    if negative:
        value_i = -value_i
    if suffix:
        width = suffix[1:]
        if width not in _INT_WIDTHS:
            raise ValueError(f"invalid integer width `{suffix}` in `{raw}`")
        dtype = _INT_WIDTHS[width]
    else:
        dtype = "int32" if -(2**31) <= value_i < 2**31 else "int64"
    bits = int(dtype[3:])
    if not -(2 ** (bits - 1)) <= value_i < 2 ** (bits - 1):
        raise ValueError(f"integer literal `{raw}` is out of range for {dtype}")
    return INT, (value_i, dtype)


def _unescape(s: str) -> str:
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            out.append(_ESCAPES.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class TokenList(Sequence[Token]):
    """The tokens of one text, stored by column (kind, value, offset and length) and
    made into `Token` objects a block at a time as the parser reaches them: a long program has
    millions of tokens, and as objects they were its parse's largest cost in memory.

    Only the last few blocks made are kept; going back further makes a block again, with equal
    tokens.
    """

    BLOCK = 4096
    KEEP = 4  # blocks kept made: the parser looks back and ahead a few tokens only

    def __init__(self, text: str) -> None:
        self.text = text
        self.kinds: list[str] = []
        self.values: list[object] = []
        self.starts = array("q")
        self.lengths = array("i")
        self._made: dict[int, list[Token]] = {}
        # (line, offset of that line, offset counted to) at each block's first token, as far
        # as blocks were made (the first block counts from the start of the text)
        self._block_lines: list[tuple[int, int, int]] = [(1, 0, 0)]

    def __len__(self) -> int:
        return len(self.kinds)

    @overload
    def __getitem__(self, i: int) -> Token: ...
    @overload
    def __getitem__(self, i: slice) -> list[Token]: ...
    def __getitem__(self, i: int | slice) -> Token | list[Token]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self.kinds):
            raise IndexError(i)
        block, lo = self.block_of(i)
        return block[i - lo]

    def block_of(self, i: int) -> tuple[list[Token], int]:
        """The block of tokens holding token i, and the index of its first token."""
        b = i // self.BLOCK
        block = self._made.get(b)
        if block is None:
            block = self._make(b)
        return block, b * self.BLOCK

    def __iter__(self) -> Iterator[Token]:
        for b in range(0, len(self.kinds), self.BLOCK):
            yield from self._made.get(b // self.BLOCK) or self._make(b // self.BLOCK)

    def _make(self, b: int) -> list[Token]:
        lo, hi = b * self.BLOCK, min((b + 1) * self.BLOCK, len(self.kinds))
        text, starts, lengths = self.text, self.starts, self.lengths
        marks = self._block_lines
        while len(marks) <= b:  # the lines of the blocks before: counted once, in order
            line, line_start, prev = marks[-1]
            nxt = starts[len(marks) * self.BLOCK]
            k = text.count("\n", prev, nxt)
            if k:
                line, line_start = line + k, text.rfind("\n", prev, nxt) + 1
            marks.append((line, line_start, nxt))
        line, line_start, scanned = marks[b]
        block = []
        make, count, rfind = Token, text.count, text.rfind
        # (tokens never span lines: each one's line follows from the newlines before it)
        for kind, value, s, n in zip(self.kinds[lo:hi], self.values[lo:hi], starts[lo:hi],
                                     lengths[lo:hi], strict=True):
            k = count("\n", scanned, s)
            if k:
                line += k
                line_start = rfind("\n", scanned, s) + 1
            scanned = s
            block.append(make(kind, value, text[s:s + n], s, line, s - line_start + 1))
        if len(self._made) >= self.KEEP:
            del self._made[next(iter(self._made))]  # the oldest made
        self._made[b] = block
        return block


def tokenize(text: str, source_name: str = "from_string") -> TokenList:
    """Split Relay text into tokens (comments and whitespace dropped), ending with an EOF token."""
    toks = TokenList(text)
    kinds, values, starts, lengths = toks.kinds, toks.values, toks.starts, toks.lengths
    shared: dict[object, object] = {}  # one object per distinct value (names repeat)
    share = shared.setdefault
    pos = 0
    n = len(text)
    match = _MASTER.match
    skip = _SKIP.match

    def add(kind: str, value: object, start: int, end: int) -> None:
        kinds.append(kind)
        values.append(share(value, value) if type(value) is str else value)
        starts.append(start)
        lengths.append(end - start)

    after_dot = False
    while True:
        pos = skip(text, pos).end()
        if pos >= n:
            break
        if after_dot and text[pos].isdigit():
            # After a projection dot only digits follow, so `%x.0.1` is two projections.
            dm = _DIGITS.match(text, pos)
            assert dm is not None
            add(INT, (int(dm.group()), "int32"), pos, dm.end())
            pos = dm.end()
            after_dot = False
            continue
        after_dot = False
        m = match(text, pos)
        if m is None:
            c = text[pos]
            if c == "\r":
                raise _err("carriage return must be followed by a newline", source_name,
                           text, pos, pos + 1)
            if c == '"':
                raise _err("unterminated string literal", source_name, text, pos, pos + 1)
            if c == "%":
                raise _err("expected a variable name after `%`", source_name, text, pos,
                           pos + 1)
            if c == "@":
                raise _err("expected a global name after `@`", source_name, text, pos,
                           pos + 1)
            if text.startswith("meta[", pos):
                raise _err("malformed meta reference (expected `meta[TypeKey][N]`)",
                           source_name, text, pos, pos + 5)
            if c == "#":
                raise _err("unknown attribute (expected `#[version = \"0.0.5\"]` or "
                           "`#[metadata]`)", source_name, text, pos, pos + 1)
            if c == "!":
                raise _err("unexpected `!` (only `!=` exists; there is no `!r` dereference, "
                           "use `ref_read(r)`)", source_name, text, pos, pos + 1)
            raise _err(f"unexpected character `{c}`", source_name, text, pos, pos + 1)
        kind = m.lastgroup
        end = m.end()
        if kind == "punct":  # the most frequent kind first
            p = m.group("punct")
            add(PUNCT, p, pos, end)
            after_dot = p == "."
            pos = end
            continue
        if kind == "ws" or kind == "line_comment":
            pos = end
            continue
        if kind == "block_comment":
            depth = 1
            i = end
            while depth:
                j = text.find("*/", i)
                k = text.find("/*", i)
                if j < 0:
                    raise _err("unterminated block comment", source_name, text, pos,
                               pos + 2)
                if 0 <= k < j:
                    depth += 1
                    i = k + 2
                else:
                    depth -= 1
                    i = j + 2
            pos = i
            continue
        if kind == "version":
            add(VERSION, m.group("vstr"), pos, end)
        elif kind == "metadata":
            add(METADATA, text[end:], pos, end)
            pos = n
            break
        elif kind == "meta":
            add(META, (m.group("mkey"), int(m.group("midx"))), pos, end)
        elif kind == "graph":
            add(GRAPH, int(text[pos + 1 : end]), pos, end)
        elif kind == "local":
            name = m.group("lname")
            add(LOCAL, name if name is not None else _unescape(m.group("qname")), pos, end)
        elif kind == "global":
            add(GLOBAL, m.group("gname"), pos, end)
        elif kind == "inf":
            raw = m.group("inf")
            stripped = raw.lstrip("-")
            negative = (len(raw) - len(stripped)) % 2 == 1
            dtype = _FLOAT_WIDTHS[stripped[4:]]
            add(FLOAT, (float("-inf") if negative else float("inf"), dtype), pos, end)
        elif kind == "number":
            try:
                nk, val = _number(m, text)
            except ValueError as e:
                raise _err(str(e), source_name, text, pos, end) from None
            add(nk, val, pos, end)
        elif kind == "ident":
            word = m.group("ident")
            if word.endswith("?"):
                if word == "match?":
                    add(KEYWORD, "match?", pos, end)
                    pos = end
                    continue
                word = word[:-1]  # a `?` after another identifier is its own token
                end -= 1
            if word == "meta" and text.startswith("[", end):
                raise _err("malformed meta reference (expected `meta[TypeKey][N]`)",
                           source_name, text, pos, end + 1)
            if word in KEYWORDS:
                add(KEYWORD, word, pos, end)
            elif word == "True" or word == "False":
                add(BOOL, word == "True", pos, end)
            elif word == "_":
                add(UNDERSCORE, "_", pos, end)
            else:
                add(IDENT, word, pos, end)
        elif kind == "string":
            add(STRING, _unescape(m.group("string")[1:-1]), pos, end)
        pos = end
    add(EOF, None, n, n)
    return toks
