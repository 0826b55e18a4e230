"""The consolidator: incremental, resumable, never half-applied; RPC admission at τ."""

import json
import math

import pytest
from conftest import PET_FACTS, ScoringLLM, add_texts, open_memory
from kit import FakeLLM

from logicmem.errors import ModelError, StoreError
from logicmem.routes.rulemem.repo import RuleMemRepository
from logicmem.types import Scope

MAYA = Scope("maya")


def facts_reply(n: int) -> str:
    """A valid extraction reply with one fact per memory label m1..mn."""
    items = [
        {"memory": f"m{i}", "subject": "Maya", "relation": "likes", "object": f"thing {i}"}
        for i in range(1, n + 1)
    ]
    return json.dumps({"facts": items})


def test_offline_pipeline_stores_facts_and_unvalidated_rules(offline) -> None:  # type: ignore[no-untyped-def]
    add_texts(offline, PET_FACTS)
    stats = offline.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
    assert stats["inducer"] == "template" and stats["llm_calls"] == 0
    assert stats["batches"] == 1 and stats["memories"] == 4 and stats["facts_rules"] >= 4
    rules, vectors = RuleMemRepository.of(offline.store).rules(MAYA)
    assert rules and vectors.shape[0] == len(rules)
    assert stats["unvalidated"] == len(rules) and {r.status for r in rules} == {"unvalidated"}
    assert offline.stats()["events"]["rulemem_rules_unvalidated"] == 1
    memory_ids = {m.id for m in offline.get_all(user_id="maya")}
    for rule in rules:
        assert rule.body and rule.head and rule.inducer == "template"
        assert 2 <= len(rule.source_memories) <= 3 and set(rule.source_memories) <= memory_ids
    quads, qv = RuleMemRepository.of(offline.store).quads(MAYA)
    assert len(quads) == stats["facts"] and qv.shape[0] == len(quads)
    # nothing new: a second run does no work
    again = offline.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
    assert "batches" not in again and len(
        RuleMemRepository.of(offline.store).rules(MAYA)[0]
    ) == len(rules)


def test_incremental_batches_and_watermark(offline) -> None:  # type: ignore[no-untyped-def]
    add_texts(offline, PET_FACTS[:3])
    first = offline.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
    mark = RuleMemRepository.of(offline.store).watermark(MAYA)
    assert first["memories"] == 3 and mark > 0
    add_texts(offline, PET_FACTS[3:], start=4)
    second = offline.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
    assert second["memories"] == 1 and RuleMemRepository.of(offline.store).watermark(MAYA) > mark
    # facts of the earlier batch stay; the new one adds its own
    assert {q.memory_id for q in RuleMemRepository.of(offline.store).quads(MAYA)[0]} == {
        m.id for m in offline.get_all(user_id="maya")
    }


def test_capable_llm_extracts_induces_and_rpc_admits_at_tau(store_url: str) -> None:
    llm = ScoringLLM()
    induce = {
        "rules": [
            {"path": 1, "body": ["X adopts a dog"], "head": "X walks every day"},
            {"path": 1, "body": ["X adopts a dog"], "head": "X buys dog food"},
            {"path": 1, "body": [], "head": "malformed"},
        ]
    }
    llm.queue(facts_reply(4), json.dumps(induce))
    # ℓ per word (4 words): 6 -> 2 -> 0.5: 0.4·σ(4) + 0.6·σ(1.5) = 0.883
    llm.by_head["X walks every day"] = (-24.0, -8.0, -2.0)
    # 6 -> 5 -> 7: 0.4·σ(1) + 0.6·σ(-2) = 0.4·0.731 + 0.6·0.119 = 0.364
    llm.by_head["X buys dog food"] = (-24.0, -20.0, -28.0)
    with open_memory(store_url, llm, evidence_k=1) as mem:
        add_texts(mem, PET_FACTS)
        stats = mem.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
        assert stats["inducer"] == "fake" and stats["llm_calls"] == 2
        assert stats["facts_llm"] == 4 and stats["facts_rules"] == 0 and stats["malformed"] == 1
        assert stats["admitted"] == 1 and stats["rejected"] == 1
        assert mem.stats()["events"]["rulemem_malformed"] == 1
        rules = {r.head: r for r in RuleMemRepository.of(mem.store).rules(MAYA)[0]}
        walks = rules["X walks every day"]
        assert walks.status == "admitted"
        assert walks.score == pytest.approx(0.4 / (1 + math.exp(-4)) + 0.6 / (1 + math.exp(-1.5)))
        assert walks.delta_self == pytest.approx(4.0) and walks.delta_fact == pytest.approx(1.5)
        assert walks.detail["rpc"]["nll_empty"] == pytest.approx(6.0)
        assert rules["X buys dog food"].status == "rejected"
        assert [r.head for r in RuleMemRepository.of(mem.store).rules(MAYA, ["admitted"])[0]] == [
            "X walks every day"
        ]
        # the held-out evidence is in the B⊕E prompt and is none of the rule's sources
        held = walks.detail["evidence"]
        assert len(held) == 1
        sources = {mem.get(m, user_id=MAYA.user_id).text for m in walks.source_memories}
        assert held[0] not in sources
        prompts = [c["loglik"][0] for c in llm.calls if "loglik" in c]
        assert any("\nFacts: " + held[0] in p for p in prompts)


