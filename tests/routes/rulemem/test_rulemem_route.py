"""Query time: rule activation, guided recall, provenance, ablations and the answer prompt."""

from conftest import PET_FACTS, ScoringLLM, add_texts, open_memory
from pg import Backend

from logicmem import Memory
from logicmem.routes.rulemem.prompt import PREMISE_INSTRUCTION, premise_instruction
from logicmem.routes.rulemem.repo import HornRule, RuleMemRepository
from logicmem.types import Scope

MAYA = Scope("maya")


def seeded(store: str, **rulemem) -> Memory:  # type: ignore[no-untyped-def]
    """Maya's memories and two hand-made rules: one admitted, one rejected."""
    mem = open_memory(store, None, **rulemem)
    add_texts(mem, PET_FACTS)
    ids = {m.text: m.id for m in mem.get_all(user_id="maya")}
    admitted = HornRule(
        "r1", "maya", ["X adopted a dog", "X walks the dog in a park"], "X exercises outdoors",
        status="admitted", score=0.7, source_memories=[ids[PET_FACTS[0]], ids[PET_FACTS[1]]],
    )  # fmt: skip
    rejected = HornRule(
        "r2", "maya", ["X is allergic to peanuts"], "X avoids peanut butter",
        status="rejected", score=0.1, source_memories=[ids[PET_FACTS[3]]],
    )  # fmt: skip
    for rule in (admitted, rejected):
        RuleMemRepository.of(mem.store).upsert_rule(rule, mem.embedder.embed_one(rule.head))
    return mem


def test_rule_item_names_the_rule_and_traces_to_its_memories(store_url: str) -> None:
    with seeded(store_url, top_n=1) as mem:
        hits = mem.search("How does Maya exercise outdoors?", user_id="maya", k=6,
                          method="rulemem").hits  # fmt: skip
        assert len(hits) <= 6
        rule = hits[0]
        assert rule.id == "rule:r1" and rule.route == "rulemem"
        assert (
            rule.text == "Rule: X adopted a dog ∧ X walks the dog in a park ⇒ X exercises outdoors"
        )
        assert "rule r1 (admitted, RPC 0.70" in rule.reason
        assert rule.source_turns == ["t1", "t2"]  # the union of its memories' turns
        evidence = [h for h in hits if h.reason.startswith("evidence for rule r1")]
        assert evidence and all("recalled by its condition 'X " in h.reason for h in evidence)
        assert {h.route for h in hits} <= {"rulemem", "semantic"}
        assert len({h.id for h in hits}) == len(hits)


def test_only_admitted_rules_unless_norpc(store_url: str) -> None:
    query = "Should Maya eat peanut butter?"
    with seeded(store_url, top_n=3) as mem:
        plain = mem.search(query, user_id="maya", k=10, method="rulemem").hits
        assert "rule:r2" not in {h.id for h in plain}
        everything = mem.search(query, user_id="maya", k=10, method="rulemem_norpc").hits
        assert "rule:r2" in {h.id for h in everything}


def test_share_of_k_and_semantic_fill(backend: Backend) -> None:
    with seeded(backend.url(), share=0.0) as mem:
        hits = mem.search("exercise outdoors", user_id="maya", k=3, method="rulemem").hits
        assert len(hits) == 3 and {h.route for h in hits} == {"semantic"}
    with seeded(backend.url("b"), share=1.0, cue_k=1) as mem:
        hits = mem.search("exercise outdoors", user_id="maya", k=2, method="rulemem").hits
        assert [h.route for h in hits] == ["rulemem", "rulemem"]


def test_norules_recalls_by_facts(offline: Memory) -> None:
    add_texts(offline, PET_FACTS)
    offline.consolidate(user_id="maya", only=["rulemem"])
    hits = offline.search("Riverside Park", user_id="maya", k=4, method="rulemem_norules").hits
    assert hits and not any(h.id.startswith("rule:") for h in hits)
    facts = [h for h in hits if h.route == "rulemem"]
    assert facts and facts[0].reason.startswith("fact (")
    assert all(h.source_turns for h in hits)


def test_no_rules_yet_means_semantic_only(offline: Memory) -> None:
    add_texts(offline, PET_FACTS[:1])
    hits = offline.search("dog", user_id="maya", k=3, method="rulemem").hits
    assert [h.route for h in hits] == ["semantic"]


def test_answer_gets_the_premise_instruction_only_with_rules(store_url: str) -> None:
    llm = ScoringLLM("Go for a run in the park.", "Sure.")
    mem = open_memory(store_url, llm)
    mem.close()
    with Memory(store_url, embedder=mem.embedder, llm=llm,
                config={"visibility": {"enabled": False}, "extract": {"mode": "rules"}},
                routes=("semantic", "rulemem")) as live:  # fmt: skip
        add_texts(live, PET_FACTS)
        ids = [m.id for m in live.get_all(user_id="maya")]
        rule = HornRule("r1", "maya", ["X adopted a dog"], "X exercises outdoors",
                        status="admitted", source_memories=ids[:2])  # fmt: skip
        RuleMemRepository.of(live.store).upsert_rule(rule, live.embedder.embed_one(rule.head))
        answer = live.answer("How should Maya exercise outdoors?", user_id="maya", k=6)
        system = llm.calls[-1]["messages"][0]["content"]
        assert "Rule: X adopted a dog ⇒ X exercises outdoors" in system
        assert system.endswith(PREMISE_INSTRUCTION)
        assert any(i.route == "rulemem" for i in answer.context.items)
    assert premise_instruction(["Maya has a dog."]) == ""
