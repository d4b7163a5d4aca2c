"""Sets of the values a tensor's elements may hold: enough to see that a write stores what every
element already holds although no term says so (`x - x` holds only 0 and NaN, which `+ itself`
keeps), and so changes no byte.

A set lists canonical values (one NaN; -0.0 apart from 0.0). Sets come from known bytes, from
`x - x` (+0 for finite x in round-to-nearest, NaN otherwise), from elementwise operators on
sets, and from kernels run on them (`kernel_sets`). Only small integers and the special values
make a set: every sum or product of two of them is exact, so a multiply-add that LLVM fuses
computes what two operations do, and a set never needs more than MAX_VALUES runs per argument.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from .kernel_access import StoreForms

MAX_VALUES = 8  # a tensor whose elements may take more values gets no set
MAX_RUNS = 64  # kernel runs for one call, one per combination of its arguments' values
SMALL = 1 << 11  # |v| of an integer value a set may hold (products stay exact in float16..64)
NAN = b"nan"
FLOATS = ("float16", "float32", "float64")


@dataclass(frozen=True)
class Elements:
    """The values (canonical bytes) the elements of a tensor of this dtype may hold."""

    dtype: str
    keys: frozenset[bytes]

    def values(self) -> list[np.generic]:
        return [np.array(np.nan if k == NAN else np.frombuffer(k, self.dtype)[0],
                         dtype=self.dtype)[()] for k in sorted(self.keys)]


def _key(v: np.generic) -> bytes:
    return NAN if np.isnan(v) else np.asarray(v).tobytes()


def of_values(values: Iterable[np.generic], dtype: str) -> Elements | None:
    """The set of these values, or None when it is too large or holds a value not small."""
    if dtype not in FLOATS:
        return None
    keys: set[bytes] = set()
    for v in values:
        f = float(v)
        if not (np.isnan(f) or np.isinf(f) or (f == int(f) and abs(f) <= SMALL)):
            return None
        keys.add(_key(np.asarray(v, dtype)[()]))
        if len(keys) > MAX_VALUES:
            return None
    return Elements(dtype, frozenset(keys))


def of_array(a: np.ndarray) -> Elements | None:
    return of_values(_distinct(a), str(a.dtype)) if a.size else None


def _distinct(a: np.ndarray) -> list[np.generic]:
    """The distinct values of a float array by their bytes (-0.0 apart from 0.0), one NaN."""
    flat = a.ravel()
    nan = np.isnan(flat)
    bits = np.unique(flat[~nan].view(f"u{flat.dtype.itemsize}"))
    return [*bits.view(flat.dtype), *flat[nan][:1]]


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bytes at every element, or NaN in both (-0.0 is not 0.0)."""
    if a.shape != b.shape:
        return False
    width = f"u{a.dtype.itemsize}"
    return bool(np.all((np.isnan(a) & np.isnan(b)) | (a.view(width) == b.view(width))))


def zero_or_nan(dtype: str) -> Elements | None:
    """What `x - x` may hold, whatever x is."""
    return of_values([np.zeros((), dtype)[()], np.array(np.nan, dtype)[()]], dtype)


def binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], a: Elements, b: Elements | None,
           dtype: str) -> Elements | None:
    """An elementwise operator's values: on equal operands (b None) each value with itself,
    else every pair."""
    pairs = [(v, v) for v in a.values()] if b is None else \
        list(itertools.product(a.values(), b.values()))
    with np.errstate(all="ignore"):
        return of_values((fn(np.asarray(x, dtype), np.asarray(y, dtype)) for x, y in pairs),
                         dtype)


@dataclass
class Param:
    """One kernel parameter in a call: its type, and what the caller knows it holds."""

    dtype: str
    shape: tuple[int, ...]
    cls: int | None = None  # equal values: the same class (None: a destination, or unknown)
    elements: Elements | None = None
    data: np.ndarray | None = None
    # each element a function of the same element of class `of[0]` (`2 * x` beside x): what
    # it holds follows the value picked for that class
    of: tuple[int, Callable[[np.generic], np.generic]] | None = None


Run = Callable[[list[np.ndarray]], list[np.ndarray]]  # run the kernel: every parameter after


