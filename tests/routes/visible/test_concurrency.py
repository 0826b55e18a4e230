"""A service's threads share one write path: its lazily built parts are built once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from kit import HashEmbedder

from logicmem.routes.visible import criticality
from logicmem.routes.visible.kb import load_kb
from logicmem.store.url import open_store
from logicmem.write.categorize import PrototypeCategorizer


def _together(fn, n: int = 4) -> None:  # type: ignore[no-untyped-def]
    threads = [threading.Thread(target=fn) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)


def test_concurrent_first_writes_train_the_criticality_classifier_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each thread used to train its own (seconds each, 16 threads on 2 cores: minutes)."""
    trained = []
    real = criticality.train_classifier

    def slow_train(x: np.ndarray, y: np.ndarray):  # type: ignore[no-untyped-def]
        trained.append(1)
        time.sleep(0.3)  # long enough for every thread to arrive while it trains
        return real(x, y)

    monkeypatch.setattr(criticality, "train_classifier", slow_train)
    monkeypatch.setattr(criticality, "_BUILT", {})  # nothing built by earlier tests
    store = open_store(str(tmp_path / "c.db"))
    cache = criticality.VectorCache(store, HashEmbedder())
    assessor = criticality.CriticalityAssessor(load_kb(), cache)
    _together(assessor.warm_up)
    assert len(trained) == 1
    store.close()


def test_assessors_of_one_resource_and_embedder_share_one_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service opens a store per tenant and each has its own write path: each used to
    train its own classifier (seconds). Another embedder or resource builds its own."""
    trained = []
    real = criticality.train_classifier

    def counting(x: np.ndarray, y: np.ndarray):  # type: ignore[no-untyped-def]
        trained.append(x.shape[1])
        return real(x, y)

    monkeypatch.setattr(criticality, "train_classifier", counting)
    monkeypatch.setattr(criticality, "_BUILT", {})
    stores = [open_store(str(tmp_path / f"{i}.db")) for i in range(3)]
    kb = load_kb()
    for store in stores[:2]:
        criticality.CriticalityAssessor(
            kb, criticality.VectorCache(store, HashEmbedder())
        ).warm_up()
    assert trained == [64]
    other = criticality.VectorCache(stores[2], HashEmbedder(dims=32))
    criticality.CriticalityAssessor(kb, other).warm_up()
    assert trained == [64, 32]
    for store in stores:
        store.close()


def test_concurrent_first_categorizations_embed_the_prototypes_once() -> None:
    calls = []

    class Counting(HashEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            calls.append(1)
            time.sleep(0.01)
            return super().embed(texts)

    categorizer = PrototypeCategorizer(Counting())
    _together(categorizer.warm_up)
    first = len(calls)
    categorizer.warm_up()
    assert first == len(calls) and first > 0
    # one pass: as many embed calls as categories, not that times the threads
    from logicmem.types import CATEGORIES

    assert first == len(CATEGORIES)
