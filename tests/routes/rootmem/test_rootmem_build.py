"""Φ_C with the fake LLM: operations, versions, merging, the budget K, failures."""

from __future__ import annotations

import json

import pytest
from kit import FakeLLM, HashEmbedder
from rootmem_kit import FACTS, add, make_memory, ops

from logicmem import Memory
from logicmem.errors import ModelError, StoreError
from logicmem.routes.rootmem.build import EXAMPLE
from logicmem.routes.rootmem.repo import RootMemRepository
from logicmem.types import Scope

MAYA = Scope("maya")


def build(mem: Memory) -> dict:  # type: ignore[type-arg]
    return mem.consolidate(user_id="maya", only=["rootmem"])["rootmem"]


def test_create_then_enrich_and_refine_make_new_versions(mem: Memory, llm: FakeLLM) -> None:
    first = add(mem, FACTS[:3])
    create = {"op": "create", "when": "the studio", "then": "mind the cat"}
    llm.queue(ops({**create, "evidence": ["M1", "M2"]}))
    stats = build(mem)
    assert stats["created"] == 1 and stats["batches"] == 1 and stats["units"] == 1
    (unit,) = RootMemRepository.of(mem.store).units(MAYA)
    assert [e.memory_id for e in unit.evidence] == [first[0].id, first[1].id]
    assert unit.evidence[1].fact == FACTS[1] and unit.version == 1

    # Only the new memories go to the LLM: the first three are behind the watermark.
    more = add(mem, FACTS[3:5])
    llm.queue(
        ops(
            {"op": "enrich", "unit": "U1", "evidence": ["M2"]},
            {"op": "refine", "unit": "u1", "then": "keep the cat safe while working"},
        )
    )
    stats = build(mem)
    assert stats["memories"] == 2 and stats["enriched"] == 1 and stats["refined"] == 1
    prompt = llm.calls[-1]["messages"][-1]["content"]
    assert FACTS[3] in prompt and FACTS[0] not in prompt.split("New memories:")[1]
    (unit,) = RootMemRepository.of(mem.store).units(MAYA)
    assert unit.version == 2 and unit.guidance == "keep the cat safe while working"
    assert more[1].id in [e.memory_id for e in unit.evidence]
    history = RootMemRepository.of(mem.store).unit_history(unit.unit_id)
    assert [(h.version, h.event) for h in history] == [(1, "create"), (2, "enrich+refine")]
    assert history[0].guidance == "mind the cat"  # the old version is kept


def test_nothing_new_costs_no_call(mem: Memory, llm: FakeLLM) -> None:
    add(mem, FACTS[:2])
    llm.queue(ops())
    build(mem)
    stats = build(mem)
    assert stats["memories"] == 0 and stats["batches"] == 0 and len(llm.calls) == 1


def test_merge_folds_units_and_keeps_the_merged_one_in_history(mem: Memory, llm: FakeLLM) -> None:
    add(mem, FACTS[:3])
    llm.queue(
        ops(
            {"op": "create", "when": "the studio", "then": "mind the cat", "evidence": ["M1"]},
            {"op": "create", "when": "pets", "then": "Miso is at the studio", "evidence": ["M2"]},
        )
    )
    build(mem)
    a, b = RootMemRepository.of(mem.store).units(MAYA)
    add(mem, [FACTS[3]])
    llm.queue(ops({"op": "merge", "units": ["U1", "U2"], "when": "studio or pets"}))
    stats = build(mem)
    assert stats["merged"] == 1
    (kept,) = RootMemRepository.of(mem.store).units(MAYA)
    assert kept.unit_id == a.unit_id and kept.activation == "studio or pets"
    assert {e.memory_id for e in kept.evidence} == {e.memory_id for e in a.evidence + b.evidence}
    gone = RootMemRepository.of(mem.store).unit_history(b.unit_id)[-1]
    assert gone.status == "merged" and gone.detail == {"into": a.unit_id}


