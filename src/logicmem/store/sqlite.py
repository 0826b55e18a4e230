"""The embedded SQLite store: one file, WAL, a per-user keyword index, vectors as blobs.

Dense search is brute force over a per-scope matrix cached in memory (numpy: ~7 ms for
100k x 384 here); the cache is dropped on any local write to that user and whenever
another connection commits (``PRAGMA data_version``).

Deleted data is overwritten, not only unlinked (``secure_delete``), and forgetting a user
checkpoints and truncates the write-ahead log, so no byte of what the user said stays in
the file or its ``-wal``. A store the process cannot write opens read-only for reads.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from logicmem.errors import StoreError
from logicmem.store import schema as sql
from logicmem.store.sql import SQLStore
from logicmem.store.sqlutil import blob, matrix, now


def _read_only(path: Path) -> bool:
    """An existing store this process cannot write: its file, or the folder its
    write-ahead log would go in, is not writable (permissions, read-only filesystem)."""
    if not path.exists():
        return False
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)


class _ReadRows:
    """A statement's rows, read out while the connection was held."""

    def __init__(self, rows: list[sqlite3.Row], rowcount: int) -> None:
        self._rows, self.rowcount, self._next = rows, rowcount, 0

    def fetchone(self) -> sqlite3.Row | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[sqlite3.Row]:
        rest, self._next = self._rows[self._next :], len(self._rows)
        return rest

    def __iter__(self) -> Iterator[sqlite3.Row]:
        return iter(self.fetchall())


class _Serialized:
    """The store's one connection as its threads share it (a service's request threads).

    Every statement runs under the store's lock, which a transaction holds from BEGIN to
    COMMIT, and its rows are read out before the lock is let go. So one thread never reads
    another's uncommitted writes, and no statement is left open across another thread's
    ``BEGIN IMMEDIATE``: in WAL mode that turns a read snapshot into a write on a stale
    snapshot, which SQLite refuses at once ("database is locked") instead of waiting,
    whenever another process has committed in between (two service workers on one file).
    """

    def __init__(self, db: sqlite3.Connection, lock: threading.RLock) -> None:
        self._db, self._lock = db, lock

    @property
    def in_transaction(self) -> bool:
        return self._db.in_transaction

    def execute(self, query: str, params: Any = (), /) -> _ReadRows:
        with self._lock:
            cur = self._db.execute(query, params)
            return _ReadRows(cur.fetchall(), cur.rowcount)

    def executemany(self, query: str, rows: Any, /) -> _ReadRows:
        with self._lock:
            cur = self._db.executemany(query, rows)
            return _ReadRows([], cur.rowcount)


