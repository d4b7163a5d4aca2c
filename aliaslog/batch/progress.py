"""The batch's progress on stderr: a bar with counts and running models, and one line per model.

On a terminal the bar is redrawn in place under the per-model lines; in a log (not a tty)
only the per-model lines are written, so CI output stays readable.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import Any, TextIO

MARK = {"ok": "ok", "error": "ERROR", "timeout": "TIMEOUT"}


def label(row: dict[str, Any]) -> str:
    """`resnet-18 (gradient)`: the model and its variant, as the report labels it too."""
    return f"{row['model']} ({row['variant']})"


class Progress:
    """Counts finished rows by status; knows which models are running where."""

    def __init__(self, total: int, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.running: dict[str, float] = {}
        self.t0 = time.monotonic()

    def started(self, name: str) -> None:
        self.running[name] = time.monotonic()
        self._bar()

    def finished(self, row: dict[str, Any], name: str | None = None) -> None:
        """Record a row and print its status line."""
        self.running.pop(name or row["path"], None)
        self.done += 1
        self.counts[row["status"]] += 1
        if row.get("cached"):
            self.counts["cached"] += 1
        if not self.enabled:
            return
        what = MARK.get(row["status"], row["status"])
        detail = (f"kept {row['metrics'].get('kept', '?')}, removable "
                  f"{row['metrics'].get('removable', '?')}" if row["status"] == "ok"
                  else row.get("error") or "")
        source = "cached" if row.get("cached") else f"{row.get('total_seconds', 0):.1f} s"
        line = (f"[{self.done:>{len(str(self.total))}}/{self.total}] {what:<7} "
                f"{label(row)} [{row['ir']}] {source}: {detail}")
        self._clear()
        print(line, file=self.stream, flush=True)
        self._bar()

    def close(self) -> None:
        self._clear()

    def _clear(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K")

    def refresh(self) -> None:
        """Redraw the bar (elapsed times move even when nothing finishes)."""
        self._bar()

    def _bar(self) -> None:
        if not self.tty:
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        now = time.monotonic()
        running = ", ".join(f"{n.rsplit('/', 1)[-1]} {now - t:.0f}s"
                            for n, t in list(self.running.items())[:3])
        counts = " ".join(f"{k} {self.counts[k]}" for k in ("ok", "error", "timeout", "cached")
                          if self.counts[k])
        text = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"{counts} | {now - self.t0:.0f}s" + (f" | running: {running}" if running else ""))
        self.stream.write("\r\x1b[K" + text[:200])
        self.stream.flush()