def test_failed_batch_is_recorded_and_retried_next_run(store_url: str) -> None:
    llm = FakeLLM(replies=[ModelError("server down"), ModelError("still down")])
    with open_memory(store_url, llm) as mem:
        add_texts(mem, PET_FACTS[:2])
        stats = mem.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
        assert stats["failures"] == 2 and "batches" not in stats
        assert mem.stats()["events"]["rulemem_batch_failed"] == 2
        assert (
            RuleMemRepository.of(mem.store).watermark(MAYA) == 0
            and RuleMemRepository.of(mem.store).quads(MAYA)[0] == []
        )
        llm.queue(facts_reply(2), '{"rules": []}')
        stats = mem.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
        assert stats["batches"] == 1 and stats["memories"] == 2
        assert len(RuleMemRepository.of(mem.store).quads(MAYA)[0]) == 2


def test_a_batch_is_never_half_applied(offline, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    add_texts(offline, PET_FACTS)
    repo = RuleMemRepository.of(offline.store)
    real = repo.upsert_rule
    calls = {"n": 0}

    def flaky(rule, vector):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise StoreError("disk full")
        return real(rule, vector)

    monkeypatch.setattr(repo, "upsert_rule", flaky)
    monkeypatch.setattr(offline.env.rulemem, "attempts", 1)
    stats = offline.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
    assert stats["failures"] == 1
    # the first rule and the facts were written inside the failed transaction: rolled back
    assert (
        RuleMemRepository.of(offline.store).rules(MAYA)[0] == []
        and RuleMemRepository.of(offline.store).quads(MAYA)[0] == []
    )
    assert RuleMemRepository.of(offline.store).watermark(MAYA) == 0
    monkeypatch.setattr(repo, "upsert_rule", real)
    assert offline.consolidate(user_id="maya", only=["rulemem"])["rulemem"]["batches"] == 1


def test_batches_follow_the_setting_and_rules_merge(store_url: str) -> None:
    with open_memory(store_url, None, batch=2) as mem:
        add_texts(mem, PET_FACTS)
        stats = mem.consolidate(user_id="maya", only=["rulemem"])["rulemem"]
        assert stats["batches"] == 2
        total = stats["rules_induced"]
        stored = RuleMemRepository.of(mem.store).rules(MAYA)[0]
        assert sum(r.support for r in stored) == total  # duplicates merged into support


def test_delete_user_and_memory_remove_facts_and_rules(offline) -> None:  # type: ignore[no-untyped-def]
    add_texts(offline, PET_FACTS)
    add_texts(offline, ["Leo plays jazz piano in a band.", "Leo joined a jazz band."], user="leo")
    offline.consolidate(user_id="maya", only=["rulemem"])
    offline.consolidate(user_id="leo", only=["rulemem"])
    rules = RuleMemRepository.of(offline.store).rules(MAYA)[0]
    used = [m for r in rules for m in r.source_memories]
    victim = min(set(used), key=used.count)
    keep = {r.id for r in rules if victim not in r.source_memories}
    offline.delete(victim, user_id="maya")
    assert {r.id for r in RuleMemRepository.of(offline.store).rules(MAYA)[0]} == keep
    assert all(q.memory_id != victim for q in RuleMemRepository.of(offline.store).quads(MAYA)[0])
    offline.delete_user("maya")
    assert (
        RuleMemRepository.of(offline.store).rules(MAYA)[0] == []
        and RuleMemRepository.of(offline.store).quads(MAYA)[0] == []
    )
    assert RuleMemRepository.of(offline.store).watermark(MAYA) == 0
    assert RuleMemRepository.of(offline.store).quads(Scope("leo"))[
        0
    ]  # another user's facts are untouched
    offline.reset()
    assert RuleMemRepository.of(offline.store).quads(Scope("leo"))[0] == []
