"""Soufflé's intrinsic functors as clingo `@`-functions, with the semantics of Soufflé 2.5's
interpreter (src/interpreter/Engine.cpp, utility/EvaluatorUtil.h): 32-bit numbers, byte strings
(`strlen` and `substr` count UTF-8 bytes), `match` as `std::regex_match` over bytes.

gringo calls these while grounding, once per distinct argument tuple; a functor Soufflé aborts
on (`to_number` of a non-number) raises FunctorAbort, which the run reports as an engine error.
"""

from __future__ import annotations

import re

from clingo import Number, String, Symbol, SymbolType

_INT_MIN, _MASK = -(2**31), 2**32 - 1
_STOI = {10: re.compile(r"[ \t\n\v\f\r]*([+-]?)([0-9]+)"),
         16: re.compile(r"[ \t\n\v\f\r]*([+-]?)(?:0[xX])?([0-9a-fA-F]+)"),
         2: re.compile(r"[ \t\n\v\f\r]*([+-]?)([01]+)")}
_POSIX = {b"alpha": b"a-zA-Z", b"digit": b"0-9", b"alnum": b"a-zA-Z0-9", b"upper": b"A-Z",
          b"lower": b"a-z", b"space": b" \\t\\n\\r\\f\\v", b"blank": b" \\t",
          b"xdigit": b"0-9A-Fa-f", b"punct": rb"!-/:-@\[-`{-~", b"cntrl": rb"\x00-\x1f\x7f",
          b"print": rb"\x20-\x7e", b"graph": rb"\x21-\x7e", b"word": rb"\w", b"w": rb"\w",
          b"d": b"0-9", b"s": b" \\t\\n\\r\\f\\v"}
_CLASS_ESCAPES = set(b"dDwWsSbnrtfv0")
_QUANT = re.compile(rb"\{[0-9]+(,[0-9]*)?\}")


class FunctorAbort(Exception):
    """Soufflé would abort the run here (it raises SIGFPE)."""


def _wrap(n: int) -> int:
    """A C++ int32 result: wrap around on overflow."""
    return (n - _INT_MIN) % 2**32 + _INT_MIN


def _bytes(s: Symbol) -> bytes:
    return s.string.encode("utf-8", "surrogateescape")


def _text(b: bytes) -> Symbol:
    return String(b.decode("utf-8", "surrogateescape"))


def _stoi(text: str, base: int) -> int:
    m = _STOI[base].match(text)
    if m is None:
        raise FunctorAbort(f"wrong string provided by `to_number(\"{text}\")` functor")
    value = int(m.group(2), base) * (-1 if m.group(1) == "-" else 1)
    if not _INT_MIN <= value <= 2**31 - 1:
        raise FunctorAbort(f"`to_number(\"{text}\")` is out of the 32-bit range")
    return value


def _less(a: Symbol, b: Symbol) -> bool:
    if a.type == SymbolType.String:
        return _bytes(a) < _bytes(b)
    return a.number < b.number


class Functors:
    """The `@name(...)` functions the translated rules call (see translate.CALLS)."""

    def __init__(self) -> None:
        self._regex: dict[bytes, re.Pattern[bytes] | None] = {}

    def cat(self, *args: Symbol) -> Symbol:
        return String("".join(a.string for a in args))

    def strlen(self, s: Symbol) -> Symbol:
        return Number(len(_bytes(s)))

    def substr(self, s: Symbol, idx: Symbol, length: Symbol) -> Symbol:
        data = _bytes(s)
        i, n = idx.number & _MASK, length.number & _MASK  # std::size_t, as Soufflé passes them
        if i > len(data):
            return String("")  # std::out_of_range: Soufflé warns and yields ""
        return _text(data[i:i + n])

    def to_number(self, s: Symbol) -> Symbol:
        if s.type == SymbolType.Number:
            return s  # Soufflé's identity overload
        text = s.string
        body = text[1:] if text.startswith("-") else text
        base = 2 if body.startswith("0b") else 16 if body.startswith("0x") else 10
        if base == 2:
            text = ("-" if text.startswith("-") else "") + body[2:]
        return Number(_stoi(text, base))

    def to_string(self, n: Symbol) -> Symbol:
        if n.type == SymbolType.String:
            return n  # Soufflé's identity overload
        return String(str(n.number))

    def range(self, start: Symbol, stop: Symbol, step: Symbol | None = None) -> list[Symbol]:
        a, b = start.number, stop.number
        s = (1 if a <= b else -1) if step is None else step.number
        if s > 0:
            return [Number(x) for x in range(a, b, s)]
        if s < 0:
            return [Number(x) for x in range(a, b, s)]
        return [Number(a)] if a != b else []

    def min(self, *args: Symbol) -> Symbol:
        best = args[0]
        for a in args[1:]:
            if _less(a, best):
                best = a
        return best

    def max(self, *args: Symbol) -> Symbol:
        best = args[0]
        for a in args[1:]:
            if _less(best, a):
                best = a
        return best

    def lnot(self, a: Symbol) -> Symbol:
        return Number(int(a.number == 0))

    def land(self, a: Symbol, b: Symbol) -> Symbol:
        return Number(int(a.number != 0 and b.number != 0))

    def lor(self, a: Symbol, b: Symbol) -> Symbol:
        return Number(int(a.number != 0 or b.number != 0))

    def lxor(self, a: Symbol, b: Symbol) -> Symbol:
        return Number(int((a.number != 0) != (b.number != 0)))

    def bshl(self, a: Symbol, b: Symbol) -> Symbol:
        return Number(_wrap(a.number << (b.number & 31)))

    def bshr(self, a: Symbol, b: Symbol) -> Symbol:
        return Number(a.number >> (b.number & 31))

    def bshru(self, a: Symbol, b: Symbol) -> Symbol:
        return Number(_wrap((a.number & _MASK) >> (b.number & 31)))

    def match(self, pattern: Symbol, text: Symbol) -> Symbol:
        regex = self._compiled(pattern)
        return Number(int(regex is not None and regex.fullmatch(_bytes(text)) is not None))

    def not_match(self, pattern: Symbol, text: Symbol) -> Symbol:
        regex = self._compiled(pattern)  # a bad pattern makes `!match` false as well
        return Number(int(regex is not None and regex.fullmatch(_bytes(text)) is None))

    def contains(self, part: Symbol, text: Symbol) -> Symbol:
        return Number(int(_bytes(part) in _bytes(text)))

    def not_contains(self, part: Symbol, text: Symbol) -> Symbol:
        return Number(int(_bytes(part) not in _bytes(text)))

    def _compiled(self, pattern: Symbol) -> re.Pattern[bytes] | None:
        """The ECMAScript pattern as a Python regex; None where std::regex rejects it."""
        key = _bytes(pattern)
        if key not in self._regex:
            try:
                python = ecmascript_to_python(key)
                self._regex[key] = None if python is None else re.compile(python)
            except re.error:
                self._regex[key] = None  # Soufflé warns "wrong pattern provided" and fails
            except _Unsure:
                raise FunctorAbort(f"regular expression \"{pattern.string}\" uses syntax whose "
                                   "meaning differs between ECMAScript (Soufflé) and Python"
                                   " or is not translated") from None
        return self._regex[key]