def test_overlapping_evidence_merges_without_asking(store_url: str, llm: FakeLLM) -> None:
    mem = make_memory(store_url, llm, merge_overlap=0.5)
    add(mem, FACTS[:3])
    llm.queue(
        ops(
            {"op": "create", "when": "studio", "then": "cat", "evidence": ["M1", "M2"]},
            {"op": "create", "when": "work", "then": "Miso", "evidence": ["M2", "M1", "M3"]},
        )
    )
    stats = build(mem)
    assert stats["created"] == 2 and stats["merged"] == 1
    (unit,) = RootMemRepository.of(mem.store).units(MAYA)
    assert len(unit.evidence) == 3
    mem.close()


def test_budget_k_redirects_creations_to_the_closest_unit(store_url: str, llm: FakeLLM) -> None:
    mem = make_memory(store_url, llm, max_units=2, batch=6)
    facts = add(mem, FACTS)
    llm.queue(
        ops(
            {"op": "create", "when": "studio work", "then": "mind the cat", "evidence": ["M1"]},
            {"op": "create", "when": "food", "then": "no peanuts", "evidence": ["M4"]},
            {"op": "create", "when": "food dinner", "then": "no peanuts", "evidence": ["M5"]},
        )
    )
    stats = build(mem)
    units = RootMemRepository.of(mem.store).units(MAYA)
    assert len(units) == 2 and stats["created"] == 2 and stats["redirected"] == 1
    assert "(0 of at most 2)" in llm.calls[0]["messages"][-1]["content"]
    food = next(u for u in units if u.activation == "food")
    assert [e.memory_id for e in food.evidence] == [facts[3].id, facts[4].id]
    mem.close()


def test_invalid_operations_are_skipped_and_recorded(mem: Memory, llm: FakeLLM) -> None:
    add(mem, FACTS[:3])
    llm.queue(
        ops(
            {"op": "create", "when": "studio", "then": "cat", "evidence": ["M1"]},
            {"op": "enrich", "unit": "U9", "evidence": ["M2"]},
            {"op": "create", "when": "x", "then": "y", "evidence": ["M77"]},
            {"op": "explode"},
            {"op": "merge", "units": ["U1"]},
        )
    )
    stats = build(mem)
    assert stats["created"] == 1 and stats["ops_skipped"] == 4 and stats["failed_batches"] == 0
    assert mem.stats()["events"]["rootmem_ops_skipped"] == 1
    assert len(RootMemRepository.of(mem.store).units(MAYA)) == 1


@pytest.mark.parametrize(
    "bad",
    [
        "I think the user likes the studio.",  # no JSON at all
        '{"operations": "create a unit"}',  # JSON of the wrong shape
        ModelError("server unreachable"),
    ],
)
def test_failed_batch_is_recorded_and_retried_next_run(
    mem: Memory, llm: FakeLLM, bad: object
) -> None:
    facts = add(mem, FACTS[:5])  # batches of 3: [0, 1, 2] then [3, 4]
    llm.queue(bad, bad)  # the first batch fails twice (one retry)
    llm.queue(ops({"op": "create", "when": "food", "then": "no peanuts", "evidence": ["M1"]}))
    stats = build(mem)
    assert stats["failed_batches"] == 1 and stats["batches"] == 2 and stats["llm_calls"] == 3
    assert mem.stats()["events"]["rootmem_batch_failed"] == 1
    marks = RootMemRepository.of(mem.store).marks(MAYA)
    assert marks[facts[0].id] == ("failed", 1) and marks[facts[3].id] == ("done", 0)

    llm.queue(ops({"op": "create", "when": "studio", "then": "cat", "evidence": ["M1", "M2"]}))
    stats = build(mem)
    assert stats["memories"] == 3 and stats["failed_batches"] == 0
    assert len(RootMemRepository.of(mem.store).units(MAYA)) == 2
    assert all(state == "done" for state, _ in RootMemRepository.of(mem.store).marks(MAYA).values())


def test_retry_shows_the_problem_and_can_succeed(mem: Memory, llm: FakeLLM) -> None:
    add(mem, FACTS[:2])
    llm.queue("not json", ops({"op": "create", "when": "a", "then": "b", "evidence": ["M1"]}))
    stats = build(mem)
    assert stats["failed_batches"] == 0 and stats["created"] == 1
    assert "invalid" in llm.calls[1]["messages"][-1]["content"]


