"""The store interface. SQLite implements it; a PostgreSQL + pgvector backend will too.

A store keeps raw turns, memories (text, provenance, vector), a history row for every
change, and counted events (extraction failures and fallbacks). It knows nothing about
models: vectors arrive computed, and the embedder identity is only recorded and checked.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from logicmem.registry import Registry
from logicmem.types import MemoryEntry, Scope, Turn


@dataclass
class HistoryRow:
    memory_id: str
    event: str
    old_text: str | None
    new_text: str | None
    detail: dict[str, Any]
    at: str


@dataclass
class Criticality:
    """Why a memory is a standing constraint that can change future advice."""

    memory_id: str
    score: float
    ctype: str
    reason: str
    source: str  # "kb", "classifier", "prototype" or "llm"


@dataclass
class MemoryKey:
    """An anticipation key: a situation in which a memory will matter."""

    memory_id: str
    key: str
    kind: str  # "kb" (knowledge resource) or "llm"
    ref: str  # the knowledge entry id, or the model name


@dataclass
class ProfileLine:
    """One line of a user's always-visible profile and the memories it comes from."""

    text: str
    memory_ids: list[str]
    source_turns: list[str]


@dataclass
class Profile:
    """A user's always-visible profile: its lines, how it was built (``llm`` or
    ``extractive``) and its builder's watermark (``state``)."""

    text: str
    version: int
    kind: str
    lines: list[ProfileLine]
    state: dict[str, Any]


@dataclass
class UnitEvidence:
    """One piece of a root unit's evidence: a memory and the short fact taken from it."""

    memory_id: str
    fact: str


@dataclass
class RootUnit:
    """One version of a RootMem root memory unit U = <R, E> (seed rootmem-imlogic.md §4.1).

    R is ``activation`` (when the unit applies) and ``guidance`` (how it should shape a
    response); E is ``evidence``. ``event`` says what made this version (create, enrich,
    refine, merge, merged, prune); ``status`` is active, merged (into ``detail["into"]``)
    or retired (no evidence left).
    """

    unit_id: str
    user_id: str
    activation: str
    guidance: str
    evidence: list[UnitEvidence]
    version: int = 1
    status: str = "active"
    event: str = "create"
    detail: dict[str, Any] = field(default_factory=dict)
    agent_id: str | None = None
    run_id: str | None = None
    at: str = ""


@dataclass
class Quad:
    """A temporal quadruple (subject, relation, object, time) read from one memory (RuleMem)."""

    id: str
    memory_id: str
    subject: str
    relation: str
    object: str
    time: str | None = None
    source: str = "rules"  # the extractor that read it: "llm" or "rules"

    def text(self) -> str:
        return " ".join(p for p in (self.subject, self.relation, self.object) if p)


@dataclass
class HornRule:
    """A natural-language Horn rule ``B1 ∧ … ∧ Bn ⇒ H`` and its RPC validation (RuleMem).

    ``status`` is admitted, rejected or unvalidated (no log-likelihood backend);
    ``support`` counts the reasoning paths it was induced from; ``inducer`` is
    ``template`` or the LLM that wrote it.
    """

    id: str
    user_id: str
    body: list[str]
    head: str
    support: int = 1
    status: str = "unvalidated"
    delta_self: float | None = None
    delta_fact: float | None = None
    score: float | None = None
    source_memories: list[str] = field(default_factory=list)
    inducer: str = "template"
    detail: dict[str, Any] = field(default_factory=dict)
    agent_id: str | None = None
    run_id: str | None = None

    def render(self) -> str:
        return "Rule: " + " ∧ ".join(self.body) + " ⇒ " + self.head


