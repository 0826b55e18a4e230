"""Helpers for the RootMem tests: a store with a fake LLM, memories stored verbatim, no
visibility hook (it would ask the capable fake LLM too and eat the queued replies)."""

from __future__ import annotations

import json
from typing import Any

from kit import FakeLLM, HashEmbedder

from logicmem import Memory
from logicmem.types import MemoryEntry

FACTS = [
    "Maya works in a studio downtown.",
    "Maya's cat Miso stays with her at the studio.",
    "Maya likes jazz records.",
    "Maya is allergic to peanuts.",
    "Maya hosts a dinner for friends every month.",
    "Maya runs along the river on Sundays.",
]


def ops(*operations: dict[str, Any]) -> str:
    return json.dumps({"operations": list(operations)})


def make_memory(store: str, llm: FakeLLM | None, **rootmem: Any) -> Memory:
    config: dict[str, Any] = {
        "visibility": {"enabled": False},
        "rootmem": {"batch": 3, "prefilter_min": -1.0, **rootmem},
    }
    if llm is None:
        config["llm"] = {"provider": "none"}
    return Memory(
        store, embedder=HashEmbedder(), llm=llm, config=config, routes=("semantic", "rootmem")
    )


def add(mem: Memory, texts: list[str], user: str = "maya") -> list[MemoryEntry]:
    for text in texts:
        mem.add(text, user_id=user, infer=False)
    by_text = {m.text: m for m in mem.get_all(user_id=user)}
    return [by_text[t] for t in texts]
