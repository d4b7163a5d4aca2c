"""Diagnostics every package may import: source spans and located errors.

Nothing here knows an IR or an engine: the Relay front end, the Relax extractor and the
Datalog engine layer all report `file:line:col` through `LocatedError`.
"""

from __future__ import annotations

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
