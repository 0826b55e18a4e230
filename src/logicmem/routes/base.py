"""What a route is, and the registry of retrieval methods the API and bench share.

A *route* proposes hits for a query; the context assembler merges routes under one
budget. A *method* is a named way to rank memories (``bm25``, ``dense``, ``hybrid``...);
the bench runs every registered method by name, so a route added later appears in
``--methods`` with no change to the harness.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from logicmem.config import (
    ProfileSettings,
    RetrievalSettings,
    RootMemSettings,
    RuleMemSettings,
    VisibilitySettings,
)
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM
from logicmem.registry import Registry
from logicmem.store.base import Store
from logicmem.types import Hit, MemoryEntry, Scope


@dataclass
class RouteEnv:
    """What routes may use: the store, the embedder, the LLM (lazily) and settings.

    ``as_of`` is the moment the routes read the user's memories at (ISO 8601): those valid
    then, whatever happened to them since; None, those valid now. It travels on the
    environment rather than in every ``propose``/``search`` call, so routes and methods
    written before it keep their signature (``at`` gives the view of another moment).
    """

    store: Store
    embedder: Embedder
    settings: RetrievalSettings
    llm: Callable[[], LLM | None] = lambda: None
    visibility: VisibilitySettings = field(default_factory=VisibilitySettings)
    profile: ProfileSettings = field(default_factory=ProfileSettings)
    rootmem: RootMemSettings = field(default_factory=RootMemSettings)
    rulemem: RuleMemSettings = field(default_factory=RuleMemSettings)
    cache: dict[str, Any] = field(default_factory=dict)
    as_of: str | None = None

    def at(self, as_of: str | None) -> RouteEnv:
        """This environment reading the memories valid at ``as_of`` (None: now); models,
        settings and caches are shared, so caches of store views must key on ``as_of``."""
        return self if as_of == self.as_of else replace(self, as_of=as_of)


def valid_at(entry: MemoryEntry, as_of: str | None) -> bool:
    """Whether ``entry`` was valid at ``as_of`` (the store's rule: from ``valid_from``
    until, not including, ``valid_until``); with None, whether it is active now."""
    if as_of is None:
        return entry.status == "active"
    start = entry.valid_from or entry.said_at or entry.created_at
    return (
        bool(start) and start <= as_of and (entry.valid_until is None or as_of < entry.valid_until)
    )


def request_date(env: RouteEnv) -> date:
    """The date a request is read on ("tomorrow" counts from it): that of ``as_of`` when
    the routes read the past, else ``VisibilitySettings.today`` when set, else today in
    ``VisibilitySettings.timezone`` (this machine's zone when it is empty)."""
    if env.as_of:
        return date.fromisoformat(env.as_of[:10])
    if env.visibility.today:
        return date.fromisoformat(env.visibility.today)
    zone = env.visibility.timezone
    return datetime.now(ZoneInfo(zone)).date() if zone else date.today()


def query_vector(env: RouteEnv, query: str) -> np.ndarray:
    """The query's embedding, computed once however many routes ask for it."""
    cache = env.cache.setdefault("query_vectors", {})
    if query not in cache:
        if len(cache) > 64:
            cache.clear()
        cache[query] = env.embedder.embed_one(query)
    vector: np.ndarray = cache[query]
    return vector


@dataclass
class Proposal:
    """A route's ranked hits and how many of them it may place (None: no reserved share).

    ``probabilities``, when given (one per hit, descending), make the reserved hits
    compete for their slots instead of filling first: a hit is placed before the open
    routes' hit of rank r only when its probability of mattering exceeds ``prior(r)``,
    the probability that the open hit of that rank is the one that matters."""

    hits: list[Hit]
    quota: int | None = None
    probabilities: list[float] | None = None
    prior: Callable[[int], float] | None = None


class Route(ABC):
    """A source of context items. ``priority``: lower fills first when quotas compete."""

    name: str = ""
    priority: int = 100

    @abstractmethod
    def propose(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> Proposal: ...


class Method(ABC):
    """A named ranking of a user's memories for a query, at most ``k`` hits.

    ``consolidators``: the offline builders (see ``Consolidator``) this method reads from;
    the bench runs them after ingestion, so their cost is measured apart from retrieval.
    ``budget_free``: the method returns the same whole context whatever the query and k
    (a reference probe such as the always-visible profile), so the bench asks it once.
    """

    name: str = ""
    consolidators: tuple[str, ...] = ()
    budget_free: bool = False

    @abstractmethod
    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]: ...


class Consolidator(ABC):
    """Offline, incremental work over a user's memories (root units, rules, profiles).

    ``consolidate`` processes only what is new since its last run (it keeps its own
    watermark in the store), is safe to call again after a failure, and never leaves a
    batch half-applied. It returns counts for reports (batches, LLM calls, failures...).
    """

    name: str = ""

    @abstractmethod
    def consolidate(self, env: RouteEnv, scope: Scope) -> dict[str, Any]: ...


CONSOLIDATORS: Registry[Consolidator] = Registry("consolidator")
CONSOLIDATORS.register("rootmem", "logicmem.routes.rootmem.build:RootMemConsolidator")
CONSOLIDATORS.register("profile", "logicmem.routes.visible.profile:ProfileConsolidator")
CONSOLIDATORS.register("rulemem", "logicmem.routes.rulemem.build:RuleMemConsolidator")

METHODS: Registry[Method] = Registry("retrieval method")
METHODS.register("bm25", "logicmem.routes.semantic:BM25Method")
METHODS.register("dense", "logicmem.routes.semantic:DenseMethod")
METHODS.register("hybrid", "logicmem.routes.semantic:HybridMethod")
METHODS.register("visible", "logicmem.routes.visible.route:VisibleMethod")
METHODS.register("rootmem", "logicmem.routes.rootmem.route:RootMemMethod")
METHODS.register("rootmem_norouter", "logicmem.routes.rootmem.route:RootMemNoRouter")
METHODS.register("rootmem_norules", "logicmem.routes.rootmem.route:RootMemNoRules")
METHODS.register("rootmem_noevidence", "logicmem.routes.rootmem.route:RootMemNoEvidence")
METHODS.register("profile_llm", "logicmem.routes.visible.profile:ProfileMethod")
METHODS.register("rulemem", "logicmem.routes.rulemem.route:RuleMemMethod")
METHODS.register("rulemem_norpc", "logicmem.routes.rulemem.route:RuleMemNoRPC")
METHODS.register("rulemem_norules", "logicmem.routes.rulemem.route:RuleMemNoRules")

ROUTES: Registry[Route] = Registry("route")
ROUTES.register("semantic", "logicmem.routes.semantic:SemanticRoute")
ROUTES.register("visible", "logicmem.routes.visible.route:VisibleRoute")
ROUTES.register("rootmem", "logicmem.routes.rootmem.route:RootMemRoute")
ROUTES.register("rulemem", "logicmem.routes.rulemem.route:RuleMemRoute")
