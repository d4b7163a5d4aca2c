"""Pause Python's cyclic GC over a pass: big passes allocate many long-lived acyclic nodes.

Each full collection rescans every node already built, so with the collector on, the parser,
type inference, the gradient and DCE spend a third of their time (and a growing share as
programs grow) in the GC without freeing anything; reference counting still frees temporaries.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic GC inside the block when it was enabled (nesting is a no-op)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
