"""An embedding cache so each background is embedded once across runs.

Vectors are keyed by (embedder name, sha256 of the text) in one SQLite file under the
cache directory; the wrapper keeps the inner embedder's name, so stores built through it
are indistinguishable from stores built without it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from logicmem.models.embed.base import Embedder


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "logicmem" / "bench"


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachingEmbedder(Embedder):
    """Wraps an embedder; ``path=None`` caches in memory only."""

    def __init__(self, inner: Embedder, path: Path | None = None) -> None:
        self.inner = inner
        self._memo: dict[str, np.ndarray] = {}
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=30.0)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, vector BLOB, "
                "PRIMARY KEY (model, key))"
            )
            self._db.commit()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dims(self) -> int:
        return self.inner.dims

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self.inner._embed(texts)

    def _lookup(self, keys: list[str]) -> None:
        wanted = [k for k in dict.fromkeys(keys) if k not in self._memo]
        if not wanted or self._db is None:
            return
        model = self.name
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({marks})",
                [model, *chunk],
            )
            for key, blob in rows:
                self._memo[key] = np.frombuffer(blob, dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        keys = [_key(t) for t in texts]
        self._lookup(keys)
        missing = list(
            dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in self._memo)
        )
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            vectors = self.inner.embed(missing)
            fresh = [(_key(t), v.astype(np.float32)) for t, v in zip(missing, vectors, strict=True)]
            self._memo.update(fresh)
            if self._db is not None:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                    [(self.name, k, v.tobytes()) for k, v in fresh],
                )
                self._db.commit()
        return np.vstack([self._memo[k] for k in keys])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
