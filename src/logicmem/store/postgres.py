"""The PostgreSQL + pgvector store: many processes against one database.

``postgresql://user:pass@host:port/db`` (``postgres://`` and ``postgresql+psycopg://`` too;
``?host=/dir`` for a unix socket). ``?schema=NAME`` keeps the store in its own schema,
created on first open (tests and benchmarks use one per store); without it the store
uses the connection's default schema.

- psycopg 3 with a connection pool (``?pool_size=N``, default 8). Reads borrow a
  connection; a transaction holds one for its duration, and everything its thread runs
  inside it (route repositories included) goes through that connection.
- The same numbered migrations as SQLite (``pg_schema``), applied under an advisory lock
  so two processes opening a new database do not race.
- The same guarantees as SQLite's: turns are committed before any model call, and
  extraction state commits with the memories (the core's logic is shared, ``store.sql``).
  SQLite serialises writers per file; here a user's turn sequence is taken under a
  per-user advisory lock, and claims are taken row by row, so concurrent writers neither
  reuse a sequence number nor extract the same turn twice.
- Memory vectors are pgvector ``vector`` values with an HNSW index (cosine). A scope of
  up to ``EXACT_MAX`` memories is searched exactly, from its matrix cached in process; a
  larger one through the index (``hnsw.ef_search`` = ``EF_SEARCH``), falling back to an
  exact scan when the index's filtered answer is short (pgvector 0.6 filters after the
  index scan, so a small user in a large table gets fewer rows than asked).
- Keyword search uses the same per-user index and BM25 as SQLite (``memory_terms``), scored
  inside PostgreSQL. PostgreSQL's own ``ts_rank`` has no document frequencies at all, so
  it could not keep the rule that a user's ranking depends on their statistics only, nor
  give the same ranking on both backends.
- Caches never serve another process's stale data: each is stamped with the user's
  version in ``user_versions``, which triggers bump inside every writing transaction.
- Forgetting deletes the rows in one transaction and then VACUUMs the tables it touched,
  so the dead row versions are pruned from the heap and indexes. Unlike SQLite's
  ``secure_delete``, PostgreSQL does not zero the freed space, and its write-ahead log
  keeps the old rows until the segment is recycled: see docs/operations.md.
"""

from __future__ import annotations

import json
import re
import struct
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from logicmem.errors import StoreError
from logicmem.store import pg_schema as pg
from logicmem.store import schema as sql
from logicmem.store.sql import SQLStore
from logicmem.store.sqlutil import live_sql, now, scope_sql
from logicmem.store.url import redact
from logicmem.types import Scope

try:
    import psycopg
    from psycopg import sql as pgsql
    from psycopg.adapt import Dumper, Loader
    from psycopg.pq import Format
    from psycopg.rows import dict_row
    from psycopg.types import TypeInfo
    from psycopg_pool import ConnectionPool
except ImportError as exc:  # pragma: no cover - exercised where the extra is missing
    raise StoreError(
        "the PostgreSQL backend needs psycopg 3 and psycopg-pool: pip install 'logicmem[postgres]'"
    ) from exc

_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_MIGRATION_LOCK = 0x6C6D6967  # pg_advisory_lock key while migrating ("lmig")
# The tables a forget writes to, vacuumed afterwards (core and every route's).
_VACUUM = (
    "memories",
    "memory_terms",
    "turns",
    "history",
    "events",
    "user_versions",
    *pg.VERSIONED[1:],
    "root_marks",
    "rulemem_progress",
)


class PgVector:
    """A memory vector as a query parameter (sent in pgvector's binary format)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = np.asarray(array, dtype=np.float32)


def _adapters(oid: int) -> tuple[type[Dumper], type[Loader], type[Loader]]:
    class VectorDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: PgVector) -> bytes:
            values = obj.array.astype(">f4")
            return struct.pack(">HH", values.shape[0], 0) + values.tobytes()

    VectorDumper.oid = oid

    class VectorText(Loader):
        def load(self, data: Any) -> np.ndarray:
            return np.array(bytes(data)[1:-1].split(b","), dtype=np.float32)

    class VectorBytes(Loader):
        # Binary rows stay raw: _load_vectors joins them into one matrix in one step.
        format = Format.BINARY

        def load(self, data: Any) -> bytes:
            return bytes(data)

    return VectorDumper, VectorText, VectorBytes


class _Rows:
    """A statement's rows, read at once (the connection goes back to the pool)."""

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return list(self._rows)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)


