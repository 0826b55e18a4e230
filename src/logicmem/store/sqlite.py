"""The embedded SQLite store: one file, WAL, FTS5 for BM25, vectors as float32 blobs.

Dense search is brute force over a per-scope matrix cached in memory (numpy: ~7 ms for
100k x 384 here); the cache is dropped on any local write to that user and whenever
another connection commits (``PRAGMA data_version``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from logicmem.errors import NotFoundError, StoreError
from logicmem.store import schema as sql
from logicmem.store.base import (
    Criticality,
    HistoryRow,
    MemoryKey,
    Profile,
    ProfileLine,
    RootUnit,
    Store,
    UnitEvidence,
)
from logicmem.store.sqlite_rulemem import RuleMemTables
from logicmem.types import MemoryEntry, Scope, Turn


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _scope_sql(scope: Scope, alias: str = "") -> tuple[str, list[Any]]:
    clause, params = "", []
    for column in ("agent_id", "run_id"):
        value = getattr(scope, column)
        if value is not None:
            clause += f" AND {alias}{column} = ?"
            params.append(value)
    return clause, params


def _row_to_memory(row: sqlite3.Row | tuple[Any, ...]) -> MemoryEntry:
    return MemoryEntry(
        id=row[0],
        user_id=row[1],
        agent_id=row[2],
        run_id=row[3],
        text=row[4],
        category=row[5],
        said_at=row[6],
        session_id=row[7],
        source_turns=json.loads(row[8]),
        metadata=json.loads(row[9]),
        status=row[10],
        superseded_by=row[11],
        created_at=row[12],
        updated_at=row[13],
    )


def _row_to_unit(row: sqlite3.Row | tuple[Any, ...]) -> RootUnit:
    return RootUnit(
        unit_id=row[0],
        user_id=row[1],
        agent_id=row[2],
        run_id=row[3],
        version=int(row[4]),
        status=row[5],
        activation=row[6],
        guidance=row[7],
        evidence=[UnitEvidence(e["memory_id"], e["fact"]) for e in json.loads(row[8])],
        event=row[9],
        detail=json.loads(row[10]),
        at=row[11],
    )


def _scope_key(scope: Scope) -> str:
    """The agent/run part of a scope as one key (a user's own: "[null, null]")."""
    return json.dumps([scope.agent_id, scope.run_id])


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


class _VectorCache:
    """One scope's ids and unit vectors, in a buffer that grows by doubling."""

    def __init__(self, ids: list[str], matrix: np.ndarray) -> None:
        self.ids = ids
        self.n = len(ids)
        self.buf = matrix

    def append(self, memory_id: str, vector: np.ndarray) -> None:
        row = np.asarray(vector, dtype=np.float32)
        if self.n == 0 and self.buf.shape[1] != row.shape[0]:
            self.buf = np.zeros((0, row.shape[0]), dtype=np.float32)
        if self.n == self.buf.shape[0]:
            grown = np.zeros((max(16, 2 * self.n), row.shape[0]), dtype=np.float32)
            grown[: self.n] = self.buf[: self.n]
            self.buf = grown
        self.buf[self.n] = row
        self.ids.append(memory_id)
        self.n += 1

    def view(self) -> tuple[list[str], np.ndarray]:
        # Callers get a snapshot: later appends do not change what they hold.
        return self.ids[: self.n], self.buf[: self.n]


class SQLiteStore(RuleMemTables, Store):
    """Store in one SQLite file. ``path=":memory:"`` gives a throwaway store."""

    def __init__(self, path: str | Path, *, timeout_s: float = 5.0) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            parent = Path(self.path).expanduser().parent
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create the store's folder {parent}: {exc.strerror}; "
                    "choose another path with --store or LOGICMEM_STORE"
                ) from None
        try:
            self._db = sqlite3.connect(
                Path(self.path).expanduser() if self.path != ":memory:" else self.path,
                timeout=timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            raise StoreError(self._explain(exc)) from None
        self._lock = threading.RLock()
        self._depth = 0
        self._cache: dict[Scope, _VectorCache] = {}
        # Anticipation keys per scope, valid while nothing was written (by this connection:
        # total_changes; by another: PRAGMA data_version).
        self._keys: dict[Scope, tuple[tuple[int, int], list[MemoryKey], np.ndarray]] = {}
        self._data_version = -1
        with self._errors():
            self._migrate()

    # -- plumbing -------------------------------------------------------------------------
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

    @contextmanager
    def transaction(self) -> Iterator[None]:
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
                    self._cache.clear()
                raise
            self._depth -= 1
            if outer:
                self._db.execute("COMMIT")

    def _migrate(self) -> None:
        self._db.execute(sql.CREATE_MIGRATIONS_TABLE)
        applied = {row[0] for row in self._db.execute(sql.APPLIED_MIGRATIONS)}
        for number, name, script in sql.MIGRATIONS:
            if number in applied:
                continue
            # executescript commits on its own, so each migration is wrapped explicitly.
            self._db.executescript(
                f"BEGIN;\n{script}\nINSERT INTO schema_migrations VALUES "
                f"({number}, '{name}', '{now()}');\nCOMMIT;"
            )

    def migrations(self) -> list[tuple[int, str]]:
        return list(self._db.execute("SELECT number, name FROM schema_migrations ORDER BY 1"))

    def close(self) -> None:
        self._db.close()

    def _invalidate(self, user_id: str) -> None:
        for scope in [s for s in self._cache if s.user_id == user_id]:
            del self._cache[scope]

    def _append_cached(self, entry: MemoryEntry, vector: np.ndarray) -> None:
        """A new active memory joins the cached matrices of the scopes it belongs to, so an
        add costs O(1) instead of reloading the user's whole matrix."""
        for scope, cache in self._cache.items():
            if scope.user_id != entry.user_id:
                continue
            if scope.agent_id not in (None, entry.agent_id) or scope.run_id not in (
                None,
                entry.run_id,
            ):
                continue
            cache.append(entry.id, vector)

    # -- metadata -------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._errors():
            row = self._db.execute(sql.META_GET, (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._db.execute(sql.META_SET, (key, value, value))

    def bind_embedder(self, name: str, dims: int) -> None:
        bound = self.get_meta("embedder")
        if bound is None:
            self.set_meta("embedder", json.dumps({"name": name, "dims": dims}))
            return
        info = json.loads(bound)
        if info["name"] != name or int(info["dims"]) != dims:
            raise StoreError(
                f"the store {self.path} was built with embedder {info['name']} "
                f"({info['dims']} dims) but was opened with {name} ({dims} dims). Open it with "
                "the same embedder (LOGICMEM_EMBEDDER / [embedder] in the config), or use a new "
                "store and re-ingest: `logicmem export` then `logicmem ingest --format jsonl`."
            )

    # -- turns ----------------------------------------------------------------------------
    def add_turns(self, turns: Sequence[Turn]) -> list[Turn]:
        new: list[Turn] = []
        with self.transaction():
            seq_by_user: dict[str, int] = {}
            for turn in turns:
                if turn.user_id not in seq_by_user:
                    row = self._db.execute(sql.NEXT_TURN_SEQ, (turn.user_id,)).fetchone()
                    seq_by_user[turn.user_id] = int(row[0])
                turn.seq = seq_by_user[turn.user_id]
                cur = self._db.execute(
                    sql.INSERT_TURN,
                    (
                        turn.user_id,
                        turn.agent_id,
                        turn.run_id,
                        turn.session_id,
                        turn.turn_id,
                        turn.seq,
                        turn.speaker,
                        turn.role,
                        turn.text,
                        turn.said_at,
                        json.dumps(turn.metadata),
                        now(),
                    ),
                )
                if cur.rowcount:
                    seq_by_user[turn.user_id] += 1
                    new.append(turn)
        return new

    def get_turns(self, scope: Scope, session_id: str | None = None) -> list[Turn]:
        clause, params = _scope_sql(scope)
        if session_id is not None:
            clause += " AND session_id = ?"
            params.append(session_id)
        with self._errors():
            rows = self._db.execute(
                sql.SELECT_TURNS + clause + " ORDER BY seq", [scope.user_id, *params]
            ).fetchall()
        return [
            Turn(
                user_id=r[0],
                agent_id=r[1],
                run_id=r[2],
                session_id=r[3],
                turn_id=r[4],
                seq=r[5],
                speaker=r[6],
                role=r[7],
                text=r[8],
                said_at=r[9],
                metadata=json.loads(r[10]),
            )
            for r in rows
        ]

    # -- memories -------------------------------------------------------------------------
    def _history(
        self, entry: MemoryEntry, event: str, old: str | None, new: str | None, detail: Any
    ) -> None:
        self._db.execute(
            sql.INSERT_HISTORY,
            (entry.id, entry.user_id, event, old, new, json.dumps(detail or {}), now()),
        )

    def add_memory(self, entry: MemoryEntry, vector: np.ndarray, detail: dict[str, Any]) -> None:
        stamp = now()
        entry.created_at = entry.created_at or stamp
        entry.updated_at = stamp
        with self.transaction():
            self._db.execute(
                sql.INSERT_MEMORY,
                (
                    entry.id,
                    entry.user_id,
                    entry.agent_id,
                    entry.run_id,
                    entry.text,
                    entry.category,
                    entry.said_at,
                    entry.session_id,
                    json.dumps(entry.source_turns),
                    json.dumps(entry.metadata),
                    entry.status,
                    entry.superseded_by,
                    entry.created_at,
                    entry.updated_at,
                    _blob(vector),
                ),
            )
            self._history(entry, "ADD", None, entry.text, detail)
            if entry.status == "active":
                self._append_cached(entry, vector)
            else:
                self._invalidate(entry.user_id)

    def _require(self, memory_id: str) -> MemoryEntry:
        entry = self.get_memory(memory_id)
        if entry is None:
            raise NotFoundError(
                f"no memory with id {memory_id!r}; list ids with `logicmem list --user NAME`"
            )
        return entry

    def update_memory(
        self,
        memory_id: str,
        *,
        event: str,
        text: str | None = None,
        vector: np.ndarray | None = None,
        source_turns: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        category: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> MemoryEntry:
        with self.transaction():
            entry = self._require(memory_id)
            sets: dict[str, Any] = {"updated_at": now()}
            if text is not None:
                sets["text"] = text
            if vector is not None:
                sets["embedding"] = _blob(vector)
            if source_turns is not None:
                sets["source_turns"] = json.dumps(source_turns)
            if metadata is not None:
                sets["metadata"] = json.dumps(metadata)
            if category is not None:
                sets["category"] = category
            assignments = ", ".join(f"{col} = ?" for col in sets)
            self._db.execute(
                f"UPDATE memories SET {assignments} WHERE id = ?", [*sets.values(), memory_id]
            )
            self._history(entry, event, entry.text, text or entry.text, detail)
            self._invalidate(entry.user_id)
        return self._require(memory_id)

    def supersede(self, old_id: str, new_id: str, detail: dict[str, Any]) -> None:
        with self.transaction():
            entry = self._require(old_id)
            self._db.execute(
                "UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ? "
                "WHERE id = ?",
                (new_id, now(), old_id),
            )
            self._history(entry, "SUPERSEDE", entry.text, None, {"by": new_id, **detail})
            self._invalidate(entry.user_id)

    def delete_memory(self, memory_id: str) -> None:
        with self.transaction():
            entry = self._require(memory_id)
            self._db.execute(sql.DELETE_MEMORY, (memory_id,))
            for statement in sql.DELETE_ANNOTATIONS:
                self._db.execute(statement, (memory_id,))
            self._history(entry, "DELETE", entry.text, None, {})
            self._invalidate(entry.user_id)

    def get_memory(self, memory_id: str) -> MemoryEntry | None:
        with self._errors():
            row = self._db.execute(sql.SELECT_MEMORY, (memory_id,)).fetchone()
        return _row_to_memory(row) if row else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryEntry]:
        out: dict[str, MemoryEntry] = {}
        ids = list(ids)
        with self._errors():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT {sql.MEMORY_COLUMNS} FROM memories WHERE id IN ({marks})"
                for row in self._db.execute(query, chunk):
                    out[row[0]] = _row_to_memory(row)
        return out

    def list_memories(
        self,
        scope: Scope,
        *,
        include_superseded: bool = False,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MemoryEntry]:
        clause, params = _scope_sql(scope)
        if not include_superseded:
            clause += " AND status = 'active'"
        query = sql.SELECT_MEMORIES + clause + " ORDER BY rowid"
        if limit is not None:
            query += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        with self._errors():
            rows = self._db.execute(query, [scope.user_id, *params]).fetchall()
        return [_row_to_memory(r) for r in rows]

    def history(self, memory_id: str) -> list[HistoryRow]:
        with self._errors():
            rows = self._db.execute(sql.SELECT_HISTORY, (memory_id,)).fetchall()
        return [HistoryRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    # -- retrieval primitives -------------------------------------------------------------
    def bm25(self, scope: Scope, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', "") + '"' for t in terms)
        clause, params = _scope_sql(scope, "m.")
        query = sql.BM25_SEARCH + clause + " ORDER BY bm25(memories_fts) LIMIT ?"
        with self._errors():
            rows = self._db.execute(query, [match, scope.user_id, *params, limit]).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def vectors(self, scope: Scope) -> tuple[list[str], np.ndarray]:
        with self._errors():
            version = self._db.execute("PRAGMA data_version").fetchone()[0]
            if version != self._data_version:
                self._cache.clear()
                self._data_version = version
            cached = self._cache.get(scope)
            if cached is not None:
                return cached.view()
            clause, params = _scope_sql(scope)
            rows = self._db.execute(
                sql.SELECT_VECTORS + clause + " ORDER BY rowid", [scope.user_id, *params]
            )
            ids, blobs = [], []
            for memory_id, blob in rows:
                ids.append(memory_id)
                blobs.append(blob)
        if blobs:
            matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), -1)
        else:
            matrix = np.zeros((0, 0), dtype=np.float32)
        cache = _VectorCache(ids, matrix.copy())
        self._cache[scope] = cache
        return cache.view()

    # -- visibility annotations -----------------------------------------------------------
    def set_criticality(self, user_id: str, rows: Sequence[Criticality]) -> None:
        with self.transaction():
            stamp = now()
            self._db.executemany(
                sql.UPSERT_CRITICALITY,
                [(r.memory_id, user_id, r.score, r.ctype, r.reason, r.source, stamp) for r in rows],
            )

    def critical_memories(self, scope: Scope) -> list[Criticality]:
        clause, params = _scope_sql(scope, "m.")
        with self._errors():
            rows = self._db.execute(sql.SELECT_CRITICAL + clause, [scope.user_id, *params])
            return [Criticality(r[0], float(r[1]), r[2], r[3], r[4]) for r in rows]

    def add_keys(self, user_id: str, keys: Sequence[MemoryKey], vectors: np.ndarray) -> None:
        with self.transaction():
            self._db.executemany(
                sql.INSERT_KEY,
                [
                    (k.memory_id, user_id, k.key, k.kind, k.ref, _blob(v))
                    for k, v in zip(keys, vectors, strict=True)
                ],
            )

    def memory_keys(self, scope: Scope) -> tuple[list[MemoryKey], np.ndarray]:
        with self._errors():
            stamp = (self._db.total_changes, self._db.execute(sql.DATA_VERSION).fetchone()[0])
            cached = self._keys.get(scope)
            if cached is not None and cached[0] == stamp:
                return list(cached[1]), cached[2]
            clause, params = _scope_sql(scope, "m.")
            rows = self._db.execute(sql.SELECT_KEYS + clause, [scope.user_id, *params]).fetchall()
        keys = [MemoryKey(r[0], r[1], r[2], r[3]) for r in rows]
        if not rows:
            matrix = np.zeros((0, 0), dtype=np.float32)
        else:
            flat = np.frombuffer(b"".join(r[4] for r in rows), dtype=np.float32)
            matrix = flat.reshape(len(rows), -1)
        if len(self._keys) > 64:
            self._keys.clear()
        self._keys[scope] = (stamp, keys, matrix)
        return list(keys), matrix

    def cached_vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        texts = list(dict.fromkeys(texts))
        with self._errors():
            for i in range(0, len(texts), 500):
                chunk = texts[i : i + 500]
                query = sql.SELECT_TEXT_VECTORS.format(marks=",".join("?" * len(chunk)))
                for text, blob in self._db.execute(query, chunk):
                    out[text] = np.frombuffer(blob, dtype=np.float32)
        return out

    def cache_vectors(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        with self.transaction():
            self._db.executemany(
                sql.INSERT_TEXT_VECTOR, [(t, _blob(v)) for t, v in zip(texts, vectors, strict=True)]
            )

    def get_profile(self, user_id: str) -> tuple[str, int] | None:
        with self._errors():
            row = self._db.execute(sql.SELECT_PROFILE, (user_id,)).fetchone()
        return (row[0], int(row[1])) if row else None

    def set_profile(
        self,
        user_id: str,
        text: str,
        *,
        kind: str = "",
        lines: Sequence[ProfileLine] = (),
        state: dict[str, Any] | None = None,
    ) -> None:
        with self.transaction():
            self._db.execute(
                sql.UPSERT_PROFILE, (user_id, text, now(), kind, json.dumps(state or {}))
            )
            self._db.execute(sql.DELETE_PROFILE_LINES, (user_id,))
            rows = [
                (user_id, n, line.text, json.dumps(line.memory_ids), json.dumps(line.source_turns))
                for n, line in enumerate(lines, 1)
            ]
            self._db.executemany(sql.INSERT_PROFILE_LINE, rows)

    def load_profile(self, user_id: str) -> Profile | None:
        with self._errors():
            row = self._db.execute(sql.SELECT_PROFILE_FULL, (user_id,)).fetchone()
            if row is None:
                return None
            lines = [
                ProfileLine(r[0], json.loads(r[1]), json.loads(r[2]))
                for r in self._db.execute(sql.SELECT_PROFILE_LINES, (user_id,))
            ]
        return Profile(row[0], int(row[1]), row[2], lines, json.loads(row[3]))

    # -- root memory units ----------------------------------------------------------------
    def root_units(self, scope: Scope) -> list[RootUnit]:
        with self._errors():
            rows = self._db.execute(
                sql.SELECT_ROOT_UNITS, (scope.user_id, scope.agent_id, scope.run_id)
            ).fetchall()
        return [_row_to_unit(r) for r in rows]

    def root_unit_history(self, unit_id: str) -> list[RootUnit]:
        with self._errors():
            rows = self._db.execute(sql.SELECT_ROOT_UNIT_HISTORY, (unit_id,)).fetchall()
        return [_row_to_unit(r) for r in rows]

    def add_root_units(self, units: Sequence[RootUnit]) -> None:
        stamp = now()
        with self.transaction():
            for u in units:
                u.at = stamp
                evidence = [{"memory_id": e.memory_id, "fact": e.fact} for e in u.evidence]
                self._db.execute(
                    sql.INSERT_ROOT_UNIT,
                    (
                        u.unit_id,
                        u.user_id,
                        u.agent_id,
                        u.run_id,
                        u.version,
                        u.status,
                        u.activation,
                        u.guidance,
                        json.dumps(evidence),
                        u.event,
                        json.dumps(u.detail),
                        stamp,
                    ),
                )

    def root_marks(self, scope: Scope) -> dict[str, tuple[str, int]]:
        with self._errors():
            rows = self._db.execute(sql.SELECT_ROOT_MARKS, (scope.user_id, _scope_key(scope)))
            return {r[0]: (r[1], int(r[2])) for r in rows}

    def mark_root(self, scope: Scope, marks: dict[str, tuple[str, int]]) -> None:
        stamp, key = now(), _scope_key(scope)
        with self.transaction():
            self._db.executemany(
                sql.UPSERT_ROOT_MARK,
                [(scope.user_id, key, mid, st, n, stamp) for mid, (st, n) in marks.items()],
            )

    # -- users and housekeeping -----------------------------------------------------------
    def user_exists(self, user_id: str) -> bool:
        with self._errors():
            return self._db.execute(sql.USER_EXISTS, (user_id, user_id)).fetchone() is not None

    def users(self) -> list[str]:
        with self._errors():
            return [r[0] for r in self._db.execute(sql.LIST_USERS)]

    def delete_user(self, user_id: str) -> int:
        with self.transaction():
            count = self._db.execute(
                "SELECT COUNT(*) FROM memories WHERE user_id = ?", (user_id,)
            ).fetchone()[0]
            for statement in sql.DELETE_USER:
                self._db.execute(statement, (user_id,))
            self._invalidate(user_id)
        return int(count)

    def reset(self) -> None:
        with self.transaction():
            for statement in sql.RESET:
                self._db.execute(statement)
            self._cache.clear()

    def record_event(self, kind: str, user_id: str | None, detail: dict[str, Any]) -> None:
        with self.transaction():
            self._db.execute(sql.INSERT_EVENT, (user_id, kind, json.dumps(detail), now()))

    def stats(self) -> dict[str, Any]:
        with self._errors():
            turns, active, superseded, users, history = self._db.execute(sql.STATS).fetchone()
            events = dict(self._db.execute(sql.COUNT_EVENTS).fetchall())
        size = 0
        if self.path != ":memory:":
            for suffix in ("", "-wal", "-shm"):
                p = Path(self.path + suffix).expanduser()
                size += p.stat().st_size if p.exists() else 0
        return {
            "path": self.path,
            "users": users,
            "turns": turns,
            "memories": active,
            "superseded": superseded,
            "history_rows": history,
            "events": events,
            "bytes_on_disk": size,
            "embedder": json.loads(self.get_meta("embedder") or "null"),
            "schema": [name for _, name in self.migrations()],
        }
