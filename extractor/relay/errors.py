"""The Relay front end's errors: every mistake in a Relay program names file:line:col.

Each is an `extractor.diagnostics.LocatedError` of its own kind.
"""

from __future__ import annotations

from ..diagnostics import LocatedError


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
