"""Located user-facing errors: every mistake in a Relay program names file:line:col.

`Span` and `LocatedError` live in `extractor.diagnostics` and are re-exported here.
"""

from __future__ import annotations

from extractor.diagnostics import LocatedError, Span

__all__ = ["JsonLoadError", "LocatedError", "ParseError", "RelayTypeError", "Span"]


class ParseError(LocatedError):
    """The text is not Relay as TVM's v0.0.5 parser (plus our documented extensions) accepts."""

    kind = "parse error"


class RelayTypeError(LocatedError):
    """Type inference found a mismatch, an unknown op, or a bad attribute."""

    kind = "type error"


class JsonLoadError(LocatedError):
    """A `tvm.ir.save_json` document that does not describe a Relay module or expression."""

    kind = "json error"


class TransformError(LocatedError):
    """A Relay transform cannot be applied to a program as TVM would apply it."""

    kind = "transform error"
