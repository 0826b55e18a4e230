"""RootMem's repository on the SQL backends (tables from migration 3): portable
SQL that SQLite and PostgreSQL both run; ``repo_sqlite`` and ``repo_postgres`` are the
classes each backend registers."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from logicmem.routes.rootmem.repo import RootMemRepository, RootUnit, UnitEvidence
from logicmem.store.sql import SQLRepository
from logicmem.store.sqlutil import now, scope_key
from logicmem.types import MemoryEntry, Scope

# Every change is a new (unit_id, version) row; the current unit is its highest version,
# shown while its status is 'active'. Scope match is exact (NULL matches NULL).
ROOT_SCOPE = "user_id = ? AND agent_id IS NOT DISTINCT FROM ? AND run_id IS NOT DISTINCT FROM ?"
UNIT_COLUMNS = (
    "unit_id, user_id, agent_id, run_id, version, status, activation, guidance, evidence,"
    " event, detail, at"
)
INSERT_UNIT = f"""
INSERT INTO root_units ({UNIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
SELECT_UNITS = f"""
SELECT {UNIT_COLUMNS} FROM root_units u WHERE {ROOT_SCOPE}
    AND version = (SELECT MAX(version) FROM root_units v WHERE v.unit_id = u.unit_id)
    AND status = 'active'
ORDER BY rowid"""
SELECT_UNIT_HISTORY = f"""
SELECT {UNIT_COLUMNS} FROM root_units WHERE unit_id = ? ORDER BY version"""
# The construction watermark: which memories a scope's units have taken in ('done'),
# failed on (retried next run) or given up on ('skipped'). scope: [agent_id, run_id] JSON.
SELECT_MARKS = """
SELECT memory_id, state, failures FROM root_marks WHERE user_id = ? AND scope = ?"""
UPSERT_MARK = """
INSERT INTO root_marks (user_id, scope, memory_id, state, failures, at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (user_id, scope, memory_id)
DO UPDATE SET state = excluded.state, failures = excluded.failures, at = excluded.at"""
SELECT_CITING = "SELECT rowid, evidence FROM root_units WHERE user_id = ? AND evidence LIKE ?"
DROP_EVIDENCE = """
UPDATE root_units SET evidence = ?, status = CASE WHEN ? = 0 THEN 'retired' ELSE status END
WHERE rowid = ?"""
TABLES = ("root_units", "root_marks")


def _row_to_unit(row: sqlite3.Row) -> RootUnit:
    return RootUnit(
        unit_id=row["unit_id"],
        user_id=row["user_id"],
        agent_id=row["agent_id"],
        run_id=row["run_id"],
        version=int(row["version"]),
        status=row["status"],
        activation=row["activation"],
        guidance=row["guidance"],
        evidence=[UnitEvidence(e["memory_id"], e["fact"]) for e in json.loads(row["evidence"])],
        event=row["event"],
        detail=json.loads(row["detail"]),
        at=row["at"],
    )


class SQLRootMemRepository(SQLRepository, RootMemRepository):
    tables = TABLES

    def units(self, scope: Scope) -> list[RootUnit]:
        with self.store.errors():
            rows = self.db.execute(
                SELECT_UNITS, (scope.user_id, scope.agent_id, scope.run_id)
            ).fetchall()
        return [_row_to_unit(r) for r in rows]

    def unit_history(self, unit_id: str) -> list[RootUnit]:
        with self.store.errors():
            rows = self.db.execute(SELECT_UNIT_HISTORY, (unit_id,)).fetchall()
        return [_row_to_unit(r) for r in rows]

    def add_units(self, units: Sequence[RootUnit]) -> None:
        stamp = now()
        with self.store.transaction():
            for u in units:
                u.at = stamp
                evidence = [{"memory_id": e.memory_id, "fact": e.fact} for e in u.evidence]
                self.db.execute(
                    INSERT_UNIT,
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

    def marks(self, scope: Scope) -> dict[str, tuple[str, int]]:
        with self.store.errors():
            rows = self.db.execute(SELECT_MARKS, (scope.user_id, scope_key(scope)))
            return {r["memory_id"]: (r["state"], int(r["failures"])) for r in rows}

    def mark(self, scope: Scope, marks: dict[str, tuple[str, int]]) -> None:
        stamp, key = now(), scope_key(scope)
        with self.store.transaction():
            self.db.executemany(
                UPSERT_MARK,
                [(scope.user_id, key, mid, st, n, stamp) for mid, (st, n) in marks.items()],
            )

    def delete_memory(self, entry: MemoryEntry) -> None:
        """Every unit version citing the memory loses it; one left with none is retired."""
        rows = self.db.execute(SELECT_CITING, (entry.user_id, '%"' + entry.id + '"%')).fetchall()
        for row in rows:
            evidence = [e for e in json.loads(row["evidence"]) if e.get("memory_id") != entry.id]
            self.db.execute(DROP_EVIDENCE, (json.dumps(evidence), len(evidence), row["rowid"]))
