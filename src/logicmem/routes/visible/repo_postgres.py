"""The visibility route's repository in the PostgreSQL store: the shared statements of ``repo_sql``
through the PostgreSQL connection and transactions."""

from __future__ import annotations

from logicmem.routes.visible.repo_sql import SQLVisibleRepository


class PostgresVisibleRepository(SQLVisibleRepository):
    """Visible rows in the PostgreSQL store."""
