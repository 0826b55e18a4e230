"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` server (OpenAI, vLLM, Ollama, ...)."""

from __future__ import annotations

import numpy as np
import openai

from logicmem.config import EmbedderSettings
from logicmem.errors import ConfigError, ModelError
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.openai_compat import model_error

# Embedding calls are short; fail fast rather than hang a write for minutes.
TIMEOUT_S = 60.0
MAX_RETRIES = 2


class OpenAIEmbedder(Embedder):
    def __init__(self, settings: EmbedderSettings) -> None:
        if not settings.base_url or not settings.model:
            raise ConfigError(
                "the openai embedder needs a server and a model: "
                "set LOGICMEM_EMBED_BASE_URL and LOGICMEM_EMBED_MODEL"
            )
        self.settings = settings
        self.base_url = settings.base_url
        self.model = settings.model
        self._dims = settings.dims
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or "unused",  # local servers ignore it; the SDK needs one
            timeout=TIMEOUT_S,
            max_retries=MAX_RETRIES,
        )

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    @property
    def dims(self) -> int:
        if self._dims is None:
            self._dims = int(self._request(["dimension probe"]).shape[1])
        return self._dims

    def _embed(self, texts: list[str]) -> np.ndarray:
        # Honour the configured batch size too (servers cap inputs per request).
        step = max(1, self.settings.batch_size)
        out = np.vstack([self._request(texts[i : i + step]) for i in range(0, len(texts), step)])
        if self._dims is not None and out.shape[1] != self._dims:
            raise ModelError(
                f"the embedding server at {self.base_url} returned {out.shape[1]}-dim vectors "
                f"but {self._dims} were expected: fix embedder.dims or the model name"
            )
        return out

    def _request(self, texts: list[str]) -> np.ndarray:
        try:
            resp = self._client.embeddings.create(
                model=self.model, input=texts, encoding_format="float"
            )
        except openai.OpenAIError as exc:
            raise model_error(
                exc,
                self.base_url,
                "check that the server is running, or set LOGICMEM_EMBEDDER=minilm",
            ) from None
        rows = sorted(resp.data, key=lambda d: d.index)  # the spec does not promise order
        if len(rows) != len(texts):
            raise ModelError(
                f"the embedding server at {self.base_url} returned {len(rows)} vectors "
                f"for {len(texts)} texts"
            )
        return np.asarray([r.embedding for r in rows], dtype=np.float32)
