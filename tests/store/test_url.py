"""Store URLs: one parser picks the backend from STORES by scheme."""

from __future__ import annotations

from pathlib import Path

import pytest

from logicmem.errors import StoreError
from logicmem.memory import Memory
from logicmem.store.base import STORES
from logicmem.store.sqlite import SQLiteStore
from logicmem.store.url import StoreURL, open_store, parse_store_url, redact, sqlite_url


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("data/mem.db", StoreURL("sqlite", "data/mem.db")),
        ("/abs/mem.db", StoreURL("sqlite", "/abs/mem.db")),
        ("~/mem.db", StoreURL("sqlite", "~/mem.db")),
        (":memory:", StoreURL("sqlite", ":memory:")),
        ("sqlite:///:memory:", StoreURL("sqlite", ":memory:")),
        ("sqlite://:memory:", StoreURL("sqlite", ":memory:")),
        ("sqlite:///abs/path.db", StoreURL("sqlite", "/abs/path.db")),
        ("sqlite:////abs/path.db", StoreURL("sqlite", "/abs/path.db")),
        ("sqlite://rel/path.db", StoreURL("sqlite", "rel/path.db")),
        ("SQLITE:///a%20b.db", StoreURL("sqlite", "/a b.db")),
        ("postgresql://u:pw@db/mem", StoreURL("postgresql", "postgresql://u:pw@db/mem")),
        ("postgres://db/mem", StoreURL("postgresql", "postgres://db/mem")),
        ("postgresql+psycopg://db/mem", StoreURL("postgresql", "postgresql+psycopg://db/mem")),
    ],
)
def test_a_store_setting_names_a_backend_and_a_target(setting: str, expected: StoreURL) -> None:
    assert parse_store_url(setting) == expected


def test_a_plain_path_and_a_sqlite_url_open_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = open_store(path)
    store.set_meta("k", "v")
    store.close()
    again = open_store(sqlite_url(path))
    assert isinstance(again, SQLiteStore) and again.get_meta("k") == "v"
    again.close()
    memory = open_store("sqlite:///:memory:")
    assert isinstance(memory, SQLiteStore) and memory.path == ":memory:"


@pytest.fixture
def without_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deployment whose PostgreSQL backend is not registered (``STORES`` without it),
    whether or not this checkout has one."""
    monkeypatch.delitem(STORES._entries, "postgresql", raising=False)


def test_an_unregistered_backend_is_a_clear_error(without_postgresql: None) -> None:
    with pytest.raises(StoreError, match="no postgresql store backend is registered") as err:
        open_store("postgresql://ana:secret@db.example/mem")
    assert "secret" not in str(err.value) and "ana:***@db.example" in str(err.value)


def test_an_unknown_scheme_lists_the_choices() -> None:
    registered = ", ".join(STORES.names())  # postgresql, sqlite
    with pytest.raises(StoreError, match=rf"scheme 'mysql'.*registered backends: {registered}"):
        parse_store_url("mysql://db/mem")
    with pytest.raises(StoreError, match="names no file"):
        parse_store_url("sqlite:///")
    with pytest.raises(StoreError, match="empty"):
        parse_store_url("  ")


def test_memory_opens_store_urls(tmp_path: Path, without_postgresql: None) -> None:
    config = {"embedder": {"provider": "hash"}, "llm": {"provider": "none"}}
    with Memory(sqlite_url(tmp_path / "m.db"), config=config) as mem:
        mem.add("I have a cat named Miso.", user_id="ana", infer=False)
    with Memory(tmp_path / "m.db", config=config) as mem:
        assert len(mem.get_all(user_id="ana")) == 1
    with pytest.raises(StoreError, match=r"no postgresql store backend .*\(registered: sqlite\)"):
        Memory("postgresql://db/mem", config=config)


def test_redact_masks_only_passwords() -> None:
    assert redact("postgresql://u:pw@h:5432/d") == "postgresql://u:***@h:5432/d"
    assert redact("postgresql://h/d") == "postgresql://h/d"
    assert redact("data/pw.db") == "data/pw.db"
