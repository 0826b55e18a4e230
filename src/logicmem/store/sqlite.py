"""The embedded SQLite store: one file, WAL, a per-user keyword index, vectors as blobs.

Dense search is brute force over a per-scope matrix cached in memory (numpy: ~7 ms for
100k x 384 here); the cache is dropped on any local write to that user and whenever
another connection commits (``PRAGMA data_version``).

Deleted data is overwritten, not only unlinked (``secure_delete``), and forgetting a user
checkpoints and truncates the write-ahead log, so no byte of what the user said stays in
the file or its ``-wal``. A store the process cannot write opens read-only for reads.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from logicmem.errors import NotFoundError, StoreError
from logicmem.store import keywords
from logicmem.store import schema as sql
from logicmem.store.base import HistoryRow, Repository, Store
from logicmem.store.sqlite_util import (
    blob,
    live_sql,
    marks,
    matrix,
    now,
    row_to_memory,
    scope_sql,
)
from logicmem.types import MemoryEntry, Scope, Turn


def _row_to_turn(row: sqlite3.Row) -> Turn:
    return Turn(
        user_id=row["user_id"],
        agent_id=row["agent_id"],
        run_id=row["run_id"],
        session_id=row["session_id"],
        turn_id=row["turn_id"],
        seq=row["seq"],
        speaker=row["speaker"],
        role=row["role"],
        text=row["text"],
        said_at=row["said_at"],
        metadata=json.loads(row["metadata"]),
    )


def _owner_alive(claim: str) -> bool:
    """Whether the process that claimed turns may still be working on them."""
    host, _, rest = claim.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another machine's claim expires only with its lease
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _in_scope(entry: MemoryEntry, scope: Scope) -> bool:
    if entry.user_id != scope.user_id:
        return False
    return scope.agent_id in (None, entry.agent_id) and scope.run_id in (None, entry.run_id)


def _read_only(path: Path) -> bool:
    """An existing store this process cannot write: its file, or the folder its
    write-ahead log would go in, is not writable (permissions, read-only filesystem)."""
    if not path.exists():
        return False
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)


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


class SQLiteStore(Store):
    """Store in one SQLite file. ``path=":memory:"`` gives a throwaway store."""

    backend = "sqlite"

    CLAIM_LEASE_S = 3600.0  # a claim older than this is taken over, whoever holds it

    def __init__(
        self, path: str | Path, *, timeout_s: float = 30.0, read_only: bool | None = None
    ) -> None:
        """``read_only=None`` opens read-only exactly when the file cannot be written."""
        self.path = str(path)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
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
        self._depth = 0
        self._cache: dict[Scope, _VectorCache] = {}
        self._data_version = -1
        self._keyword_stats: dict[tuple[Scope, str | None], tuple[tuple[int, int], int, int]] = {}
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
    def db(self) -> sqlite3.Connection:
        """The connection, for this backend's repositories (they share its transactions)."""
        return self._db

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
                    self._cache.clear()
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

    def _index_terms(self, rowid: int, user_id: str, text: str) -> None:
        """(Re)build one memory's postings and length (its text changed, or predates them)."""
        counts, length = keywords.term_counts(text)
        self._db.execute(sql.DELETE_TERMS, (rowid,))
        self._insert_terms(rowid, user_id, counts)
        self._db.execute("UPDATE memories SET n_terms = ? WHERE rowid = ?", (length, rowid))

    def _insert_terms(self, rowid: int, user_id: str, counts: Mapping[str, int]) -> None:
        self._db.executemany(
            sql.INSERT_TERMS, [(user_id, term, rowid, tf) for term, tf in counts.items()]
        )

    def write_stamp(self) -> tuple[int, int]:
        """Changes so far by this connection and by others: a cache keyed on it is valid
        while it stays the same."""
        return (self._db.total_changes, self._data_version_now())

    def _data_version_now(self) -> int:
        return int(self._db.execute(sql.DATA_VERSION).fetchone()["data_version"])

    def migrations(self) -> list[tuple[int, str]]:
        rows = self._db.execute("SELECT number, name FROM schema_migrations ORDER BY 1")
        return [(int(r["number"]), str(r["name"])) for r in rows]

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
        return str(row["value"]) if row else None

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
    def add_turns(self, turns: Sequence[Turn], *, infer: bool = True) -> list[Turn]:
        new: list[Turn] = []
        stamp = now()
        with self.transaction():
            seq_by_user: dict[str, int] = {}
            for turn in turns:
                if turn.user_id not in seq_by_user:
                    row = self._db.execute(sql.NEXT_TURN_SEQ, (turn.user_id,)).fetchone()
                    seq_by_user[turn.user_id] = int(row["seq"])
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
                        stamp,
                        self.owner,
                        stamp,
                        int(infer),
                    ),
                )
                if cur.rowcount:
                    seq_by_user[turn.user_id] += 1
                    new.append(turn)
        return new

    def get_turns(self, scope: Scope, session_id: str | None = None) -> list[Turn]:
        clause, params = scope_sql(scope)
        if session_id is not None:
            clause += " AND session_id = ?"
            params.append(session_id)
        with self._errors():
            rows = self._db.execute(
                sql.SELECT_TURNS + clause + " ORDER BY seq", [scope.user_id, *params]
            ).fetchall()
        return [_row_to_turn(r) for r in rows]

    def claim_pending(self, *, user_id: str | None = None) -> list[tuple[Turn, bool]]:
        """Claim the turns left pending by an interrupted write that nobody is finishing
        (unclaimed, claimed by a process that is gone, or past the lease), in the order
        they were said; each with whether memories are to be inferred from it."""
        query = sql.SELECT_PENDING + (" AND user_id = ?" if user_id else "")
        rows = self._claim(
            query + " ORDER BY user_id, seq",
            user_id,
            ("claim", "claim_at", "rowid"),
            sql.CLAIM_TURN,
        )
        return [(_row_to_turn(row), bool(row["infer"])) for row in rows]

    def _claim(
        self, query: str, user_id: str | None, columns: tuple[str, str, str], claim_sql: str
    ) -> list[sqlite3.Row]:
        """Claim the rows of ``query`` whose claim is free (none, a dead process's, or
        expired); ``columns`` name the claim, its time and the row's key, and ``claim_sql``
        takes (owner, time, key, old claim), so a row another process claimed meanwhile
        is skipped."""
        if self.read_only:
            return []
        claim, claim_at, key = columns
        lease = datetime.fromtimestamp(datetime.now(UTC).timestamp() - self.CLAIM_LEASE_S, UTC)
        expired = lease.isoformat(timespec="seconds")
        with self._errors():
            rows = self._db.execute(query, [user_id] if user_id else []).fetchall()
        free = [
            row
            for row in rows
            if row[claim] != self.owner  # this store's own write is under way
            and not (row[claim] and _owner_alive(row[claim]) and (row[claim_at] or "") > expired)
        ]
        if not free:
            return []
        claimed = []
        with self.transaction():
            for row in free:
                cur = self._db.execute(claim_sql, (self.owner, now(), row[key], row[claim]))
                if cur.rowcount:
                    claimed.append(row)
        return claimed

    def finish_turns(self, turns: Sequence[Turn]) -> None:
        """The turns' memories are committed: they are pending no more (joins the caller's
        transaction, so the memories and this mark commit together)."""
        with self.transaction():
            self._db.executemany(
                sql.FINISH_TURN, [(t.user_id, t.session_id, t.turn_id) for t in turns]
            )

    def mark_indexed(self, memory_ids: Sequence[str]) -> None:
        ids = list(memory_ids)
        with self.transaction():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                self._db.execute(sql.MARK_INDEXED.format(marks=marks(len(chunk))), chunk)

    def claim_unindexed(
        self, *, user_id: str | None = None
    ) -> list[tuple[MemoryEntry, np.ndarray]]:
        """Claim active memories whose write hooks never finished (their writer is gone),
        with their vectors, oldest first."""
        query = sql.SELECT_UNINDEXED + (" AND user_id = ?" if user_id else "") + " ORDER BY rowid"
        rows = self._claim(query, user_id, ("index_claim", "updated_at", "id"), sql.CLAIM_INDEX)
        return [(row_to_memory(row), np.frombuffer(row["embedding"], np.float32)) for row in rows]

    def pending_turns(self) -> int:
        with self._errors():
            return int(self._db.execute(sql.COUNT_PENDING).fetchone()["n"])

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
        entry.valid_from = entry.valid_from or entry.said_at or entry.created_at
        if entry.valid_until is not None:
            entry.status = "superseded"  # an older statement arriving late: stored closed
        counts, length = keywords.term_counts(entry.text)
        with self.transaction():
            cur = self._db.execute(
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
                    entry.valid_from,
                    entry.valid_until,
                    length,
                    self.owner,
                    blob(vector),
                ),
            )
            self._insert_terms(int(cur.lastrowid or 0), entry.user_id, counts)
            self._history(entry, "ADD", None, entry.text, detail)
            if entry.status == "active":
                self._append_cached(entry, vector)
            else:
                self._invalidate(entry.user_id)

    def _require(self, memory_id: str, scope: Scope | None = None) -> MemoryEntry:
        entry = self.get_memory(memory_id, scope)
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
                sets["embedding"] = blob(vector)
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
            if text is not None:
                rowid = self._db.execute(sql.MEMORY_ROWID, (memory_id,)).fetchone()["rowid"]
                self._index_terms(rowid, entry.user_id, text)
            self._history(entry, event, entry.text, text or entry.text, detail)
            self._invalidate(entry.user_id)
        return self._require(memory_id)

    def supersede(self, old_id: str, new_id: str, detail: dict[str, Any]) -> None:
        with self.transaction():
            new = self._require(new_id)
            until = new.valid_from or new.said_at or now()
            self.close_memory(old_id, until=until, by=new_id, event="SUPERSEDE", detail=detail)

    def close_memory(
        self, memory_id: str, *, until: str, by: str | None, event: str, detail: dict[str, Any]
    ) -> None:
        with self.transaction():
            entry = self._require(memory_id)
            self._db.execute(
                "UPDATE memories SET status = 'superseded', superseded_by = ?, valid_until = ?, "
                "updated_at = ? WHERE id = ?",
                (by, until, now(), memory_id),
            )
            self._history(entry, event, entry.text, None, {"by": by, "until": until, **detail})
            self._invalidate(entry.user_id)

    def delete_memory(self, memory_id: str, scope: Scope | None = None) -> None:
        """Remove the memory's text everywhere: the row, its index, the turns only it came
        from, and (each route's repository) what was derived from it; history keeps a
        tombstone."""
        with self.transaction():
            entry = self._require(memory_id, scope)
            rowid = self._db.execute(sql.MEMORY_ROWID, (memory_id,)).fetchone()["rowid"]
            self._db.execute(sql.DELETE_TERMS, (rowid,))
            self._db.execute(sql.DELETE_MEMORY, (memory_id,))
            for repo in self.repositories():
                repo.delete_memory(entry)
            self._redact_turns(entry)
            self._db.execute(sql.REDACT_HISTORY, (memory_id,))
            self._history(entry, "DELETE", None, None, {})
            self._invalidate(entry.user_id)

    def _redact_turns(self, entry: MemoryEntry) -> None:
        """Empty the source turns no other memory of the user comes from; the turn's row
        stays (text '') so re-sending the same conversation does not bring it back."""
        for turn_id in entry.source_turns:
            cited = self._db.execute(
                sql.TURN_CITED, (entry.user_id, '%"' + turn_id.replace("%", "") + '"%')
            ).fetchone()
            if cited is None:
                self._db.execute(sql.REDACT_TURN, (entry.user_id, turn_id))

    def get_memory(self, memory_id: str, scope: Scope | None = None) -> MemoryEntry | None:
        """The memory with this id; with ``scope``, only if it belongs to that scope."""
        with self._errors():
            row = self._db.execute(sql.SELECT_MEMORY, (memory_id,)).fetchone()
        if row is None:
            return None
        entry = row_to_memory(row)
        return entry if scope is None or _in_scope(entry, scope) else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryEntry]:
        out: dict[str, MemoryEntry] = {}
        ids = list(ids)
        with self._errors():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                query = sql.SELECT_MEMORIES_IN.format(marks=marks(len(chunk)))
                for row in self._db.execute(query, chunk):
                    out[row["id"]] = row_to_memory(row)
        return out

    def list_memories(
        self,
        scope: Scope,
        *,
        include_superseded: bool = False,
        limit: int | None = None,
        offset: int = 0,
        as_of: str | None = None,
    ) -> list[MemoryEntry]:
        clause, params = scope_sql(scope)
        if as_of is not None or not include_superseded:
            live, live_params = live_sql(as_of)
            clause += live
            params += live_params
        query = sql.SELECT_MEMORIES + clause + " ORDER BY rowid"
        if limit is not None:
            query += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        with self._errors():
            rows = self._db.execute(query, [scope.user_id, *params]).fetchall()
        return [row_to_memory(r) for r in rows]

    def history(self, memory_id: str, user_id: str | None = None) -> list[HistoryRow]:
        """The memory's history, oldest first; with ``user_id``, only if it is theirs."""
        with self._errors():
            rows = self._db.execute(sql.SELECT_HISTORY, (memory_id,)).fetchall()
        if user_id is not None and any(r["user_id"] != user_id for r in rows):
            return []
        return [
            HistoryRow(
                r["memory_id"],
                r["event"],
                r["old_text"],
                r["new_text"],
                json.loads(r["detail"]),
                r["at"],
            )
            for r in rows
        ]

    # -- retrieval primitives -------------------------------------------------------------
    def bm25(
        self, scope: Scope, terms: Sequence[str], limit: int, *, as_of: str | None = None
    ) -> list[tuple[str, float]]:
        stems = keywords.query_stems(terms)
        if not stems:
            return []
        clause, params = scope_sql(scope, "m.")
        live, live_params = live_sql(as_of, "m.")
        postings = sql.POSTINGS_FROM.format(marks=marks(len(stems))) + clause + live
        args = [scope.user_id, *stems, *params, *live_params]
        with self._errors():
            df = {
                r["term"]: int(r["df"])
                for r in self._db.execute(sql.TERM_FREQUENCIES.format(postings=postings), args)
            }
            if not df:
                return []
            docs, length = self._keyword_totals(scope, as_of)
            idf = keywords.idf(df, docs)
            avg = max(length / docs, 1e-9)
            cases = " ".join("WHEN ? THEN ?" for _ in idf)
            weights = [x for term, w in idf.items() for x in (term, w)]
            constants = [keywords.K1 + 1, keywords.K1, 1 - keywords.B, keywords.B / avg]
            rows = self._db.execute(
                sql.BM25_SCORES.format(cases=cases, postings=postings),
                [*weights, *constants, *args, limit],
            ).fetchall()
        return [(r["id"], float(r["score"])) for r in rows]

    def _keyword_totals(self, scope: Scope, as_of: str | None) -> tuple[int, int]:
        """The scope's document count and summed length, cached until the next write."""
        stamp = self.write_stamp()
        cached = self._keyword_stats.get((scope, as_of))
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        clause, params = scope_sql(scope)
        live, live_params = live_sql(as_of)
        row = self._db.execute(
            sql.KEYWORD_STATS + clause + live, [scope.user_id, *params, *live_params]
        ).fetchone()
        if len(self._keyword_stats) > 256:
            self._keyword_stats.clear()
        self._keyword_stats[(scope, as_of)] = (stamp, int(row["docs"]), int(row["length"]))
        return int(row["docs"]), int(row["length"])

    def vectors(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[str], np.ndarray]:
        if as_of is not None:
            return self._vectors_as_of(scope, as_of)
        with self._errors():
            version = self._data_version_now()
            if version != self._data_version:
                self._cache.clear()
                self._data_version = version
            cached = self._cache.get(scope)
            if cached is not None:
                return cached.view()
            clause, params = scope_sql(scope)
            live, _ = live_sql(None)
            rows = self._db.execute(
                sql.SELECT_VECTORS + clause + live + " ORDER BY rowid", [scope.user_id, *params]
            )
            ids, blobs = [], []
            for row in rows:
                ids.append(row["id"])
                blobs.append(row["embedding"])
        cache = _VectorCache(ids, matrix(blobs).copy())
        self._cache[scope] = cache
        return cache.view()

    def _vectors_as_of(self, scope: Scope, as_of: str) -> tuple[list[str], np.ndarray]:
        clause, params = scope_sql(scope)
        live, live_params = live_sql(as_of)
        with self._errors():
            rows = self._db.execute(
                sql.SELECT_VECTORS + clause + live + " ORDER BY rowid",
                [scope.user_id, *params, *live_params],
            ).fetchall()
        return [r["id"] for r in rows], matrix([r["embedding"] for r in rows]).copy()

    def memories_after(self, scope: Scope, after: int, limit: int) -> list[tuple[int, MemoryEntry]]:
        clause, params = scope_sql(scope)
        query = sql.SELECT_MEMORIES_AFTER + clause + " ORDER BY rowid LIMIT ?"
        with self._errors():
            rows = self._db.execute(query, [scope.user_id, after, *params, limit]).fetchall()
        return [(int(r["rowid"]), row_to_memory(r)) for r in rows]

    # -- users and housekeeping -----------------------------------------------------------
    def user_exists(self, user_id: str) -> bool:
        with self._errors():
            return self._db.execute(sql.USER_EXISTS, (user_id, user_id)).fetchone() is not None

    def users(self) -> list[str]:
        with self._errors():
            return [r["user_id"] for r in self._db.execute(sql.LIST_USERS)]

    def delete_user(self, user_id: str) -> int:
        with self.transaction():
            count = self._db.execute(sql.COUNT_USER_MEMORIES, (user_id,)).fetchone()["n"]
            for repo in self.repositories():
                repo.delete_user(user_id)
            for statement in sql.DELETE_USER:
                self._db.execute(statement, (user_id,))
            self._invalidate(user_id)
            self._keyword_stats.clear()
        self._purge()
        return int(count)

    def _purge(self) -> None:
        """Leave no copy of deleted pages behind: secure_delete zeroed them in the file;
        the write-ahead log still holds their old images until it is checkpointed and
        truncated (skipped, and retried at the next forget, while another reader holds it)."""
        if self.path == ":memory:":
            return
        with self._lock, self._errors():
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    def reset(self) -> None:
        with self.transaction():
            for repo in self.repositories():
                repo.reset()
            for statement in sql.RESET:
                self._db.execute(statement)
            self._cache.clear()
            self._keyword_stats.clear()
        self._purge()

    def record_event(self, kind: str, user_id: str | None, detail: dict[str, Any]) -> None:
        with self.transaction():
            self._db.execute(sql.INSERT_EVENT, (user_id, kind, json.dumps(detail), now()))

    def stats(self) -> dict[str, Any]:
        with self._errors():
            counts = self._db.execute(sql.STATS).fetchone()
            events = {r["kind"]: r["n"] for r in self._db.execute(sql.COUNT_EVENTS)}
        size = 0
        if self.path != ":memory:":
            for suffix in ("", "-wal", "-shm"):
                p = Path(self.path + suffix).expanduser()
                size += p.stat().st_size if p.exists() else 0
        return {
            "path": self.path,
            "users": counts["users"],
            "turns": counts["turns"],
            "pending_turns": counts["pending"],
            "memories": counts["active"],
            "superseded": counts["superseded"],
            "history_rows": counts["history"],
            "events": events,
            "bytes_on_disk": size,
            "embedder": json.loads(self.get_meta("embedder") or "null"),
            "schema": [name for _, name in self.migrations()],
        }


class SQLiteRepository(Repository):
    """Base of the SQLite route repositories: the store's connection and transactions,
    and forgetting a user (or everyone) as deleting their rows from ``tables``."""

    tables: tuple[str, ...] = ()

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.db = store.db

    def delete_user(self, user_id: str) -> None:
        for table in self.tables:
            self.db.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))

    def reset(self) -> None:
        for table in self.tables:
            self.db.execute(f"DELETE FROM {table}")
