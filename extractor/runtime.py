"""How passes over big programs use Python's runtime: deep recursion and the cyclic collector.

A parser, a transform or a printer that recurses over a deeply nested program raises Python's
recursion limit for its own duration (`recursion_limit`), or, when even that would overflow the
C stack, runs again on a thread with a big one (`run_deep`). Big passes allocate many long-lived
acyclic objects that full collections rescan without freeing anything: `gc_paused` pauses the
collector around them, and `survivors_frozen` (one job: a command, a batch task) moves what they
leave out of its reach until the job ends. Every package may import this module; it is the one
place that changes the recursion limit or the collector.
"""

from __future__ import annotations

import gc
import sys
import threading
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_R = typing.TypeVar("_R")


@contextmanager
def recursion_limit(at_least: int) -> Iterator[None]:
    """Python's recursion limit raised to at least `at_least` inside the block, then restored."""
    old = sys.getrecursionlimit()
    if old < at_least:
        sys.setrecursionlimit(at_least)
    try:
        yield
    finally:
        if old < at_least:
            sys.setrecursionlimit(old)


def run_deep(fn: Callable[[], _R]) -> _R:
    """Run a recursive walk; if it overflows Python's stack, redo it on a thread with a big one."""
    try:
        return fn()
    except RecursionError:
        pass
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as ex:  # noqa: BLE001 - re-raised on the calling thread
            box["error"] = ex

    old_size = threading.stack_size()
    try:
        with recursion_limit(2_000_000):
            threading.stack_size(1024 * 1024 * 1024)
            worker = threading.Thread(target=target, name="relay-deep-walk")
            worker.start()
            worker.join()
    finally:
        threading.stack_size(old_size)
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


_FREEZE_SURVIVORS = False  # set inside `survivors_frozen()`


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic GC inside the block when it was enabled (nesting is a no-op).

    Big passes allocate many long-lived acyclic objects; each full collection rescans all of
    them without freeing anything, while reference counting still frees temporaries. Inside
    `survivors_frozen()`, what the block leaves alive is also moved out of the collector's
    reach when it ends (`gc.freeze`): re-enabled, the collector would scan all of it at its
    next young collection, most of a second per million objects, freeing nothing.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _FREEZE_SURVIVORS:
            gc.freeze()
        gc.enable()


@contextmanager
def survivors_frozen() -> Iterator[None]:
    """One job (a command, a batch task): the big passes' survivors are frozen until it ends.

    A reference cycle left while frozen is not collected until the job ends (`gc.unfreeze`
    hands everything back to the oldest generation, collected as usual): a job-sized delay,
    never a leak across jobs.
    """
    global _FREEZE_SURVIVORS
    outer = _FREEZE_SURVIVORS
    _FREEZE_SURVIVORS = True
    try:
        yield
    finally:
        _FREEZE_SURVIVORS = outer
        if not outer:
            gc.unfreeze()
