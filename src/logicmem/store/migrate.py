"""Copy a store to another backend (SQLite <-> PostgreSQL) with every object and its history.

Both SQL backends have the same tables and columns, so a copy is table by table, user by
user, in the order rows were stored (later rows read as said more recently). What is not
copied is rebuilt: positions (``rowid``) are the destination's own, so the keyword index is
rebuilt from each memory's text, and RuleMem's watermark (a position) is translated to the
destination's. The destination's transaction holds the whole copy: a copy that fails, or
whose counts or checksum do not match the source's, leaves the destination as it was.

``merge=False`` refuses a destination that holds any user; ``merge=True`` adds the source's
users to it and refuses when a user is in both (their memories would interleave).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from logicmem.errors import StoreError
from logicmem.store import schema as sql
from logicmem.store.sql import SQLStore

# The core's tables in copy order; memory_terms is rebuilt, schema_migrations is each
# backend's own, and a backend's derived tables (user_versions) follow from the writes.
CORE_TABLES = ("turns", "memories", "history", "events")
_SKIP = {"memory_terms", "user_versions"}
# A watermark that is a position in the memories table (remapped, not copied).
_POSITIONS = {"rulemem_progress": "position"}


@dataclass
class MigrationReport:
    source: str
    destination: str
    users: list[str]
    rows: dict[str, int] = field(default_factory=dict)
    checksum: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "destination": self.destination,
            "users": len(self.users),
            "rows": self.rows,
            "checksum": self.checksum,
        }


def _tables(store: SQLStore) -> list[str]:
    """Every table of the store a copy carries: the core's, then each route repository's."""
    out = list(CORE_TABLES)
    for repo in store.repositories():
        out.extend(t for t in getattr(repo, "tables", ()) if t not in out and t not in _SKIP)
    return out


def _has_rowid(store: SQLStore, table: str) -> bool:
    try:
        store.db.execute(f"SELECT rowid FROM {table} LIMIT 1").fetchall()
    except Exception:  # no rowid column (PostgreSQL's keyed tables)
        return False
    return True


def _rows(store: SQLStore, table: str, user_id: str, ordered: bool) -> Iterator[dict[str, Any]]:
    order = " ORDER BY rowid" if ordered else ""
    for row in store.db.execute(f"SELECT * FROM {table} WHERE user_id = ?{order}", (user_id,)):
        yield dict(row)


def texts_checksum(store: SQLStore, users: Sequence[str]) -> str:
    """SHA-256 over every turn's and memory's identity and text, and every history row's
    texts, of ``users`` (in a fixed order, so two backends give the same digest)."""
    digest = hashlib.sha256()
    for user in sorted(users):
        turns = store.db.execute(
            "SELECT session_id, turn_id, text FROM turns WHERE user_id = ?", (user,)
        ).fetchall()
        for r in sorted((r["session_id"], r["turn_id"], r["text"]) for r in turns):
            digest.update(json.dumps(["turn", user, *r]).encode())
        memories = store.db.execute(
            "SELECT id, text, status, valid_from, valid_until FROM memories WHERE user_id = ?",
            (user,),
        ).fetchall()
        for m in sorted(
            (r["id"], r["text"], r["status"], r["valid_from"], r["valid_until"]) for r in memories
        ):
            digest.update(json.dumps(["memory", user, *m]).encode())
        history = store.db.execute(
            "SELECT memory_id, event, old_text, new_text FROM history WHERE user_id = ? "
            "ORDER BY rowid",
            (user,),
        ).fetchall()
        for r in history:
            row = [r["memory_id"], r["event"], r["old_text"], r["new_text"]]
            digest.update(json.dumps(["history", user, *row]).encode())
    return digest.hexdigest()


def _count(store: SQLStore, table: str, users: Sequence[str]) -> int:
    total = 0
    for user in users:
        row = store.db.execute(f"SELECT COUNT(*) AS n FROM {table} WHERE user_id = ?", (user,))
        total += int(row.fetchone()["n"])
    return total


def migrate(src: SQLStore, dst: SQLStore, *, merge: bool = False) -> MigrationReport:
    """Copy every user of ``src`` into ``dst``; StoreError (and ``dst`` unchanged) when the
    destination is not empty (without ``merge``), shares a user, uses another embedder,
    or the copy's counts or checksum differ from the source's."""
    if not isinstance(src, SQLStore) or not isinstance(dst, SQLStore):
        raise StoreError("migrate copies between SQL stores (SQLite, PostgreSQL)")
    users = src.users()
    held = dst.users()
    if held and not merge:
        raise StoreError(
            f"the destination {dst.location} is not empty ({len(held)} users); migrate into an "
            "empty store, or pass --merge to add the source's users to it"
        )
    shared = sorted(set(users) & set(held))
    if shared:
        names = ", ".join(shared[:5]) + (" ..." if len(shared) > 5 else "")
        raise StoreError(
            f"{len(shared)} users are in both stores ({names}); --merge adds only users the "
            "destination does not have: forget them in one of the stores first"
        )
    bound = src.get_meta("embedder")
    if bound is not None:
        info = json.loads(bound)
        dst.bind_embedder(info["name"], int(info["dims"]))  # refuses a different one
    report = MigrationReport(src.location, dst.location, users)
    tables = _tables(src)
    ordered = {t: _has_rowid(src, t) for t in tables}
    with dst.transaction():
        for table in tables:
            report.rows[table] = 0
        for user in users:
            positions: dict[int, int] = {}  # source memory position -> destination's
            for table in tables:
                report.rows[table] += _copy(src, dst, table, user, ordered[table], positions)
        if not merge:  # counted events of no user (a failure before the user was known)
            rows = src.db.execute(sql.SELECT_ANONYMOUS_EVENTS).fetchall()
            dst.db.executemany(
                sql.INSERT_EVENT, [(None, r["kind"], r["detail"], r["at"]) for r in rows]
            )
        for table in tables:
            copied = _count(dst, table, users)
            if copied != report.rows[table] or copied != _count(src, table, users):
                raise StoreError(
                    f"migrate: {table} has {copied} rows of the copied users in the destination "
                    f"but {_count(src, table, users)} in the source; nothing was written"
                )
        report.checksum = texts_checksum(src, users)
        if texts_checksum(dst, users) != report.checksum:
            raise StoreError("migrate: the texts' checksum differs; nothing was written")
    dst._clear_caches()
    return report


def _copy(
    src: SQLStore,
    dst: SQLStore,
    table: str,
    user: str,
    ordered: bool,
    positions: dict[int, int],
) -> int:
    n = 0
    batch: list[list[Any]] = []
    columns: list[str] = []
    for row in _rows(src, table, user, ordered):
        position = row.pop("rowid", None)
        if table == "memories":
            row["embedding"] = dst._vector_param(src._vector_value(row["embedding"]))
            columns = list(row)
            marks = ", ".join("?" * len(columns))
            inserted = dst.db.execute(
                f"INSERT INTO memories ({', '.join(columns)}) VALUES ({marks}) RETURNING rowid",
                list(row.values()),
            ).fetchone()["rowid"]
            dst._index_terms(int(inserted), user, row["text"])
            positions[int(position)] = int(inserted)
            n += 1
            continue
        if table in _POSITIONS:
            column = _POSITIONS[table]
            row[column] = _translate(int(row[column]), positions)
        columns = list(row)
        batch.append(list(row.values()))
        n += 1
    if batch:
        marks = ", ".join("?" * len(columns))
        dst.db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", batch)
    return n


def _translate(position: int, positions: dict[int, int]) -> int:
    """A source watermark as the destination's: the position of the last memory at or
    before it (0 when none was)."""
    before = [p for p in positions if p <= position]
    return positions[max(before)] if before else 0
