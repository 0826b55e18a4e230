"""The SQLite side of RuleMem: quadruples, Horn rules and the consolidation watermark.

A mixin of ``SQLiteStore`` (kept apart so the store module stays readable); its SQL
lives with the rest in ``schema.py``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import numpy as np

from logicmem.store import schema as sql
from logicmem.store.base import HornRule, Quad
from logicmem.types import MemoryEntry, Scope


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _matrix(blobs: list[bytes]) -> np.ndarray:
    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)


def _progress_key(scope: Scope) -> str:
    return json.dumps([scope.agent_id, scope.run_id])


def _row_to_rule(row: sqlite3.Row | tuple[Any, ...]) -> HornRule:
    return HornRule(
        id=row[0],
        user_id=row[1],
        agent_id=row[2],
        run_id=row[3],
        body=json.loads(row[4]),
        head=row[5],
        support=int(row[6]),
        status=row[7],
        delta_self=row[8],
        delta_fact=row[9],
        score=row[10],
        source_memories=json.loads(row[11]),
        inducer=row[12],
        detail=json.loads(row[13]),
    )


class RuleMemTables:
    """RuleMem persistence; mixed into ``SQLiteStore``, whose connection it uses."""

    _db: sqlite3.Connection

    def transaction(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _errors(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _memory_rows(self, scope: Scope, after: int, limit: int) -> Iterator[sqlite3.Row]:
        clause, params = "", []
        for column in ("agent_id", "run_id"):
            value = getattr(scope, column)
            if value is not None:
                clause += f" AND {column} = ?"
                params.append(value)
        query = sql.RULEMEM_MEMORIES_AFTER + clause + " ORDER BY rowid LIMIT ?"
        yield from self._db.execute(query, [scope.user_id, after, *params, limit])

    def memories_after(self, scope: Scope, after: int, limit: int) -> list[tuple[int, MemoryEntry]]:
        from logicmem.store.sqlite import _row_to_memory

        with self._errors():
            rows = list(self._memory_rows(scope, after, limit))
        return [(int(r["rowid"]), _row_to_memory(r)) for r in rows]

    def add_quads(self, user_id: str, quads: Sequence[Quad], vectors: np.ndarray) -> None:
        stamp = _now()
        with self.transaction():
            self._db.executemany(
                sql.INSERT_RULEMEM_FACT,
                [
                    (
                        q.id,
                        user_id,
                        q.memory_id,
                        q.subject,
                        q.relation,
                        q.object,
                        q.time,
                        q.source,
                        _blob(v),
                        stamp,
                    )
                    for q, v in zip(quads, vectors, strict=True)
                ],
            )

    def quads(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[Quad], np.ndarray]:
        from logicmem.store.sqlite import _live_sql

        clause, params = "", []
        for column in ("agent_id", "run_id"):
            value = getattr(scope, column)
            if value is not None:
                clause += f" AND m.{column} = ?"
                params.append(value)
        live, live_params = _live_sql(as_of, "m.")
        with self._errors():
            rows = self._db.execute(
                sql.SELECT_RULEMEM_FACTS + clause + live + " ORDER BY f.rowid",
                [scope.user_id, *params, *live_params],
            ).fetchall()
        quads = [Quad(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]
        return quads, _matrix([r[7] for r in rows])

    def upsert_rule(self, rule: HornRule, vector: np.ndarray) -> bool:
        stamp = _now()
        with self.transaction():
            row = self._db.execute(sql.SELECT_RULEMEM_RULE, (rule.id,)).fetchone()
            if row is not None:
                sources = list(dict.fromkeys([*json.loads(row[1]), *rule.source_memories]))
                self._db.execute(
                    sql.MERGE_RULEMEM_RULE,
                    (int(row[0]) + rule.support, json.dumps(sources), stamp, rule.id),
                )
                return False
            self._db.execute(
                sql.INSERT_RULEMEM_RULE,
                (
                    rule.id,
                    rule.user_id,
                    rule.agent_id,
                    rule.run_id,
                    json.dumps(rule.body),
                    rule.head,
                    rule.support,
                    rule.status,
                    rule.delta_self,
                    rule.delta_fact,
                    rule.score,
                    json.dumps(rule.source_memories),
                    rule.inducer,
                    json.dumps(rule.detail),
                    _blob(vector),
                    stamp,
                    stamp,
                ),
            )
            return True

    def rules(
        self, scope: Scope, statuses: Sequence[str] | None = None
    ) -> tuple[list[HornRule], np.ndarray]:
        query, params = sql.SELECT_RULEMEM_RULES, [scope.user_id, scope.agent_id, scope.run_id]
        if statuses is not None:
            query += f" AND status IN ({','.join('?' * len(statuses))})"
            params.extend(statuses)
        with self._errors():
            rows = self._db.execute(query + " ORDER BY rowid", params).fetchall()
        return [_row_to_rule(r) for r in rows], _matrix([r[14] for r in rows])

    def rulemem_watermark(self, scope: Scope) -> int:
        with self._errors():
            row = self._db.execute(
                sql.SELECT_RULEMEM_PROGRESS, (scope.user_id, _progress_key(scope))
            ).fetchone()
        return int(row[0]) if row else 0

    def set_rulemem_watermark(self, scope: Scope, position: int) -> None:
        with self.transaction():
            self._db.execute(
                sql.UPSERT_RULEMEM_PROGRESS,
                (scope.user_id, _progress_key(scope), int(position), _now()),
            )
