"""Fixtures for RuleMem: a store with the hash embedder and a fake LLM whose
log-likelihoods depend on the RPC frame, so a test sets each rule's score."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kit import FakeLLM, HashEmbedder

from logicmem import Memory


class ScoringLLM(FakeLLM):
    """FakeLLM whose ``loglik`` returns (ℓ|∅, ℓ|B, ℓ|B⊕E) sums per head, by prompt frame."""

    def __init__(self, *replies: Any) -> None:
        super().__init__(replies=list(replies))
        self.by_head: dict[str, tuple[float, float, float]] = {}
        # the body and evidence make any other head less likely: rejected at τ = 0.5
        self.fallback = (-10.0, -20.0, -30.0)

    def loglik(self, prefix: str, continuation: str) -> float:
        self.calls.append({"loglik": (prefix, continuation)})
        empty, body, evidence = self.by_head.get(continuation.strip(), self.fallback)
        if "\nFacts: " in prefix:
            return evidence
        return body if "\nPremises: " in prefix else empty


def open_memory(store: str, llm: FakeLLM | None, **rulemem: Any) -> Memory:
    config: dict[str, Any] = {
        "visibility": {"enabled": False},
        "extract": {"mode": "rules"},
        "rulemem": {"rpc_provider": "none", **rulemem},
    }
    if llm is None:
        config["llm"] = {"provider": "none"}
    return Memory(store, embedder=HashEmbedder(), llm=llm, config=config)


PET_FACTS = [
    "Maya adopted a dog named Rex in March.",
    "Maya walks Rex every morning in Riverside Park.",
    "Maya joined a running club that meets in Riverside Park.",
    "Maya is allergic to peanuts.",
]


def add_texts(mem: Memory, texts: list[str], user: str = "maya", start: int = 1) -> None:
    for i, text in enumerate(texts, start):
        mem.add(
            [{"role": "user", "content": text, "turn_id": f"t{i}"}],
            user_id=user,
            session_id=f"s{i}",
            timestamp=f"2024-05-{i:02d}",
            infer=False,
        )


@pytest.fixture
def scoring_llm() -> ScoringLLM:
    return ScoringLLM()


@pytest.fixture
def offline(store_url: str) -> Iterator[Memory]:
    """No LLM at all: rule-based facts, templated rules, rules left unvalidated."""
    mem = open_memory(store_url, None)
    yield mem
    mem.close()