def _convert(query: str) -> str:
    """``?`` placeholders (the shared SQL's) as psycopg's ``%s``."""
    return query.replace("%", "%%").replace("?", "%s")


class _Connection:
    """``execute`` / ``executemany`` with ``?`` placeholders over the pool: the calling
    thread's transaction connection when it is in one, else a borrowed connection."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self._converted: dict[str, str] = {}

    def _sql(self, query: str) -> str:
        out = self._converted.get(query)
        if out is None:
            out = self._converted[query] = _convert(query)
        return out

    @contextmanager
    def _borrow(self) -> Iterator[Any]:
        held = getattr(self.store._local, "conn", None)
        if held is not None:
            yield held
            return
        with self.store._pool.connection() as conn:
            yield conn

    def execute(self, query: str, params: Sequence[Any] = (), /, binary: bool = False) -> _Rows:
        with self.store.errors(), self._borrow() as conn:
            cur = conn.cursor(binary=binary)
            if params:
                cur.execute(self._sql(query), [_param(p) for p in params])
            else:
                cur.execute(query)
            rows = cur.fetchall() if cur.description is not None else []
            return _Rows(rows, cur.rowcount)

    def executemany(self, query: str, rows: Sequence[Sequence[Any]], /) -> None:
        rows = list(rows)
        if not rows:
            return
        with self.store.errors(), self._borrow() as conn:
            conn.cursor().executemany(self._sql(query), [[_param(p) for p in r] for r in rows])


def _param(value: Any) -> Any:
    if isinstance(value, memoryview):
        return bytes(value)
    return value


def _split_url(url: str) -> tuple[str, str | None, int]:
    """The psycopg conninfo, the schema and the pool size a store URL names."""
    parts = urlsplit(url)
    scheme = "postgresql"
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None)
    size = next((v for k, v in query if k == "pool_size"), "8")
    rest = [(k, v) for k, v in query if k not in ("schema", "pool_size")]
    if schema is not None and not _SCHEMA_NAME.match(schema):
        raise StoreError(
            f"schema={schema!r} in the store URL is not a plain name: use letters, digits "
            "and underscores, starting with a letter (at most 63)"
        )
    if not size.isdigit() or int(size) < 1:
        raise StoreError(f"pool_size={size!r} in the store URL must be a positive number")
    conninfo = urlunsplit((scheme, parts.netloc, parts.path, urlencode(rest), parts.fragment))
    return conninfo, schema, int(size)


class PostgresStore(SQLStore):
    """Store in a PostgreSQL database with pgvector."""

    backend = "postgresql"

    EXACT_MAX = 20_000  # a scope this large or smaller is searched exactly
    # hnsw.ef_search for index searches (pgvector's default is 40, its maximum 1000): the
    # value that reached recall@10 >= 0.98 against exact search on 88,892 distinct
    # memories (0.932 at 200, 0.969 at 400, 0.990 at 1000; benchmarks/hnsw_recall.py).
    EF_SEARCH = 1000
    # Run (SET LOCAL) before an index search; ``{ef}`` is max(EF_SEARCH, k). Planner
    # settings go here too (the planner still picks an exact scan where it is cheaper).
    INDEX_SETTINGS: tuple[str, ...] = ("SET LOCAL hnsw.ef_search = {ef}",)

    def __init__(self, url: str, *, timeout_s: float = 30.0) -> None:
        super().__init__()
        self.url = url
        self.location = redact(url)
        self._conninfo, self.schema, pool_size = _split_url(url)
        self._local = threading.local()
        self._dims: int | None = None
        self._live: dict[str, tuple[Any, int]] = {}
        self._db = _Connection(self)
        with self.errors():
            oid, search_path = self._migrate(timeout_s)
        dumper, text, raw = _adapters(oid)

        def configure(conn: Any) -> None:
            conn.adapters.register_dumper(PgVector, dumper)
            conn.adapters.register_loader(oid, text)
            conn.adapters.register_loader(oid, raw)
            conn.execute(pgsql.SQL("SET search_path TO {}").format(search_path))

        with self.errors():
            self._pool = ConnectionPool(
                self._conninfo,
                min_size=1,
                max_size=pool_size,
                kwargs={"autocommit": True, "row_factory": dict_row},
                configure=configure,
                timeout=timeout_s,
                open=True,
            )
        bound = self.get_meta("embedder")
        if bound is not None:
            self._dims = int(json.loads(bound)["dims"])

    # -- plumbing -------------------------------------------------------------------------
    def _explain(self, exc: Exception) -> str:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if isinstance(exc, psycopg.OperationalError) or "couldn't get a connection" in text:
            return (
                f"cannot reach PostgreSQL at {self.location} ({text}); start the server or "
                "fix the URL in --store / LOGICMEM_STORE"
            )
        if 'type "vector" does not exist' in text or 'extension "vector"' in text:
            return (
                f"PostgreSQL at {self.location} has no pgvector ({text}); install the "
                "extension (CREATE EXTENSION vector needs a superuser once) and retry"
            )
        return f"store {self.location}: {text}"

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except (psycopg.Error, OSError) as exc:
            raise StoreError(self._explain(exc)) from exc
        except Exception as exc:
            if type(exc).__module__.startswith("psycopg_pool"):
                raise StoreError(self._explain(exc)) from exc
            raise

    def errors(self) -> AbstractContextManager[None]:
        return self._errors()

    @property
    def db(self) -> _Connection:
        return self._db

    @contextmanager
    def transaction(self) -> Iterator[None]:
        local = self._local
        if getattr(local, "conn", None) is not None:
            yield  # joins the thread's transaction
            return
        with self._errors(), self._pool.connection() as conn:
            local.conn = conn
            try:
                with conn.transaction():
                    yield
            except BaseException:
                self._clear_caches()
                raise
            finally:
                local.conn = None

    def _migrate(self, timeout_s: float) -> tuple[int, Any]:
        """Create the schema and pgvector if needed, apply missing migrations; returns the
        vector type's oid and the search path for the pool's connections."""
        with psycopg.connect(
            self._conninfo, autocommit=True, row_factory=dict_row, connect_timeout=int(timeout_s)
        ) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
            try:
                ext = conn.execute(
                    "SELECT extnamespace::regnamespace::text AS s FROM pg_extension "
                    "WHERE extname = 'vector'"
                ).fetchone()
                if ext is None:
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
                    ext = {"s": "public"}
                names = [self.schema] if self.schema else []
                if self.schema:
                    conn.execute(
                        pgsql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                            pgsql.Identifier(self.schema)
                        )
                    )
                else:
                    row = conn.execute("SELECT current_schema() AS s").fetchone()
                    names = [(row or {}).get("s") or "public"]
                if ext["s"] not in names:
                    names.append(ext["s"])
                path = pgsql.SQL(", ").join(pgsql.Identifier(n) for n in names)
                conn.execute(pgsql.SQL("SET search_path TO {}").format(path))
                with conn.transaction():
                    conn.execute(pg.CREATE_MIGRATIONS_TABLE)
                applied = {r["number"] for r in conn.execute(sql.APPLIED_MIGRATIONS)}
                for number, name, script in pg.MIGRATIONS:
                    if number in applied:
                        continue
                    with conn.transaction():
                        conn.execute(script.encode())
                        conn.execute(_convert(sql.RECORD_MIGRATION), (number, name, now()))
                bound = conn.execute(sql.META_GET.replace("?", "%s"), ("embedder",)).fetchone()
                if bound is not None:
                    dims = int(json.loads(bound["value"])["dims"])
                    conn.execute(pg.HNSW_INDEX.format(dims=dims))
                info = TypeInfo.fetch(conn, "vector")
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
        if info is None:
            raise StoreError(f"PostgreSQL at {self.location} has no pgvector type 'vector'")
        return info.oid, path

    def close(self) -> None:
        self._pool.close()

    def bind_embedder(self, name: str, dims: int) -> None:
        super().bind_embedder(name, dims)
        if self._dims != dims:
            with self._errors(), self._pool.connection() as conn:
                conn.execute(pg.HNSW_INDEX.format(dims=int(dims)))
            self._dims = dims

    # -- caches and vectors ---------------------------------------------------------------
    def write_stamp(self, user_id: str | None = None) -> Any:
        """The user's version (``None``: the newest of anyone's, and how many users have
        one). Versions come from one sequence, which never gives a value twice, even to
        a transaction that rolled back, so a stamp seen inside a failed write never
        matches a later one."""
        with self._errors():
            if user_id is None:
                row = self.db.execute(pg.ALL_VERSIONS).fetchone()
                return (int(row["v"]), int(row["n"]))
            row = self.db.execute(pg.USER_VERSION, (user_id,)).fetchone()
        return int(row["version"]) if row else 0

    def _cache_stamp(self, user_id: str) -> Any:
        return self.write_stamp(user_id)

    def _vector_param(self, vector: np.ndarray) -> PgVector:
        return PgVector(vector)

    def _vector_value(self, value: Any) -> np.ndarray:
        return np.asarray(value, dtype=np.float32)

    def _load_vectors(self, query: str, params: list[Any]) -> tuple[list[str], np.ndarray]:
        rows = self.db.execute(query, params, binary=True).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        raw = b"".join(r["embedding"] for r in rows)
        # Each value is a 4-byte header (dims, unused) then big-endian float4s.
        grid = np.frombuffer(raw, dtype=">f4").reshape(len(rows), -1)[:, 1:]
        return [r["id"] for r in rows], grid.astype(np.float32)

    def _lock_user(self, user_id: str) -> None:
        self.db.execute(pg.LOCK_USER, (user_id,))

    def _live_count(self, scope: Scope) -> int:
        stamp = self._cache_stamp(scope.user_id)
        held = self._live.get(scope.user_id)
        if held is not None and held[0] == stamp:
            return held[1]
        row = self.db.execute(pg.COUNT_LIVE, (scope.user_id,)).fetchone()
        if len(self._live) > 4096:
            self._live.clear()
        self._live[scope.user_id] = (stamp, int(row["n"]))
        return int(row["n"])

    def _indexed(self, scope: Scope, as_of: str | None) -> bool:
        """Whether to search this scope through the HNSW index rather than exactly."""
        if as_of is not None or self._dims is None:
            return False
        with self._errors():
            return self._live_count(scope) > self.EXACT_MAX

    def nearest(
        self, scope: Scope, queries: np.ndarray, k: int, *, as_of: str | None = None
    ) -> list[list[tuple[str, float]]]:
        if not self._indexed(scope, as_of):
            return super().nearest(scope, queries, k, as_of=as_of)
        clause, params = scope_sql(scope)
        live, _ = live_sql(None)
        index_query = pg.NEAREST_HNSW.format(dims=self._dims, clause=clause + live)
        exact_query = pg.NEAREST_EXACT.format(clause=clause + live)
        want = min(k, self._live_count(scope))
        out = []
        with self.transaction():
            for setting in self.INDEX_SETTINGS:
                self.db.execute(setting.format(ef=int(max(self.EF_SEARCH, k))))
            for q in np.atleast_2d(queries):
                v = PgVector(q)
                args = [v, scope.user_id, *params, v, k]
                rows = self.db.execute(index_query, args).fetchall()
                if len(rows) < want:
                    rows = self.db.execute(exact_query, args).fetchall()
                out.append([(r["id"], float(r["cosine"])) for r in rows])
        return out

    def cosines(
        self, scope: Scope, query: np.ndarray, ids: Sequence[str], *, as_of: str | None = None
    ) -> dict[str, float]:
        if not self._indexed(scope, as_of):
            return super().cosines(scope, query, ids, as_of=as_of)
        rows = self.db.execute(pg.COSINES, (PgVector(query), scope.user_id, list(ids)))
        return {r["id"]: float(r["cosine"]) for r in rows}

    # -- forgetting -----------------------------------------------------------------------
    def delete_user(self, user_id: str) -> int:
        with self.transaction():
            count = super().delete_user(user_id)  # its purge waits for this commit
            self.db.execute(pg.DELETE_USER_VERSION, (user_id,))
        self._purge()
        return count

    def reset(self) -> None:
        with self.transaction():
            super().reset()
            self.db.execute(pg.RESET_VERSIONS)
        self._purge()

    def _purge(self) -> None:
        if getattr(self._local, "conn", None) is not None:
            return  # inside the caller's transaction: its own end purges
        with self._errors(), self._pool.connection() as conn:
            for table in _VACUUM:
                conn.execute(pgsql.SQL("VACUUM {}").format(pgsql.Identifier(table)))

    def _bytes_on_disk(self) -> int:
        return int(self.db.execute(pg.SCHEMA_BYTES).fetchone()["n"])


def drop_schema(url: str) -> None:
    """Drop the schema a store URL names, with everything in it (tests, benchmarks)."""
    conninfo, schema, _ = _split_url(url)
    if not schema:
        raise StoreError("drop_schema needs a URL with ?schema=NAME")
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(pgsql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(pgsql.Identifier(schema)))
