"""Analysis and engine options, each declared once (the style of xDSL's pass options).

An option is a field of a frozen dataclass whose metadata gives its flag, its choices and its
help; from that one declaration come the argparse arguments, the values' validation, the
Soufflé `-M` defines a choice selects (named macros the rule files test), the batch cache key
and JSON field (`as_json`), and a variant's name in the precision lab (`1-call+fs`). A new
variant is one new entry in a choices table here, plus the rules that test its define.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, fields
from typing import Any

from .engines import ENGINES


@dataclass(frozen=True)
class Choice:
    """One value of an option: the defines it passes to the rules and its suffix in a name."""

    defines: dict[str, str] = field(default_factory=dict)
    suffix: str = ""
    help: str = ""


POINTS_TO: dict[str, Choice] = {
    "insensitive": Choice(help="one points-to set per node"),
    "1-call": Choice({"CALL_SITES": "1"}, help="function bodies told apart by the last call site"),
    "2-call": Choice({"CALL_SITES": "2"}, help="... by the last two call sites"),
    "1-closure": Choice({"CLOSURE_SENSITIVE": "1"},
                        help="closure bodies told apart by the closure value called, itself told "
                             "apart by the context that made it"),
    "combined": Choice({"COMBINED": "1"},
                       help="global functions as 2-call, a call of itself staying in its "
                            "context; closure bodies told apart by call site, the caller's call "
                            "site and the closure's maker"),
}
HEAP: dict[bool, Choice] = {
    False: Choice(help="one object per allocation site"),
    True: Choice({"HEAP_CONTEXT": "1"}, "+heap",
                 help="one object per allocation site and context that runs it (heap cloning)"),
}
LIVENESS: dict[str, Choice] = {
    "flow-insensitive": Choice(help="a write is live if a demanded read may read its cell"),
    "flow-sensitive": Choice({"FLOW_SENSITIVE": "1"}, "+fs",
                             help="also remove writes overwritten before any read"),
}


def option(default: Any, help: str, choices: dict[str, Choice] | tuple[str, ...] | None = None,
           metavar: str | None = None) -> Any:
    """A dataclass field that is also a command-line option `--<name>`."""
    return field(default=default, metadata={"help": help, "choices": choices,
                                            "metavar": metavar})


class _Options:
    """What both option classes share: validation, argparse, JSON."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            choices = f.metadata.get("choices")
            value = getattr(self, f.name)
            if choices is not None and value not in choices:
                raise ValueError(f"unknown {f.name.replace('_', ' ')} `{value}` (choose from "
                                 f"{', '.join(choices)})")

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """One argparse option per field, with its default and its help."""
        for f in fields(cls):  # type: ignore[arg-type]
            flag = "--" + f.name.replace("_", "-")
            choices = f.metadata.get("choices")
            help_text = f.metadata["help"]
            if isinstance(choices, dict):
                help_text += "; " + "; ".join(f"{k}: {c.help}" for k, c in choices.items()
                                             if c.help)
            help_text += f" (default: {f.default})".replace("%", "%%")
            if isinstance(f.default, bool):
                parser.add_argument(flag, dest=f.name, action="store_true", help=help_text)
            else:
                parser.add_argument(flag, dest=f.name, default=f.default,
                                    type=type(f.default), help=help_text,
                                    choices=list(choices) if choices else None,
                                    metavar=f.metadata.get("metavar"))

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Any:
        """The options a parsed command line gives (a bad value is the user's error)."""
        from .loading import UsageError

        try:
            return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})  # type: ignore[arg-type]
        except ValueError as exc:
            raise UsageError(str(exc)) from None

    def as_json(self) -> dict[str, Any]:
        """The options as a JSON object (a batch cache key, a results field)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class AnalysisOptions(_Options):
    """Which analysis runs: the points-to context and the liveness variant."""

    context: str = option("insensitive", "points-to context sensitivity", POINTS_TO)
    liveness: str = option("flow-insensitive", "liveness of reference writes", LIVENESS)
    heap_context: bool = option(False, "clone each allocation site (cell, tuple, constructor "
                                "value) per context that runs it; needs a --context other than "
                                "insensitive")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.heap_context and self.context == "insensitive":
            raise ValueError("--heap-context clones objects per context: choose a --context "
                             f"other than insensitive ({', '.join(list(POINTS_TO)[1:])})")

    def defines(self) -> dict[str, str]:
        """The Soufflé `-M` definitions that select this variant in datalog_rules/."""
        return {**POINTS_TO[self.context].defines, **HEAP[self.heap_context].defines,
                **LIVENESS[self.liveness].defines}

    @property
    def name(self) -> str:
        """The variant's short name: `insensitive`, `1-call+fs`, `combined+heap+fs`, ..."""
        return self.context + HEAP[self.heap_context].suffix + LIVENESS[self.liveness].suffix

    @staticmethod
    def parse(name: str) -> AnalysisOptions:
        """The variant a short name stands for (the inverse of `name`)."""
        for v in AnalysisOptions.variants():
            if v.name == name:
                return v
        raise ValueError(f"unknown variant `{name}`: a context ({', '.join(POINTS_TO)}), "
                         f"optionally followed by {HEAP[True].suffix} (heap cloning, not for "
                         "insensitive), then by "
                         + " or ".join(c.suffix for c in LIVENESS.values() if c.suffix)
                         + " (flow-sensitive liveness)")

    @staticmethod
    def variants() -> tuple[AnalysisOptions, ...]:
        """Every valid combination of context, heap context and liveness."""
        return tuple(AnalysisOptions(c, lv, h) for c in POINTS_TO for h in HEAP for lv in LIVENESS
                     if not (h and c == "insensitive"))


@dataclass(frozen=True)
class EngineOptions(_Options):
    """Which Datalog engine solves the rules, and how."""

    engine: str = option("auto", "Datalog engine; auto: Soufflé when on PATH, else the "
                         "embedded one (a Soufflé failure falls back, with a warning)", ENGINES)
    timeout: float = option(0.0, "Soufflé's time limit in seconds; 0: 600 with --engine "
                            "souffle, 120 with auto (then the embedded engine takes over, "
                            "saying why)", metavar="SECONDS")
    compiled: bool = option(False, "Soufflé: compile the rules once (cached by their hash) and "
                            "run the binary")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.timeout < 0:
            raise ValueError(f"--timeout {self.timeout:g}: a time limit cannot be negative")

    @property
    def time_limit(self) -> float:
        """Seconds Soufflé may take: the one given, or a default that suits the engine choice
        (auto must not wait long on a Soufflé that hangs before it falls back)."""
        if self.timeout > 0:
            return self.timeout
        return AUTO_TIME_LIMIT if self.engine == "auto" else SOUFFLE_TIME_LIMIT


SOUFFLE_TIME_LIMIT = 600.0
AUTO_TIME_LIMIT = 120.0
DEFAULT_ANALYSIS = AnalysisOptions()
DEFAULT_ENGINE = EngineOptions()
