"""Recursive-descent parser of the Soufflé subset: tokens to the syntax tree of `ast`."""

from __future__ import annotations

from aliaslog.engines.base import EngineError
from aliaslog.engines.dialect.ast import (
    Aggregate,
    Atom,
    BinOp,
    BoolLit,
    Call,
    Clause,
    CompDecl,
    Constraint,
    Decl,
    InitDecl,
    IODirective,
    Neg,
    Nil,
    Num,
    Override,
    Plan,
    Record,
    Str,
    TypeDecl,
    UnOp,
    Var,
    Wildcard,
)
from aliaslog.engines.dialect.preprocess import Token
from extractor.diagnostics import Span

_QUALIFIERS_IGNORED = {"brie", "btree", "btree_delete", "inline", "no_inline", "magic", "no_magic",
                       "overridable"}
_QUALIFIERS_IO = {"input", "output", "printsize"}
# intrinsic functors translated, with the argument counts Soufflé accepts
_FUNCTORS = {"cat": range(1, 1000), "strlen": (1,), "substr": (3,), "to_number": (1,),
             "to_string": (1,), "range": (2, 3)}
_FUNCTOR_KEYWORDS = {"cat", "ord", "range", "strlen", "substr", "to_float", "to_number",
                     "to_string", "to_unsigned", "match", "contains", "autoinc", "mean",
                     "lnot", "land", "lor", "lxor", "bshl", "bshr", "bshru", "stateful",
                     "recursive_iteration_cnt", "debug_delta", "choice", "eqrel"}
_RESERVED = _FUNCTOR_KEYWORDS | {"count", "sum", "min", "max", "nil", "true", "false", "as",
                                 "band", "bor", "bxor", "bnot"}
# A pragma sets the command-line option of its key, unless the command line sets it. Options
# of evaluation strategy and diagnostics (magic-transform, inline-exclude, jobs, profile,
# suppress-warnings, ...) do not change any relation, and fact-dir / output-dir are always
# given by solve(), as on Soufflé's command line; provenance changes what is computed.
PRAGMAS_REJECTED = {"provenance"}
_CMP = {"=", "!=", "<", "<=", ">", ">="}


class _Backtrack(Exception):
    """Internal: a speculative parse did not apply."""


