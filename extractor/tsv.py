"""The TSV cell codec of every fact and result file, and what a row is.

Soufflé reads a symbol cell up to the next tab or newline and keeps backslashes as they are, so
the fact writer (`facts.FactSet`) escapes backslash, tab, newline and carriage return, the
engines escape an in-memory symbol the same way before they hand it to a solver, and the
read-back (`aliaslog.pipeline`) unescapes the symbols in the results. Both sides use this module.
"""

from __future__ import annotations

import re

# One row of a relation: str and int cells (and in an engine's results, records: a tuple, or None)
Row = tuple

_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
_NEEDS_ESCAPE = re.compile(r"[\\\t\n\r]")
_ESCAPE_TABLE = str.maketrans(_ESCAPES)


def escape_symbol(s: str) -> str:
    """Make a symbol safe for a TSV cell: backslash, tab, newline and CR become escapes."""
    return s.translate(_ESCAPE_TABLE) if _NEEDS_ESCAPE.search(s) else s


def unescape_symbol(s: str) -> str:
    """Inverse of escape_symbol."""
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in _UNESCAPES:
            out.append(_UNESCAPES[s[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)
