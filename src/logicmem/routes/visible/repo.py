"""The visibility route's objects and their repository: criticality, anticipation keys,
the derived-text vector cache and the always-visible profile (``repo_sql``: SQLite's and
PostgreSQL's)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicmem.store.base import Repository
from logicmem.types import Scope


@dataclass
class Criticality:
    """Why a memory is a standing constraint that can change future advice."""

    memory_id: str
    score: float
    ctype: str
    reason: str
    source: str  # "kb", "classifier", "prototype", "llm" or "schedule"


@dataclass
class MemoryKey:
    """An anticipation key: a situation in which a memory will matter."""

    memory_id: str
    key: str
    kind: str  # "kb" (a linked knowledge entry), "nearest" (the closest one), "llm" or
    # "schedule" (a day of a duty, ``schedule.day_keys``)
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


class VisibleRepository(Repository):
    """Visibility persistence. Forgetting a memory removes its criticality, its keys and
    the vectors of the texts derived from it, and the profile lines that cite it."""

    name = "visible"

    @abstractmethod
    def set_criticality(self, user_id: str, rows: Sequence[Criticality]) -> None: ...

    @abstractmethod
    def clear(self, memory_ids: Sequence[str]) -> None:
        """Drop the criticality and keys of these memories, to judge them again."""

    @abstractmethod
    def critical_memories(self, scope: Scope, *, as_of: str | None = None) -> list[Criticality]:
        """Criticality rows of the scope's memories valid now (or at ``as_of``)."""

    @abstractmethod
    def add_keys(self, user_id: str, keys: Sequence[MemoryKey], vectors: np.ndarray) -> None:
        """Set the keys of the memories in ``keys`` (replacing theirs: indexing again is safe)."""

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
