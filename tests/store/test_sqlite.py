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


def test_a_read_in_flight_never_turns_a_writer_away(tmp_path: Path) -> None:
    """A service's threads share one connection. A statement still being read by one
    thread used to hold its read snapshot open; when another process committed meanwhile,
    another thread's BEGIN IMMEDIATE on that snapshot failed at once with "database is
    locked" (two workers on one file: 503s under load). Statements are now read out under
    the store's lock, so nothing is left open across a transaction."""
    path = tmp_path / "two.db"
    a, b = SQLiteStore(path), SQLiteStore(path)
    for i in range(3):
        a.add_memory(memory_entry(f"m{i}", f"fact {i}"), unit_vector(i), {})
    reading = a.db.execute("SELECT id FROM memories ORDER BY rowid")
    assert reading.fetchone() is not None  # one thread part-way through its rows
    b.add_memory(memory_entry("m9", "another process's fact"), unit_vector(9), {})
    with a.transaction():  # another thread of the first process writes
        a.db.execute("UPDATE memories SET text = text || '.' WHERE id = ?", ("m0",))
    assert [r["id"] for r in reading] == ["m1", "m2"]
    a.close()
    b.close()


def test_no_thread_reads_another_threads_uncommitted_write(tmp_path: Path) -> None:
    """A write that rolls back was visible to the other threads while it was open."""
    import contextlib
    import threading
    import time

    store = SQLiteStore(tmp_path / "iso.db")
    store.add_memory(memory_entry("m0", "the original text"), unit_vector(0), {})
    seen: list[str] = []
    inside = threading.Event()

    def writer() -> None:
        with contextlib.suppress(RuntimeError), store.transaction():
            store.db.execute("UPDATE memories SET text = 'uncommitted' WHERE id = 'm0'")
            inside.set()
            time.sleep(0.3)  # the reader asks meanwhile: it waits for the end
            raise RuntimeError("roll back")

    def reader() -> None:
        inside.wait(5)
        row = store.db.execute("SELECT text FROM memories WHERE id = 'm0'").fetchone()
        seen.append(row["text"])

    threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == ["the original text"]
    store.close()
