"""Value types shared by every layer: turns, memories, hits and contexts."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from logicmem.prompting import block, one_line

CATEGORIES: tuple[str, ...] = (
    "personal background",
    "assets",
    "past experiences",
    "states",
    "opinions",
    "goals",
    "plans",
    "social relationships",
    "others",
)
"""The nine IMLogic memory categories (seed rootmem-imlogic.md, Table 1)."""

Role = Literal["user", "assistant", "other"]
Status = Literal["active", "superseded"]


@dataclass(frozen=True)
class Scope:
    """Who a memory belongs to. ``user_id`` is required; agent and run narrow it as in mem0."""

    user_id: str
    agent_id: str | None = None
    run_id: str | None = None


@dataclass
class Turn:
    """One raw conversation turn, stored verbatim before any extraction."""

    user_id: str
    session_id: str
    turn_id: str
    speaker: str
    text: str
    role: Role = "user"
    said_at: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    seq: int = 0


@dataclass
class MemoryEntry:
    """A stored memory: one third-person statement with its provenance."""

    id: str
    user_id: str
    text: str
    category: str = "others"
    said_at: str | None = None
    session_id: str | None = None
    source_turns: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    status: Status = "active"
    superseded_by: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    created_at: str = ""
    updated_at: str = ""
    # Truth over time: valid from when it was said until a later statement replaced it
    # (None: still valid). A memory is active exactly while valid_until is None.
    valid_from: str | None = None
    valid_until: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Hit:
    """One retrieval result, whatever route or backend produced it.

    ``score_kind`` says what ``score`` means (``cosine``, ``bm25``, ``hybrid``...), so
    scores from different routes are never compared by accident.
    """

    id: str
    text: str
    score: float
    score_kind: str
    route: str
    reason: str
    source_turns: list[str] = field(default_factory=list)
    session_id: str | None = None
    category: str = "others"
    said_at: str | None = None
    rank: int = 0
    extras: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SearchResult:
    """Ranked hits plus the budget and method that produced them."""

    query: str
    user_id: str
    method: str
    k: int
    hits: list[Hit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "user_id": self.user_id,
            "method": self.method,
            "budget": {"k": self.k},
            "hits": [h.to_dict() for h in self.hits],
        }


@dataclass
class ContextItem:
    """One item of an assembled context: a memory, the route that put it there, and why."""

    memory_id: str
    text: str
    route: str
    reason: str
    score: float
    score_kind: str
    source_turns: list[str]
    session_id: str | None
    said_at: str | None
    category: str
    tokens: int
    note: str = ""
    """What time has changed since it was said (``context.time_note``): a stated term that
    has ended ("said to hold until 2024-03-31; that day has passed"), a person's age now ("2
    years since said: 6 then, 8 or 9 now"); empty when nothing."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Budget:
    """What a context may hold: at most ``k`` items and, if set, ``max_tokens`` tokens."""

    k: int = 30
    max_tokens: int | None = None


@dataclass
class Context:
    """A budgeted, deduplicated context with provenance for every item."""

    query: str
    user_id: str
    budget: Budget
    items: list[ContextItem]
    routes: dict[str, int]
    dropped: dict[str, int]

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)

    def render(self) -> str:
        """Prompt text: a ``<memories>`` block, one JSON line per memory (``n``, ``text``,
        ``said`` where a date is known, ``now`` what time has changed since, ``why`` it was
        recalled); see ``logicmem.prompting``."""
        if not self.items:
            return "(no stored memories about this user)"
        records = (
            {
                "n": i,
                "text": it.text,
                "said": it.said_at,
                **({"now": it.note} if it.note else {}),
                "why": one_line(it.reason),
            }
            for i, it in enumerate(self.items, 1)
        )
        return block("memories", records)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "user_id": self.user_id,
            "budget": {"k": self.budget.k, "max_tokens": self.budget.max_tokens},
            "tokens": self.tokens,
            "routes": self.routes,
            "dropped": self.dropped,
            "items": [i.to_dict() for i in self.items],
        }


@dataclass
class AddResult:
    """What ``Memory.add`` did: turns stored, memories added/merged/superseded, failures."""

    turns: list[str]
    added: list[MemoryEntry] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    extractor: str = ""
    failures: int = 0
    # Requests to forget ("forget my address") that found no memory to close: what they
    # name was not found, or not told apart from another ("forget my medication" with two
    # drugs taken). Their ids: the assistant should say so, ask, or ``delete`` by id.
    unmatched_forgets: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "added": [m.to_dict() for m in self.added],
            "merged": self.merged,
            "superseded": self.superseded,
            "extractor": self.extractor,
            "failures": self.failures,
            "unmatched_forgets": self.unmatched_forgets,
        }
