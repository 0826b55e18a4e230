"""Store URLs: which backend a ``store`` setting names, and opening it through ``STORES``.

Accepted everywhere a store is named (``--store``, ``LOGICMEM_STORE``, ``store`` in the
TOML file, ``Memory(store=...)``):

- a plain path (``~/mem.db``, ``data/mem.db``): a SQLite file;
- ``sqlite:///abs/path.db`` (an absolute path), ``sqlite://rel/path.db`` (relative);
- ``:memory:`` or ``sqlite:///:memory:``: a throwaway SQLite store;
- ``postgresql://user:pass@host/db`` (or ``postgres://``, ``postgresql+driver://``;
  ``?host=/dir`` for a unix socket, ``&schema=NAME`` for a store in its own schema): the
  PostgreSQL + pgvector backend (``store.postgres``; needs the ``postgres`` extra).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from logicmem.errors import StoreError
from logicmem.store.base import STORES, Store

MEMORY = ":memory:"
_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
# Spellings of a backend's scheme -> the name it is registered under in STORES.
_ALIASES = {
    "sqlite": "sqlite",
    "sqlite3": "sqlite",
    "postgresql": "postgresql",
    "postgres": "postgresql",
}
_HINT = "use a file path, sqlite:///abs/path.db, :memory: or postgresql://user@host/db"


@dataclass(frozen=True)
class StoreURL:
    """A parsed store setting: the backend's registry name and what it opens.

    ``target`` is the file path (or ``:memory:``) for SQLite, the URL itself otherwise."""

    backend: str
    target: str

    def __str__(self) -> str:
        return redact(self.target)


def parse_store_url(value: str | Path) -> StoreURL:
    """The backend and target a ``store`` setting names (StoreError when it names none)."""
    text = str(value).strip()
    if not text:
        raise StoreError(f"the store setting is empty: {_HINT}")
    match = _SCHEME.match(text)
    if match is None:
        return StoreURL("sqlite", text)  # a plain path (or ":memory:")
    scheme = match["scheme"].lower()
    backend = _ALIASES.get(scheme.partition("+")[0])
    if backend is None:
        raise StoreError(
            f"unknown store scheme {scheme!r} in {redact(text)!r}: {_HINT} "
            f"(registered backends: {', '.join(STORES.names())})"
        )
    if backend != "sqlite":
        return StoreURL(backend, text)
    rest = unquote(text[match.end() :])
    if rest in (MEMORY, "/" + MEMORY):
        return StoreURL("sqlite", MEMORY)
    if rest.strip("/") == "":
        raise StoreError(f"the store URL {text!r} names no file: write sqlite:///abs/path.db")
    if rest.startswith("/"):
        rest = "/" + rest.lstrip("/")  # sqlite:////abs and sqlite:///abs: the same file
    return StoreURL("sqlite", rest)


def open_store(value: str | Path, **options: Any) -> Store:
    """Open the store a setting names with the backend registered for its scheme."""
    url = parse_store_url(value)
    if url.backend not in STORES:
        raise StoreError(
            f"no {url.backend} store backend is registered for {url} "
            f"(registered: {', '.join(STORES.names())})"
        )
    return STORES.create(url.backend, url.target, **options)


def sqlite_url(path: str | Path) -> str:
    """The store URL of a SQLite file (absolute), e.g. for stores a tool creates itself."""
    return "sqlite://" + str(Path(path).expanduser().resolve())


def redact(text: str) -> str:
    """``text`` with a URL's password masked, for messages and ``stats``."""
    if not _SCHEME.match(text):
        return text
    parts = urlsplit(text)
    if parts.password is None:
        return text
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    netloc = f"{parts.username or ''}:***@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
