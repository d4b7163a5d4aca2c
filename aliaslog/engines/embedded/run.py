"""Ground and solve a translated program with clingo; return the output relations."""

from __future__ import annotations

from aliaslog.engines.base import EngineError, Row
from aliaslog.engines.dialect.program import Program
from aliaslog.engines.embedded.functors import FunctorAbort, Functors
from aliaslog.engines.embedded.model import read_relation
from aliaslog.engines.embedded.translate import clingo_name


def run_clingo(program: Program, rules: str, facts: str, outputs: list[str]
               ) -> dict[str, list[Row]]:
    """Ground and solve translated rules + facts; return the output relations as typed rows."""
    import clingo

    shows = []
    by_cname: dict[str, str] = {}
    for name in outputs:
        rel = program.relations[name]
        cname = clingo_name(name)
        by_cname[cname] = name
        shows.append(f"#show {cname}/{len(rel.kinds)}.")
    messages: list[str] = []

    def logger(code, msg: str) -> None:
        if len(messages) < 20:
            messages.append(msg.strip())

    ctl = clingo.Control(["--warn=none"], logger=logger, message_limit=20)
    try:
        ctl.add("base", [], rules)
        ctl.add("base", [], "\n".join(shows) + "\n")
        ctl.add("base", [], facts)
        ctl.ground([("base", [])], context=Functors())
    except FunctorAbort as exc:
        raise EngineError(f"{exc} (Soufflé aborts the run here)") from None
    except RuntimeError as exc:
        raise EngineError("clingo failed: " + "\n".join(messages or [str(exc)])) from None
    shown: list[str] = []

    def on_model(model) -> None:
        shown.extend(str(s) for s in model.symbols(shown=True))

    result = ctl.solve(on_model=on_model)
    if not result.satisfiable:
        raise EngineError("clingo found no model (the program has no consistent answer)")
    grouped: dict[str, list[str]] = {}
    for s in shown:
        paren = s.find("(")
        cname = s if paren < 0 else s[:paren]
        grouped.setdefault(cname, []).append(s)
    rows: dict[str, list[Row]] = {name: [] for name in outputs}
    for cname, strs in grouped.items():
        name = by_cname.get(cname)
        if name is not None:
            rows[name] = read_relation(cname, strs, program.relations[name].kinds)
    return rows