class _Unsure(Exception):
    """A regex construct whose std::regex meaning is not mirrored."""


def ecmascript_to_python(p: bytes) -> bytes | None:
    """Translate an ECMAScript (std::regex) pattern to Python's syntax; None if it is invalid.

    Mirrored: literals, `.` (no line terminators), `^ $ |`, groups `( (?: (?= (?!`,
    quantifiers (`{` must be one), escapes, classes with POSIX `[:name:]` and ECMAScript's
    `[]` / `[^]`. Anything else raises _Unsure.
    """
    out = bytearray()
    i, n = 0, len(p)
    atom = False  # something a quantifier may follow
    while i < n:
        c = p[i:i + 1]
        if c == b"\\":
            if i + 1 >= n:
                return None
            e = p[i + 1:i + 2]
            if e.isalpha() and e not in b"dDwWsSbBnrtfvxuc" or e == b"u":
                raise _Unsure()
            out += c + e
            i += 2
            atom = e not in b"bB"
            continue
        if c == b"[":
            j, cls = _class(p, i)
            out += cls
            i, atom = j, True
            continue
        if c == b"(":
            if p[i + 1:i + 2] == b"?":
                if p[i + 2:i + 3] not in (b":", b"=", b"!"):
                    return None
                out += p[i:i + 3]
                i += 3
            else:
                out += c
                i += 1
            atom = False
            continue
        if c in (b"*", b"+", b"?", b"{"):
            if c == b"{":
                m = _QUANT.match(p, i)
                if m is None:
                    return None
                q, i = m.group(), m.end()
            else:
                q, i = c, i + 1
            if not atom:
                return None
            out += q
            if p[i:i + 1] == b"?":
                out += b"?"
                i += 1
            if p[i:i + 1] in (b"*", b"+", b"?", b"{"):
                return None  # ECMAScript has no possessive or stacked quantifiers
            atom = False
            continue
        if c in (b"}", b"]"):
            raise _Unsure()
        out += {b".": rb"[^\n\r]", b"$": rb"\Z"}.get(c, re.escape(c) if c not in b"^|)" else c)
        atom = c not in b"^|("
        i += 1
    return bytes(out)


def _class(p: bytes, i: int) -> tuple[int, bytes]:
    """A bracket expression starting at p[i] == `[`: (end index, Python class)."""
    j = i + 1
    neg = p[j:j + 1] == b"^"
    j += neg
    if p[j:j + 1] == b"]":  # ECMAScript: `[]` matches nothing, `[^]` anything
        return j + 1, (rb"[\s\S]" if neg else rb"(?!)")
    body = bytearray()
    while j < len(p) and p[j:j + 1] != b"]":
        c = p[j:j + 1]
        if c == b"[" and p[j + 1:j + 2] in (b":", b".", b"="):
            end = p.find(p[j + 1:j + 2] + b"]", j + 2)
            name = p[j + 2:end]
            if p[j + 1:j + 2] != b":" or end < 0 or name not in _POSIX:
                raise _Unsure()
            body += _POSIX[name]
            j = end + 2
            continue
        if c == b"\\":
            e = p[j + 1:j + 2]
            if e.isalpha() and e[0] not in _CLASS_ESCAPES:
                raise _Unsure()
            body += c + e
            j += 2
            continue
        body += b"\\[" if c == b"[" else c
        j += 1
    if j >= len(p):
        raise re.error("unterminated character class")
    return j + 1, b"[" + (b"^" if neg else b"") + bytes(body) + b"]"