def test_a_poison_batch_is_skipped_after_max_failures(store_url: str, llm: FakeLLM) -> None:
    mem = make_memory(store_url, llm, max_failures=2, attempts=1)
    facts = add(mem, FACTS[:2])
    llm.queue("nope")
    assert build(mem)["skipped_memories"] == 0
    llm.queue("nope")
    assert build(mem)["skipped_memories"] == 2
    assert RootMemRepository.of(mem.store).marks(MAYA)[facts[0].id] == ("skipped", 2)
    assert build(mem)["batches"] == 0  # no third call
    mem.close()


def test_a_batch_is_never_half_applied(
    mem: Memory, llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(mem, FACTS[:2])
    llm.queue(ops({"op": "create", "when": "a", "then": "b", "evidence": ["M1"]}))

    def crash(*args: object, **kwargs: object) -> None:
        raise StoreError("disk full")

    monkeypatch.setattr(RootMemRepository.of(mem.store), "mark", crash)
    with pytest.raises(StoreError):
        build(mem)
    monkeypatch.undo()
    assert (
        RootMemRepository.of(mem.store).units(MAYA) == []
        and RootMemRepository.of(mem.store).marks(MAYA) == {}
    )


def test_superseded_memories_leave_the_evidence(mem: Memory, llm: FakeLLM) -> None:
    facts = add(mem, FACTS[:2])
    llm.queue(ops({"op": "create", "when": "a", "then": "b", "evidence": ["M1", "M2"]}))
    build(mem)
    newer = add(mem, ["Maya moved her studio to the harbour."])[0]
    mem.store.supersede(facts[0].id, newer.id, {})
    llm.queue(ops())
    stats = build(mem)
    assert stats["pruned"] == 1 and stats["memories"] == 1
    (unit,) = RootMemRepository.of(mem.store).units(MAYA)
    assert [e.memory_id for e in unit.evidence] == [facts[1].id] and unit.event == "prune"
    mem.store.supersede(facts[1].id, newer.id, {})
    build(mem)
    assert RootMemRepository.of(mem.store).units(MAYA) == []  # no evidence left: retired


def test_without_an_llm_nothing_is_marked(store_url: str) -> None:
    mem = make_memory(store_url, None)
    add(mem, FACTS[:2])
    stats = build(mem)
    assert "no LLM" in stats["note"] and RootMemRepository.of(mem.store).marks(MAYA) == {}
    mem.close()


def test_units_belong_to_their_user_and_leave_with_them(mem: Memory, llm: FakeLLM) -> None:
    add(mem, FACTS[:2])
    add(mem, ["Ana likes tea."], user="ana")
    llm.queue(ops({"op": "create", "when": "a", "then": "b", "evidence": ["M1"]}))
    build(mem)
    assert RootMemRepository.of(mem.store).units(Scope("ana")) == []
    assert RootMemRepository.of(mem.store).units(Scope("maya", agent_id="bot")) == []
    mem.delete_user("maya")
    assert (
        RootMemRepository.of(mem.store).units(MAYA) == []
        and RootMemRepository.of(mem.store).marks(MAYA) == {}
    )
    llm.queue(ops({"op": "create", "when": "tea", "then": "offer tea", "evidence": ["M1"]}))
    mem.consolidate(user_id="ana", only=["rootmem"])
    mem.reset()
    assert RootMemRepository.of(mem.store).units(Scope("ana")) == []


def test_a_copy_of_the_prompt_example_is_not_a_unit(mem: Memory, llm: FakeLLM) -> None:
    add(mem, FACTS[:2])
    example = json.loads(EXAMPLE[1]["content"])["operations"][0]
    renamed = {**example, "when": example["when"].replace("Ana", "Maya")}
    llm.queue(ops(example, renamed))
    stats = build(mem)
    assert stats["created"] == 0 and stats["ops_skipped"] == 2
    assert RootMemRepository.of(mem.store).units(MAYA) == []


def test_settings_reach_the_consolidator_from_env(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGICMEM_ROOTMEM_BATCH", "60")
    mem = Memory(store_url, embedder=HashEmbedder(), config={"llm": {"provider": "none"}})
    assert mem.env.rootmem.batch == 60 and mem.env.rootmem.max_units == 10
    mem.close()
