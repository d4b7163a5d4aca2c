"""Command line: parses arguments and calls the library; user mistakes print located errors."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("aliaslog: under construction", file=sys.stderr)
    return 2
