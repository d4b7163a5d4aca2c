"""Datalog engines for aliaslog: Soufflé by subprocess, or the same .dl files run by clingo.

`solve()` is the one entry point; both engines return identical sorted, typed relations.
Modules: `solve` (engine choice), `dialect` (the Soufflé language: preprocess, parse,
elaborate, check), `embedded` (translation to clingo and its run), `souffle_backend`
(Soufflé by subprocess), `tsv_files` (Soufflé's file format), `publish` (atomic output directories).
"""

from __future__ import annotations

from aliaslog.engines.base import EngineError, SolveResult
from aliaslog.engines.solve import ENGINES, available_engines, solve

__all__ = ["ENGINES", "EngineError", "SolveResult", "available_engines", "solve"]
