"""The extractor interface: raw turns in, candidate memories out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from logicmem.errors import LogicmemError
from logicmem.registry import Registry
from logicmem.types import Turn


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


EXTRACTORS: Registry[Extractor] = Registry("extractor")
EXTRACTORS.register("rules", "logicmem.write.rules:RuleExtractor")
EXTRACTORS.register("llm", "logicmem.write.llm_extract:LLMExtractor")
