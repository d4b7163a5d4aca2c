"""The embedded engine: a parsed Soufflé program translated to clingo and evaluated by its grounder.

Stratified programs are fully evaluated by gringo, so the single answer set is the Datalog model.
Facts are fed as generated rule text and the model is read back with `str()` on symbols, both
measured faster than clingo's per-object Python API.
"""

from __future__ import annotations

import re
from pathlib import Path

from aliaslog.engines.base import EngineError, RecordKind, Row, parse_number, read_tsv
from aliaslog.engines.souffle_subset import (
    Aggregate,
    Atom,
    BinOp,
    BoolLit,
    Constraint,
    Neg,
    Nil,
    Num,
    Program,
    Record,
    Str,
    UnOp,
    Var,
    Wildcard,
    lit_terms,
    term_vars,
)

_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "\\", "^": "**", "band": "&", "bor": "?",
        "bxor": "^"}


def clingo_name(rel: str) -> str:
    """Injective map of a Soufflé relation name (letters, digits, `_ ? .`) to a clingo name."""
    return "r_" + rel.replace("_", "__").replace(".", "_d").replace("?", "_q")


def quote(s: str) -> str:
    """A clingo string literal for s (clingo escapes only backslash, quote and newline)."""
    if "\\" in s or '"' in s or "\n" in s:
        s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if "\0" in s:
        raise EngineError("a symbol contains a NUL character, which clingo cannot represent")
    return '"' + s + '"'


def _unquote(body: str) -> str:
    if "\\" not in body:
        return body
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), body)


# --- rule translation ---------------------------------------------------------------------------


