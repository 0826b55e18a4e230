"""RootMem's objects and their repository: root memory units (every version) and the
construction watermark (``repo_sql``: SQLite's and PostgreSQL's)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from logicmem.store.base import Repository
from logicmem.types import Scope


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


class RootMemRepository(Repository):
    """RootMem persistence. Forgetting a memory drops it from every unit's evidence (a
    unit left with none is retired)."""

    name = "rootmem"

    @abstractmethod
    def units(self, scope: Scope) -> list[RootUnit]:
        """The scope's active units, each at its latest version (scope matched exactly)."""

    @abstractmethod
    def unit_history(self, unit_id: str) -> list[RootUnit]:
        """Every version of a unit, oldest first."""

    @abstractmethod
    def add_units(self, units: Sequence[RootUnit]) -> None:
        """Insert new unit versions (a version that exists already is an error)."""

    @abstractmethod
    def marks(self, scope: Scope) -> dict[str, tuple[str, int]]:
        """The construction watermark: memory id -> (state, failed runs)."""

    @abstractmethod
    def mark(self, scope: Scope, marks: dict[str, tuple[str, int]]) -> None:
        """Set memories' watermark state (``done``, ``failed``, ``skipped``) and failures."""
