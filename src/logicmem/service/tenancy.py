"""Tenants inside one store: every user id of the service is ``<tenant>/<user id>``.

A tenant id has no '/', so the prefix is unambiguous: tenant ``acme``'s user ``bob`` is
``acme/bob`` and tenant ``acme-2``'s ``bob`` is ``acme-2/bob``; the same user id in two
tenants never mixes. Every call of the service goes through a ``TenantMemory``, which
prefixes the user ids it is given and strips them from everything it returns, so a key of
one tenant can name nothing of another's: another tenant's memory id is simply not found
(404) under this tenant's users.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from logicmem.errors import InputError, LogicmemError, NotFoundError
from logicmem.memory import Answer, Memory
from logicmem.service.keys import check_tenant
from logicmem.store.sql import SQLStore
from logicmem.types import AddResult, Context, MemoryEntry, SearchResult

SEP = "/"
MAX_USER_ID = 200

TENANT_STATS = """
SELECT
    (SELECT COUNT(*) FROM turns WHERE substr(user_id, 1, ?) = ?) AS turns,
    (SELECT COUNT(*) FROM turns WHERE pending = 1 AND substr(user_id, 1, ?) = ?) AS pending,
    (SELECT COUNT(*) FROM memories WHERE status = 'active' AND substr(user_id, 1, ?) = ?)
        AS active,
    (SELECT COUNT(*) FROM memories WHERE status = 'superseded' AND substr(user_id, 1, ?) = ?)
        AS superseded"""


def check_user(user_id: str) -> str:
    if not isinstance(user_id, str) or not user_id.strip():
        raise InputError("user_id is required: pass the user's id, for example alice")
    if len(user_id) > MAX_USER_ID:
        raise InputError(f"user_id is longer than {MAX_USER_ID} characters: use a shorter id")
    if "\x00" in user_id:
        raise InputError("user_id contains a NUL character (\\x00): pass a plain string")
    return user_id


class TenantMemory:
    """The ``Memory`` API as one tenant sees it (user ids without the tenant prefix)."""

    def __init__(self, memory: Memory, tenant: str) -> None:
        self.memory = memory
        self.tenant = check_tenant(tenant)
        self.prefix = tenant + SEP

    # -- ids ------------------------------------------------------------------------------
    def inner(self, user_id: str) -> str:
        return self.prefix + check_user(user_id)

    def outer(self, value: Any) -> Any:
        """``value`` with this tenant's prefix removed from every ``user_id`` in it."""
        if isinstance(value, dict):
            return {k: self._field(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.outer(v) for v in value]
        return value

    def _field(self, key: str, value: Any) -> Any:
        if isinstance(value, str):
            if key == "user_id" and value.startswith(self.prefix):
                return value[len(self.prefix) :]
            if key in ("id", "memory_id"):  # derived items, e.g. "profile:<user>:3"
                return value.replace(":" + self.prefix, ":")
            return value
        return self.outer(value)

    @contextmanager
    def _errors(self, user_id: str | None):
        """Errors name the user as the caller does, never with the tenant prefix."""
        try:
            yield
        except LogicmemError as exc:
            if user_id is not None:
                text = str(exc).replace(repr(self.prefix + user_id), repr(user_id))
                text = text.replace(self.prefix + user_id, user_id)
                if text != str(exc):
                    raise type(exc)(text) from exc
            raise

    # -- the API --------------------------------------------------------------------------
    def add(self, messages: Any, *, user_id: str, **kw: Any) -> AddResult:
        with self._errors(user_id):
            return self.memory.add(
                self._named(messages, user_id), user_id=self.inner(user_id), **kw
            )

    @staticmethod
    def _named(messages: Any, user_id: str) -> Any:
        """The user's own messages name their speaker as the caller knows the user (the
        memory says "alice is allergic...", never the tenant-prefixed id)."""
        if isinstance(messages, str):
            return [{"role": "user", "content": messages, "speaker": user_id}]
        if not isinstance(messages, list):
            return messages
        out = []
        for m in messages:
            if isinstance(m, dict) and not (m.get("speaker") or m.get("name")):
                if (m.get("role") or "user") == "user":
                    m = {**m, "role": "user", "speaker": user_id}
            elif (
                isinstance(m, dict)
                and not m.get("role")
                and str(m.get("speaker") or m.get("name")) == user_id
            ):
                m = {**m, "role": "user"}
            out.append(m)
        return out

    def search(self, query: str, *, user_id: str, **kw: Any) -> SearchResult:
        with self._errors(user_id):
            return self.memory.search(query, user_id=self.inner(user_id), **kw)

    def context(self, query: str, *, user_id: str, **kw: Any) -> Context:
        with self._errors(user_id):
            return self.memory.context(query, user_id=self.inner(user_id), **kw)

    def answer(self, query: str, *, user_id: str, **kw: Any) -> Answer:
        with self._errors(user_id):
            return self.memory.answer(query, user_id=self.inner(user_id), **kw)

    def get(self, memory_id: str, *, user_id: str, **kw: Any) -> MemoryEntry:
        with self._errors(user_id):
            return self.memory.get(memory_id, user_id=self.inner(user_id), **kw)

    def get_all(self, *, user_id: str, **kw: Any) -> list[MemoryEntry]:
        with self._errors(user_id):
            return self.memory.get_all(user_id=self.inner(user_id), **kw)

    def update(self, memory_id: str, text: str, *, user_id: str, **kw: Any) -> MemoryEntry:
        with self._errors(user_id):
            return self.memory.update(memory_id, text, user_id=self.inner(user_id), **kw)

    def delete(self, memory_id: str, *, user_id: str, **kw: Any) -> None:
        with self._errors(user_id):
            self.memory.delete(memory_id, user_id=self.inner(user_id), **kw)

    def history(self, memory_id: str, *, user_id: str) -> list[dict[str, Any]]:
        with self._errors(user_id):
            return self.memory.history(memory_id, user_id=self.inner(user_id))

    def forget(self, user_id: str) -> int:
        with self._errors(user_id):
            return self.memory.delete_user(self.inner(user_id))

    def consolidate(
        self, *, user_id: str, only: Sequence[str] | None = None, **kw: Any
    ) -> dict[str, dict[str, Any]]:
        with self._errors(user_id):
            return self.memory.consolidate(user_id=self.inner(user_id), only=only, **kw)

    def reindex(self, *, user_id: str, defer: bool = False, stale: bool = False) -> tuple[int, int]:
        """Judge the user's stored memories again (``Memory.reindex``; with ``defer``,
        only mark them for the next resume, a job; with ``stale``, only those another
        version indexed) and the statements merged into them
        (``Memory.rejudge_merges``, at once); returns (memories reindexed, statements
        restored). An unknown user is not found."""
        if not self.memory.store.user_exists(self.inner(user_id)):
            raise NotFoundError(f"no memories for user {user_id!r}")
        with self._errors(user_id):
            count = self.memory.reindex(
                user_id=self.inner(user_id), defer=defer, merges=False, stale=stale
            )
            restored = self.memory.rejudge_merges(user_id=self.inner(user_id))
        return count, len(restored)

    def resume(self, *, user_id: str) -> AddResult:
        with self._errors(user_id):
            return self.memory.resume(user_id=self.inner(user_id))

    def users(self) -> list[str]:
        """This tenant's user ids (with turns or memories), sorted."""
        n = len(self.prefix)
        return sorted(u[n:] for u in self.memory.store.users() if u.startswith(self.prefix))

    def stats(self) -> dict[str, Any]:
        """Counts over this tenant's users only (never the store's totals)."""
        store = self.memory.store
        assert isinstance(store, SQLStore)
        n, p = len(self.prefix), self.prefix
        with store.errors():
            row = store.db.execute(TENANT_STATS, (n, p) * 4).fetchone()
        return {
            "tenant": self.tenant,
            "users": len(self.users()),
            "turns": int(row["turns"]),
            "pending_turns": int(row["pending"]),
            "memories": int(row["active"]),
            "superseded": int(row["superseded"]),
            # Indexed by other rules or settings (an upgrade): POST /users/{id}/reindex.
            "indexed_otherwise": self.memory.indexed_otherwise(user_prefix=p),
            "backend": store.backend,
        }


def tenant_users(memory: Memory) -> Mapping[str, int]:
    """How many users each tenant has in the store (an operator's view)."""
    counts: dict[str, int] = {}
    for user in memory.store.users():
        tenant, sep, _ = user.partition(SEP)
        if sep:
            counts[tenant] = counts.get(tenant, 0) + 1
    return counts
