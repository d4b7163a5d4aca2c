"""Ground a translated program with clingo and read the output relations from gringo's atoms."""

from __future__ import annotations

from aliaslog.engines.base import EngineError, Row
from aliaslog.engines.dialect.program import Program
from aliaslog.engines.embedded.functors import FunctorAbort, Functors
from aliaslog.engines.embedded.model import read_relation
from aliaslog.engines.embedded.translate import clingo_name


def run_clingo(program: Program, rules: str, facts: list[str], outputs: list[str]
               ) -> dict[str, list[Row]]:
    """Ground translated rules + facts; return the output relations as typed rows.

    The programs are stratified, so grounding alone derives the whole model as facts: the
    ground program is not handed to clasp (an observer takes it in its place, which saves about
    a third of clingo's memory and the solver's time), and the model is read from the atoms
    gringo derived. `facts` is emptied as its chunks are handed to clingo, so the text is not
    held twice.
    """
    import clingo

    messages: list[str] = []

    def logger(code, msg: str) -> None:
        if len(messages) < 20:
            messages.append(msg.strip())

    ctl = clingo.Control(["--warn=none"], logger=logger, message_limit=20)
    ctl.register_observer(clingo.Observer(), replace=True)
    try:
        ctl.add("base", [], rules)
        while facts:
            ctl.add("base", [], facts.pop())
        ctl.ground([("base", [])], context=Functors())
    except FunctorAbort as exc:
        raise EngineError(f"{exc} (Soufflé aborts the run here)") from None
    except RuntimeError as exc:
        raise EngineError("clingo failed: " + "\n".join(messages or [str(exc)])) from None
    rows: dict[str, list[Row]] = {}
    memo: dict[str, str] = {}
    atoms = ctl.symbolic_atoms
    for name in outputs:
        kinds = program.relations[name].kinds
        cname = clingo_name(name)
        strs = []
        for atom in atoms.by_signature(cname, len(kinds)):
            if not atom.is_fact:
                raise EngineError(f"grounding left `{name}` undecided: the program is not "
                                  "stratified as the embedded engine needs")
            strs.append(str(atom.symbol))
        rows[name] = read_relation(cname, strs, kinds, memo) if strs else []
    return rows
