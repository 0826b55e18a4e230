"""Label a memory with one of the nine IMLogic categories without an LLM.

Embedding prototypes (package data ``categories.json``, written for logicmem): a memory
takes the category of its nearest prototype centroid, unless a strong lexical cue
(``plans to``, ``wants to``...) says otherwise. Cheap: one matrix product per batch.
"""

from __future__ import annotations

import json
import re
import threading
from importlib import resources

import numpy as np

from logicmem.models.embed.base import Embedder
from logicmem.types import CATEGORIES

_CUES: list[tuple[str, str]] = [
    (r"\b(plans?|planning|going) to\b|\bwill\b|\bnext (week|month|year|weekend)\b", "plans"),
    (r"\b(wants?|hopes?|dreams?|aims?|wishes) (to|of)\b|\bgoal\b", "goals"),
    (r"\b(loves?|hates?|likes?|prefers?|enjoys?|thinks?|believes?|favou?rite)\b", "opinions"),
    (r"\b(owns?|bought|has an? (car|house|dog|cat|bike|pet))\b", "assets"),
    (r"\b(allerg\w*|diagnos\w*|pregnan\w*|medication|takes \w+ for|feels?|recovering)\b", "states"),
    (
        r"\b(sister|brother|mother|mom|father|dad|wife|husband|hubby|partner|friend|kids?|"
        r"children|son|daughter|married|boyfriend|girlfriend)\b",
        "social relationships",
    ),
]


class PrototypeCategorizer:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._centroids: np.ndarray | None = None
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        self._load()

    def _load(self) -> np.ndarray:
        if self._centroids is not None:
            return self._centroids
        with self._lock:
            return self._build()

    def _build(self) -> np.ndarray:
        if self._centroids is None:
            raw = json.loads(
                resources.files("logicmem.data").joinpath("categories.json").read_text()
            )
            rows = []
            for name in CATEGORIES:
                vectors = self.embedder.embed(raw[name])
                centroid = vectors.mean(axis=0)
                rows.append(centroid / np.linalg.norm(centroid))
            self._centroids = np.vstack(rows).astype(np.float32)
        return self._centroids

    def categorize(self, texts: list[str], vectors: np.ndarray) -> list[str]:
        if not texts:
            return []
        scores = vectors @ self._load().T
        out = []
        for text, row in zip(texts, scores, strict=True):
            cue = next((c for pattern, c in _CUES if re.search(pattern, text, re.I)), None)
            best = CATEGORIES[int(np.argmax(row))]
            # A lexical cue wins unless the embedding is clearly sure of something else.
            if cue is not None and row[CATEGORIES.index(cue)] >= row.max() - 0.1:
                best = cue
            out.append(best)
        return out
