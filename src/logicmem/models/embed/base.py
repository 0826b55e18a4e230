"""The embedder interface. Vectors are float32 and L2-normalised, so dot = cosine."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from logicmem.registry import Registry


class Embedder(ABC):
    """Turns texts into unit vectors. Loads its model lazily, on the first ``embed``."""

    max_batch: ClassVar[int] = 64

    @property
    @abstractmethod
    def name(self) -> str:
        """Identity recorded in the store, e.g. ``minilm:all-MiniLM-L6-v2``."""

    @property
    @abstractmethod
    def dims(self) -> int:
        """Vector dimension (may load the model, or ask the server, to find out)."""

    @abstractmethod
    def _embed(self, texts: list[str]) -> np.ndarray:
        """Embed one batch (at most ``max_batch`` texts); rows need not be normalised."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts in batches; returns an (n, dims) float32 array of unit rows."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        parts = [
            self._embed(texts[i : i + self.max_batch]) for i in range(0, len(texts), self.max_batch)
        ]
        out = np.asarray(np.vstack(parts), dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


EMBEDDERS: Registry[Embedder] = Registry("embedder")
EMBEDDERS.register("minilm", "logicmem.models.embed.minilm:MiniLMEmbedder")
EMBEDDERS.register("openai", "logicmem.models.embed.openai_compat:OpenAIEmbedder")
