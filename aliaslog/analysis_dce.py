"""Analysis-guided DCE: drop exactly the let bindings the analysis proves removable."""

from __future__ import annotations

from extractor.relay import ast as A

from .analysis import AnalysisResult


class _Remover(A.ExprMutator):
    """Rebuilds the program without removable lets; sharing is preserved by the memo."""

    def __init__(self, remove: set[int]) -> None:
        super().__init__()
        self.remove = remove

    def visit_Let(self, e: A.Let) -> A.Expr:
        lets, body = A.let_chain(e)
        parts = [
            (let, self.visit(let.var), self.visit(let.value))
            for let in lets
            if id(let) not in self.remove
        ]
        out = self.visit(body)
        for old, v, val in reversed(parts):
            if v is old.var and val is old.value and out is old.body:
                out = old
            else:
                out = A.Let(v, val, out, span=old.span)  # type: ignore[arg-type]
        return out


def remove_bindings(mod: A.Module, result: AnalysisResult) -> A.Module:
    """mod without the bindings `result` marks removable (every global function)."""
    return remove_lets(mod, {id(let) for let in result.removable()})


def remove_lets(mod: A.Module, remove: set[int]) -> A.Module:
    """mod without the Let nodes whose ids are in `remove`."""
    remover = _Remover(remove)
    fns = {name: remover.visit(fn) for name, fn in mod.functions.items()}
    return A.Module(fns, mod.type_defs, mod.source_name)  # type: ignore[arg-type]
