"""RuleMem's repository on the SQL backends (tables from migration 4): portable
SQL that SQLite and PostgreSQL both run; ``repo_sqlite`` and ``repo_postgres`` are the
classes each backend registers."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import numpy as np

from logicmem.routes.rulemem.repo import HornRule, Quad, RuleMemRepository
from logicmem.store.sql import SQLRepository
from logicmem.store.sqlutil import blob, live_sql, matrix, now, scope_key, scope_sql
from logicmem.types import MemoryEntry, Scope

INSERT_FACT = """
INSERT INTO rulemem_facts (id, user_id, memory_id, subject, relation, object, time, source,
    embedding, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
SELECT_FACTS = """
SELECT f.id, f.memory_id, f.subject, f.relation, f.object, f.time, f.source, f.embedding
FROM rulemem_facts f JOIN memories m ON m.id = f.memory_id
WHERE f.user_id = ?"""
RULE_COLUMNS = (
    "id, user_id, agent_id, run_id, body, head, support, status, delta_self, delta_fact,"
    " score, source_memories, inducer, detail"
)
INSERT_RULE = f"""
INSERT INTO rulemem_rules ({RULE_COLUMNS}, embedding, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
SELECT_RULE = "SELECT support, source_memories FROM rulemem_rules WHERE id = ?"
MERGE_RULE = """
UPDATE rulemem_rules SET support = ?, source_memories = ?, updated_at = ? WHERE id = ?"""
SELECT_RULES = f"""
SELECT {RULE_COLUMNS}, embedding FROM rulemem_rules
WHERE user_id = ? AND agent_id IS NOT DISTINCT FROM ? AND run_id IS NOT DISTINCT FROM ?"""
SELECT_PROGRESS = "SELECT position FROM rulemem_progress WHERE user_id = ? AND scope = ?"
UPSERT_PROGRESS = """
INSERT INTO rulemem_progress (user_id, scope, position, at) VALUES (?, ?, ?, ?)
ON CONFLICT (user_id, scope) DO UPDATE SET position = excluded.position, at = excluded.at"""
DELETE_OF_MEMORY = (
    "DELETE FROM rulemem_facts WHERE memory_id = ?",
    # A rule quotes the memories it was induced from: it goes with any of them.
    "DELETE FROM rulemem_rules WHERE source_memories LIKE '%\"' || ? || '\"%'",
)
TABLES = ("rulemem_facts", "rulemem_rules", "rulemem_progress")


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


class SQLRuleMemRepository(SQLRepository, RuleMemRepository):
    tables = TABLES

    def add_quads(self, user_id: str, quads: Sequence[Quad], vectors: np.ndarray) -> None:
        stamp = now()
        rows = [
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
        ]
        with self.store.transaction():
            self.db.executemany(INSERT_FACT, rows)

    def quads(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[Quad], np.ndarray]:
        clause, params = scope_sql(scope, "m.")
        live, live_params = live_sql(as_of, "m.")
        with self.store.errors():
            rows = self.db.execute(
                SELECT_FACTS + clause + live + " ORDER BY f.rowid",
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
        with self.store.transaction():
            row = self.db.execute(SELECT_RULE, (rule.id,)).fetchone()
            if row is not None:
                known = json.loads(row["source_memories"])
                sources = list(dict.fromkeys([*known, *rule.source_memories]))
                self.db.execute(
                    MERGE_RULE, (int(row["support"]) + rule.support, json.dumps(sources), stamp,
                                 rule.id),
                )  # fmt: skip
                return False
            self.db.execute(
                INSERT_RULE,
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
        query, params = SELECT_RULES, [scope.user_id, scope.agent_id, scope.run_id]
        if statuses is not None:
            query += f" AND status IN ({','.join('?' * len(statuses))})"
            params.extend(statuses)
        with self.store.errors():
            rows = self.db.execute(query + " ORDER BY rowid", params).fetchall()
        return [_row_to_rule(r) for r in rows], matrix([r["embedding"] for r in rows])

    def watermark(self, scope: Scope) -> int:
        with self.store.errors():
            row = self.db.execute(SELECT_PROGRESS, (scope.user_id, scope_key(scope))).fetchone()
        return int(row["position"]) if row else 0

    def set_watermark(self, scope: Scope, position: int) -> None:
        with self.store.transaction():
            self.db.execute(
                UPSERT_PROGRESS, (scope.user_id, scope_key(scope), int(position), now())
            )

    def delete_memory(self, entry: MemoryEntry) -> None:
        for statement in DELETE_OF_MEMORY:
            self.db.execute(statement, (entry.id,))
