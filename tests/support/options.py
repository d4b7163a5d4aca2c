"""The engine and analysis options the tests run under."""

from __future__ import annotations

from aliaslog.options import AnalysisOptions, EngineOptions

EMBEDDED = EngineOptions("embedded")
SOUFFLE = EngineOptions("souffle")
FLOW_SENSITIVE = AnalysisOptions(liveness="flow-sensitive")
