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
# regular-expression syntax whose meaning differs between ECMAScript (std::regex) and Python
_PYTHON_ONLY = re.compile(rb"\(\?[PimsxauL#<]|\\[AZzG]|[*+?}]\+|\(\?\(")


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
        text = s.string
        body = text[1:] if text.startswith("-") else text
        base = 2 if body.startswith("0b") else 16 if body.startswith("0x") else 10
        if base == 2:
            text = ("-" if text.startswith("-") else "") + body[2:]
        return Number(_stoi(text, base))

    def to_string(self, n: Symbol) -> Symbol:
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
        """The pattern as Python compiles it; None where std::regex rejects it."""
        key = _bytes(pattern)
        if key not in self._regex:
            if _PYTHON_ONLY.search(key):
                raise FunctorAbort(f"regular expression \"{pattern.string}\" uses syntax whose "
                                   "meaning differs between ECMAScript (Soufflé) and Python")
            try:
                self._regex[key] = re.compile(key)
            except re.error:
                self._regex[key] = None  # Soufflé warns "wrong pattern provided" and fails
        return self._regex[key]
