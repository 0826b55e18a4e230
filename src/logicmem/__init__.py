"""logicmem: long-term memory that brings the logically relevant memory into context."""

from logicmem.errors import (
    ConfigError,
    InputError,
    LogicmemError,
    ModelError,
    NotFoundError,
    StoreError,
)
from logicmem.memory import Answer, Memory
from logicmem.types import (
    CATEGORIES,
    AddResult,
    Budget,
    Context,
    ContextItem,
    Hit,
    MemoryEntry,
    SearchResult,
    Turn,
)

__all__ = [
    "CATEGORIES",
    "AddResult",
    "Answer",
    "Budget",
    "ConfigError",
    "Context",
    "ContextItem",
    "Hit",
    "InputError",
    "LogicmemError",
    "Memory",
    "MemoryEntry",
    "ModelError",
    "NotFoundError",
    "SearchResult",
    "StoreError",
    "Turn",
]
__version__ = "0.1.0"
