"""The visibility route's repository on the SQL backends (tables from migrations 2, 5 and
6): portable SQL that SQLite and PostgreSQL both run; ``repo_sqlite`` and ``repo_postgres``
are the classes each backend registers."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from logicmem.routes.visible.repo import (
    Criticality,
    MemoryKey,
    Profile,
    ProfileLine,
    VisibleRepository,
)
from logicmem.store.sql import SQLRepository, SQLStore
from logicmem.store.sqlutil import blob, live_sql, marks, matrix, now, scope_sql
from logicmem.types import MemoryEntry, Scope

UPSERT_CRITICALITY = """
INSERT INTO criticality (memory_id, user_id, score, ctype, reason, source, at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(memory_id) DO UPDATE SET score = excluded.score, ctype = excluded.ctype,
    reason = excluded.reason, source = excluded.source, at = excluded.at"""
SELECT_CRITICAL = """
SELECT c.memory_id, c.score, c.ctype, c.reason, c.source
FROM criticality c JOIN memories m ON m.id = c.memory_id
WHERE c.user_id = ?"""
DELETE_KEYS_OF = "DELETE FROM memory_keys WHERE memory_id IN ({marks})"
DELETE_CRITICALITY_OF = "DELETE FROM criticality WHERE memory_id IN ({marks})"
INSERT_KEY = """
INSERT INTO memory_keys (memory_id, user_id, key, kind, ref, embedding) VALUES (?, ?, ?, ?, ?, ?)"""
SELECT_KEYS = """
SELECT k.memory_id, k.key, k.kind, k.ref, k.embedding
FROM memory_keys k JOIN memories m ON m.id = k.memory_id
WHERE k.user_id = ?"""
SELECT_KEY_TEXTS = "SELECT key FROM memory_keys WHERE memory_id = ?"
SELECT_TEXT_VECTORS = """
SELECT text, embedding FROM text_vectors WHERE user_id = ? AND text IN ({marks})"""
INSERT_TEXT_VECTOR = """
INSERT INTO text_vectors (user_id, text, embedding) VALUES (?, ?, ?)
ON CONFLICT (user_id, text) DO UPDATE SET embedding = excluded.embedding"""
DELETE_TEXT_VECTORS = "DELETE FROM text_vectors WHERE user_id = ? AND text IN ({marks})"
SELECT_PROFILE = "SELECT text, version, updated_at FROM profiles WHERE user_id = ?"
SELECT_PROFILE_FULL = "SELECT text, version, kind, state FROM profiles WHERE user_id = ?"
UPSERT_PROFILE = """
INSERT INTO profiles (user_id, text, version, updated_at, kind, state) VALUES (?, ?, 1, ?, ?, ?)
ON CONFLICT(user_id) DO UPDATE SET text = excluded.text, version = profiles.version + 1,
    updated_at = excluded.updated_at, kind = excluded.kind, state = excluded.state"""
DELETE_PROFILE_LINES = "DELETE FROM profile_lines WHERE user_id = ?"
INSERT_PROFILE_LINE = """
INSERT INTO profile_lines (user_id, line_no, text, memory_ids, source_turns)
VALUES (?, ?, ?, ?, ?)"""
SELECT_PROFILE_LINES = """
SELECT text, memory_ids, source_turns FROM profile_lines WHERE user_id = ? ORDER BY line_no"""
DELETE_OF_MEMORY = (
    "DELETE FROM criticality WHERE memory_id = ?",
    "DELETE FROM memory_keys WHERE memory_id = ?",
)
TABLES = ("text_vectors", "criticality", "memory_keys", "profiles", "profile_lines")

KeysCache = dict[tuple[Scope, str | None], tuple[tuple[int, int], list[MemoryKey], np.ndarray]]


class SQLVisibleRepository(SQLRepository, VisibleRepository):
    tables = TABLES

    def __init__(self, store: SQLStore) -> None:
        super().__init__(store)
        # Anticipation keys per scope, valid while nothing was written (by this connection:
        # total_changes; by another: PRAGMA data_version).
        self._keys: KeysCache = {}

    def set_criticality(self, user_id: str, rows: Sequence[Criticality]) -> None:
        with self.store.transaction():
            stamp = now()
            self.db.executemany(
                UPSERT_CRITICALITY,
                [(r.memory_id, user_id, r.score, r.ctype, r.reason, r.source, stamp) for r in rows],
            )

    def clear(self, memory_ids: Sequence[str]) -> None:
        ids = list(memory_ids)
        with self.store.transaction():
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                for statement in (DELETE_CRITICALITY_OF, DELETE_KEYS_OF):
                    self.db.execute(statement.format(marks=marks(len(chunk))), chunk)
        self._keys.clear()

    def critical_memories(self, scope: Scope, *, as_of: str | None = None) -> list[Criticality]:
        clause, params = scope_sql(scope, "m.")
        live, live_params = live_sql(as_of, "m.")
        with self.store.errors():
            rows = self.db.execute(
                SELECT_CRITICAL + clause + live, [scope.user_id, *params, *live_params]
            )
            return [
                Criticality(r["memory_id"], float(r["score"]), r["ctype"], r["reason"], r["source"])
                for r in rows
            ]

    def add_keys(self, user_id: str, keys: Sequence[MemoryKey], vectors: np.ndarray) -> None:
        with self.store.transaction():
            ids = sorted({k.memory_id for k in keys})
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                self.db.execute(DELETE_KEYS_OF.format(marks=marks(len(chunk))), chunk)
            self.db.executemany(
                INSERT_KEY,
                [
                    (k.memory_id, user_id, k.key, k.kind, k.ref, blob(v))
                    for k, v in zip(keys, vectors, strict=True)
                ],
            )

    def memory_keys(
        self, scope: Scope, *, as_of: str | None = None
    ) -> tuple[list[MemoryKey], np.ndarray]:
        with self.store.errors():
            stamp = self.store.write_stamp(scope.user_id)
            cached = self._keys.get((scope, as_of))
            if cached is not None and cached[0] == stamp:
                return list(cached[1]), cached[2]
            clause, params = scope_sql(scope, "m.")
            live, live_params = live_sql(as_of, "m.")
            rows = self.db.execute(
                SELECT_KEYS + clause + live, [scope.user_id, *params, *live_params]
            ).fetchall()
        keys = [MemoryKey(r["memory_id"], r["key"], r["kind"], r["ref"]) for r in rows]
        vectors = matrix([r["embedding"] for r in rows])
        if len(self._keys) > 64:
            self._keys.clear()
        self._keys[(scope, as_of)] = (stamp, keys, vectors)
        return list(keys), vectors

    def cached_vectors(self, user_id: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        texts = list(dict.fromkeys(texts))
        with self.store.errors():
            for i in range(0, len(texts), 500):
                chunk = texts[i : i + 500]
                query = SELECT_TEXT_VECTORS.format(marks=marks(len(chunk)))
                for row in self.db.execute(query, [user_id, *chunk]):
                    out[row["text"]] = np.frombuffer(row["embedding"], dtype=np.float32)
        return out

    def cache_vectors(self, user_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        with self.store.transaction():
            self.db.executemany(
                INSERT_TEXT_VECTOR,
                [(user_id, t, blob(v)) for t, v in zip(texts, vectors, strict=True)],
            )

    def get_profile(self, user_id: str) -> tuple[str, int] | None:
        with self.store.errors():
            row = self.db.execute(SELECT_PROFILE, (user_id,)).fetchone()
        return (row["text"], int(row["version"])) if row else None

    def set_profile(
        self,
        user_id: str,
        text: str,
        *,
        kind: str = "",
        lines: Sequence[ProfileLine] = (),
        state: dict[str, Any] | None = None,
    ) -> None:
        with self.store.transaction():
            self.db.execute(UPSERT_PROFILE, (user_id, text, now(), kind, json.dumps(state or {})))
            self.db.execute(DELETE_PROFILE_LINES, (user_id,))
            rows = [
                (user_id, n, line.text, json.dumps(line.memory_ids), json.dumps(line.source_turns))
                for n, line in enumerate(lines, 1)
            ]
            self.db.executemany(INSERT_PROFILE_LINE, rows)

    def load_profile(self, user_id: str) -> Profile | None:
        with self.store.errors():
            row = self.db.execute(SELECT_PROFILE_FULL, (user_id,)).fetchone()
            if row is None:
                return None
            lines = [
                ProfileLine(r["text"], json.loads(r["memory_ids"]), json.loads(r["source_turns"]))
                for r in self.db.execute(SELECT_PROFILE_LINES, (user_id,))
            ]
        state = json.loads(row["state"])
        return Profile(row["text"], int(row["version"]), row["kind"], lines, state)

    def delete_memory(self, entry: MemoryEntry) -> None:
        """The memory's criticality and keys, the vectors of the keys' texts, and the
        profile lines that cite it."""
        derived = [r["key"] for r in self.db.execute(SELECT_KEY_TEXTS, (entry.id,))]
        for statement in DELETE_OF_MEMORY:
            self.db.execute(statement, (entry.id,))
        for i in range(0, len(derived), 500):
            chunk = derived[i : i + 500]
            self.db.execute(
                DELETE_TEXT_VECTORS.format(marks=marks(len(chunk))), [entry.user_id, *chunk]
            )
        profile = self.load_profile(entry.user_id)
        if profile is not None and any(entry.id in line.memory_ids for line in profile.lines):
            kept = [line for line in profile.lines if entry.id not in line.memory_ids]
            text = "\n".join(line.text for line in kept)
            self.set_profile(
                entry.user_id, text, kind=profile.kind, lines=kept, state=profile.state
            )
        self._keys.clear()

    def delete_user(self, user_id: str) -> None:
        super().delete_user(user_id)
        self._keys.clear()

    def reset(self) -> None:
        super().reset()
        self._keys.clear()