class SQLiteStore(SQLStore):
    """Store in one SQLite file. ``path=":memory:"`` gives a throwaway store."""

    backend = "sqlite"

    def __init__(
        self, path: str | Path, *, timeout_s: float = 30.0, read_only: bool | None = None
    ) -> None:
        """``read_only=None`` opens read-only exactly when the file cannot be written."""
        super().__init__()
        self.path = self.location = str(path)
        if read_only is None:
            read_only = self.path != ":memory:" and _read_only(Path(self.path).expanduser())
        self.read_only = read_only
        if self.path != ":memory:" and not self.read_only:
            parent = Path(self.path).expanduser().parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create the store's folder {parent}: {exc.strerror}; "
                    "choose another path with --store or LOGICMEM_STORE"
                ) from None
        try:
            self._db = self._connect(timeout_s)
        except sqlite3.OperationalError as exc:
            # A read-only filesystem is found out only when SQLite tries to write.
            if self.read_only or "readonly" not in str(exc) or not Path(self.path).exists():
                raise StoreError(self._explain(exc)) from None
            self.read_only = True
            self._db = self._connect(timeout_s)
        except sqlite3.DatabaseError as exc:
            raise StoreError(self._explain(exc)) from None
        self._lock = threading.RLock()
        self._serial = _Serialized(self._db, self._lock)
        self._depth = 0
        with self._errors():
            if self.read_only:
                self._check_schema()
            else:
                self._migrate()

    # -- plumbing -------------------------------------------------------------------------
    def _connect(self, timeout_s: float) -> sqlite3.Connection:
        if self.read_only:
            # Nothing can write it (read-only file or filesystem): no lock, no WAL.
            target = Path(self.path).expanduser().resolve().as_uri() + "?immutable=1"
            db = sqlite3.connect(target, uri=True, isolation_level=None, check_same_thread=False)
        else:
            db = sqlite3.connect(
                Path(self.path).expanduser() if self.path != ":memory:" else self.path,
                timeout=timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA secure_delete=ON")
        db.row_factory = sqlite3.Row
        return db

    def _explain(self, exc: sqlite3.Error) -> str:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return (
                f"the store {self.path} is locked by another process; wait for it to finish "
                "(or stop it) and retry"
            )
        if "not a database" in text or "malformed" in text:
            return (
                f"{self.path} is not a logicmem store (or is damaged); point --store or "
                "LOGICMEM_STORE at another file"
            )
        if "readonly" in text or "unable to open" in text:
            return f"cannot write the store {self.path} ({text}); check its permissions"
        return f"store {self.path}: {text}"

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(self._explain(exc)) from exc

    @property
    def db(self) -> _Serialized:
        """The connection, for this backend's repositories (they share its transactions);
        statements are serialized with the store's transactions (see ``_Serialized``)."""
        return self._serial

    def errors(self) -> AbstractContextManager[None]:
        """SQLite errors inside become StoreError with a message that says what to do."""
        return self._errors()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self.read_only:
            raise StoreError(
                f"the store {self.path} is read-only (its file or folder cannot be written): "
                "reads work; to change it, copy it somewhere writable or fix its permissions"
            )
        with self._lock, self._errors():
            outer = self._depth == 0
            if outer:
                self._db.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if outer:
                    self._db.execute("ROLLBACK")
                    self._clear_caches()
                raise
            self._depth -= 1
            if outer:
                self._db.execute("COMMIT")

    def _migrate(self) -> None:
        self._db.execute(sql.CREATE_MIGRATIONS_TABLE)
        applied = {row["number"] for row in self._db.execute(sql.APPLIED_MIGRATIONS)}
        for number, name, script in sql.MIGRATIONS:
            if number in applied:
                continue
            # executescript commits on its own, so each migration is wrapped explicitly.
            self._db.executescript(f"BEGIN;\n{script}")
            try:
                if number == 6:
                    self._index_all_terms()
                self._db.execute(sql.RECORD_MIGRATION, (number, name, now()))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _check_schema(self) -> None:
        try:
            applied = {row["number"] for row in self._db.execute(sql.APPLIED_MIGRATIONS)}
        except sqlite3.OperationalError:
            applied = set()
        missing = [name for number, name, _ in sql.MIGRATIONS if number not in applied]
        if missing:
            raise StoreError(
                f"the store {self.path} is read-only and needs an upgrade "
                f"({', '.join(missing)}): open it once where it can be written"
            )

    def _index_all_terms(self) -> None:
        """Build the keyword index of memories stored before it existed (migration 6)."""
        rows = self._db.execute("SELECT rowid, user_id, text FROM memories").fetchall()
        for row in rows:
            self._index_terms(row["rowid"], row["user_id"], row["text"])

    def write_stamp(self, user_id: str | None = None) -> tuple[int, int]:
        """Changes so far by this connection and by others (any user's: SQLite counts
        commits per file)."""
        with self._lock:
            return (self._db.total_changes, self._data_version_now())

    def _data_version_now(self) -> int:
        row = self._serial.execute(sql.DATA_VERSION).fetchone()
        assert row is not None
        return int(row["data_version"])

    def _cache_stamp(self, user_id: str) -> int:
        # Another connection's commit changes data_version; this one's own writes do not
        # (they keep the caches right by appending or dropping).
        return self._data_version_now()

    def _vector_param(self, vector: np.ndarray) -> bytes:
        return blob(vector)

    def _vector_value(self, value: Any) -> np.ndarray:
        return np.frombuffer(value, np.float32)

    def _load_vectors(self, query: str, params: list[Any]) -> tuple[list[str], np.ndarray]:
        ids, blobs = [], []
        for row in self._serial.execute(query, params):
            ids.append(row["id"])
            blobs.append(row["embedding"])
        return ids, matrix(blobs)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _purge(self) -> None:
        """Leave no copy of deleted pages behind: secure_delete zeroed them in the file;
        the write-ahead log still holds their old images until it is checkpointed and
        truncated (skipped, and retried at the next forget, while another reader holds it)."""
        if self.path == ":memory:":
            return
        with self._lock, self._errors():
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    def _bytes_on_disk(self) -> int:
        size = 0
        if self.path != ":memory:":
            for suffix in ("", "-wal", "-shm"):
                p = Path(self.path + suffix).expanduser()
                size += p.stat().st_size if p.exists() else 0
        return size
