"""The visibility route's repository in the SQLite store: the shared statements of ``repo_sql``
through the SQLite connection and transactions."""

from __future__ import annotations

from logicmem.routes.visible.repo_sql import SQLVisibleRepository


class SQLiteVisibleRepository(SQLVisibleRepository):
    """Visible rows in the SQLite store."""
