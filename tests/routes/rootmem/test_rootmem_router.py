"""Φ_R and the route with the fake LLM: one batched call, cache, fallbacks, provenance."""

from __future__ import annotations

import json
import re

import pytest
from kit import FakeLLM
from rootmem_kit import FACTS, add, make_memory, ops

from logicmem import Memory
from logicmem.bench.engine import Plan, Probe, Tracer, score
from logicmem.bench.methods import BenchMethod
from logicmem.errors import ModelError
from logicmem.routes.rootmem.repo import RootMemRepository
from logicmem.types import Hit, MemoryEntry, Scope

QUERY = "Can I repaint my studio this weekend?"


def listed(prompt: str) -> int:
    """How many units a router prompt lists."""
    return len(re.findall(r'^\{"unit": "U\d+", ', prompt, flags=re.MULTILINE))


def three_units(mem: Memory, llm: FakeLLM) -> list[MemoryEntry]:
    facts = add(mem, FACTS)
    mem.env.rootmem = mem.env.rootmem.model_copy(update={"batch": 6})
    llm.queue(
        ops(
            {
                "op": "create",
                "when": "the studio",
                "then": "mind the cat",
                "evidence": ["M1", "M2"],
            },
            {"op": "create", "when": "food", "then": "no peanuts", "evidence": ["M4", "M5"]},
            {"op": "create", "when": "exercise", "then": "Sunday runs", "evidence": ["M6"]},
        )
    )
    mem.consolidate(user_id="maya", only=["rootmem"])
    assert len(RootMemRepository.of(mem.store).units(Scope("maya"))) == 3
    return facts


def test_one_batched_router_call_then_cached(mem: Memory, llm: FakeLLM) -> None:
    facts = three_units(mem, llm)
    llm.queue('{"activate": ["U2"]}')
    before = len(llm.calls)
    hits = mem.search(QUERY, user_id="maya", k=4, method="rootmem").hits
    assert len(llm.calls) == before + 1  # one call for all three candidates
    prompt = llm.calls[-1]["messages"][-1]["content"]
    assert listed(prompt) == 3 and QUERY in prompt
    units = [h for h in hits if h.route == "rootmem"]
    assert len(units) == 1 and len(hits) == 4  # the block, then 3 semantic hits: k in all
    (unit,) = units
    assert hits[0] is unit and "activated by router" in unit.reason
    rule = next(json.loads(x)["rule"] for x in prompt.splitlines() if '"U2"' in x)
    assert rule.startswith("When ")
    assert unit.text.startswith("Root memory: when " + rule[5:].split(":")[0])
    assert unit.extras["version"] == 1 and unit.extras["activation"] == "router"
    assert hits[0].extras["llm_usage"]["llm_calls"] == 1

    # The same query again, another k, and the ablations: decisions come from the cache.
    for method in ("rootmem", "rootmem_norules", "rootmem_noevidence"):
        again = mem.search(QUERY, user_id="maya", k=2, method=method).hits
        assert again[0].id == unit.id and "cached decision" in again[0].reason
    assert len(llm.calls) == before + 1
    usage = mem.env.cache["llm_usage"]
    assert usage["rootmem"] == {
        "queries": 2,
        "llm_calls": 1,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "router_cache_hits": 3,
    }
    assert {
        e.memory_id for e in RootMemRepository.of(mem.store).units(Scope("maya"))[0].evidence
    } <= {f.id for f in facts}


def test_provenance_traces_to_every_evidence_turn(mem: Memory, llm: FakeLLM) -> None:
    facts = three_units(mem, llm)
    llm.queue('{"activate": ["U1", "U2", "U3"]}')
    hits = mem.search(QUERY, user_id="maya", k=3, method="rootmem").hits
    assert len(hits) == 3 and all(h.route == "rootmem" for h in hits)  # units fill k
    by_unit = {h.extras["unit_id"]: h for h in hits}
    for unit in RootMemRepository.of(mem.store).units(Scope("maya")):
        ids = [e.memory_id for e in unit.evidence]
        want = [t for f in facts if f.id in ids for t in f.source_turns]
        assert sorted(by_unit[unit.unit_id].source_turns) == sorted(want)

    # The bench counts a unit item as gold when one of its evidence turns is gold.
    food = next(h for h in hits if facts[3].id in h.extras["evidence"])
    plan = Plan("p", "maya", False, [], [], [])
    probe = Probe("q", QUERY, frozenset(facts[4].source_turns))
    items = BenchMethod("rootmem").retrieve(mem, QUERY, "maya", 3)
    hit, _, rank = score(probe, items, Tracer(plan))
    assert hit and items[rank - 1].memory_id == food.id  # type: ignore[operator]


