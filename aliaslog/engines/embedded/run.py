"""Ground a translated program with clingo and read the output relations from gringo's atoms."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator

from aliaslog.engines.base import EngineError, Symbols
from aliaslog.engines.dialect.program import Program
from aliaslog.engines.embedded.functors import FunctorAbort, Functors
from aliaslog.engines.embedded.model import read_relation
from aliaslog.engines.embedded.translate import clingo_name
from extractor.tsv import Row


def run_clingo(program: Program, rules: str, facts: Iterable[str], outputs: list[str],
               symbols: Symbols | None = None) -> dict[str, list[Row]]:
    """Ground translated rules + facts; return the output relations as typed rows.

    The programs are stratified, so grounding alone derives the whole model as facts: the
    ground program is not handed to clasp (an observer takes the shown atoms in its place,
    which saves about a third of clingo's memory and the solver's time). Each fact chunk is
    a program part of its own, grounded as soon as it is parsed: its parsed statements (larger
    than the atoms they make) are freed before the next chunk, not held until the rules are
    grounded. Chunks are formatted here while a second thread hands the previous one to
    clingo, which releases the GIL: formatting costs no wall time, and only two chunks are
    held at once. The `#show` directives go first (a step without any shows every atom).
    """
    import clingo

    messages: list[str] = []

    def logger(code, msg: str) -> None:
        if len(messages) < 20:
            messages.append(msg.strip())

    class Shown(clingo.Observer):
        """Takes the shown atoms in place of clasp, as symbols; a fact has no program atom."""

        def __init__(self) -> None:
            self.atoms: list = []
            self.undecided = 0

        def output_atom(self, symbol, atom: int) -> None:
            self.atoms.append(symbol)
            if atom:
                self.undecided += 1

    shown = Shown()
    by_cname = {clingo_name(name): name for name in outputs}
    shows = "#show.\n" + "".join(  # nothing but the outputs (no #show at all would show all)
        f"#show {c}/{len(program.relations[n].kinds)}.\n" for c, n in by_cname.items())
    ctl = clingo.Control(["--warn=none"], logger=logger, message_limit=20)
    ctl.register_observer(shown, replace=True)
    try:
        ctl.add("shows", [], shows)
        ctl.ground([("shows", [])])
        _ground_pipelined(ctl, facts)
        ctl.add("base", [], rules)
        ctl.ground([("base", [])], context=Functors())
    except FunctorAbort as exc:
        raise EngineError(f"{exc} (Soufflé aborts the run here)") from None
    except RuntimeError as exc:
        raise EngineError("clingo failed: " + "\n".join(messages or [str(exc)])) from None
    del ctl  # gringo's domains are not needed once the shown atoms are text: free them first
    if shown.undecided:
        raise EngineError("grounding left output atoms undecided: the program is not "
                          "stratified as the embedded engine needs")
    grouped: dict[str, list[str]] = {}
    for text in symbol_texts(shown.atoms):
        paren = text.find("(")
        grouped.setdefault(text if paren < 0 else text[:paren], []).append(text)
    # one string per distinct symbol across the outputs (a caller's own where equal: `solve`)
    memo: dict[str, str] = symbols() if symbols is not None else {}
    rows: dict[str, list[Row]] = {name: [] for name in outputs}
    for cname, strs in grouped.items():
        name = by_cname.get(cname)
        if name is not None:
            rows[name] = read_relation(cname, strs, program.relations[name].kinds, memo)
    return rows


def symbol_texts(symbols: list) -> Iterator[str]:
    """`str()` of each symbol, emptying the list: one reused buffer for clingo's printer when
    the bindings allow it (a third of the time `str()` takes, which allocates two per call)."""
    try:
        from clingo._internal import _ffi, _lib
        size_of, print_to = _lib.clingo_symbol_to_string_size, _lib.clingo_symbol_to_string
        reps = [s._rep for s in symbols]
    except (ImportError, AttributeError):  # other bindings: their own str()
        reps = None
    if reps is None:
        yield from map(str, symbols)
        symbols.clear()
        return
    symbols.clear()
    size = _ffi.new("size_t*")
    cap = 4096
    buf = _ffi.new("char[]", cap)
    text = _ffi.string
    for rep in reps:
        if not size_of(rep, size):
            raise EngineError("clingo cannot print a shown atom")
        n = size[0]
        if n > cap:
            cap = 2 * n
            buf = _ffi.new("char[]", cap)
        print_to(rep, buf, n)
        yield text(buf).decode()


def _ground_pipelined(ctl, chunks: Iterable[str]) -> None:
    """Add and ground every chunk as a part of its own, in a worker thread while the next is
    made here."""
    handed: queue.Queue[str | None] = queue.Queue(maxsize=1)
    failed: list[BaseException] = []

    def parse() -> None:
        k = 0
        while (chunk := handed.get()) is not None:
            if not failed:  # after a failure keep taking chunks, so the producer never blocks
                try:
                    part = f"facts{k}"
                    k += 1
                    ctl.add(part, [], chunk)
                    del chunk  # (the text is parsed: free it while grounding)
                    ctl.ground([(part, [])])
                except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                    failed.append(exc)

    worker = threading.Thread(target=parse, name="clingo-parse", daemon=True)
    worker.start()
    try:
        for chunk in chunks:
            if failed:
                break
            handed.put(chunk)
    finally:
        handed.put(None)
        worker.join()
    if failed:
        raise failed[0]
