"""The core store interface and the route repositories' interface and registry.

A store keeps what every deployment needs: raw turns, memories (text, provenance, vector,
validity), a history row for every change, the keyword index, counted events (extraction
failures and fallbacks), users and transactions. It knows nothing about models: vectors
arrive computed, and the embedder identity is only recorded and checked.

A route that persists its own objects (visibility annotations and profiles, root units,
RuleMem facts and rules) declares a ``Repository`` interface in its package and one
implementation per backend, registered in ``REPOSITORIES`` under ``(name, backend)``;
``store.repository(name)`` gives the one for the store's backend. Forgetting a memory or
a user, and ``reset``, call every registered repository of the backend inside the core's
transaction, so no route keeps a byte of what was forgotten. A new backend (PostgreSQL +
pgvector) implements ``Store`` and the repositories it supports.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, overload

import numpy as np

from logicmem.errors import StoreError
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


R = TypeVar("R", bound="Repository")


class Repository(ABC):
    """A route's own objects in one backend. ``name`` is the route's repository name;
    the constructor takes the store whose connection and transactions it shares."""

    name: ClassVar[str] = ""

    @classmethod
    def of(cls: type[R], store: Store) -> R:
        """This interface's repository in ``store`` (StoreError if its backend has none)."""
        return store.repository(cls.name, cls)

    # Forgetting: called by the core inside its transaction, before it commits.
    @abstractmethod
    def delete_memory(self, entry: MemoryEntry) -> None:
        """Remove everything derived from ``entry`` (rows, texts, citations of it)."""

    @abstractmethod
    def delete_user(self, user_id: str) -> None:
        """Remove every row of the user."""

    @abstractmethod
    def reset(self) -> None:
        """Remove every user's rows."""


REPOSITORIES: Registry[Repository] = Registry("repository")


def register_repository(name: str, backend: str, target: Any) -> None:
    """Register ``target`` (a class or a lazy ``module:Class``) as the ``name``
    repository of the ``backend`` store."""
    REPOSITORIES.register(f"{name}:{backend}", target)


