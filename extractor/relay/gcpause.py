"""Pause Python's cyclic GC over a pass (re-exported from `extractor.diagnostics`)."""

from __future__ import annotations

from extractor.diagnostics import gc_paused

__all__ = ["gc_paused"]
