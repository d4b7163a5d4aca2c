"""The dynamic oracle's two halves: record the ref accesses a run makes, check them statically."""

from __future__ import annotations

from extractor.relay import ast as A


def access_recorder():
    """An interpreter observer recording each access with its cell's site and last write."""
    site: dict[int, A.RefCreate] = {}
    last_write: dict[int, A.RefWrite] = {}
    accesses: list[tuple[A.Expr, A.RefCreate, A.RefWrite | None]] = []
    keep_alive: list[object] = []

    def observer(event: str, node: A.Expr, cell: object) -> None:
        keep_alive.append(cell)
        if event == "create":
            site[id(cell)] = node  # type: ignore[assignment]
        elif event == "read":
            accesses.append((node, site[id(cell)], last_write.get(id(cell))))
        else:
            accesses.append((node, site[id(cell)], None))
            last_write[id(cell)] = node  # type: ignore[assignment]

    return observer, accesses


def check_accesses(result, accesses, name: str) -> None:
    """Every observed access, alias and write->read flow of one run is statically allowed."""
    ids = result.extraction.ids
    pts: dict[str, set[str]] = {}
    for n, o in result.relations["pts"]:
        pts.setdefault(n, set()).add(o)
    demanded = {x for k, x, _ in result._why if k == "used"} | {
        x for k, x, _ in result._roots if k == "used"}
    demanded_writes = {x for k, x, _ in result._why if k == "write"}
    aliases = set(result.relations["may_alias"])
    holders: dict[str, set[str]] = {}
    for node, cell_site, seen_write in accesses:
        ref = node.ref  # type: ignore[attr-defined]
        ref_id, site_id = ids.id(ref), ids.id(cell_site)
        assert site_id in pts.get(ref_id, set()), (
            f"{name}: {result.describe(ids.id(node))} touched the cell made by "
            f"{result.describe(site_id)}, which the analysis says {ref_id} cannot point to")
        if isinstance(ref, A.Var):
            holders.setdefault(site_id, set()).add(ref_id)
        if isinstance(node, A.RefRead) and seen_write is not None \
                and ids.id(node) in demanded:
            assert ids.id(seen_write) in demanded_writes, (
                f"{name}: demanded {result.describe(ids.id(node))} read the value of "
                f"{result.describe(ids.id(seen_write))}, which the analysis calls dead")
    for vars_ in holders.values():
        for a in vars_:
            for b in vars_:
                assert a == b or (a, b) in aliases, (name, a, b)
