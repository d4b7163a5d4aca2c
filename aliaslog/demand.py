"""The demand graph both IRs read back (dem_edge, dem_root of liveness.dl): why a binding is
kept, as the shortest chain of demands from it to a root, in words. Each IR says what a node
is (`describe`); the chain and its wording are shared."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .pipeline import Reason

Item = tuple[str, str, int]  # a demand item: (kind, node id, field)

ITEM_TEXT = {
    "live": "the whole value of {what} is needed",
    "used": "the value of {what} is used",
    "lfield": "field {i} of {what} is needed",
    "ufield": "field {i} of {what} is used",
    "lcell": "the content of the cell made by {what} is needed",
    "ucell": "the content of the cell made by {what} is read",
    "write": "the value stored by {what} may be read",
    "effect": "evaluating {what} has a demanded effect",
    "mem": "the memory of {what} is needed",
}


@dataclass
class DemandGraph:
    """Each demanded item's successors toward a root, and the roots with their reasons."""

    why: dict[Item, list[Item]] = field(default_factory=dict)
    roots: dict[Item, str] = field(default_factory=dict)

    @staticmethod
    def of(edges: Iterable[tuple], roots: Iterable[tuple]) -> DemandGraph:
        """From dem_edge rows (k, x, i, k2, x2, i2) and dem_root rows (k, x, i, why)."""
        g = DemandGraph()
        for k, x, i, k2, x2, i2 in edges:
            g.why.setdefault((k, x, int(i)), []).append((k2, x2, int(i2)))
        for k, x, i, why in roots:
            g.roots[(k, x, int(i))] = why
        return g

    def chain(self, start: Item) -> list[Item]:
        """The shortest path in the demand graph from start to a root (BFS); [start] if none."""
        prev: dict[Item, Item | None] = {start: None}
        queue = deque([start])
        while queue:
            item = queue.popleft()
            if item in self.roots:
                path = []
                cur: Item | None = item
                while cur is not None:
                    path.append(cur)
                    cur = prev[cur]
                return path[::-1]
            for nxt in self.why.get(item, ()):
                if nxt not in prev:
                    prev[nxt] = item
                    queue.append(nxt)
        return [start]

    def text(self, item: Item, describe: Callable[[str], str]) -> str:
        """One demand in words, with the root's reason when it is one."""
        kind, nid, i = item
        words = ("memory from outside may read it" if (kind, nid) == ("mem", "$opaque") else
                 ITEM_TEXT[kind].format(what=describe(nid), i=i))
        root = self.roots.get(item)
        return f"{words} ({root})" if root else words


def best_reason(reasons: list[Reason]) -> Reason:
    """The reason an explanation starts from: an effect, else a demand, else a mention."""
    order = {"effect": 0, "demanded": 1, "referenced": 2}
    return min(reasons, key=lambda r: (order.get(r.reason, 9), r.witness))


def start_of(reason: Reason) -> Item:
    """The demand item a keep reason starts the chain at."""
    return ("used", reason.witness, -1) if reason.reason == "demanded" else (
        "effect", reason.witness, -1)
