"""Store backends for the tests: SQLite files and PostgreSQL schemas, behind one interface.

Tests that are about store behaviour in general take the ``backend`` (or ``store_url``)
fixture from ``tests/conftest.py`` and run once per backend (ids ``sqlite`` and
``postgresql``). ``Backend.url(name)`` names a store: a file in the test's tmp dir for
SQLite, a fresh schema (``?schema=t_<hex>``) of the session's server for PostgreSQL; the
same name gives the same store, so a test can reopen it or open two handles on it.

The server: ``LOGICMEM_TEST_PG`` (a libpq URL, e.g.
``postgresql://postgres:@/postgres?host=/run/pg``) names a running one; without it the
``pgserver`` wheel starts a throwaway one for the session. Where neither works, every
PostgreSQL test is skipped with one line saying why (``LOGICMEM_TEST_PG_REQUIRED=1`` makes
that a failure instead, for CI jobs that must test PostgreSQL).
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import pytest

ENV = "LOGICMEM_TEST_PG"
REQUIRED_ENV = "LOGICMEM_TEST_PG_REQUIRED"
# Read at import: the autouse ``isolated_env`` fixture clears LOGICMEM_* for every test.
CONFIGURED = os.environ.get(ENV, "").strip() or None
REQUIRED = os.environ.get(REQUIRED_ENV, "") not in ("", "0")
HINT = f"set {ENV}=postgresql://... to use a running server"

# Parameters of every backend-parametrised fixture. ``-m "not postgresql"`` leaves PG out.
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgresql),
]


def _one_line(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _redact(url: str) -> str:
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


def _text(value: Any) -> str:
    if isinstance(value, memoryview):
        value = bytes(value)
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class PGServer:
    """The session's PostgreSQL server: ``uri`` (libpq URL) with pgvector created."""

    def __init__(self, uri: str, stop: Callable[[], None] | None = None) -> None:
        self.uri = uri
        self._stop = stop

    def connect(self, **options: Any) -> Any:
        import psycopg

        return psycopg.connect(self.uri, autocommit=True, connect_timeout=10, **options)

    def close(self) -> None:
        if self._stop is not None:
            self._stop()
            self._stop = None


def start_server() -> PGServer:
    """The server for this session; raises ``pytest.skip`` (one line) where there is none."""

    def unavailable(what: str, exc: BaseException) -> NoReturn:
        reason = f"PostgreSQL tests skipped: {what} ({_one_line(exc)}); {HINT}"
        if REQUIRED:
            pytest.fail(reason.replace("skipped", "required", 1), pytrace=False)
        pytest.skip(reason)

    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        unavailable("psycopg is not installed", exc)
    if CONFIGURED is not None:
        server = PGServer(CONFIGURED)
        where = f"{ENV}={_redact(CONFIGURED)}"
    else:
        try:
            server = _start_pgserver()
        except Exception as exc:  # any failure to start means no PostgreSQL here
            unavailable("cannot start pgserver", exc)
        where = "the pgserver server"
    try:
        conn = server.connect()
    except Exception as exc:
        server.close()
        unavailable(f"cannot connect to {where}", exc)
    try:
        with conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except Exception as exc:
        server.close()
        unavailable(f"pgvector is not available on {where}", exc)
    return server


def _start_pgserver() -> PGServer:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        import pgserver

        # Short: the server's unix socket path must stay under ~100 characters.
        folder = tempfile.mkdtemp(prefix="lmpg")
        try:
            srv = pgserver.get_server(folder, cleanup_mode="stop")
            uri = srv.get_uri()
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def stop() -> None:
        try:
            srv.cleanup()
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return PGServer(uri, stop)


def schema_url(base: str, schema: str) -> str:
    """``base`` with ``schema=NAME`` added to its query string."""
    return f"{base}{'&' if '?' in base else '?'}schema={schema}"


def drop_schema(server: PGServer, schema: str) -> None:
    """Drop a test's schema. Stores a test left open (or a failed test's traceback keeps)
    may still hold locks on its tables: their connections are ended first if so."""
    gc.collect()  # closes the connections of stores nothing refers to any more
    with server.connect() as conn:
        conn.execute("SET lock_timeout = '2s'")
        for attempt in range(2):
            try:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                return
            except Exception:
                if attempt:
                    raise
            conn.execute(
                "SELECT pg_terminate_backend(l.pid) FROM pg_locks l "
                "JOIN pg_class c ON c.oid = l.relation "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND l.pid <> pg_backend_pid()",
                (schema,),
            )


class Backend:
    """One backend for one test (or module): names stores and reaches under them."""

    def __init__(self, name: str, folder: Path, server: PGServer | None = None) -> None:
        self.name = name
        self.folder = folder
        self.server = server
        self.schemas: dict[str, str] = {}

    @property
    def is_sqlite(self) -> bool:
        return self.name == "sqlite"

    def url(self, name: str = "store") -> str:
        """The store called ``name``: the same name gives the same store."""
        if self.is_sqlite:
            return str(self.folder / f"{name}.db")
        assert self.server is not None
        schema = self.schemas.setdefault(name, f"t_{uuid.uuid4().hex[:12]}")
        return schema_url(self.server.uri, schema)

    def schema(self, url: str) -> str:
        [name] = [s for s in self.schemas.values() if url.endswith(f"schema={s}")]
        return name

    @contextlib.contextmanager
    def raw(self, url: str) -> Iterator[Callable[..., list[Any]]]:
        """A connection of its own to the store at ``url`` (what another process sees or
        does): ``execute(sql, params)`` with ``?`` placeholders, returning all rows as
        tuples; committed when the block ends."""
        if self.is_sqlite:
            import sqlite3

            with contextlib.closing(sqlite3.connect(url)) as db, db:
                yield lambda sql, params=(): db.execute(sql, params).fetchall()
            return
        assert self.server is not None
        schema = self.schema(url)
        with self.server.connect() as conn:
            conn.execute(f'SET search_path TO "{schema}", public')
            with conn.transaction():

                def execute(sql: str, params: Sequence[Any] = ()) -> list[Any]:
                    cursor = conn.execute(sql.replace("?", "%s"), params)
                    return cursor.fetchall() if cursor.description else []

                yield execute

    def rows_mentioning(self, url: str, word: str) -> list[str]:
        """``table: row`` for every row of the store, in any table, that holds ``word``."""
        found = []
        with self.raw(url) as execute:
            if self.is_sqlite:
                tables = [
                    r[0] for r in execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                ]
            else:
                tables = [
                    r[0]
                    for r in execute(
                        "SELECT table_name FROM information_schema.tables "
                        "WHERE table_schema = ? AND table_type = 'BASE TABLE'",
                        (self.schema(url),),
                    )
                ]
            for table in tables:
                for row in execute(f'SELECT * FROM "{table}"'):
                    text = " ".join(_text(value) for value in row)
                    if word in text:
                        found.append(f"{table}: {text[:120]}")
        return found

    def close(self) -> None:
        if self.server is not None:
            for schema in self.schemas.values():
                drop_schema(self.server, schema)
            self.schemas.clear()


@contextlib.contextmanager
def open_backend(request: pytest.FixtureRequest, name: str, folder: Path) -> Iterator[Backend]:
    """The ``name`` backend with stores under ``folder`` (SQLite) or in schemas of the
    session's server (PostgreSQL; skipped where there is none), dropped at the end."""
    server = request.getfixturevalue("pg_server") if name == "postgresql" else None
    backend = Backend(name, folder, server)
    try:
        yield backend
    finally:
        backend.close()
