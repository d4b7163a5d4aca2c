"""Diagnostics every package may import: source spans, located errors, and a GC pause.

Nothing here knows an IR or an engine: the Relay front end, the Relax extractor and the
Datalog engine layer all report `file:line:col` through `LocatedError`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """A source range; lines and columns are 1-based, end is exclusive."""

    source: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.col}"


class LocatedError(Exception):
    """Base of user errors: a message, an optional span, and the source text for a caret line."""

    kind = "error"

    def __init__(self, message: str, span: Span | None = None, text: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.text = text

    def with_text(self, text: str) -> LocatedError:
        """Attach source text (for the caret line) if none is attached yet."""
        if self.text is None:
            self.text = text
        return self

    def render(self) -> str:
        """`file:line:col: kind: message`, then the source line and a caret under the column."""
        if self.span is None:
            return f"{self.kind}: {self.message}"
        head = f"{self.span}: {self.kind}: {self.message}"
        if not self.text:
            return head
        lines = self.text.split("\n")
        if not 1 <= self.span.line <= len(lines):
            return head
        src = lines[self.span.line - 1].rstrip("\r")
        caret_col = max(1, min(self.span.col, len(src) + 1))
        width = 1
        if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
            width = self.span.end_col - self.span.col
        prefix = "".join(c if c == "\t" else " " for c in src[: caret_col - 1])
        return f"{head}\n  {src}\n  {prefix}{'^' * width}"

    def __str__(self) -> str:
        return self.render()


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