def kernel_sets(run: Run, forms: StoreForms, params: list[Param],
                outputs: list[int]) -> tuple[dict[int, Elements], set[int]]:
    """The sets of the written parameters in `outputs` whose stores load only parameters of
    known values, found by running the kernel on every combination of them (each element's
    result depends on that element's values alone, or is one of them moved); and the ones,
    updated in place, whose every element keeps its value (a store that puts back)."""
    wanted = computable(forms, params, outputs)
    if not wanted:
        return {}, set()
    classes = sorted({p.cls for i, p in enumerate(params) if p.cls is not None
                      and p.elements is not None and _needed(i, forms)})
    choices = [next(p.elements for p in params if p.cls == c).values() for c in classes]
    combos = list(itertools.product(*choices))
    if len(combos) > MAX_RUNS:
        return {}, set()
    got: dict[int, set[bytes]] = {k: set() for k in wanted}
    kept = set(wanted)
    for n, combo in enumerate(combos):
        pick = dict(zip(classes, combo, strict=True))
        results = [run(_inputs(params, pick, fill)) for fill in ((0, 1) if n == 0 else (0,))]
        for k in list(got):
            out = results[0][k]
            if len(results) > 1 and not same_values(out, results[1][k]):
                del got[k]  # some element is not stored: it holds what was there
                kept.discard(k)
                continue
            got[k].update(_key(v) for v in _distinct(out))
            had = _held(params[k], pick)
            if had is None or not same_values(out, np.full(out.shape, had, out.dtype)):
                kept.discard(k)
    sets = {k: e for k, keys in got.items()
            if (e := of_values(_decode(keys, params[k].dtype), params[k].dtype)) is not None}
    return sets, {k for k in kept if _puts_back(k, forms, params)}


def computable(forms: StoreForms, params: list[Param], outputs: list[int]) -> list[int]:
    """The outputs whose stores load only parameters of known values that the kernel does not
    write (another output, moved from elsewhere, would pair elements a uniform run never
    pairs): kernel_sets' work."""
    return [k for k in outputs if k in forms.written and _known(k, forms, params)]


def covered(run: Run, params: list[Param], k: int) -> bool:
    """The kernel stores every element of destination k (what was there never shows)."""
    base = _inputs(params, {}, 0)
    got = []
    for fill in (0, 1):
        given = [a.copy() for a in base]
        given[k][...] = fill
        got.append(run(given)[k])
    return same_values(got[0], got[1])


def _needed(i: int, forms: StoreForms) -> bool:
    return any(i in loads for loads in forms.loaded.values())


def _known(k: int, forms: StoreForms, params: list[Param]) -> bool:
    """Every parameter k's stores load is k itself or one the kernel does not write, and has
    known values."""
    for i in forms.loaded.get(k, set()):
        if i != k and i in forms.written:
            return False
        if params[i].elements is None and params[i].data is None and params[i].of is None:
            return False
    return True


def _puts_back(k: int, forms: StoreForms, params: list[Param]) -> bool:
    """k, updated in place, is the only parameter written, by one elementwise store that meets
    each element once and loads only values equal to k's own there, functions of them, or
    constants: the run shows what each element gets."""
    if set(forms.written) != {k} or forms.written[k] != "same" or k not in forms.once:
        return False
    cls = _class(params[k])
    return cls is not None and all(_class(params[i]) == cls or params[i].data is not None
                                   for i in forms.loaded[k])


def _class(p: Param) -> int | None:
    """The class whose pick decides what p holds: its own, or the one it is a function of."""
    return p.cls if p.cls is not None else p.of[0] if p.of is not None else None


def _held(p: Param, pick: dict[int, np.generic]) -> np.generic | None:
    """What every element of p holds in a run on `pick` (None: nothing known)."""
    if p.cls is not None:
        return pick.get(p.cls, np.nan)
    if p.of is not None and p.of[0] in pick:
        with np.errstate(all="ignore"):
            return p.of[1](pick[p.of[0]])
    return None


def _inputs(params: list[Param], pick: dict[int, np.generic], fill: int) -> list[np.ndarray]:
    out = []
    for p in params:
        if p.cls is not None and p.cls in pick:
            out.append(np.full(p.shape, pick[p.cls], p.dtype))
        elif p.of is not None and p.of[0] in pick:
            out.append(np.full(p.shape, _held(p, pick), p.dtype))
        elif p.data is not None:
            out.append(np.array(p.data, dtype=p.dtype).reshape(p.shape))
        else:
            out.append(np.full(p.shape, fill, p.dtype))
    return out


def _decode(keys: set[bytes], dtype: str) -> list[np.generic]:
    return Elements(dtype, frozenset(keys)).values()
