"""The answer set read back as typed rows, from the shown atoms' `str()` (about 3x faster than
walking symbols argument by argument)."""

from __future__ import annotations

import re

from aliaslog.engines.base import EngineError
from extractor.tsv import Row


def unquote(body: str) -> str:
    """The string a clingo string literal's body stands for."""
    if "\\" not in body:
        return body
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), body)


_FLAT_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"|(-?\d+)')


def _parse_general(s: str, pos: int) -> tuple[object, int]:
    """Parse one clingo term printed by str() (strings, ints, nil, tuples) without recursion."""
    stack: list[list] = []
    while True:
        c = s[pos]
        if c == "(":
            stack.append([])
            pos += 1
            if s[pos] == ")":
                pos += 1
                value: object = ()
                stack.pop()
            else:
                continue
        elif c == '"':
            end = pos + 1
            while s[end] != '"':
                end += 2 if s[end] == "\\" else 1
            value = unquote(s[pos + 1:end])
            pos = end + 1
        else:
            m = re.compile(r"-?\d+|[a-z_][A-Za-z0-9_']*|#sup|#inf").match(s, pos)
            if m is None:
                raise EngineError(f"cannot read clingo term {s!r}")
            tok = m.group()
            pos = m.end()
            value = int(tok) if tok[0] in "-0123456789" else (None if tok == "nil" else tok)
        while True:
            if not stack:
                return value, pos
            stack[-1].append(value)
            if s[pos] == ",":
                pos += 1
                if s[pos] == ")":  # unary tuple `(x,)`
                    pos += 1
                    value = tuple(stack.pop())
                    continue
                break
            if s[pos] == ")":
                pos += 1
                value = tuple(stack.pop())
                continue
            raise EngineError(f"cannot read clingo term {s!r}")


def parse_atom_args(text: str, kinds: list[object]) -> Row:
    """Arguments of a shown atom's str() as a typed row."""
    start = text.find("(")
    if start < 0:
        return ()
    if "\\" not in text and text.count('"') == 2 * len(kinds) and all(k == "s" for k in kinds):
        return tuple(text[start + 2:-2].split('","'))
    if all(k == "s" or k == "i" for k in kinds):
        vals = _FLAT_ARG.findall(text, start)
        if len(vals) == len(kinds):
            return tuple(unquote(sv) if k == "s" else int(iv)
                         for (sv, iv), k in zip(vals, kinds, strict=False))
    # general path: records / tuples
    pos = start + 1
    out: list[object] = []
    for i in range(len(kinds)):
        v, pos = _parse_general(text, pos)
        out.append(v)
        pos += 1 if i < len(kinds) - 1 else 0
    return tuple(out)


def read_relation(cname: str, strs: list[str], kinds: list[object],
                  memo: dict[str, str] | None = None) -> list[Row]:
    """Typed rows of one relation from its atoms' str(); all-symbol rows take a bulk fast path.

    Symbols go through `memo` (one string object per distinct symbol, shared by every row of
    every relation read with it): output relations repeat the same node ids many times.
    """
    memo = {} if memo is None else memo
    share = memo.setdefault
    arity = len(kinds)
    if arity and all(k == "s" for k in kinds):
        blob = "\n".join(strs)
        if "\\" not in blob and blob.count('"') == 2 * arity * len(strs):
            plen = len(cname) + 2
            if arity == 1:
                return [(share(x[plen:-2], x[plen:-2]),) for x in strs]
            out = []
            for x in strs:
                parts = x[plen:-2].split('","')
                out.append(tuple(map(share, parts, parts)))
            return out
    return [tuple(share(v, v) if type(v) is str else v for v in parse_atom_args(x, kinds))
            for x in strs]
