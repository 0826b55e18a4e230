"""What only the SQLite backend has: migrations in the file, WAL, locking, a file that is
not a database. The core store's behaviour on every backend is tested in test_store.py."""

import sqlite3
from pathlib import Path

import pytest
from kit import memory_entry, unit_vector

from logicmem.errors import StoreError
from logicmem.store import schema
from logicmem.store.sqlite import SQLiteStore

_vec, _entry = unit_vector, memory_entry


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = SQLiteStore(tmp_path / "s.db")
    yield s
    s.close()


def test_migrations_are_recorded_and_wal_is_on(store: SQLiteStore, tmp_path: Path) -> None:
    applied = store.migrations()
    assert applied[:2] == [(1, "m001_create_tables"), (2, "m002_visibility")]
    assert applied == sorted((number, name) for number, name, _ in schema.MIGRATIONS)
    mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store_migrations = store.migrations()
    store.close()
    again = SQLiteStore(tmp_path / "s.db")  # reopening applies nothing twice
    assert again.migrations() == store_migrations
    again.close()


def test_locked_database_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    store = SQLiteStore(path, timeout_s=0.1)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked by another process"):
            store.add_memory(_entry("a", "text"), _vec(1), {})
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.add_memory(_entry("a", "text"), _vec(1), {})  # works once the lock is gone
    assert store.get_memory("a") is not None
    store.close()


def test_not_a_database_is_explained(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a logicmem store"):
        SQLiteStore(path)
