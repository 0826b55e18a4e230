"""RuleMem with the real embedder (MiniLM) and the real embedded LLM (SmolLM2-135M), small."""

from pathlib import Path

import pytest
from conftest import PET_FACTS, add_texts

from logicmem import Memory
from logicmem.errors import ModelError
from logicmem.models.llm import local_gguf
from logicmem.routes.rulemem.repo import RuleMemRepository
from logicmem.types import Scope

pytestmark = pytest.mark.slow


def test_offline_rulemem_scores_rules_with_the_embedded_model(
    store_url: str, model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        local_gguf.gguf_path()
    except ModelError as exc:
        pytest.skip(str(exc))
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    config = {
        "visibility": {"enabled": False},
        "rulemem": {"paths_per_batch": 2, "walks": 1, "evidence_k": 1},
    }
    with Memory(store_url, config=config) as mem:
        add_texts(mem, PET_FACTS)
        stats = mem.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
        # SmolLM2 is not capable: rule-based facts and templated rules, but real RPC scores
        assert stats["inducer"] == "template" and stats["llm_calls"] == 0
        assert stats["loglik_calls"] >= 3 and "failures" not in stats
        rules, _ = RuleMemRepository.of(mem.store).rules(Scope("maya"))
        assert rules and all(r.status in ("admitted", "rejected") for r in rules)
        assert all(r.score is not None and r.delta_self is not None for r in rules)
        hits = mem.search("Where does Maya go running?", user_id="maya", k=5,
                          method="rulemem_norpc").hits  # fmt: skip
        assert len(hits) <= 5 and any(h.id.startswith("rule:") for h in hits)
        rule = next(h for h in hits if h.id.startswith("rule:"))
        assert rule.text.startswith("Rule: ") and " ⇒ " in rule.text and rule.source_turns
