"""Effect tables: what calling an operator or packed function may do, as data users extend.

One entry per line, `name<TAB>effect`, the effect a word (`none`, `view`, `writes`, ...) or a
signature of what it does per argument position (`reads=0,1,2 writes=0 returns=0`); later
files override earlier ones, so a user's `--op-effects FILE` refines the shipped defaults
without touching Python (a dict works as a table too). Packed functions
that TIR kernels call (`T.call_packed`) have a table of their own, `name<TAB>reads<TAB>writes`
(argument positions), extended with `--tir-effects FILE`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import LocatedError, Span
from .schema import EFFECTS


class ExtractError(LocatedError):
    """The program cannot be turned into facts (bad effect table, unknown entry function)."""

    kind = "extract error"


SIGNATURE_ITEMS = ("reads", "writes", "returns", "keeps", "overlap")
SIGNATURE_EFFECTS = ("io", "random", "unknown")  # what `effects=` may say


@dataclass(frozen=True)
class Effect:
    """What calling one operator or packed function may do: a one-word kind, or a signature
    naming, per argument position, what it reads, writes in place, may return (the result may
    be or hold that argument's memory), may keep after it returns, and may be given sharing
    memory with an argument it writes (`overlap=`: it reads them in full, or element by
    element where it writes, before writing), with an optional opaque effect (`effects=io`)."""

    kind: str  # one of EFFECTS; a signature's `effects=` kind, else "none"
    reads: frozenset[int] = frozenset()
    writes: frozenset[int] = frozenset()
    returns: frozenset[int] = frozenset()
    keeps: frozenset[int] = frozenset()
    overlap: frozenset[int] = frozenset()  # may share memory with what it writes
    result: Shape | None = None  # exactly what it returns, as argument fields (`result=`)
    signature: bool = False
    where: str = ""  # file:line (or "python") it was declared at

    @staticmethod
    def parse(text: str, where: str = "") -> Effect:
        """`view`, or `reads=0,1 writes=0 returns=0 keeps=- overlap=- effects=io`, or with
        `result=(0.1,0.0)` for `returns=`; ValueError says why."""
        text = text.strip()
        if "=" not in text:
            if text not in EFFECTS:
                raise ValueError(f"expected an effect ({', '.join(EFFECTS)}) or a signature "
                                 f"(reads=, writes=, returns=, keeps=, effects=), got `{text}`")
            return Effect(text, where=where)
        items: dict[str, frozenset[int]] = {}
        kind = "none"
        for item in text.split():
            key, sep, value = item.partition("=")
            if not sep or key in items or (key == "effects" and kind != "none"):
                raise ValueError(f"`{item}`: expected one key=value per item, each key once")
            if key == "effects":
                if value not in SIGNATURE_EFFECTS:
                    raise ValueError(f"effects={value}: expected one of "
                                     f"{', '.join(SIGNATURE_EFFECTS)}")
                kind = value
                continue
            if key == "result":
                items[key] = parse_shape(value)
                continue
            if key not in SIGNATURE_ITEMS:
                raise ValueError(f"`{key}=`: expected one of "
                                 f"{', '.join(SIGNATURE_ITEMS)}, effects")
            pos = _positions(value)
            if pos is None:
                raise ValueError(f"{key}={value}: expected argument positions (0,2) or `-`")
            items[key] = pos
        if "result" in items and "returns" in items:
            raise ValueError("result= says exactly what it returns: give it or returns=, not both")
        return Effect(kind, signature=True, where=where, **items)

    def text(self) -> str:
        """The table spelling (a signature in a fixed order)."""
        if not self.signature:
            return self.kind
        parts = [f"{k}={','.join(map(str, sorted(getattr(self, k)))) or '-'}"
                 for k in SIGNATURE_ITEMS if getattr(self, k)]
        if self.result is not None:
            parts.append(f"result={shape_text(self.result)}")
        if self.kind != "none":
            parts.append(f"effects={self.kind}")
        return " ".join(parts) or "reads=-"

    def relay_kind(self) -> str:
        """The one-word kind Relay's rules read (they model no tensor memory: a signature that
        writes, returns or keeps memory is a memory effect, which they treat as opaque)."""
        if not self.signature or self.kind != "none":
            return self.kind
        if self.writes:
            return "writes"
        return "alias" if self.returns or self.keeps or self.result is not None else "none"


# `result=`: what a packed function returns, exactly, built of its arguments' values: an
# argument position and a path of tuple fields into it (`0.1`: field 1 of argument 0), or a
# tuple of such (`(0.1,0.0)`), nested at will. No new memory, nothing else.
Shape = tuple  # ("arg", position, (field, ...)) or ("tuple", (Shape, ...))


def parse_shape(text: str) -> Shape:
    """`0.1`, `(0.1,0.0)`, `(1,(0.0,0.1))`; ValueError says what is wrong."""
    def term(i: int) -> tuple[Shape, int]:
        if i < len(text) and text[i] == "(":
            subs, i = [], i + 1
            while True:
                sub, i = term(i)
                subs.append(sub)
                if i < len(text) and text[i] == ",":
                    i += 1
                    continue
                if i < len(text) and text[i] == ")":
                    return ("tuple", tuple(subs)), i + 1
                raise ValueError(f"result={text}: expected `,` or `)` at character {i + 1}")
        j = i
        while j < len(text) and (text[j].isdigit() or text[j] == "."):
            j += 1
        nums = text[i:j].split(".")
        if not all(n.isdigit() for n in nums):
            raise ValueError(f"result={text}: expected an argument position and fields "
                             f"(0.1) at character {i + 1}")
        return ("arg", int(nums[0]), tuple(int(n) for n in nums[1:])), j

    shape, end = term(0)
    if end != len(text):
        raise ValueError(f"result={text}: unexpected `{text[end:]}`")
    return shape


def shape_text(shape: Shape) -> str:
    if shape[0] == "arg":
        return ".".join(str(k) for k in (shape[1], *shape[2]))
    return "(" + ",".join(shape_text(s) for s in shape[1]) + ")"


EffectSource = str | os.PathLike[str] | Mapping[str, str]

# Effects declared in Python beside the function (aliaslog.relax.packed_effects), by name:
# read after the shipped table and before the user's tables.
DECLARED: dict[str, Effect] = {}


def declare_effect(name: str, effect: str) -> Effect:
    """Record what the packed function `name` does (a ValueError says what is wrong)."""
    got = Effect.parse(effect, where=f"packed_effects({name!r})")
    DECLARED[name] = got
    return got


def effect_sources(value: object) -> list[EffectSource]:
    """Every API that takes effect tables takes a path, a {name: effect} dict, or a list of
    them (a lone string is one path, never its characters)."""
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike, Mapping)):
        return [value]
    if isinstance(value, (list, tuple)):
        for v in value:
            if not isinstance(v, (str, os.PathLike, Mapping)):
                raise TypeError(f"effect tables: expected paths or dicts, got {type(v).__name__}")
        return list(value)
    raise TypeError(f"effect tables: expected a path, a dict or a list of them, got "
                    f"{type(value).__name__}")


def load_effect_table(*sources: EffectSource) -> dict[str, Effect]:
    """Read effect tables (later sources override earlier ones); errors name file and line, and
    an operator listed twice in one table is an error naming both lines."""
    table: dict[str, Effect] = {}
    for source in sources:
        seen: dict[str, Effect] = {}
        for name, effect in _entries(source):
            if name in seen:
                first = seen[name]
                same = "listed twice" if first.text() == effect.text() else "listed again with " \
                    "another effect"
                raise ExtractError(f"`{name}` is {same}: {first.where} says `{first.text()}`, "
                                   f"{effect.where} says `{effect.text()}`")
            seen[name] = effect
        table.update(seen)
    return table


def _entries(source: EffectSource) -> list[tuple[str, Effect]]:
    """(name, effect) of every entry of one source, in order."""
    if isinstance(source, Mapping):
        out = []
        for name, value in source.items():
            try:
                out.append((str(name), value if isinstance(value, Effect) else
                            Effect.parse(str(value), where=f"the dict's `{name}`")))
            except ValueError as exc:
                raise ExtractError(f"op effects `{name}`: {exc}") from None
        return out
    path = source
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ExtractError(f"{path}: cannot read op effect table: {exc}") from None
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, rest = line.strip().partition("\t")
        if not sep:
            name, _, rest = line.strip().partition(" ")
        try:
            if not name or not rest.strip():
                raise ValueError("expected `name<TAB>effect`")
            out.append((name.strip(), Effect.parse(rest, where=f"{path}:{lineno}")))
        except ValueError as exc:
            raise ExtractError(f"expected `operator<TAB>effect` with effect one of "
                               f"{', '.join(EFFECTS)}, or a signature such as `reads=0,1 "
                               f"writes=0 returns=0`: {exc}", Span(str(path), lineno, 1),
                               text) from None
    return out


@dataclass(frozen=True)
class TirCallEffect:
    """The arguments (0-based, after the function name) a TIR-level packed call reads / writes."""

    reads: frozenset[int]
    writes: frozenset[int]


def _positions(field: str) -> frozenset[int] | None:
    """`0,2` -> {0, 2}; `-` -> {}; anything else -> None."""
    field = field.strip()
    if field == "-":
        return frozenset()
    try:
        out = frozenset(int(x) for x in field.split(","))
    except ValueError:
        return None
    return out if all(i >= 0 for i in out) else None


def load_tir_effect_table(*sources: EffectSource) -> dict[str, TirCallEffect]:
    """Read TIR packed-call tables, files or {name: "reads writes"} dicts (later sources
    override earlier ones); errors name the file and line."""
    table: dict[str, TirCallEffect] = {}
    for source in sources:
        if isinstance(source, Mapping):
            lines = [(f"the dict's `{k}`", 0, f"{k}\t{v}") for k, v in source.items()]
            text = None
        else:
            try:
                text = Path(source).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ExtractError(f"{source}: cannot read TIR effect table: {exc}") from None
            lines = [(str(source), n, ln) for n, ln in enumerate(text.splitlines(), 1)]
        for where, lineno, line in lines:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t") if "\t" in line else line.split()
            got = [_positions(x) for x in parts[1:]] if len(parts) == 3 else []
            if len(got) != 2 or got[0] is None or got[1] is None:
                msg = ("expected `function<TAB>reads<TAB>writes`, each a comma-separated list "
                       "of argument positions or `-`")
                if text is None:
                    raise ExtractError(f"{where}: {msg}")
                raise ExtractError(msg, Span(where, lineno, 1), text)
            table[parts[0].strip()] = TirCallEffect(got[0], got[1])
    return table
