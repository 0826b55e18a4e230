"""The bench's methods: every retrieval method in ``routes.base.METHODS``, plus two more.

``full`` puts every active memory in context whatever k is (the reference, not a
contender) and ``context`` is the system's own ``Memory.context()`` with whatever routes
are enabled. A method registered in METHODS later is a bench method with no change here.
"""

from __future__ import annotations

from dataclasses import dataclass

from logicmem.context import estimate_tokens
from logicmem.errors import InputError
from logicmem.memory import Memory
from logicmem.routes.base import METHODS
from logicmem.types import Hit

SPECIAL = ("full", "context")


@dataclass
class Item:
    """One context item as the bench sees it: text and provenance."""

    memory_id: str
    text: str
    source_turns: list[str]
    session_id: str | None
    said_at: str | None
    tokens: int
    route: str

    @classmethod
    def of_hit(cls, h: Hit) -> Item:
        return cls(
            h.id,
            h.text,
            list(h.source_turns),
            h.session_id,
            h.said_at,
            estimate_tokens(h.text),
            h.route,
        )


class BenchMethod:
    """Retrieves at most k items (or all, when ``k_independent``) for a query."""

    k_independent = False
    query_independent = False

    def __init__(self, name: str) -> None:
        self.name = name
        # The offline builders this method reads from; the engine runs them after ingest.
        target = METHODS.resolve(name) if name in METHODS else None
        self.consolidators: tuple[str, ...] = getattr(target, "consolidators", ())
        # A budget-free method (the always-visible profile) gives one whole context per store.
        if getattr(target, "budget_free", False):
            self.k_independent = self.query_independent = True

    def retrieve(self, mem: Memory, query: str, user_id: str, k: int) -> list[Item]:
        hits = mem.search(query, user_id=user_id, k=k, method=self.name).hits
        return [Item.of_hit(h) for h in (hits if self.k_independent else hits[:k])]


class FullMethod(BenchMethod):
    k_independent = True
    query_independent = True

    def retrieve(self, mem: Memory, query: str, user_id: str, k: int) -> list[Item]:
        return [
            Item(
                m.id,
                m.text,
                list(m.source_turns),
                m.session_id,
                m.said_at,
                estimate_tokens(m.text),
                "full",
            )
            for m in mem.get_all(user_id=user_id)
        ]


class ContextMethod(BenchMethod):
    def retrieve(self, mem: Memory, query: str, user_id: str, k: int) -> list[Item]:
        ctx = mem.context(query, user_id=user_id, k=k)
        return [
            Item(
                i.memory_id,
                i.text,
                list(i.source_turns),
                i.session_id,
                i.said_at,
                i.tokens,
                i.route,
            )
            for i in ctx.items
        ]


def available() -> list[str]:
    """Every method name ``--methods`` accepts, registry first."""
    return [n for n in METHODS.names() if n not in SPECIAL] + list(SPECIAL)


def resolve(names: list[str]) -> list[BenchMethod]:
    """Bench methods for ``names`` (order kept, duplicates dropped)."""
    names = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    if not names:
        raise InputError(f"no methods given: choose among {', '.join(available())}")
    unknown = [n for n in names if n not in available()]
    if unknown:
        raise InputError(
            f"unknown method(s) {', '.join(unknown)}: choose among {', '.join(available())}"
        )
    out: list[BenchMethod] = []
    for name in names:
        if name == "full":
            out.append(FullMethod(name))
        elif name == "context":
            out.append(ContextMethod(name))
        else:
            out.append(BenchMethod(name))
    return out
