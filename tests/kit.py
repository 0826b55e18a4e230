"""The test kit: test doubles for models, registered through the normal registries.

``FakeLLM`` queues canned replies and records every call (like llm's MockModel).
``HashEmbedder`` is a deterministic bag-of-words embedder for fast unit tests; tests
that judge retrieval quality use the real MiniLM embedder instead.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from typing import Any, ClassVar

import numpy as np

from logicmem.config import EmbedderSettings, LLMSettings
from logicmem.errors import ModelError
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM, ChatMessage
from logicmem.types import MemoryEntry


class HashEmbedder(Embedder):
    """Each word hashes to a random unit direction; a text is the sum of its words."""

    def __init__(self, settings: EmbedderSettings | None = None, dims: int = 64) -> None:
        self._dims = (settings.dims if settings and settings.dims else None) or dims

    @property
    def name(self) -> str:
        return f"hash:{self._dims}"

    @property
    def dims(self) -> int:
        return self._dims

    def _word(self, word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self._dims)

    def _embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for text in texts:
            words = re.findall(r"\w+", text.lower()) or ["<empty>"]
            rows.append(sum(self._word(w[:6]) for w in words))
        return np.asarray(rows, dtype=np.float32)


class FakeLLM(LLM):
    """Replies from a queue (strings, or exceptions to raise); records every call."""

    supports_json_schema = True
    supports_loglik = True
    capable: ClassVar[bool] = True

    def __init__(self, settings: LLMSettings | None = None, replies: list[Any] | None = None):
        self.replies: deque[Any] = deque(replies or [])
        self.calls: list[dict[str, Any]] = []
        self.default: str | None = None
        self.logliks: dict[tuple[str, str], float] = {}

    @property
    def name(self) -> str:
        return "fake"

    def queue(self, *replies: Any) -> FakeLLM:
        self.replies.extend(replies)
        return self

    def chat(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        self.calls.append({"messages": messages, "schema": schema})
        if not self.replies:
            if self.default is not None:
                return self.default
            raise AssertionError("FakeLLM: no reply queued for this call")
        reply = self.replies.popleft()
        if isinstance(reply, BaseException):
            raise reply
        return str(reply)

    def loglik(self, prefix: str, continuation: str) -> float:
        self.calls.append({"loglik": (prefix, continuation)})
        try:
            return self.logliks[(prefix, continuation)]
        except KeyError:
            raise ModelError(f"FakeLLM: no loglik set for {(prefix, continuation)!r}") from None


def unit_vector(seed: int, dims: int = 8) -> np.ndarray:
    """A random unit vector, the same for the same seed (store tests' embeddings)."""
    v = np.random.default_rng(seed).standard_normal(dims).astype(np.float32)
    return np.asarray(v / np.linalg.norm(v), dtype=np.float32)


def memory_entry(mid: str, text: str, user: str = "u") -> MemoryEntry:
    """A memory of ``user`` citing one turn of its own (``t-<id>``)."""
    return MemoryEntry(id=mid, user_id=user, text=text, source_turns=[f"t-{mid}"])
