"""RuleMem's repository in the PostgreSQL store: the shared statements of ``repo_sql``
through the PostgreSQL connection and transactions."""

from __future__ import annotations

from logicmem.routes.rulemem.repo_sql import SQLRuleMemRepository


class PostgresRuleMemRepository(SQLRuleMemRepository):
    """RuleMem rows in the PostgreSQL store."""
