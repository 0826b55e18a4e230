"""The write path's tests share one store with the real embedder (``mem``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from logicmem import Memory
from logicmem.models.embed.minilm import MiniLMEmbedder


@pytest.fixture
def mem(tmp_path: Path, minilm_embedder: MiniLMEmbedder) -> Iterator[Memory]:
    """A store written by the rules extractor with MiniLM, on which the retraction
    thresholds were set. No visibility hook: it indexes criticality, which these tests
    do not read."""
    config = {
        "llm": {"provider": "none"},
        "extract": {"mode": "rules"},
        "visibility": {"enabled": False},
    }
    m = Memory(tmp_path / "r.db", embedder=minilm_embedder, config=config)
    yield m
    m.close()