class Store(ABC):
    """Persistence for one logicmem deployment (many users)."""

    read_only: bool = False

    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """All writes inside commit together or not at all (nested use joins the outer one)."""

    @abstractmethod
    def close(self) -> None: ...

    # -- metadata -------------------------------------------------------------------------
    @abstractmethod
    def get_meta(self, key: str) -> str | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    def bind_embedder(self, name: str, dims: int) -> None:
        """Record the embedder on first use; refuse a different one afterwards."""

    # -- turns ----------------------------------------------------------------------------
    @abstractmethod
    def add_turns(self, turns: Sequence[Turn], *, infer: bool = True) -> list[Turn]:
        """Store turns, pending and claimed by this store until ``finish_turns``; returns
        those that were new (a re-sent turn id is ignored)."""

    @abstractmethod
    def claim_pending(self, *, user_id: str | None = None) -> list[tuple[Turn, bool]]:
        """Claim turns an interrupted write left pending (and nobody else is finishing),
        oldest first, each with whether memories are to be inferred from it."""

    @abstractmethod
    def finish_turns(self, turns: Sequence[Turn]) -> None:
        """Mark turns extracted; called inside the transaction that commits their memories."""

    @abstractmethod
    def pending_turns(self) -> int: ...

    @abstractmethod
    def mark_indexed(self, memory_ids: Sequence[str]) -> None:
        """The write hooks have run on these memories."""

    @abstractmethod
    def claim_unindexed(
        self, *, user_id: str | None = None
    ) -> list[tuple[MemoryEntry, np.ndarray]]:
        """Claim memories whose write hooks an interrupted write never finished."""

    @abstractmethod
    def get_turns(self, scope: Scope, session_id: str | None = None) -> list[Turn]: ...

    # -- memories -------------------------------------------------------------------------
    @abstractmethod
    def add_memory(self, entry: MemoryEntry, vector: np.ndarray, detail: dict[str, Any]) -> None:
        """Insert a memory and its ADD history row."""

    @abstractmethod
    def update_memory(
        self,
        memory_id: str,
        *,
        event: str,
        text: str | None = None,
        vector: np.ndarray | None = None,
        source_turns: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        category: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> MemoryEntry:
        """Change a memory and record ``event`` (UPDATE, MERGE...) in its history."""

    @abstractmethod
    def supersede(self, old_id: str, new_id: str, detail: dict[str, Any]) -> None:
        """Close ``old_id`` where ``new_id`` begins: it leaves retrieval, keeps its history."""

    @abstractmethod
    def close_memory(
        self, memory_id: str, *, until: str, by: str | None, event: str, detail: dict[str, Any]
    ) -> None:
        """End a memory's validity at ``until`` (replaced or retracted by ``by``)."""

    @abstractmethod
    def delete_memory(self, memory_id: str, scope: Scope | None = None) -> None:
        """Remove a memory's text everywhere; history keeps a tombstone. With ``scope``, a
        memory outside it is not found."""

    @abstractmethod
    def get_memory(self, memory_id: str, scope: Scope | None = None) -> MemoryEntry | None:
        """The memory; with ``scope``, None unless it belongs to that scope."""

    @abstractmethod
    def list_memories(
        self,
        scope: Scope,
        *,
        include_superseded: bool = False,
        limit: int | None = None,
        offset: int = 0,
        as_of: str | None = None,
    ) -> list[MemoryEntry]:
        """The scope's memories valid now (or at ``as_of``; or all with include_superseded)."""

    @abstractmethod
    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryEntry]: ...

    @abstractmethod
    def history(self, memory_id: str, user_id: str | None = None) -> list[HistoryRow]:
        """The memory's history; with ``user_id``, empty unless the memory is theirs."""

    # -- retrieval primitives -------------------------------------------------------------
    # ``as_of`` (an ISO time) selects the memories valid then; None, those valid now.
    @abstractmethod
    def bm25(
        self, scope: Scope, terms: Sequence[str], limit: int, *, as_of: str | None = None
    ) -> list[tuple[str, float]]:
        """(memory id, BM25 score, higher is better) for memories matching any term; the
        statistics are the scope's own, never another user's."""

    @abstractmethod
    def vectors(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[str], np.ndarray]:
        """Ids and the (n, dims) unit-vector matrix of the scope's memories, in the
        order they were stored (the visible route reads later rows as said more recently)."""

    # -- visibility annotations -----------------------------------------------------------
    @abstractmethod
    def set_criticality(self, user_id: str, rows: Sequence[Criticality]) -> None: ...

    @abstractmethod
    def critical_memories(self, scope: Scope, *, as_of: str | None = None) -> list[Criticality]:
        """Criticality rows of the scope's memories valid now (or at ``as_of``)."""

    @abstractmethod
    def add_keys(self, user_id: str, keys: Sequence[MemoryKey], vectors: np.ndarray) -> None: ...

    @abstractmethod
    def memory_keys(
        self, scope: Scope, *, as_of: str | None = None
    ) -> tuple[list[MemoryKey], np.ndarray]:
        """Anticipation keys of the scope's memories valid now (or at ``as_of``)."""

    @abstractmethod
    def cached_vectors(self, user_id: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors computed earlier for texts derived from this user's memories."""

    @abstractmethod
    def cache_vectors(self, user_id: str, texts: Sequence[str], vectors: np.ndarray) -> None: ...

    @abstractmethod
    def get_profile(self, user_id: str) -> tuple[str, int] | None:
        """The user's always-visible profile text and its version, if any."""

    @abstractmethod
    def set_profile(
        self,
        user_id: str,
        text: str,
        *,
        kind: str = "",
        lines: Sequence[ProfileLine] = (),
        state: dict[str, Any] | None = None,
    ) -> None:
        """Replace the user's profile (text, kind, per-line provenance, watermark) at once."""

    @abstractmethod
    def load_profile(self, user_id: str) -> Profile | None:
        """The user's profile with its lines and watermark, if any."""

    # -- root memory units (RootMem) ------------------------------------------------------
    @abstractmethod
    def root_units(self, scope: Scope) -> list[RootUnit]:
        """The scope's active units, each at its latest version (scope matched exactly)."""

    @abstractmethod
    def root_unit_history(self, unit_id: str) -> list[RootUnit]:
        """Every version of a unit, oldest first."""

    @abstractmethod
    def add_root_units(self, units: Sequence[RootUnit]) -> None:
        """Insert new unit versions (a version that exists already is an error)."""

    @abstractmethod
    def root_marks(self, scope: Scope) -> dict[str, tuple[str, int]]:
        """The construction watermark: memory id -> (state, failed runs)."""

    @abstractmethod
    def mark_root(self, scope: Scope, marks: dict[str, tuple[str, int]]) -> None:
        """Set memories' watermark state (``done``, ``failed``, ``skipped``) and failures."""

    # -- RuleMem facts and rules ----------------------------------------------------------
    @abstractmethod
    def memories_after(self, scope: Scope, after: int, limit: int) -> list[tuple[int, MemoryEntry]]:
        """Active memories of the scope stored after position ``after``, oldest first, each
        with its position (a watermark for incremental consumers)."""

    @abstractmethod
    def add_quads(self, user_id: str, quads: Sequence[Quad], vectors: np.ndarray) -> None: ...

    @abstractmethod
    def quads(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[Quad], np.ndarray]:
        """Quadruples of the scope's memories valid now (or at ``as_of``) and the unit
        vectors of their text."""

    @abstractmethod
    def upsert_rule(self, rule: HornRule, vector: np.ndarray) -> bool:
        """Insert a rule (True), or add its support and sources to the rule with its id
        (False; that rule keeps its validation)."""

    @abstractmethod
    def rules(
        self, scope: Scope, statuses: Sequence[str] | None = None
    ) -> tuple[list[HornRule], np.ndarray]:
        """The scope's rules (scope matched exactly) and the unit vectors of their heads."""

    @abstractmethod
    def rulemem_watermark(self, scope: Scope) -> int:
        """Position of the last memory the RuleMem consolidator took in (0: none)."""

    @abstractmethod
    def set_rulemem_watermark(self, scope: Scope, position: int) -> None: ...

    # -- users and housekeeping -----------------------------------------------------------
    @abstractmethod
    def user_exists(self, user_id: str) -> bool: ...

    @abstractmethod
    def users(self) -> list[str]: ...

    @abstractmethod
    def delete_user(self, user_id: str) -> int:
        """Remove every trace of a user; returns the number of memories removed."""

    @abstractmethod
    def reset(self) -> None:
        """Remove all users' data; keeps the schema and the embedder binding."""

    @abstractmethod
    def record_event(self, kind: str, user_id: str | None, detail: dict[str, Any]) -> None:
        """Count something a user should see in ``stats`` (an extraction failure...)."""

    @abstractmethod
    def stats(self) -> dict[str, Any]: ...

    def iter_users(self) -> Iterator[str]:
        yield from self.users()


STORES: Registry[Store] = Registry("store")
STORES.register("sqlite", "logicmem.store.sqlite:SQLiteStore")
