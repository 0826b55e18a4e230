"""RootMem's repository in the SQLite store: the shared statements of ``repo_sql``
through the SQLite connection and transactions."""

from __future__ import annotations

from logicmem.routes.rootmem.repo_sql import SQLRootMemRepository


class SQLiteRootMemRepository(SQLRootMemRepository):
    """RootMem rows in the SQLite store."""
