"""API keys of the service: created once, stored hashed, scoped to one tenant.

A key reads ``lm_<key id>_<secret>``. The store keeps the key id, the tenant, the role
(``tenant`` or ``admin``) and a SHA-256 of the secret, never the secret: a key is shown
once, when it is created. Secrets are 32 random bytes, so a plain digest is enough (no
password stretching is needed for a value nobody chose); lookups go by key id and the
digests are compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import asdict, dataclass
from typing import Any

from logicmem.errors import InputError, NotFoundError
from logicmem.store.base import Store
from logicmem.store.sql import SQLStore
from logicmem.store.sqlutil import now

TENANT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
ROLES = ("tenant", "admin")
TOUCH_EVERY_S = 60.0
ADMIN_TENANT = "*"  # an admin key belongs to no tenant; it manages keys


@dataclass(frozen=True)
class ApiKey:
    key_id: str
    tenant: str
    name: str
    role: str
    created_at: str
    last_used_at: str | None = None
    revoked_at: str | None = None

    @property
    def admin(self) -> bool:
        return self.role == "admin"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_tenant(tenant: str) -> str:
    if not isinstance(tenant, str) or not TENANT_RE.match(tenant):
        raise InputError(
            f"tenant {tenant!r} is not a valid tenant id: use 1-64 letters, digits, '_', "
            "'-' or '.', starting with a letter or digit (for example acme-prod)"
        )
    return tenant


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _row(row: Any) -> ApiKey:
    return ApiKey(
        key_id=row["key_id"],
        tenant=row["tenant"],
        name=row["name"],
        role=row["role"],
        created_at=row["created_at"],
        last_used_at=row["last_used_at"],
        revoked_at=row["revoked_at"],
    )


COLUMNS = "key_id, tenant, name, role, created_at, last_used_at, revoked_at"


class KeyRing:
    """The API keys kept in a store (table ``api_keys``, migration 7)."""

    def __init__(self, store: Store) -> None:
        if not isinstance(store, SQLStore):
            raise TypeError(f"API keys need an SQL store, not {type(store).__name__}")
        self.store = store
        self._touched: dict[str, float] = {}  # key id -> when this process last wrote use

    def create(
        self, tenant: str | None, *, name: str = "", admin: bool = False
    ) -> tuple[ApiKey, str]:
        """A new key; returns its record and the full key, which is not kept anywhere."""
        if admin:
            tenant = ADMIN_TENANT
        elif tenant is None:
            raise InputError("a key belongs to a tenant: pass --tenant NAME (or --admin)")
        else:
            check_tenant(tenant)
        if len(name) > 200:
            raise InputError("the key's name is longer than 200 characters: shorten it")
        key_id = secrets.token_hex(6)
        secret = secrets.token_urlsafe(32)
        record = ApiKey(
            key_id=key_id,
            tenant=tenant,
            name=name,
            role="admin" if admin else "tenant",
            created_at=now(),
        )
        with self.store.transaction():
            self.store.db.execute(
                "INSERT INTO api_keys (key_id, tenant, name, role, secret_sha256, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (key_id, tenant, name, record.role, _digest(secret), record.created_at),
            )
        return record, f"lm_{key_id}_{secret}"

    def list(self, tenant: str | None = None, *, include_revoked: bool = False) -> list[ApiKey]:
        where, params = [], []
        if tenant is not None:
            where.append("tenant = ?")
            params.append(tenant)
        if not include_revoked:
            where.append("revoked_at IS NULL")
        sql = f"SELECT {COLUMNS} FROM api_keys"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self.store.errors():
            rows = self.store.db.execute(sql + " ORDER BY created_at, key_id", params)
            return [_row(r) for r in rows]

    def get(self, key_id: str) -> ApiKey:
        with self.store.errors():
            row = self.store.db.execute(
                f"SELECT {COLUMNS} FROM api_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no API key {key_id!r}: list the keys with `logicmem keys list`")
        return _row(row)

    def revoke(self, key_id: str, *, tenant: str | None = None) -> ApiKey:
        """Revoke a key (a key of another tenant than ``tenant``, when given: NotFoundError)."""
        key = self.get(key_id)
        if tenant is not None and key.tenant != tenant:
            raise NotFoundError(f"no API key {key_id!r} for tenant {tenant!r}")
        if key.revoked_at is None:
            stamp = now()
            with self.store.transaction():
                self.store.db.execute(
                    "UPDATE api_keys SET revoked_at = ? WHERE key_id = ?", (stamp, key_id)
                )
            key = self.get(key_id)
        return key

    def verify(self, presented: str) -> ApiKey | None:
        """The live key ``presented`` is, or None (malformed, unknown, wrong or revoked)."""
        parts = presented.strip().split("_", 2)
        if len(parts) != 3 or parts[0] != "lm" or not parts[1] or not parts[2]:
            return None
        with self.store.errors():
            row = self.store.db.execute(
                f"SELECT {COLUMNS}, secret_sha256 FROM api_keys WHERE key_id = ?", (parts[1],)
            ).fetchone()
        if row is None or row["revoked_at"] is not None:
            return None
        if not hmac.compare_digest(row["secret_sha256"], _digest(parts[2])):
            return None
        self._touch(row["key_id"])
        return _row(row)

    def _touch(self, key_id: str) -> None:
        """Record the key's use (``last_used_at``), at most once a minute per process."""
        clock = time.monotonic()
        if clock - self._touched.get(key_id, -TOUCH_EVERY_S) < TOUCH_EVERY_S:
            return
        self._touched[key_id] = clock
        if self.store.read_only:
            return
        with self.store.transaction():
            self.store.db.execute(
                "UPDATE api_keys SET last_used_at = ? WHERE key_id = ?", (now(), key_id)
            )
