"""The test harness's PostgreSQL side (tests/pg.py): one schema per store, dropped at the
end even when a store left a transaction open; one clear line where there is no server."""

from __future__ import annotations

from pathlib import Path

import pg
import pytest
from pg import Backend, PGServer, schema_url


def test_a_schema_joins_the_query_string() -> None:
    assert schema_url("postgresql://u@h/db", "t_1") == "postgresql://u@h/db?schema=t_1"
    assert (
        schema_url("postgresql://postgres:@/postgres?host=/run/pg", "t_1")
        == "postgresql://postgres:@/postgres?host=/run/pg&schema=t_1"
    )


def test_sqlite_stores_are_files_in_the_tests_folder(tmp_path: Path) -> None:
    backend = Backend("sqlite", tmp_path)
    assert backend.url() == str(tmp_path / "store.db") and backend.url("a") != backend.url()


def test_no_server_is_one_skip_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg, "CONFIGURED", "postgresql://nobody:pw@/nodb?host=/nonexistent")
    monkeypatch.setattr(pg, "REQUIRED", False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        pg.start_server()
    reason = str(skipped.value)
    assert reason.startswith("PostgreSQL tests skipped: cannot connect to LOGICMEM_TEST_PG=")
    assert "\n" not in reason and "pw" not in reason and "LOGICMEM_TEST_PG=postgresql://" in reason
    monkeypatch.setattr(pg, "REQUIRED", True)
    with pytest.raises(pytest.fail.Exception, match="PostgreSQL tests required: "):
        pg.start_server()


@pytest.mark.postgresql
def test_each_store_is_a_schema_of_its_own_dropped_at_the_end(
    pg_server: PGServer, tmp_path: Path
) -> None:
    with pg_server.connect() as conn:
        assert conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    backend = Backend("postgresql", tmp_path, pg_server)
    a, b = backend.url("a"), backend.url("b")
    assert a != b and backend.url("a") == a and a.startswith(pg_server.uri)
    schema = backend.schema(a)
    with pg_server.connect() as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'CREATE TABLE "{schema}".turns (turn_id text, claim text)')
        conn.execute(f"INSERT INTO \"{schema}\".turns VALUES ('t1', NULL)")
    with backend.raw(a) as execute:  # ? placeholders, the store's schema first
        execute("UPDATE turns SET claim = ?", ("host:1:Quillibrand",))
        assert execute("SELECT turn_id, claim FROM turns") == [("t1", "host:1:Quillibrand")]
    assert backend.rows_mentioning(a, "Quillibrand") == ["turns: t1 host:1:Quillibrand"]
    # A store left open inside a transaction holds a lock on its tables: it is ended.
    idle = pg_server.connect()
    idle.autocommit = False
    idle.execute(f'SELECT * FROM "{schema}".turns').fetchall()
    backend.close()
    idle.close()
    with pg_server.connect() as conn:
        names = {r[0] for r in conn.execute("SELECT nspname FROM pg_namespace").fetchall()}
    assert schema not in names and backend.schemas == {}
