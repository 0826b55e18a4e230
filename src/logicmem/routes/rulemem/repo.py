"""RuleMem's objects and their repository: temporal quadruples, Horn rules and the
consolidation watermark (``repo_sql``: SQLite's and PostgreSQL's)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from logicmem.store.base import Repository
from logicmem.types import Scope


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


class RuleMemRepository(Repository):
    """RuleMem persistence. Forgetting a memory removes its quadruples and every rule
    induced from it."""

    name = "rulemem"

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
    def watermark(self, scope: Scope) -> int:
        """Position of the last memory the consolidator took in (0: none)."""

    @abstractmethod
    def set_watermark(self, scope: Scope, position: int) -> None: ...
