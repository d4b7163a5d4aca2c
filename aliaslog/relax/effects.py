"""Declaring what a packed function does, in Python, beside the function itself.

    @packed_effects("mypipe.kv_append", "reads=0,1 writes=0 returns=0")
    @tvm.register_global_func("mypipe.kv_append")
    def kv_append(cache, k): ...

The declaration is read after aliaslog's shipped effect table and before the user's
`--op-effects` tables (see extractor/relax_effects.tsv for the words and the signature).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from extractor.effect_table import declare_effect

F = TypeVar("F")


def packed_effects(name: str, effect: str) -> Callable[[F], F]:
    """A decorator that declares what the packed function `name` does (`effect`: a word such
    as `none`, or a signature such as `reads=0,1 writes=0 returns=0`); a ValueError says what
    is wrong with it at once."""
    declare_effect(name, effect)

    def mark(fn: F) -> F:
        return fn

    return mark