class Parser:
    """Recursive-descent parser of the Soufflé subset (nesting depth is bounded and reported)."""

    MAX_NESTING = 60

    def __init__(self, tokens: list[Token], lenient: bool = False) -> None:
        self.toks = tokens
        self.i = 0
        self.lenient = lenient
        self.skipped: list[EngineError] = []
        self._depth = 0

    # helpers ---------------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def at(self, value: str, kind: str | None = None) -> bool:
        t = self.toks[self.i]
        return t.value == value and (kind is None or t.kind == kind) and t.kind != "str"

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def expect(self, value: str) -> Token:
        if not self.at(value):
            self.error(f"expected `{value}`")
        return self.advance()

    def error(self, msg: str, tok: Token | None = None):
        t = tok or self.tok
        found = "end of input" if t.kind == "eof" else f"`{t.value}`"
        raise EngineError(f"{msg}, found {found}", t.span)

    def unsupported(self, what: str, tok: Token | None = None):
        t = tok or self.tok
        raise EngineError(f"unsupported Soufflé construct `{what}`", t.span)

    def ident(self, what: str = "a name") -> Token:
        t = self.tok
        if t.kind != "id":
            self.error(f"expected {what}")
        return self.advance()

    def _enter(self) -> None:
        self._depth += 1
        if self._depth > self.MAX_NESTING:
            raise EngineError(f"expression nested deeper than {self.MAX_NESTING} levels",
                              self.tok.span)

    # items -----------------------------------------------------------------------------------
    def parse_program(self) -> list:
        items = self._items(top=True)
        return items

    def _items(self, top: bool) -> list:
        items: list = []
        while True:
            t = self.tok
            if t.kind == "eof":
                if not top:
                    self.error("expected `}` closing the component")
                return items
            if not top and t.value == "}" and t.kind == "p":
                return items
            start = self.i
            try:
                item = self._item()
            except EngineError as exc:
                if not self.lenient:
                    raise
                self.skipped.append(exc)
                self.i = start
                self._skip_statement()
                continue
            if isinstance(item, list):  # execution plans of the rule before them
                if not items or not isinstance(items[-1], Clause) or items[-1].body is None:
                    raise EngineError("`.plan` must follow a rule", item[0].span)
                items[-1].plans.extend(item)
            elif item is not None:
                items.append(item)

    def _skip_statement(self) -> None:
        """Lenient mode: skip to the end of the current statement (`.` at bracket depth 0)."""
        depth = 0
        first = True
        while self.tok.kind != "eof":
            t = self.tok
            if t.kind == "dir" and not first and depth == 0:
                return
            self.advance()
            first = False
            if t.kind == "p":
                if t.value in "([{":
                    depth += 1
                elif t.value in ")]}":
                    depth -= 1
                    if depth < 0:
                        return
                elif t.value == "." and depth == 0:
                    return

    def _item(self):
        t = self.tok
        if t.kind == "dir":
            d = t.value
            if d == ".type":
                return self._type_decl()
            if d in (".number_type", ".symbol_type"):
                self.advance()
                name = self.ident("a type name")
                base = "number" if d == ".number_type" else "symbol"
                return TypeDecl(name.value, "sub", [base], [], t.span)
            if d == ".decl":
                return self._decl()
            if d in (".input", ".output", ".printsize"):
                return self._io()
            if d == ".comp":
                return self._comp()
            if d == ".init":
                return self._init()
            if d == ".override":
                self.advance()
                name = self.ident("a relation name")
                return Override(name.value, t.span)
            if d == ".pragma":
                return self._pragma()
            if d == ".plan":
                return self._plans()
            self.unsupported(d)
        if t.kind == "id":
            return self._clause()
        self.error("expected a declaration or a rule")

    def _plans(self) -> list[Plan]:
        """`.plan 0:(2,1), 1:(1,2)`, attached by _items to the rule before it."""
        self.advance()
        plans: list[Plan] = []
        while True:
            v = self.tok
            if v.kind != "num":
                self.error("expected a version number in `.plan`")
            self.advance()
            self.expect(":")
            self.expect("(")
            order: list[int] = []
            while self.tok.kind == "num":
                order.append(int(self.advance().value))
                if not self.at(","):
                    break
                self.advance()
            self.expect(")")
            plans.append(Plan(int(v.value), order, v.span))
            if not self.at(","):
                return plans
            self.advance()

    def _pragma(self) -> None:
        """`.pragma "key" "value"` sets a command-line option; see PRAGMAS_REJECTED."""
        start = self.advance()
        key = self.tok
        if key.kind != "str":
            self.error("expected a pragma key string")
        self.advance()
        if self.tok.kind == "str":
            self.advance()
        if key.value in PRAGMAS_REJECTED:
            self.unsupported(f'.pragma "{key.value}"', start)
        return None

    def _qualified_type(self) -> str:
        t = self.ident("a type name")
        if t.value in ("unsigned", "float"):
            self.unsupported(f"{t.value} type", t)
        return t.value

    def _type_decl(self) -> TypeDecl:
        start = self.advance()
        name = self.ident("a type name")
        if not (self.at("<:") or self.at("=")):  # `.type T` alone: a subtype of symbol
            return TypeDecl(name.value, "sub", ["symbol"], [], start.span)
        if self.at("<:"):
            self.advance()
            base = self._qualified_type()
            return TypeDecl(name.value, "sub", [base], [], start.span)
        self.expect("=")
        if self.at("["):
            self.advance()
            fields, ftypes = [], []
            while not self.at("]"):
                fname = self.ident("a field name")
                self.expect(":")
                fields.append(fname.value)
                ftypes.append(self._qualified_type())
                if not self.at(","):
                    break
                self.advance()
            self.expect("]")
            return TypeDecl(name.value, "record", ftypes, fields, start.span)
        if self.at("$") or (self.tok.kind == "id" and self.toks[self.i + 1].value == "{"):
            self.unsupported("algebraic data type")
        members = [self._qualified_type()]
        while self.at("|"):
            self.advance()
            if self.tok.kind == "id" and self.toks[self.i + 1].value == "{":
                self.unsupported("algebraic data type")
            members.append(self._qualified_type())
        if len(members) == 1:
            return TypeDecl(name.value, "alias", members, [], start.span)
        return TypeDecl(name.value, "union", members, [], start.span)

    def _decl(self) -> Decl:
        start = self.advance()
        names = [self.ident("a relation name").value]
        if self.at("="):
            self.unsupported("debug_delta relation")
        while self.at(","):
            self.advance()
            names.append(self.ident("a relation name").value)
        self.expect("(")
        attrs: list[tuple[str, str]] = []
        while not self.at(")"):
            aname = self.ident("an attribute name")
            self.expect(":")
            attrs.append((aname.value, self._qualified_type()))
            if self.at("<") and self.toks[self.i + 1].value == "-":
                self.unsupported("lattice attribute")
            if not self.at(","):
                break
            self.advance()
        self.expect(")")
        quals: list[str] = []
        while self.tok.kind == "id" and (
            self.tok.value in _QUALIFIERS_IGNORED | _QUALIFIERS_IO
            or self.tok.value in ("eqrel", "choice")
        ):
            q = self.tok
            if q.value == "choice":
                self.unsupported("choice-domain")
            quals.append(self.advance().value)
        return Decl(names, attrs, quals, start.span)

    def _io(self) -> IODirective:
        start = self.advance()
        kind = start.value[1:]
        names, spans = [], []
        t = self.ident("a relation name")
        names.append(t.value)
        spans.append(t.span)
        while self.at(","):
            self.advance()
            t = self.ident("a relation name")
            names.append(t.value)
            spans.append(t.span)
        params: dict[str, str] = {}
        if self.at("("):
            self.advance()
            while not self.at(")"):
                key = self.ident("a parameter name").value
                while self.at("-") and self.toks[self.i + 1].kind == "id":
                    self.advance()
                    key += "-" + self.advance().value
                self.expect("=")
                v = self.tok
                if v.kind not in ("str", "id", "num"):
                    self.error("expected a parameter value")
                params[key] = self.advance().value
                if not self.at(","):
                    break
                self.advance()
            self.expect(")")
        return IODirective(kind, names, params, start.span, spans)

    def _type_args(self) -> list[str]:
        args: list[str] = []
        if self.at("<"):
            self.advance()
            while True:
                args.append(self.ident("a type name").value)
                if self.at(","):
                    self.advance()
                    continue
                break
            self.expect(">")
        return args

    def _comp(self) -> CompDecl:
        start = self.advance()
        name = self.ident("a component name").value
        params = self._type_args()
        bases: list[tuple[str, list[str], Span]] = []
        if self.at(":"):
            self.advance()
            while True:
                b = self.ident("a base component name")
                bases.append((b.value, self._type_args(), b.span))
                if self.at(","):
                    self.advance()
                    continue
                break
        self.expect("{")
        self._enter()
        items = self._items(top=False)
        self._depth -= 1
        self.expect("}")
        return CompDecl(name, params, bases, items, start.span)

    def _init(self) -> InitDecl:
        start = self.advance()
        inst = self.ident("an instance name").value
        self.expect("=")
        comp = self.ident("a component name").value
        args = self._type_args()
        return InitDecl(inst, comp, args, start.span)

    # clauses ---------------------------------------------------------------------------------
    def _clause(self) -> Clause:
        start = self.tok
        heads = [self._atom()]
        while self.at(","):
            self.advance()
            heads.append(self._atom())
        if self.at("<="):
            self.unsupported("subsumption `<=`")
        if self.at("."):
            self.advance()
            return Clause(heads, None, start.span)
        self.expect(":-")
        body = self._disjunction()
        if not self.at("."):
            self.error("expected `.` ending the rule")
        self.advance()
        return Clause(heads, body, start.span)

    def _atom(self) -> Atom:
        name = self.tok
        if name.kind != "id":
            self.error("expected a relation name")
        if name.value in _RESERVED:
            self.unsupported(name.value)
        self.advance()
        if not self.at("("):
            self.error(f"expected `(` after relation name `{name.value}`")
        self.advance()
        args = []
        while not self.at(")"):
            args.append(self._term())
            if not self.at(","):
                break
            self.advance()
        self.expect(")")
        return Atom(name.value, args, name.span)

    def _disjunction(self) -> list[list]:
        self._enter()
        alts = self._conjunction()
        while self.at(";"):
            self.advance()
            alts = alts + self._conjunction()
        self._depth -= 1
        return alts

    def _conjunction(self) -> list[list]:
        """A conjunction, already multiplied out into DNF alternatives."""
        alts: list[list] = [[]]
        while True:
            lit_alts = self._literal()
            alts = [a + b for a in alts for b in lit_alts]
            if len(alts) > 4096:
                raise EngineError("rule body expands to more than 4096 disjuncts", self.tok.span)
            if not self.at(","):
                return alts
            self.advance()

    def _literal(self) -> list[list]:
        t = self.tok
        if self.at("!"):
            self.advance()
            if self.at("("):
                self.unsupported("negation of a parenthesised body")
            if self.tok.kind == "id" and self.tok.value in ("match", "contains"):
                test = self._string_test()
                return [[Constraint("not_" + test.op, test.left, test.right, t.span)]]
            if self.tok.kind == "id" and self.toks[self.i + 1].value == "(":
                atom = self._atom()
                return [[Neg(atom, t.span)]]
            self.error("expected an atom after `!`")
        if t.kind == "id" and t.value in ("true", "false"):
            self.advance()
            return [[BoolLit(t.value == "true", t.span)]]
        if t.kind == "id" and t.value not in _RESERVED and self.toks[self.i + 1].value == "(" \
                and self.toks[self.i + 1].kind == "p":
            return [[self._atom()]]
        if t.kind == "id" and t.value in ("match", "contains") and self._at_call():
            return [[self._string_test()]]
        if self.at("("):
            start, depth = self.i, self._depth
            try:
                return [[self._constraint()]]
            except (EngineError, _Backtrack):
                self.i, self._depth = start, depth
            self.advance()
            alts = self._disjunction()
            self.expect(")")
            return alts
        return [[self._constraint()]]

    def _string_test(self) -> Constraint:
        """`match(pattern, text)` / `contains(part, text)` as a two-place constraint."""
        t = self.advance()
        args = self._args()
        if len(args) != 2:
            raise EngineError(f"`{t.value}` takes 2 arguments, given {len(args)}", t.span)
        return Constraint(t.value, args[0], args[1], t.span)

    def _constraint(self) -> Constraint:
        left = self._term()
        op = self.tok
        if op.kind != "p" or op.value not in _CMP:
            self.error("expected a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`)")
        self.advance()
        right = self._term()
        return Constraint(op.value, left, right, op.span)

    # terms: precedence climbing --------------------------------------------------------------
    # Soufflé's precedence (parser.yy), loosest first; `^` binds tighter than unary minus
    _LEVELS: list[tuple[str, ...]] = [("lor",), ("lxor",), ("land",), ("bor",), ("bxor",),
                                      ("band",), ("bshl", "bshr", "bshru"), ("+", "-"),
                                      ("*", "/", "%")]
    _CALL_OPS = {"lor", "lxor", "land", "bshl", "bshr", "bshru"}

    def _term(self, level: int = 0):
        if level == 0:
            self._enter()
        try:
            if level == len(self._LEVELS):
                return self._unary()
            left = self._term(level + 1)
            while True:
                t = self.tok
                if (t.kind == "p" or t.kind == "id") and t.value in self._LEVELS[level]:
                    self.advance()
                    right = self._term(level + 1)
                    if t.value in self._CALL_OPS:
                        left = Call(t.value, [left, right], t.span)
                    else:
                        left = BinOp(t.value, left, right, t.span)
                    continue
                return left
        finally:
            if level == 0:
                self._depth -= 1

    def _unary(self):
        t = self.tok
        if self.at("-", "p"):
            self.advance()
            arg = self._unary()
            if isinstance(arg, Num):
                return Num(-arg.value, t.span)
            return UnOp("-", arg, t.span)
        if t.kind == "id" and t.value == "bnot":
            self.advance()
            return UnOp("bnot", self._unary(), t.span)
        if t.kind == "id" and t.value == "lnot":
            self.advance()
            return Call("lnot", [self._unary()], t.span)
        base = self._primary()
        if self.at("^", "p"):
            op = self.advance()
            self._enter()
            exp = self._unary()
            self._depth -= 1
            return BinOp("^", base, exp, op.span)
        return base

    def _primary(self):
        t = self.tok
        if t.kind == "num":
            self.advance()
            v = t.value
            if v.endswith("u"):
                self.unsupported("unsigned constant", t)
            if v.startswith("0x"):
                n = int(v, 16)
            elif v.startswith("0b"):
                n = int(v[2:], 2)
            else:
                n = int(v)
            if n > 2**31 - 1 and not (v.startswith("0x") or v.startswith("0b")) \
                    and n != 2**31:
                raise EngineError(f"number constant {v} out of 32-bit range", t.span)
            if n >= 2**31 and (v.startswith("0x") or v.startswith("0b")):
                if n >= 2**32:
                    raise EngineError(f"number constant {v} out of 32-bit range", t.span)
                n -= 2**32
            return Num(n, t.span)
        if t.kind == "float":
            self.unsupported("float constant", t)
        if t.kind == "ip":
            self.unsupported("IP address constant", t)
        if t.kind == "str":
            self.advance()
            return Str(t.value, t.span)
        if t.kind == "p":
            if t.value == "(":
                self.advance()
                inner = self._term()
                if not self.at(")"):
                    raise _Backtrack()
                self.advance()
                return inner
            if t.value == "[":
                self.advance()
                items = []
                while not self.at("]"):
                    items.append(self._term())
                    if not self.at(","):
                        break
                    self.advance()
                self.expect("]")
                return Record(items, t.span)
            if t.value == "$":
                self.unsupported("$ (algebraic data type branch)")
            if t.value in ("@", "@!"):
                nxt = self.toks[self.i + 1]
                self.unsupported(t.value + (nxt.value if nxt.kind == "id" else ""))
            self.error("expected a term")
        if t.kind == "id":
            v = t.value
            if v == "_":
                self.advance()
                return Wildcard(t.span)
            if v == "nil":
                self.advance()
                return Nil(t.span)
            if v in ("min", "max") and self._at_call():
                call = self._minmax_functor()
                if call is not None:
                    return call
            if v in ("count", "sum", "min", "max"):
                return self._aggregate()
            if v in _FUNCTORS and self._at_call():
                return self._functor()
            if v == "as" and self.toks[self.i + 1].value == "(":
                self.advance()
                self.advance()
                inner = self._term()
                self.expect(",")
                ty = self.ident("a type name")
                if ty.value in ("float", "unsigned"):
                    self.unsupported(f"{ty.value} type", ty)
                self.expect(")")
                return inner
            if v in _FUNCTOR_KEYWORDS:
                self.unsupported(v)
            if self.toks[self.i + 1].value == "(" and self.toks[self.i + 1].kind == "p":
                raise EngineError(f"unexpected atom `{v}(...)` where a term is expected", t.span)
            self.advance()
            if "." in v:
                raise EngineError(f"`{v}` is not a valid variable name", t.span)
            return Var(v, t.span)
        self.error("expected a term")

    def _at_call(self) -> bool:
        nxt = self.toks[self.i + 1]
        return nxt.kind == "p" and nxt.value == "("

    def _args(self) -> list:
        self.expect("(")
        args = []
        while not self.at(")"):
            args.append(self._term())
            if not self.at(","):
                break
            self.advance()
        self.expect(")")
        return args

    def _functor(self) -> Call:
        t = self.advance()
        args = self._args()
        want = _FUNCTORS[t.value]
        if len(args) not in want:
            raise EngineError(f"`{t.value}` takes {' or '.join(map(str, want))} arguments, "
                              f"given {len(args)}", t.span)
        return Call(t.value, args, t.span)

    def _minmax_functor(self) -> Call | None:
        """`max(a, b, ...)` is a functor; `max (x) : {...}` an aggregate (None: not a functor)."""
        start, depth = self.i, self._depth
        t = self.advance()
        self.advance()
        try:
            first = self._term()
        except (EngineError, _Backtrack):
            self.i, self._depth = start, depth
            return None
        if not self.at(","):
            self.i, self._depth = start, depth
            return None
        args = [first]
        while self.at(","):
            self.advance()
            args.append(self._term())
        self.expect(")")
        return Call(t.value, args, t.span)

    def _aggregate(self) -> Aggregate:
        t = self.advance()
        expr = None
        if t.value != "count":
            expr = self._term()
        self.expect(":")
        if self.at("{"):
            self.advance()
            alts = self._disjunction()
            self.expect("}")
        else:
            alts = [[self._atom()]]
        if len(alts) != 1:
            self.unsupported("disjunction inside an aggregate", t)
        return Aggregate(t.value, expr, alts[0], t.span)
