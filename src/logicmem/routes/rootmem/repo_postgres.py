"""RootMem's repository in the PostgreSQL store: the shared statements of ``repo_sql``
through the PostgreSQL connection and transactions."""

from __future__ import annotations

from logicmem.routes.rootmem.repo_sql import SQLRootMemRepository


class PostgresRootMemRepository(SQLRootMemRepository):
    """RootMem rows in the PostgreSQL store."""
