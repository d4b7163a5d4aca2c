"""Command-line options that several commands share, each declared once (so `check`, `audit`,
`batch`, ... spell, default and explain them alike). Importing this module imports no TVM."""

from __future__ import annotations

import argparse


def module_argument(sp: argparse.ArgumentParser, flag: str = "--module",
                    of: str = "FILE") -> None:
    """`--module NAME`: which IRModule of a TVMScript file that defines several."""
    sp.add_argument(flag, metavar="NAME",
                    help=f"Relax: which IRModule of {of}, when it defines several")


def op_effects_argument(sp: argparse.ArgumentParser) -> None:
    """`--op-effects FILE` (repeatable): effect tables over the shipped defaults."""
    sp.add_argument("--op-effects", action="append", default=[], metavar="FILE",
                    help="extra effect table of operators and packed functions (name<TAB>effect "
                         "or name<TAB>signature); may be given several times, later ones win")


def tir_effects_argument(sp: argparse.ArgumentParser) -> None:
    """`--tir-effects FILE` (repeatable): the packed functions TIR kernels call."""
    sp.add_argument("--tir-effects", action="append", default=[], metavar="FILE",
                    help="Relax: extra table of packed functions TIR kernels call "
                         "(function<TAB>reads<TAB>writes, argument positions)")
