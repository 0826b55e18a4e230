"""Route repositories: given by name for the store's backend, reached by every forget."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from logicmem.errors import StoreError
from logicmem.routes.rootmem.repo import RootMemRepository
from logicmem.routes.rulemem.repo import RuleMemRepository
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.store.base import REPOSITORIES, Repository, register_repository
from logicmem.store.sqlite import SQLiteStore
from logicmem.types import MemoryEntry


class PostgresLike(SQLiteStore):
    """A backend that implements the core and no repository."""

    backend = "postgresql"


class Probe(Repository):
    """Records the forget hooks and whether each ran inside the core's transaction."""

    name = "probe"

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.calls: list[tuple[str, str, bool]] = []

    def _record(self, hook: str, arg: str) -> None:
        self.calls.append((hook, arg, self.store.db.in_transaction))

    def delete_memory(self, entry: MemoryEntry) -> None:
        self._record("delete_memory", entry.id)

    def delete_user(self, user_id: str) -> None:
        self._record("delete_user", user_id)

    def reset(self) -> None:
        self._record("reset", "")


@pytest.fixture
def probe() -> Iterator[None]:
    register_repository("probe", "sqlite", Probe)
    yield
    REPOSITORIES.unregister("probe:sqlite")


def test_a_store_gives_its_backends_repositories_by_name(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    assert isinstance(store.repository("rulemem"), RuleMemRepository)
    assert RuleMemRepository.of(store) is store.repository("rulemem")  # one per store
    assert isinstance(VisibleRepository.of(store), VisibleRepository)
    assert isinstance(RootMemRepository.of(store), RootMemRepository)
    with pytest.raises(StoreError, match="is a SQLiteRuleMemRepository, not a VisibleRepository"):
        store.repository("rulemem", VisibleRepository)


def test_a_missing_repository_is_a_clear_store_error(tmp_path: Path) -> None:
    store = PostgresLike(tmp_path / "p.db")
    with pytest.raises(StoreError, match="the postgresql store has no rulemem repository: "):
        RuleMemRepository.of(store)
    with pytest.raises(StoreError, match=r"register_repository\('visible', 'postgresql'"):
        store.repository("visible")
    assert store.repositories() == []  # forgetting still works on the core alone
    assert store.delete_user("nobody") == 0


def test_forgetting_reaches_every_repository_inside_the_transaction(
    tmp_path: Path, probe: None
) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    entry = MemoryEntry(id="m1", user_id="ana", text="Ana keeps bees.", category="others")
    store.add_memory(entry, np.ones(4, dtype=np.float32) / 2, {})
    store.delete_memory("m1")
    store.delete_user("ana")
    store.reset()
    probe_repo = store.repository("probe")
    assert isinstance(probe_repo, Probe)
    assert probe_repo.calls == [
        ("delete_memory", "m1", True),
        ("delete_user", "ana", True),
        ("reset", "", True),
    ]
