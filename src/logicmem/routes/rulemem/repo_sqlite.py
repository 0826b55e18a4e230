"""RuleMem's repository in the SQLite store: the shared statements of ``repo_sql``
through the SQLite connection and transactions."""

from __future__ import annotations

from logicmem.routes.rulemem.repo_sql import SQLRuleMemRepository


class SQLiteRuleMemRepository(SQLRuleMemRepository):
    """RuleMem rows in the SQLite store."""
