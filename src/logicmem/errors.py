"""The few error types logicmem raises. Each message says what failed and what to do."""

from __future__ import annotations


class LogicmemError(Exception):
    """Base class. The CLI turns any of these into a message and exit code 2."""


class InputError(LogicmemError, ValueError):
    """The caller passed something logicmem cannot use (empty message, bad file, bad filter)."""


class NotFoundError(LogicmemError, KeyError):
    """A memory or user that does not exist."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the plain message
        return str(self.args[0]) if self.args else "not found"


class StoreError(LogicmemError):
    """The store cannot be opened or written (locked, corrupt, wrong embedder)."""


class ModelError(LogicmemError):
    """A model could not be loaded or reached (missing package, unreachable server)."""


class ConfigError(LogicmemError):
    """The configuration is invalid or incomplete."""
