"""Route repositories: given by name for the store's backend, reached by every forget."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from logicmem.errors import StoreError
from logicmem.routes.rootmem.repo import RootMemRepository
from logicmem.routes.rulemem.repo import RuleMemRepository
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.store.base import REPOSITORIES, Repository, Store, register_repository
from logicmem.store.sqlite import SQLiteStore
from logicmem.store.url import open_store
from logicmem.types import MemoryEntry

PROBED = ("sqlite", "postgresql")  # the backends the probe repository is registered for


class NoSuchBackend(SQLiteStore):
    """A backend that implements the core and no repository."""

    backend = "nosuch"


class Probe(Repository):
    """Records the forget hooks and (SQLite: ``in_transaction``) whether each ran inside
    the core's transaction; with ``fail`` set, each hook raises after recording."""

    name = "probe"

    def __init__(self, store: Store) -> None:
        self.store = store
        self.calls: list[tuple[str, str, Any]] = []
        self.fail = False

    def _record(self, hook: str, arg: str) -> None:
        db = getattr(self.store, "db", None)
        self.calls.append((hook, arg, getattr(db, "in_transaction", None)))
        if self.fail:
            raise RuntimeError(f"the probe's {hook} failed")

    def delete_memory(self, entry: MemoryEntry) -> None:
        self._record("delete_memory", entry.id)

    def delete_user(self, user_id: str) -> None:
        self._record("delete_user", user_id)

    def reset(self) -> None:
        self._record("reset", "")


@pytest.fixture
def probe() -> Iterator[None]:
    for backend in PROBED:
        register_repository("probe", backend, Probe)
    yield
    for backend in PROBED:
        REPOSITORIES.unregister(f"probe:{backend}")


def test_a_store_gives_its_backends_repositories_by_name(store_url: str) -> None:
    store = open_store(store_url)
    assert isinstance(store.repository("rulemem"), RuleMemRepository)
    assert RuleMemRepository.of(store) is store.repository("rulemem")  # one per store
    assert isinstance(VisibleRepository.of(store), VisibleRepository)
    assert isinstance(RootMemRepository.of(store), RootMemRepository)
    rulemem = {"sqlite": "SQLiteRuleMemRepository", "postgresql": "PostgresRuleMemRepository"}
    assert type(store.repository("rulemem")).__name__ == rulemem[store.backend]
    with pytest.raises(StoreError, match=f"is a {rulemem[store.backend]}, not a VisibleRepository"):
        store.repository("rulemem", VisibleRepository)
    store.close()


def test_a_missing_repository_is_a_clear_store_error(tmp_path: Path) -> None:
    store = NoSuchBackend(tmp_path / "p.db")
    with pytest.raises(StoreError, match="the nosuch store has no rulemem repository: "):
        RuleMemRepository.of(store)
    with pytest.raises(StoreError, match=r"register_repository\('visible', 'nosuch'"):
        store.repository("visible")
    assert store.repositories() == []  # forgetting still works on the core alone
    assert store.delete_user("nobody") == 0


def test_forgetting_reaches_every_repository_inside_the_transaction(
    tmp_path: Path, probe: None
) -> None:
    """SQLite: the connection says it is inside a transaction (on every backend, the test
    below shows it by a failing hook undoing the whole forget)."""
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


def test_a_failing_repository_hook_undoes_the_whole_forget(store_url: str, probe: None) -> None:
    store = open_store(store_url)
    entry = MemoryEntry(id="m1", user_id="ana", text="Ana keeps bees.", category="others")
    store.add_memory(entry, np.ones(4, dtype=np.float32) / 2, {})
    probe_repo = store.repository("probe")
    assert isinstance(probe_repo, Probe)
    probe_repo.fail = True
    with pytest.raises(RuntimeError, match="the probe's delete_memory failed"):
        store.delete_memory("m1")
    kept = store.get_memory("m1")
    assert kept is not None and kept.text == "Ana keeps bees."
    assert [row.event for row in store.history("m1")] == ["ADD"]
    with pytest.raises(RuntimeError, match="the probe's delete_user failed"):
        store.delete_user("ana")
    assert store.user_exists("ana") and store.get_memory("m1") is not None
    with pytest.raises(RuntimeError, match="the probe's reset failed"):
        store.reset()
    assert store.users() == ["ana"] and store.get_memory("m1") is not None
    probe_repo.fail = False
    store.delete_memory("m1")
    assert store.get_memory("m1") is None
    assert store.delete_user("ana") == 0 and store.users() == []
    store.reset()
    hooks = [("delete_memory", "m1"), ("delete_user", "ana"), ("reset", "")]
    assert [call[:2] for call in probe_repo.calls] == hooks + hooks
    store.close()
