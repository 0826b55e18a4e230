"""The write path's pluggable parts: extractors (raw turns in, candidate memories out)
and write hooks (run on memories once they are committed), each with its registry.

An extractor registers a factory ``(ExtractSettings, llm) -> Extractor`` under the name
``extract.mode`` selects it by (``auto`` picks ``llm`` when the LLM is capable, else
``rules``); ``llm`` is a zero-argument callable, so the model is built only when the
extractor needs one. A write hook registers a factory ``(store, embedder, llm, Settings)
-> WriteHook | None``: None when its settings leave it off.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from logicmem.errors import LogicmemError
from logicmem.registry import Registry
from logicmem.types import MemoryEntry, Scope, Turn


@dataclass
class Candidate:
    """A memory proposed by an extractor, before dedup and supersession."""

    text: str
    subject: str
    source_turns: list[str]
    session_id: str
    said_at: str | None = None
    category: str | None = None
    extras: dict[str, str] = field(default_factory=dict)


class ExtractionError(LogicmemError):
    """An extractor gave up on a batch; the pipeline records it and falls back."""


class Extractor(ABC):
    name: str = ""

    @abstractmethod
    def extract(self, turns: list[Turn]) -> list[Candidate]:
        """Candidates from ``turns`` (all from one session). May raise ExtractionError."""


def subject_of(turn: Turn) -> str:
    """Whom a turn's first person refers to: the speaker's name, else the user id."""
    if turn.role == "user" and turn.speaker in ("user", ""):
        return turn.user_id
    return turn.speaker


class WriteHook(Protocol):
    """Called after new memories are committed (routes index them: criticality, keys)."""

    def on_added(self, scope: Scope, entries: list[MemoryEntry], vectors: np.ndarray) -> None: ...


EXTRACTORS: Registry[Extractor] = Registry("extractor")
EXTRACTORS.register("rules", "logicmem.write.rules:from_settings")
EXTRACTORS.register("llm", "logicmem.write.llm_extract:from_settings")

WRITE_HOOKS: Registry[WriteHook | None] = Registry("write hook")
WRITE_HOOKS.register("visibility", "logicmem.routes.visible.hook:from_settings")
