"""Rendering root memory units, and the small helpers every RootMem module shares."""

from __future__ import annotations

import re
from typing import Any

from logicmem.models.llm.base import LLM
from logicmem.routes.base import RouteEnv
from logicmem.routes.rootmem.repo import RootUnit

MAX_RULE_CHARS = 300
MAX_FACT_CHARS = 200


def clip(text: str, limit: int) -> str:
    """One line, at most ``limit`` characters (a 135M model can emit whole pages)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def rules_text(unit: RootUnit) -> str:
    """R as one sentence: what the router's pre-filter embeds and the LLM reads."""
    return f"When {unit.activation.rstrip('.')}: {unit.guidance.rstrip('.')}."


def block_text(unit: RootUnit, facts: list[str], *, rules: bool, evidence: bool) -> str:
    """The context block [R, E] (or R alone, or E alone, for the App. D ablations)."""
    parts = []
    if rules:
        parts.append(
            f"Root memory: when {unit.activation.rstrip('.')}, {unit.guidance.rstrip('.')}."
        )
    if evidence and facts:
        head = "Evidence" if rules else "Root memory evidence"
        parts.append(f"{head}: " + "; ".join(f.rstrip(".") for f in facts) + ".")
    return " ".join(p.rstrip() for p in parts)


def label_number(value: Any, prefix: str) -> int | None:
    """``"U3"``, ``"u3"``, ``"3"`` or ``3`` -> 3 (models vary in how they echo labels)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    found = re.fullmatch(rf"\s*(?:{prefix})?\s*#?(\d+)\s*", str(value), flags=re.IGNORECASE)
    return int(found.group(1)) if found else None


class UsageMeter:
    """LLM calls and tokens spent between ``start`` and ``stop`` (from ``LLM.usage()``,
    with calls counted here too for backends that report nothing)."""

    def __init__(self, llm: LLM | None) -> None:
        self.llm = llm
        self.before = llm.usage() if llm is not None else {}
        self.calls = 0

    def counts(self) -> dict[str, int]:
        after = self.llm.usage() if self.llm is not None else {}
        out = {"llm_calls": self.calls}
        for key in ("prompt_tokens", "completion_tokens"):
            out[key] = int(after.get(key, 0)) - int(self.before.get(key, 0))
        return out


def record_usage(env: RouteEnv, method: str, counts: dict[str, int]) -> None:
    """Add one query's LLM cost to ``env.cache["llm_usage"][method]``; the bench reads it
    after each store and reports calls and tokens per query in results.json."""
    slot = env.cache.setdefault("llm_usage", {}).setdefault(method, {"queries": 0})
    slot["queries"] += 1
    for key, value in counts.items():
        slot[key] = slot.get(key, 0) + int(value)