class _RuleWriter:
    """Translate one rule alternative (heads + a conjunction) to clingo text."""

    def __init__(self) -> None:
        self.vars: dict[str, str] = {}
        self.fresh = 0
        self.extra: list[str] = []

    def var(self, name: str) -> str:
        v = self.vars.get(name)
        if v is None:
            v = self.vars[name] = f"V{len(self.vars)}"
        return v

    def new(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    def term(self, t, outer: set[str] | None = None, wild_fresh: list[str] | None = None) -> str:
        if isinstance(t, Var):
            return self.var(t.name)
        if isinstance(t, Num):
            return str(t.value) if t.value >= 0 else f"({t.value})"
        if isinstance(t, Str):
            return quote(t.value)
        if isinstance(t, Nil):
            return "nil"
        if isinstance(t, Wildcard):
            if wild_fresh is not None:
                w = self.new("W")
                wild_fresh.append(w)
                return w
            return "_"
        if isinstance(t, Record):
            items = [self.term(x, outer, wild_fresh) for x in t.items]
            if len(items) == 1:
                return f"({items[0]},)"
            return "(" + ",".join(items) + ")"
        if isinstance(t, BinOp):
            return f"({self.term(t.left, outer, wild_fresh)}{_OPS[t.op]}" \
                   f"{self.term(t.right, outer, wild_fresh)})"
        if isinstance(t, UnOp):
            op = "-" if t.op == "-" else "~"
            return f"{op}({self.term(t.arg, outer, wild_fresh)})"
        if isinstance(t, Aggregate):
            return self.aggregate(t)
        raise EngineError(f"unsupported term {type(t).__name__}", getattr(t, "span", None))

    def atom(self, a: Atom, wild_fresh: list[str] | None = None) -> str:
        name = clingo_name(a.rel)
        if not a.args:
            return name
        return name + "(" + ",".join(self.term(x, None, wild_fresh) for x in a.args) + ")"

    def aggregate(self, agg: Aggregate) -> str:
        """Hoist an aggregate into a body literal `A = #agg{...}`; return its variable."""
        res = self.new("A")
        fresh: list[str] = []
        conds = [self.literal(lit, fresh) for lit in agg.body]
        conds = [c for c in conds if c is not None]
        local: list[str] = []
        for lit in agg.body:
            for t in lit_terms(lit):
                vs: list[Var] = []
                term_vars(t, vs)
                for v in vs:
                    if v.name not in self._outer_names:
                        cv = self.var(v.name)
                        if cv not in local:
                            local.append(cv)
        tup = local + fresh
        if agg.kind == "count":
            elem = ",".join(tup) if tup else "0"
            text = f"{res} = #count{{ {elem} : {', '.join(conds)} }}"
        else:
            expr = self.term(agg.expr)
            elem = ",".join([expr, *tup])
            text = f"{res} = #{agg.kind}{{ {elem} : {', '.join(conds)} }}"
            if agg.kind == "min":
                text += f", {res} != #sup"
            elif agg.kind == "max":
                text += f", {res} != #inf"
        self.extra.append(text)
        return res

    def literal(self, lit, wild_fresh: list[str] | None = None) -> str | None:
        if isinstance(lit, Atom):
            return self.atom(lit, wild_fresh)
        if isinstance(lit, Neg):
            return "not " + self.atom(lit.atom)
        if isinstance(lit, Constraint):
            left, right = lit.left, lit.right
            if lit.op == "=" and isinstance(right, (Var, Record)) and not isinstance(left, Var):
                left, right = right, left
            return f"{self.term(left)} {lit.op} {self.term(right)}"
        if isinstance(lit, BoolLit):
            return None if lit.value else "#false"
        raise EngineError(f"unsupported literal {type(lit).__name__}", getattr(lit, "span", None))

    def rule(self, heads: list[Atom], conj: list | None) -> list[str]:
        if conj is None:
            return [self.atom(h) + "." for h in heads]
        # variables outside every aggregate are global to the rule
        outer: set[str] = set()
        for lit in [*conj, *heads]:
            for t in lit_terms(lit):
                vs: list[Var] = []
                term_vars(t, vs)
                outer.update(v.name for v in vs)
        self._outer_names = outer
        body = [b for b in (self.literal(lit) for lit in conj) if b is not None]
        head_texts = [self.atom(h) for h in heads]
        body = body + self.extra
        tail = (" :- " + ", ".join(body)) if body else ""
        return [h + tail + "." for h in head_texts]


def translate_rules(program: Program, clauses: list | None = None) -> str:
    """The program's rules (or the given subset of them) as clingo text."""
    out: list[str] = []
    for clause in program.clauses if clauses is None else clauses:
        if clause.body is None:
            out.extend(_RuleWriter().rule(clause.heads, None))
            continue
        for conj in clause.body:
            out.extend(_RuleWriter().rule(clause.heads, conj))
    return "\n".join(out) + "\n"


# --- facts --------------------------------------------------------------------------------------


def _value_text(v: object, kind: object, records: dict) -> str:
    if kind == "s":
        return quote(v)  # type: ignore[arg-type]
    if kind == "i":
        return str(v)
    if v is None:
        return "nil"
    assert isinstance(kind, RecordKind)
    items = [_value_text(x, k, records) for x, k in zip(v, records[kind.name], strict=False)]
    return "(" + ",".join(items) + ("," if len(items) == 1 else "") + ")"


def facts_text(program: Program, facts_dir: Path) -> tuple[str, int]:
    """Every input relation's facts file as clingo facts; returns (text, number of facts)."""
    chunks: list[str] = []
    count = 0
    for rel in program.relations.values():
        if rel.input is None:
            continue
        params = rel.input
        fname = params.get("filename", rel.name + ".facts")
        path = Path(fname) if Path(fname).is_absolute() else Path(facts_dir) / fname
        delim = params.get("delimiter", "\t")
        headers = params.get("headers", "false") == "true"
        name = clingo_name(rel.name)
        arity = len(rel.kinds)
        fast = (arity > 0 and all(k == "s" for k in rel.kinds) and not headers
                and delim == "\t")
        if fast:
            try:
                data = path.read_bytes().decode("utf-8")
            except FileNotFoundError:
                raise EngineError(f"cannot open fact file {path}", rel.input_span) from None
            except UnicodeDecodeError as exc:
                raise EngineError(f"fact file {path} is not UTF-8: {exc}",
                                  rel.input_span) from None
            lines = data.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if "\r" in data:
                lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
            if '"' not in data and "\\" not in data and "\0" not in data and all(
                    ln.count("\t") == arity - 1 for ln in lines):
                prefix = name + '("'
                chunks.append("\n".join(prefix + ln.replace("\t", '","') + '").'
                                        for ln in lines))
                count += len(lines)
                continue
        rows = read_tsv(path, rel.kinds, program.records, delimiter=delim, headers=headers,
                        span=rel.input_span)
        if arity == 0:
            if rows:
                chunks.append(name + ".")
                count += 1
            continue
        recs = program.records
        chunks.append("\n".join(
            name + "(" + ",".join(_value_text(v, k, recs)
                                  for v, k in zip(row, rel.kinds, strict=False)) + ")."
            for row in rows))
        count += len(rows)
    return "\n".join(c for c in chunks if c) + "\n", count


# --- model read-back ----------------------------------------------------------------------------

_FLAT_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"|(-?\d+)')


def _parse_general(s: str, pos: int) -> tuple[object, int]:
    """Parse one clingo term printed by str() (strings, ints, nil, tuples) without recursion."""
    stack: list[list] = []
    while True:
        c = s[pos]
        if c == "(":
            stack.append([])
            pos += 1
            if s[pos] == ")":
                pos += 1
                value: object = ()
                stack.pop()
            else:
                continue
        elif c == '"':
            end = pos + 1
            while s[end] != '"':
                end += 2 if s[end] == "\\" else 1
            value = _unquote(s[pos + 1:end])
            pos = end + 1
        else:
            m = re.compile(r"-?\d+|[a-z_][A-Za-z0-9_']*|#sup|#inf").match(s, pos)
            if m is None:
                raise EngineError(f"cannot read clingo term {s!r}")
            tok = m.group()
            pos = m.end()
            value = int(tok) if tok[0] in "-0123456789" else (None if tok == "nil" else tok)
        while True:
            if not stack:
                return value, pos
            stack[-1].append(value)
            if s[pos] == ",":
                pos += 1
                if s[pos] == ")":  # unary tuple `(x,)`
                    pos += 1
                    value = tuple(stack.pop())
                    continue
                break
            if s[pos] == ")":
                pos += 1
                value = tuple(stack.pop())
                continue
            raise EngineError(f"cannot read clingo term {s!r}")


def parse_atom_args(text: str, kinds: list[object]) -> Row:
    """Arguments of a shown atom's str() as a typed row."""
    start = text.find("(")
    if start < 0:
        return ()
    if "\\" not in text and text.count('"') == 2 * len(kinds) and all(k == "s" for k in kinds):
        return tuple(text[start + 2:-2].split('","'))
    if all(k == "s" or k == "i" for k in kinds):
        vals = _FLAT_ARG.findall(text, start)
        if len(vals) == len(kinds):
            return tuple(_unquote(sv) if k == "s" else int(iv)
                         for (sv, iv), k in zip(vals, kinds, strict=False))
    # general path: records / tuples
    pos = start + 1
    out: list[object] = []
    for i in range(len(kinds)):
        v, pos = _parse_general(text, pos)
        out.append(v)
        pos += 1 if i < len(kinds) - 1 else 0
    return tuple(out)


# --- run ----------------------------------------------------------------------------------------


def run_clingo(program: Program, facts_dir: Path, outputs: list[str],
               rules: str | None = None) -> dict[str, list[Row]]:
    """Ground and solve program + facts; return the shown output relations as typed rows.

    `rules` is translate_rules(program) when the caller has it cached.
    """
    import clingo

    try:
        if rules is None:
            rules = translate_rules(program)
        facts, _n = facts_text(program, facts_dir)
    except RecursionError:
        raise EngineError("a term or record value is nested too deeply to translate") from None
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
        del rules
        ctl.add("base", [], facts)
        del facts
        ctl.ground([("base", [])])
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
            rows[name] = _read_relation(cname, strs, program.relations[name].kinds)
    return rows


def _read_relation(cname: str, strs: list[str], kinds: list[object]) -> list[Row]:
    """Typed rows of one relation from its atoms' str(); all-symbol rows take a bulk fast path."""
    arity = len(kinds)
    if arity and all(k == "s" for k in kinds):
        blob = "\n".join(strs)
        if "\\" not in blob and blob.count('"') == 2 * arity * len(strs):
            plen = len(cname) + 2
            if arity == 1:
                return [(x[plen:-2],) for x in strs]
            return [tuple(x[plen:-2].split('","')) for x in strs]
    return [parse_atom_args(x, kinds) for x in strs]


def check_number(text: str) -> int:
    """Validate a number cell (exposed for tests)."""
    return parse_number(text)
