"""One registry per kind of pluggable part, declared once.

Built-in parts register through the same path as third-party ones: a dotted
``module:Class`` path, imported only when the part is first created, so that
``import logicmem`` never imports torch or the OpenAI SDK.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from logicmem.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Maps a config name to a factory (a class, or a lazy ``module:attr`` path)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, str | Callable[..., T]] = {}

    def register(self, name: str, target: str | Callable[..., T] | None = None) -> Any:
        """Register ``target`` under ``name``; usable as a decorator when target is omitted."""
        if target is not None:
            self._entries[name] = target
            return target

        def deco(obj: Callable[..., T]) -> Callable[..., T]:
            self._entries[name] = obj
            return obj

        return deco

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def resolve(self, name: str) -> Callable[..., T]:
        try:
            target = self._entries[name]
        except KeyError:
            raise ConfigError(
                f"unknown {self.kind} {name!r}: choose one of {', '.join(self.names())}"
            ) from None
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            target = getattr(importlib.import_module(module), attr)
            self._entries[name] = target
        return target

    def create(self, name: str, *args: Any, **kwargs: Any) -> T:
        return self.resolve(name)(*args, **kwargs)
