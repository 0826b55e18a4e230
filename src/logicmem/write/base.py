"""The write path's pluggable parts: extractors (raw turns in, candidate memories out)
and write hooks (run on memories once they are committed), each with its registry.

An extractor registers a factory ``(ExtractSettings, llm) -> Extractor`` under the name
``extract.mode`` selects it by (``auto`` picks ``llm`` when the LLM is capable, else
``rules``); ``llm`` is a zero-argument callable, so the model is built only when the
extractor needs one. A write hook registers a factory ``(store, embedder, llm, Settings)
-> WriteHook | None``: None when its settings leave it off.
"""

from __future__ import annotations

import functools
import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
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
    """Called after new memories are committed (routes index them: criticality, keys).
    A hook may also have a ``version`` (a string naming what decides its output: its code,
    data and settings), so that a store can tell which memories an earlier version indexed
    (``Store.indexed_otherwise``); one without is known by its class (``hook_version``).
    ``on_added`` returns None, or the version that did judge these memories when it is
    not ``version`` (a part of it failed, and what remained judged them)."""

    def on_added(
        self, scope: Scope, entries: list[MemoryEntry], vectors: np.ndarray
    ) -> str | None: ...


def hook_version(hook: WriteHook) -> str:
    """The hook's ``version``, or its class's module and name when it has none."""
    version = getattr(hook, "version", None)
    return str(version) if version else f"{type(hook).__module__}.{type(hook).__qualname__}"


@functools.cache
def package_digest(*parts: str) -> str:
    """The first 12 hex digits of a SHA-256 over the installed package's files under
    ``parts`` (paths relative to the package, files or folders: "routes/visible",
    "data/places.json"), each file's path and bytes in path order; compiled files left out."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for part in parts:
        base = root / part
        if not base.exists():
            raise FileNotFoundError(f"package_digest: {part} is not part of the package")
        files = [base] if base.is_file() else sorted(base.rglob("*"))
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


EXTRACTORS: Registry[Extractor] = Registry("extractor")
EXTRACTORS.register("rules", "logicmem.write.rules:from_settings")
EXTRACTORS.register("llm", "logicmem.write.llm_extract:from_settings")

WRITE_HOOKS: Registry[WriteHook | None] = Registry("write hook")
WRITE_HOOKS.register("visibility", "logicmem.routes.visible.hook:from_settings")
