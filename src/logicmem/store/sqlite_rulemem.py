"""The SQLite side of RuleMem: quadruples, Horn rules and the consolidation watermark.

A mixin of ``SQLiteStore`` (kept apart so the store module stays readable); its SQL
lives with the rest in ``schema.py``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager

import numpy as np

from logicmem.store import schema as sql
from logicmem.store.base import HornRule, Quad
from logicmem.store.sqlite_util import (
    blob,
    live_sql,
    matrix,
    now,
    row_to_memory,
    scope_key,
    scope_sql,
)
from logicmem.types import MemoryEntry, Scope


def _row_to_rule(row: sqlite3.Row) -> HornRule:
    return HornRule(
        id=row["id"],
        user_id=row["user_id"],
        agent_id=row["agent_id"],
        run_id=row["run_id"],
        body=json.loads(row["body"]),
        head=row["head"],
        support=int(row["support"]),
        status=row["status"],
        delta_self=row["delta_self"],
        delta_fact=row["delta_fact"],
        score=row["score"],
        source_memories=json.loads(row["source_memories"]),
        inducer=row["inducer"],
        detail=json.loads(row["detail"]),
    )


class RuleMemTables:
    """RuleMem persistence; mixed into ``SQLiteStore``, whose connection it uses."""

    _db: sqlite3.Connection

    def transaction(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _errors(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def _memory_rows(self, scope: Scope, after: int, limit: int) -> Iterator[sqlite3.Row]:
        clause, params = scope_sql(scope)
        query = sql.RULEMEM_MEMORIES_AFTER + clause + " ORDER BY rowid LIMIT ?"
        yield from self._db.execute(query, [scope.user_id, after, *params, limit])

    def memories_after(self, scope: Scope, after: int, limit: int) -> list[tuple[int, MemoryEntry]]:
        with self._errors():
            rows = list(self._memory_rows(scope, after, limit))
        return [(int(r["rowid"]), row_to_memory(r)) for r in rows]

    def add_quads(self, user_id: str, quads: Sequence[Quad], vectors: np.ndarray) -> None:
        stamp = now()
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
                        blob(v),
                        stamp,
                    )
                    for q, v in zip(quads, vectors, strict=True)
                ],
            )

    def quads(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[Quad], np.ndarray]:
        clause, params = scope_sql(scope, "m.")
        live, live_params = live_sql(as_of, "m.")
        with self._errors():
            rows = self._db.execute(
                sql.SELECT_RULEMEM_FACTS + clause + live + " ORDER BY f.rowid",
                [scope.user_id, *params, *live_params],
            ).fetchall()
        quads = [
            Quad(
                r["id"],
                r["memory_id"],
                r["subject"],
                r["relation"],
                r["object"],
                r["time"],
                r["source"],
            )
            for r in rows
        ]
        return quads, matrix([r["embedding"] for r in rows])

    def upsert_rule(self, rule: HornRule, vector: np.ndarray) -> bool:
        stamp = now()
        with self.transaction():
            row = self._db.execute(sql.SELECT_RULEMEM_RULE, (rule.id,)).fetchone()
            if row is not None:
                known = json.loads(row["source_memories"])
                sources = list(dict.fromkeys([*known, *rule.source_memories]))
                self._db.execute(
                    sql.MERGE_RULEMEM_RULE,
                    (int(row["support"]) + rule.support, json.dumps(sources), stamp, rule.id),
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
                    blob(vector),
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
        return [_row_to_rule(r) for r in rows], matrix([r["embedding"] for r in rows])

    def rulemem_watermark(self, scope: Scope) -> int:
        with self._errors():
            row = self._db.execute(
                sql.SELECT_RULEMEM_PROGRESS, (scope.user_id, scope_key(scope))
            ).fetchone()
        return int(row["position"]) if row else 0

    def set_rulemem_watermark(self, scope: Scope, position: int) -> None:
        with self.transaction():
            self._db.execute(
                sql.UPSERT_RULEMEM_PROGRESS,
                (scope.user_id, scope_key(scope), int(position), now()),
            )
