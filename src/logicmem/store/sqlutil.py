"""Helpers every SQL backend shares (SQLite and PostgreSQL): times, vector blobs, scope and
validity clauses, and the row readers (one copy each, for the core stores and the route
repositories). Statements use ``?`` placeholders; rows are read by column name."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import numpy as np

from logicmem.types import MemoryEntry, Scope, Turn


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def matrix(blobs: list[bytes]) -> np.ndarray:
    """The (n, dims) float32 matrix of ``n`` vector blobs ((0, 0) when there are none)."""
    if not blobs:
        return np.zeros((0, 0), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)


def marks(n: int) -> str:
    return ",".join("?" * n)


def scope_sql(scope: Scope, alias: str = "") -> tuple[str, list[Any]]:
    """The agent/run part of ``scope`` as `` AND`` clauses (the user is matched apart)."""
    clause, params = "", []
    for column in ("agent_id", "run_id"):
        value = getattr(scope, column)
        if value is not None:
            clause += f" AND {alias}{column} = ?"
            params.append(value)
    return clause, params


def live_sql(as_of: str | None, alias: str = "") -> tuple[str, list[Any]]:
    """The memories valid at ``as_of`` (an ISO time), or the active ones (valid now)."""
    if as_of is None:
        return f" AND {alias}status = 'active'", []
    return (
        f" AND {alias}valid_from <= ? AND ({alias}valid_until IS NULL OR {alias}valid_until > ?)",
        [as_of, as_of],
    )


def scope_key(scope: Scope) -> str:
    """The agent/run part of a scope as one key (a user's own: "[null, null]")."""
    return json.dumps([scope.agent_id, scope.run_id])


def row_to_memory(row: Mapping[str, Any]) -> MemoryEntry:
    return MemoryEntry(
        id=row["id"],
        user_id=row["user_id"],
        agent_id=row["agent_id"],
        run_id=row["run_id"],
        text=row["text"],
        category=row["category"],
        said_at=row["said_at"],
        session_id=row["session_id"],
        source_turns=json.loads(row["source_turns"]),
        metadata=json.loads(row["metadata"]),
        status=row["status"],
        superseded_by=row["superseded_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        valid_from=row["valid_from"],
        valid_until=row["valid_until"],
    )


def row_to_turn(row: Mapping[str, Any]) -> Turn:
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
