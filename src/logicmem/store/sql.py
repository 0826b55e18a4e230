"""What the SQL backends share: the core store's logic over portable SQL.

SQLite and PostgreSQL run the same statements (``schema``: ``?`` placeholders, rows read by
column name, ``ON CONFLICT`` and ``IS NOT DISTINCT FROM`` instead of either dialect's own
spelling), so a change to how memories are written, retracted, forgotten or ranked is made
once. A backend provides the connection (``db``), transactions, migrations, how a vector
is passed and read, the stamp that tells its caches whether another process wrote, and
what forgetting must do to the files. ``SQLRepository`` is the same split for the route
repositories.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np

from logicmem.errors import NotFoundError, StoreError
from logicmem.store import keywords
from logicmem.store import schema as sql
from logicmem.store.base import HistoryRow, Repository, Store
from logicmem.store.sqlutil import (
    live_sql,
    marks,
    now,
    row_to_memory,
    row_to_turn,
    scope_sql,
)
from logicmem.types import MemoryEntry, Scope, Turn


class Rows(Protocol):
    """What ``db.execute`` returns on every backend (a DB-API cursor, or rows read)."""

    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """The connection a backend hands its SQL code: ``?`` placeholders, named columns."""

    def execute(self, query: str, params: Sequence[Any] = ..., /) -> Rows: ...

    def executemany(self, query: str, rows: Sequence[Sequence[Any]], /) -> Any: ...


def owner_alive(claim: str) -> bool:
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


def in_scope(entry: MemoryEntry, scope: Scope) -> bool:
    if entry.user_id != scope.user_id:
        return False
    return scope.agent_id in (None, entry.agent_id) and scope.run_id in (None, entry.run_id)


class VectorCache:
    """One scope's ids and unit vectors, in a buffer that grows by doubling, with the stamp
    of the data it was read at."""

    def __init__(self, ids: list[str], matrix: np.ndarray, stamp: Any) -> None:
        self.ids = ids
        self.n = len(ids)
        self.buf = matrix
        self.stamp = stamp

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

    @property
    def nbytes(self) -> int:
        return int(self.buf.nbytes)


class SQLStore(Store):
    """The core store over a SQL connection; subclasses are the backends."""

    CLAIM_LEASE_S = 3600.0  # a claim older than this is taken over, whoever holds it
    # In-process vector matrices kept per scope, least recently used dropped first.
    CACHE_BYTES = 512 * 2**20

    owner: str
    location: str  # the store as messages name it (a path, a URL without its password)

    def __init__(self) -> None:
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._cache: OrderedDict[Scope, VectorCache] = OrderedDict()
        self._cache_lock = threading.RLock()  # a service's threads share one store
        self._keyword_stats: dict[tuple[Scope, str | None], tuple[Any, int, int]] = {}

    # -- what a backend provides ------------------------------------------------------------
    @property
    def db(self) -> Connection:
        """The connection, for this backend's SQL code (the repositories share its
        transactions)."""
        raise NotImplementedError

    def errors(self) -> AbstractContextManager[None]:
        """Driver errors inside become StoreError with a message that says what to do."""
        raise NotImplementedError

    def _vector_param(self, vector: np.ndarray) -> Any:
        """A memory's vector as this backend stores it."""
        raise NotImplementedError

    def _vector_value(self, value: Any) -> np.ndarray:
        """A stored memory vector back as float32."""
        raise NotImplementedError

    def _load_vectors(self, query: str, params: list[Any]) -> tuple[list[str], np.ndarray]:
        """Ids and the vector matrix of ``query``'s (id, embedding) rows."""
        raise NotImplementedError

    def _cache_stamp(self, user_id: str) -> Any:
        """Changes when another process commits a write to the user (local writes keep the
        caches right themselves)."""
        raise NotImplementedError

    def _lock_user(self, user_id: str) -> None:
        """Inside a transaction: serialise writers of one user's turn sequence."""

    def _purge(self) -> None:
        """After a forget: leave no copy of the deleted rows in the backend's files."""

    def _index_terms(self, rowid: int, user_id: str, text: str) -> None:
        """(Re)build one memory's postings and length (its text changed, or predates them)."""
        counts, length = keywords.term_counts(text)
        self.db.execute(sql.DELETE_TERMS, (rowid,))
        self._insert_terms(rowid, user_id, counts)
        self.db.execute(sql.SET_TERM_COUNT, (length, rowid))

    def _insert_terms(self, rowid: int, user_id: str, counts: Mapping[str, int]) -> None:
        self.db.executemany(
            sql.INSERT_TERMS, [(user_id, term, rowid, tf) for term, tf in counts.items()]
        )

    def migrations(self) -> list[tuple[int, str]]:
        rows = self.db.execute(sql.LIST_MIGRATIONS)
        return [(int(r["number"]), str(r["name"])) for r in rows]

    def _bytes_on_disk(self) -> int:
        raise NotImplementedError

    def stats(self) -> dict[str, Any]:
        with self.errors():
            counts = self.db.execute(sql.STATS).fetchone()
            events = {r["kind"]: int(r["n"]) for r in self.db.execute(sql.COUNT_EVENTS)}
            size = self._bytes_on_disk()
        return {
            "path": self.location,
            "backend": self.backend,
            "users": int(counts["users"]),
            "turns": int(counts["turns"]),
            "pending_turns": int(counts["pending"]),
            "memories": int(counts["active"]),
            "superseded": int(counts["superseded"]),
            "history_rows": int(counts["history"]),
            "events": events,
            "bytes_on_disk": size,
            "embedder": json.loads(self.get_meta("embedder") or "null"),
            "schema": [name for _, name in self.migrations()],
        }

    # -- metadata -------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self.errors():
            row = self.db.execute(sql.META_GET, (key,)).fetchone()
        return str(row["value"]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self.db.execute(sql.META_SET, (key, value, value))

    def bind_embedder(self, name: str, dims: int) -> None:
        bound = self.get_meta("embedder")
        if bound is None:
            self.set_meta("embedder", json.dumps({"name": name, "dims": dims}))
            return
        info = json.loads(bound)
        if info["name"] != name or int(info["dims"]) != dims:
            raise StoreError(
                f"the store {self.location} was built with embedder {info['name']} "
                f"({info['dims']} dims) but was opened with {name} ({dims} dims). Open it with "
                "the same embedder (LOGICMEM_EMBEDDER / [embedder] in the config), or use a new "
                "store and re-ingest: `logicmem export` then `logicmem ingest --format jsonl`."
            )

    # -- turns ----------------------------------------------------------------------------
    def add_turns(
        self, turns: Sequence[Turn], *, infer: bool = True, claim: bool = True
    ) -> list[Turn]:
        new: list[Turn] = []
        stamp = now()
        owner, claimed_at = (self.owner, stamp) if claim else (None, None)
        with self.transaction():
            seq_by_user: dict[str, int] = {}
            for turn in turns:
                if turn.user_id not in seq_by_user:
                    self._lock_user(turn.user_id)
                    row = self.db.execute(sql.NEXT_TURN_SEQ, (turn.user_id,)).fetchone()
                    seq_by_user[turn.user_id] = int(row["seq"])
                turn.seq = seq_by_user[turn.user_id]
                cur = self.db.execute(
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
                        owner,
                        claimed_at,
                        int(infer),
                    ),
                )
                if cur.rowcount:
                    seq_by_user[turn.user_id] += 1
                    new.append(turn)
        return new

    def get_turns(
        self,
        scope: Scope,
        session_id: str | None = None,
        turn_ids: Sequence[str] | None = None,
    ) -> list[Turn]:
        clause, params = scope_sql(scope)
        if session_id is not None:
            clause += " AND session_id = ?"
            params.append(session_id)
        if turn_ids is None:
            with self.errors():
                rows = self.db.execute(
                    sql.SELECT_TURNS + clause + " ORDER BY seq", [scope.user_id, *params]
                ).fetchall()
            return [row_to_turn(r) for r in rows]
        ids = list(dict.fromkeys(turn_ids))
        found = []
        with self.errors():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                query = sql.SELECT_TURNS + clause + f" AND turn_id IN ({marks(len(chunk))})"
                found += self.db.execute(query, [scope.user_id, *params, *chunk]).fetchall()
        return sorted((row_to_turn(r) for r in found), key=lambda t: t.seq)

    def turn_before(self, turn: Turn) -> Turn | None:
        clause, params = scope_sql(Scope(turn.user_id, turn.agent_id, turn.run_id))
        query = sql.SELECT_TURNS + clause + " AND session_id = ? AND seq < ?"
        with self.errors():
            row = self.db.execute(
                query + " ORDER BY seq DESC LIMIT 1",
                [turn.user_id, *params, turn.session_id, turn.seq],
            ).fetchone()
        return row_to_turn(row) if row is not None else None

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
        return [(row_to_turn(row), bool(row["infer"])) for row in rows]

    def _claim(
        self, query: str, user_id: str | None, columns: tuple[str, str, str], claim_sql: str
    ) -> list[Mapping[str, Any]]:
        """Claim the rows of ``query`` whose claim is free (none, a dead process's, or
        expired); ``columns`` name the claim, its time and the row's key, and ``claim_sql``
        takes (owner, time, key, old claim), so a row another process claimed meanwhile
        is skipped."""
        if self.read_only:
            return []
        claim, claim_at, key = columns
        lease = datetime.fromtimestamp(datetime.now(UTC).timestamp() - self.CLAIM_LEASE_S, UTC)
        expired = lease.isoformat(timespec="seconds")
        with self.errors():
            rows = self.db.execute(query, [user_id] if user_id else []).fetchall()
        free = [
            row
            for row in rows
            if row[claim] != self.owner  # this store's own write is under way
            and not (row[claim] and owner_alive(row[claim]) and (row[claim_at] or "") > expired)
        ]
        if not free:
            return []
        claimed = []
        with self.transaction():
            for row in free:
                cur = self.db.execute(claim_sql, (self.owner, now(), row[key], row[claim]))
                if cur.rowcount:
                    claimed.append(row)
        return claimed

    def finish_turns(self, turns: Sequence[Turn]) -> None:
        """The turns' memories are committed: they are pending no more (joins the caller's
        transaction, so the memories and this mark commit together)."""
        with self.transaction():
            self.db.executemany(
                sql.FINISH_TURN, [(t.user_id, t.session_id, t.turn_id) for t in turns]
            )

    def mark_indexed(self, memory_ids: Sequence[str], version: str) -> None:
        ids = list(memory_ids)
        with self.transaction():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                self.db.execute(sql.MARK_INDEXED.format(marks=marks(len(chunk))), [version, *chunk])

    def indexed_otherwise(self, version: str, *, user_prefix: str = "") -> int:
        with self.errors():
            params = (version, len(user_prefix), user_prefix)
            return int(self.db.execute(sql.COUNT_INDEXED_OTHERWISE, params).fetchone()["n"])

    def mark_unindexed(self, user_id: str, *, other_than: str | None = None) -> int:
        with self.transaction():
            if other_than is None:
                return int(self.db.execute(sql.MARK_UNINDEXED, (user_id,)).rowcount)
            params = (user_id, other_than)
            return int(self.db.execute(sql.MARK_UNINDEXED_OTHERWISE, params).rowcount)

    def claim_unindexed(self, *, user_id: str | None = None) -> list[tuple[Scope, str]]:
        """Claim active memories whose write hooks never finished (their writer is gone),
        oldest first: their scopes and ids only, not their vectors."""
        query = sql.SELECT_UNINDEXED + (" AND user_id = ?" if user_id else "") + " ORDER BY rowid"
        rows = self._claim(query, user_id, ("index_claim", "updated_at", "id"), sql.CLAIM_INDEX)
        return [(Scope(row["user_id"], row["agent_id"], row["run_id"]), row["id"]) for row in rows]

    def _rows_in(self, template: str, ids: list[str]) -> Iterator[Mapping[str, Any]]:
        """The rows of ``template`` (an ``IN ({marks})`` query) for ``ids``, 500 at a time."""
        with self.errors():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                yield from self.db.execute(template.format(marks=marks(len(chunk))), chunk)

    def indexable(self, memory_ids: Sequence[str]) -> list[tuple[MemoryEntry, np.ndarray]]:
        ids = list(memory_ids)
        found = {
            row["id"]: (row_to_memory(row), self._vector_value(row["embedding"]))
            for row in self._rows_in(sql.SELECT_INDEXABLE_IN, ids)
        }
        return [found[m] for m in ids if m in found]

    def pending_turns(self) -> int:
        with self.errors():
            return int(self.db.execute(sql.COUNT_PENDING).fetchone()["n"])

    # -- memories -------------------------------------------------------------------------
    def _history(
        self, entry: MemoryEntry, event: str, old: str | None, new: str | None, detail: Any
    ) -> None:
        self.db.execute(
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
            cur = self.db.execute(
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
                    self._vector_param(vector),
                ),
            )
            self._insert_terms(int(cur.fetchone()["rowid"]), entry.user_id, counts)
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
                sets["embedding"] = self._vector_param(vector)
            if source_turns is not None:
                sets["source_turns"] = json.dumps(source_turns)
            if metadata is not None:
                sets["metadata"] = json.dumps(metadata)
            if category is not None:
                sets["category"] = category
            assignments = ", ".join(f"{col} = ?" for col in sets)
            self.db.execute(
                f"UPDATE memories SET {assignments} WHERE id = ?", [*sets.values(), memory_id]
            )
            if text is not None:
                rowid = self.db.execute(sql.MEMORY_ROWID, (memory_id,)).fetchone()["rowid"]
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
            self.db.execute(
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
            rowid = self.db.execute(sql.MEMORY_ROWID, (memory_id,)).fetchone()["rowid"]
            self.db.execute(sql.DELETE_TERMS, (rowid,))
            self.db.execute(sql.DELETE_MEMORY, (memory_id,))
            for repo in self.repositories():
                repo.delete_memory(entry)
            self._redact_turns(entry)
            self.db.execute(sql.REDACT_HISTORY, (memory_id,))
            self._history(entry, "DELETE", None, None, {})
            self._invalidate(entry.user_id)

    def _redact_turns(self, entry: MemoryEntry) -> None:
        """Empty the source turns no other memory of the user comes from; the turn's row
        stays (text '') so re-sending the same conversation does not bring it back."""
        for turn_id in entry.source_turns:
            cited = self.db.execute(
                sql.TURN_CITED, (entry.user_id, '%"' + turn_id.replace("%", "") + '"%')
            ).fetchone()
            if cited is None:
                self.db.execute(sql.REDACT_TURN, (entry.user_id, turn_id))

    def get_memory(self, memory_id: str, scope: Scope | None = None) -> MemoryEntry | None:
        """The memory with this id; with ``scope``, only if it belongs to that scope."""
        with self.errors():
            row = self.db.execute(sql.SELECT_MEMORY, (memory_id,)).fetchone()
        if row is None:
            return None
        entry = row_to_memory(row)
        return entry if scope is None or in_scope(entry, scope) else None

    def get_memories(self, ids: Sequence[str]) -> dict[str, MemoryEntry]:
        return {
            row["id"]: row_to_memory(row)
            for row in self._rows_in(sql.SELECT_MEMORIES_IN, list(ids))
        }

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
        with self.errors():
            rows = self.db.execute(query, [scope.user_id, *params]).fetchall()
        return [row_to_memory(r) for r in rows]

    def history(self, memory_id: str, user_id: str | None = None) -> list[HistoryRow]:
        """The memory's history, oldest first; with ``user_id``, only if it is theirs."""
        with self.errors():
            rows = self.db.execute(sql.SELECT_HISTORY, (memory_id,)).fetchall()
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
        with self.errors():
            df = {
                r["term"]: int(r["df"])
                for r in self.db.execute(sql.TERM_FREQUENCIES.format(postings=postings), args)
            }
            if not df:
                return []
            docs, length = self._keyword_totals(scope, as_of)
            idf = keywords.idf(df, docs)
            avg = max(length / docs, 1e-9)
            cases = " ".join("WHEN ? THEN ?" for _ in idf)
            weights = [x for term, w in idf.items() for x in (term, w)]
            constants = [keywords.K1 + 1, keywords.K1, 1 - keywords.B, keywords.B / avg]
            rows = self.db.execute(
                sql.BM25_SCORES.format(cases=cases, postings=postings),
                [*weights, *constants, *args, limit],
            ).fetchall()
        return [(r["id"], float(r["score"])) for r in rows]

    def _keyword_totals(self, scope: Scope, as_of: str | None) -> tuple[int, int]:
        """The scope's document count and summed length, cached until the next write."""
        stamp = self.write_stamp(scope.user_id)
        cached = self._keyword_stats.get((scope, as_of))
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        clause, params = scope_sql(scope)
        live, live_params = live_sql(as_of)
        row = self.db.execute(
            sql.KEYWORD_STATS + clause + live, [scope.user_id, *params, *live_params]
        ).fetchone()
        if len(self._keyword_stats) > 256:
            self._keyword_stats.clear()
        self._keyword_stats[(scope, as_of)] = (stamp, int(row["docs"]), int(row["length"]))
        return int(row["docs"]), int(row["length"])

    def vectors(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[str], np.ndarray]:
        clause, params = scope_sql(scope)
        live, live_params = live_sql(as_of)
        query = sql.SELECT_VECTORS + clause + live + " ORDER BY rowid"
        args = [scope.user_id, *params, *live_params]
        with self.errors():
            if as_of is not None:
                return self._load_vectors(query, args)
            stamp = self._cache_stamp(scope.user_id)
            with self._cache_lock:
                cached = self._cache.get(scope)
                if cached is not None and cached.stamp == stamp:
                    self._cache.move_to_end(scope)
                    return cached.view()
            ids, vectors = self._load_vectors(query, args)
        cache = VectorCache(ids, vectors.copy(), stamp)
        self._remember(scope, cache)
        return cache.view()

    def memories_after(self, scope: Scope, after: int, limit: int) -> list[tuple[int, MemoryEntry]]:
        clause, params = scope_sql(scope)
        query = sql.SELECT_MEMORIES_AFTER + clause + " ORDER BY rowid LIMIT ?"
        with self.errors():
            rows = self.db.execute(query, [scope.user_id, after, *params, limit]).fetchall()
        return [(int(r["rowid"]), row_to_memory(r)) for r in rows]

    # -- users and housekeeping -----------------------------------------------------------
    def user_exists(self, user_id: str) -> bool:
        with self.errors():
            return self.db.execute(sql.USER_EXISTS, (user_id, user_id)).fetchone() is not None

    def users(self) -> list[str]:
        with self.errors():
            return [r["user_id"] for r in self.db.execute(sql.LIST_USERS)]

    def delete_user(self, user_id: str) -> int:
        with self.transaction():
            count = self.db.execute(sql.COUNT_USER_MEMORIES, (user_id,)).fetchone()["n"]
            for repo in self.repositories():
                repo.delete_user(user_id)
            for statement in sql.DELETE_USER:
                self.db.execute(statement, (user_id,))
            self._invalidate(user_id)
            self._keyword_stats.clear()
        self._purge()
        return int(count)

    def reset(self) -> None:
        with self.transaction():
            for repo in self.repositories():
                repo.reset()
            for statement in sql.RESET:
                self.db.execute(statement)
            self._clear_caches()
        self._purge()

    def record_event(self, kind: str, user_id: str | None, detail: dict[str, Any]) -> None:
        with self.transaction():
            self.db.execute(sql.INSERT_EVENT, (user_id, kind, json.dumps(detail), now()))

    # -- caches -------------------------------------------------------------------------------
    def _invalidate(self, user_id: str) -> None:
        with self._cache_lock:
            for scope in [s for s in self._cache if s.user_id == user_id]:
                del self._cache[scope]
            self._keyword_stats.clear()

    def _clear_caches(self) -> None:
        with self._cache_lock:
            self._cache.clear()
            self._keyword_stats.clear()

    def _append_cached(self, entry: MemoryEntry, vector: np.ndarray) -> None:
        """A new active memory joins the cached matrices of the scopes it belongs to, so an
        add costs O(1) instead of reloading the user's whole matrix."""
        with self._cache_lock:
            for scope, cache in self._cache.items():
                if in_scope(entry, scope):
                    cache.append(entry.id, vector)

    def _remember(self, scope: Scope, cache: VectorCache) -> None:
        with self._cache_lock:
            self._cache[scope] = cache
            self._cache.move_to_end(scope)
            total = sum(c.nbytes for c in self._cache.values())
            while total > self.CACHE_BYTES and len(self._cache) > 1:
                _, dropped = self._cache.popitem(last=False)
                total -= dropped.nbytes


class SQLRepository(Repository):
    """Base of the route repositories on a SQL backend: the store's connection and
    transactions, and forgetting a user (or everyone) as deleting their rows from
    ``tables``."""

    tables: tuple[str, ...] = ()

    def __init__(self, store: SQLStore) -> None:
        self.store = store
        self.db = store.db

    def delete_user(self, user_id: str) -> None:
        for table in self.tables:
            self.db.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))

    def reset(self) -> None:
        for table in self.tables:
            self.db.execute(f"DELETE FROM {table}")