class Store(ABC):
    """Persistence for one logicmem deployment (many users). ``backend`` is the name it
    is registered under in ``STORES`` (and its repositories in ``REPOSITORIES``)."""

    backend: ClassVar[str] = ""
    read_only: bool = False
    _repositories: dict[str, Repository]

    @overload
    def repository(self, name: str) -> Repository: ...

    @overload
    def repository(self, name: str, kind: type[R]) -> R: ...

    def repository(self, name: str, kind: type[Repository] | None = None) -> Repository:
        """The ``name`` repository of this store's backend (``kind``: the interface it
        must implement); StoreError when the backend has none."""
        cache = self.__dict__.setdefault("_repositories", {})
        repo = cache.get(name)
        if repo is None:
            key = f"{name}:{self.backend}"
            if key not in REPOSITORIES:
                here = [n.partition(":")[0] for n in self.repository_names()]
                raise StoreError(
                    f"the {self.backend} store has no {name} repository: the route that "
                    f"needs it cannot run on this backend (it has: {', '.join(here) or 'none'}"
                    f"); register one with register_repository({name!r}, {self.backend!r}, "
                    "'module:Class') or use a store that has it"
                )
            repo = cache[name] = REPOSITORIES.create(key, self)
        if kind is not None and not isinstance(repo, kind):
            raise StoreError(
                f"the {name} repository of the {self.backend} store is a "
                f"{type(repo).__name__}, not a {kind.__name__}"
            )
        return repo

    def repository_names(self) -> list[str]:
        """Registry keys (``name:backend``) of every repository of this backend."""
        return [n for n in REPOSITORIES.names() if n.endswith(f":{self.backend}")]

    def repositories(self) -> list[Repository]:
        """Every registered repository of this backend (forgetting reaches them all)."""
        return [self.repository(n.partition(":")[0]) for n in self.repository_names()]

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
    def add_turns(
        self, turns: Sequence[Turn], *, infer: bool = True, claim: bool = True
    ) -> list[Turn]:
        """Store turns, pending and claimed by this store until ``finish_turns``; returns
        those that were new (a re-sent turn id is ignored). With ``claim=False`` they are
        left unclaimed, for whoever resumes pending turns first (a background job)."""

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
    def mark_indexed(self, memory_ids: Sequence[str], version: str) -> None:
        """The write hooks have run on these memories; ``version`` names those hooks (their
        code, data and settings: ``WritePipeline.index_version``)."""

    @abstractmethod
    def indexed_otherwise(self, version: str, *, user_prefix: str = "") -> int:
        """How many active, indexed memories (of the users whose ids start with
        ``user_prefix``) were indexed by write hooks other than ``version``: by an earlier
        release, under other settings, or before versions were kept."""

    @abstractmethod
    def mark_unindexed(self, user_id: str, *, other_than: str | None = None) -> int:
        """Mark the user's active memories for the write hooks to run again (``claim_unindexed``
        hands them out); returns how many. With ``other_than`` (a version), only those that
        version did not index, as ``indexed_otherwise`` counts them."""

    @abstractmethod
    def claim_unindexed(self, *, user_id: str | None = None) -> list[tuple[Scope, str]]:
        """Claim memories whose write hooks an interrupted write never finished (or that
        ``mark_unindexed`` marked): each one's scope and id, oldest first. Their texts and
        vectors are read in batches (``indexable``), so a whole store can be claimed."""

    @abstractmethod
    def indexable(self, memory_ids: Sequence[str]) -> list[tuple[MemoryEntry, np.ndarray]]:
        """The active memories of ``memory_ids`` with their vectors, in that order."""

    @abstractmethod
    def get_turns(
        self,
        scope: Scope,
        session_id: str | None = None,
        turn_ids: Sequence[str] | None = None,
    ) -> list[Turn]:
        """The scope's turns in the order said; of one session, and only ``turn_ids``,
        when given."""

    def turn_before(self, turn: Turn) -> Turn | None:
        """The turn of ``turn``'s scope and session said just before it (a stored turn,
        read by its ``seq``), or None. A backend may answer without reading the session."""
        scope = Scope(turn.user_id, turn.agent_id, turn.run_id)
        earlier = [t for t in self.get_turns(scope, session_id=turn.session_id) if t.seq < turn.seq]
        return earlier[-1] if earlier else None

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

    def nearest(
        self, scope: Scope, queries: np.ndarray, k: int, *, as_of: str | None = None
    ) -> list[list[tuple[str, float]]]:
        """Per row of ``queries`` (unit vectors, (m, dims)): the ``k`` memories of the scope
        closest by cosine, best first, as (id, cosine). Exact here, from ``vectors``; a
        backend with an approximate index (pgvector's HNSW) may answer from it."""
        ids, matrix = self.vectors(scope, as_of=as_of)
        if not ids:
            return [[] for _ in range(len(queries))]
        sims = np.atleast_2d(np.asarray(queries, dtype=np.float32)) @ matrix.T
        out = []
        for row in sims:
            order = np.argsort(-row)[:k]
            out.append([(ids[j], float(row[j])) for j in order])
        return out

    def cosines(
        self, scope: Scope, query: np.ndarray, ids: Sequence[str], *, as_of: str | None = None
    ) -> dict[str, float]:
        """The cosine of ``query`` to each of ``ids`` that is a memory of the scope."""
        known, matrix = self.vectors(scope, as_of=as_of)
        position = {memory_id: j for j, memory_id in enumerate(known)}
        rows = [position[i] for i in ids if i in position]
        if not rows:
            return {}
        sims = matrix[rows] @ np.asarray(query, dtype=np.float32)
        return {known[j]: float(s) for j, s in zip(rows, sims, strict=True)}

    @abstractmethod
    def write_stamp(self, user_id: str | None = None) -> Any:
        """A value that changes whenever the user's data changes, here or in any other
        process (``None``: anyone's); a cache keyed on it never serves stale data."""

    @abstractmethod
    def memories_after(self, scope: Scope, after: int, limit: int) -> list[tuple[int, MemoryEntry]]:
        """Active memories of the scope stored after position ``after``, oldest first, each
        with its position (a watermark for incremental consumers)."""

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
STORES.register("postgresql", "logicmem.store.postgres:PostgresStore")

# Built-in route repositories, per (route, backend); a backend registers its own the same way.
register_repository(
    "visible", "sqlite", "logicmem.routes.visible.repo_sqlite:SQLiteVisibleRepository"
)
register_repository(
    "rootmem", "sqlite", "logicmem.routes.rootmem.repo_sqlite:SQLiteRootMemRepository"
)
register_repository(
    "rulemem", "sqlite", "logicmem.routes.rulemem.repo_sqlite:SQLiteRuleMemRepository"
)
register_repository(
    "visible", "postgresql", "logicmem.routes.visible.repo_postgres:PostgresVisibleRepository"
)
register_repository(
    "rootmem", "postgresql", "logicmem.routes.rootmem.repo_postgres:PostgresRootMemRepository"
)
register_repository(
    "rulemem", "postgresql", "logicmem.routes.rulemem.repo_postgres:PostgresRuleMemRepository"
)