def test_ablations_change_the_block(mem: Memory, llm: FakeLLM) -> None:
    facts = three_units(mem, llm)
    llm.queue('{"activate": ["U1", "U2", "U3"]}')

    def studio(method: str) -> Hit:
        hits = mem.search(QUERY, user_id="maya", k=3, method=method).hits
        return next(h for h in hits if facts[1].id in h.extras.get("evidence", []))

    full, rules, evidence = (
        studio(m) for m in ("rootmem", "rootmem_noevidence", "rootmem_norules")
    )
    assert "mind the cat" in full.text and facts[1].text.rstrip(".") in full.text
    assert "mind the cat" in rules.text and facts[1].text.rstrip(".") not in rules.text
    assert "mind the cat" not in evidence.text and facts[1].text.rstrip(".") in evidence.text
    everything = mem.search(QUERY, user_id="maya", k=5, method="rootmem_norouter").hits
    assert sum(h.route == "rootmem" for h in everything) == 3
    assert all(h.extras["activation"] == "all" for h in everything[:3])


@pytest.mark.parametrize(
    "bad", ['{"activate": "U1"}', "U1 applies.", ModelError("timeout")], ids=str
)
def test_router_failure_falls_back_to_the_prefilter(mem: Memory, llm: FakeLLM, bad: object) -> None:
    three_units(mem, llm)
    llm.queue(bad, bad)
    hits = mem.search(QUERY, user_id="maya", k=5, method="rootmem").hits
    units = [h for h in hits if h.route == "rootmem"]
    assert len(units) == 3 and all("router call failed" in h.reason for h in units)
    assert all(h.extras["activation"] == "prefilter" for h in units)
    assert mem.stats()["events"]["rootmem_router_failed"] == 1
    # A fallback is not cached: the next query asks the LLM again.
    llm.queue('{"activate": []}')
    hits = mem.search(QUERY, user_id="maya", k=5, method="rootmem").hits
    assert not [h for h in hits if h.route == "rootmem"]


def test_out_of_range_labels_are_ignored(mem: Memory, llm: FakeLLM) -> None:
    three_units(mem, llm)
    llm.queue('{"activate": ["U7", 0, "U3", "banana"]}')
    hits = mem.search(QUERY, user_id="maya", k=5, method="rootmem").hits
    assert [h.extras["activation"] for h in hits if h.route == "rootmem"] == ["router"]


def test_prefilter_keeps_top_candidates_above_the_threshold(mem: Memory, llm: FakeLLM) -> None:
    three_units(mem, llm)
    mem.env.rootmem = mem.env.rootmem.model_copy(update={"prefilter_top": 2})
    llm.queue('{"activate": ["U1", "U2"]}')
    mem.search(QUERY, user_id="maya", k=5, method="rootmem")
    assert listed(llm.calls[-1]["messages"][-1]["content"]) == 2
    mem.env.rootmem = mem.env.rootmem.model_copy(update={"prefilter_min": 2.0})
    calls = len(llm.calls)
    hits = mem.search("something else entirely", user_id="maya", k=5, method="rootmem").hits
    assert len(llm.calls) == calls and not [h for h in hits if h.route == "rootmem"]


def test_without_an_llm_the_prefilter_decides(store_url: str, llm: FakeLLM) -> None:
    built = make_memory(store_url, llm)
    three_units(built, llm)
    built.close()
    mem = make_memory(store_url, None)
    hits = mem.search(QUERY, user_id="maya", k=5, method="rootmem").hits
    units = [h for h in hits if h.route == "rootmem"]
    assert len(units) == 3 and all("no LLM configured" in h.reason for h in units)
    mem.close()


def test_route_in_context_keeps_k(mem: Memory, llm: FakeLLM) -> None:
    three_units(mem, llm)
    llm.queue('{"activate": ["U1"]}')
    ctx = mem.context(QUERY, user_id="maya", k=4)
    assert len(ctx.items) == 4 and ctx.items[0].route == "rootmem"
    assert ctx.routes == {"rootmem": 1, "semantic": 3}
    assert "root memory unit" in ctx.items[0].reason and ctx.items[0].source_turns


def test_superseded_evidence_is_not_shown(mem: Memory, llm: FakeLLM) -> None:
    facts = three_units(mem, llm)
    newer = add(mem, ["Maya gave the cat to her sister."])[0]
    mem.store.supersede(facts[1].id, newer.id, {})  # not consolidated yet
    llm.queue('{"activate": ["U1", "U2", "U3"]}')
    hits = mem.search(QUERY, user_id="maya", k=5, method="rootmem").hits
    unit = next(h for h in hits if facts[0].id in h.extras.get("evidence", []))
    assert unit.extras["evidence"] == [facts[0].id]
    assert facts[1].text.rstrip(".") not in unit.text
    assert facts[1].source_turns[0] not in unit.source_turns
