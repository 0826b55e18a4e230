"""``as_of``: every route and method reads the memories valid at the moment asked about.

Maya takes 20 mg of lisinopril from January and 40 mg from June (the later statement
closes the earlier one); asked about March, every route answers from the 20 mg memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kit import HashEmbedder

from logicmem import Memory
from logicmem.config import EmbedderSettings
from logicmem.errors import InputError, ModelError
from logicmem.models.embed import minilm
from logicmem.models.embed.minilm import MiniLMEmbedder
from logicmem.routes.rootmem.repo import RootMemRepository, RootUnit, UnitEvidence
from logicmem.routes.rulemem.repo import HornRule, Quad, RuleMemRepository
from logicmem.routes.visible.repo import ProfileLine, VisibleRepository
from logicmem.types import MemoryEntry, Scope

MAYA = Scope("maya")
JANUARY, MARCH, JUNE = "2023-01-10", "2023-03-01", "2023-06-01"
OLD_DOSE = "I take 20 mg of lisinopril every morning."
NEW_DOSE = "I take 40 mg of lisinopril every morning."
QUERY = "How much lisinopril does Maya take?"


def _open(store: str, routes: tuple[str, ...] = ("semantic",), **config: Any) -> Memory:
    settings = {"llm": {"provider": "none"}, "visibility": {"enabled": False}, **config}
    return Memory(store, embedder=HashEmbedder(), config=settings, routes=routes)


def _doses(mem: Memory) -> tuple[MemoryEntry, MemoryEntry]:
    [old] = mem.add(OLD_DOSE, user_id="maya", timestamp=JANUARY, infer=False).added
    [new] = mem.add(NEW_DOSE, user_id="maya", timestamp=JUNE, infer=False).added
    mem.add("I water the garden on Sundays.", user_id="maya", timestamp=JANUARY, infer=False)
    return old, new


@pytest.fixture
def mem(store_url: str) -> Iterator[Memory]:
    # No LLM: the RootMem router falls back to its pre-filter, open to every unit here.
    m = _open(
        store_url,
        routes=("semantic", "rootmem", "rulemem"),
        rootmem={"prefilter_min": -1.0},
    )
    yield m
    m.close()


def test_the_later_dose_closes_the_earlier_one(mem: Memory) -> None:
    old, new = _doses(mem)
    stored = mem.get(old.id, user_id="maya")
    assert (stored.status, stored.superseded_by, stored.valid_until) == (
        "superseded",
        new.id,
        new.valid_from,
    )


@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid"])
def test_semantic_methods_read_the_moment_asked_about(mem: Memory, method: str) -> None:
    old, new = _doses(mem)
    now = {h.id for h in mem.search(QUERY, user_id="maya", k=5, method=method).hits}
    then = {h.id for h in mem.search(QUERY, user_id="maya", k=5, method=method, as_of=MARCH).hits}
    assert new.id in now and old.id not in now
    assert old.id in then and new.id not in then
    before = mem.search(QUERY, user_id="maya", k=5, method=method, as_of="2022-12-01").hits
    assert before == []  # nothing had been said yet


def test_filters_apply_within_the_moment(mem: Memory) -> None:
    old, _ = _doses(mem)
    hits = mem.search(
        QUERY, user_id="maya", k=5, filters={"said_before": "2023-12-31"}, as_of=MARCH
    ).hits
    assert old.id in {h.id for h in hits}
    assert len(hits) == 2  # the dose and the garden, both valid in March


def test_as_of_is_validated_and_takes_datetimes(mem: Memory) -> None:
    old, _ = _doses(mem)
    with pytest.raises(InputError, match="as_of"):
        mem.search(QUERY, user_id="maya", as_of="last spring")
    with pytest.raises(InputError, match="as_of"):
        mem.context(QUERY, user_id="maya", as_of="sometime")
    hits = mem.search(QUERY, user_id="maya", k=1, as_of=datetime(2023, 3, 1)).hits
    assert [h.id for h in hits] == [old.id]


def test_context_honours_as_of_in_every_route(mem: Memory) -> None:
    old, _ = _doses(mem)
    # A root unit and a rule built while the 20 mg dose held, both citing it.
    RootMemRepository.of(mem.store).add_units(
        [
            RootUnit(
                "u1", "maya", "questions about Maya's medication", "mind the dose",
                [UnitEvidence(old.id, "takes 20 mg of lisinopril")],
            )
        ]
    )  # fmt: skip
    rule = HornRule("r1", "maya", ["X takes lisinopril"], "X has high blood pressure",
                    status="admitted", source_memories=[old.id])  # fmt: skip
    RuleMemRepository.of(mem.store).upsert_rule(rule, mem.embedder.embed_one(rule.head))
    then = mem.context(QUERY, user_id="maya", k=10, as_of=MARCH)
    assert {"rootmem", "rulemem"} <= {i.route for i in then.items}
    assert all("40 mg" not in i.text for i in then.items)
    assert old.id in {i.memory_id for i in then.items}
    now = mem.context(QUERY, user_id="maya", k=10)
    assert old.id not in {i.memory_id for i in now.items}
    # The unit's and the rule's only memory is closed: neither applies now.
    assert {i.route for i in now.items} == {"semantic"}
    before = mem.context(QUERY, user_id="maya", k=10, as_of="2022-12-01")
    assert before.items == []  # neither the unit nor the rule applied yet


def test_rulemem_facts_are_those_valid_then(store_url: str) -> None:
    with _open(store_url) as mem:
        old, new = _doses(mem)
        quads = [Quad("q1", old.id, "maya", "takes", "20 mg of lisinopril", JANUARY),
                 Quad("q2", new.id, "maya", "takes", "40 mg of lisinopril", JUNE)]  # fmt: skip
        RuleMemRepository.of(mem.store).add_quads(
            "maya", quads, mem.embedder.embed([q.text() for q in quads])
        )
        hits = mem.search(QUERY, user_id="maya", k=6, method="rulemem_norules", as_of=MARCH).hits
        facts = [h for h in hits if h.route == "rulemem"]
        assert facts and all("20 mg" in h.reason and "40 mg" not in h.reason for h in facts)
        assert new.id not in {h.id for h in hits}


def test_the_profile_keeps_only_lines_valid_then(store_url: str) -> None:
    with _open(store_url) as mem:
        old, new = _doses(mem)
        lines = [ProfileLine("Takes 20 mg of lisinopril", [old.id], []),
                 ProfileLine("Takes 40 mg of lisinopril", [new.id], []),
                 ProfileLine("Keeps a garden", [], [])]  # fmt: skip
        text = "\n".join(li.text for li in lines)
        VisibleRepository.of(mem.store).set_profile("maya", text, kind="extractive", lines=lines)
        now = mem.search(QUERY, user_id="maya", method="profile_llm").hits
        assert [h.text for h in now] == [li.text for li in lines]  # the profile is of now
        then = mem.search(QUERY, user_id="maya", method="profile_llm", as_of=MARCH).hits
        assert [h.text for h in then] == ["Takes 20 mg of lisinopril"]


def test_env_at_shares_models_and_caches(mem: Memory) -> None:
    past = mem.env.at(MARCH)
    assert past.as_of == MARCH and mem.env.as_of is None
    assert past.cache is mem.env.cache and past.store is mem.store
    assert mem.env.at(None) is mem.env


# -- the visible route, with the real embedder ------------------------------------------------
@pytest.fixture
def visible(store_url: str, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    try:
        minilm.packaged_model_dir()
    except ModelError as exc:
        pytest.skip(str(exc))
    # The criticality prototypes' vectors are cached per machine: keep them across runs.
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    config = {"llm": {"provider": "none"}, "extract": {"mode": "rules"}}
    m = Memory(store_url, embedder=MiniLMEmbedder(EmbedderSettings(threads=1)),
               config=config)  # fmt: skip
    yield m
    m.close()


@pytest.mark.slow
def test_visible_route_reads_the_constraints_valid_then(visible: Memory) -> None:
    [allergy] = visible.add("I'm allergic to penicillin.", user_id="maya", timestamp=JANUARY).added
    for text in ("I went to a jazz concert last Friday.", "I bought new running shoes.",
                 "My book club is reading a mystery novel."):  # fmt: skip
        visible.add(text, user_id="maya", timestamp="2023-02-01")
    [ended] = visible.add(
        "I'm not allergic to penicillin anymore.", user_id="maya", timestamp=JUNE
    ).added
    query = "My doctor wants to prescribe an antibiotic for my sinus infection, any advice?"

    def shown(as_of: str | None) -> dict[str, str]:
        ctx = visible.context(query, user_id="maya", k=4, as_of=as_of)
        return {i.memory_id: i.route for i in ctx.items}

    # Now, then, and now again: the per-moment state cache never serves the wrong view. The
    # allergy is in view in March; now it is closed, and its retraction is no standing
    # constraint of its own (an allergy said not to hold).
    for as_of in (None, MARCH, None, MARCH):
        view = shown(as_of)
        if as_of is None:
            assert allergy.id not in view and view.get(ended.id) != "visible", view
        else:
            assert view.get(allergy.id) == "visible" and ended.id not in view, view
    states = visible.env.cache["visible_state"]
    assert {key[1] for key in states} == {None, MARCH + "T00:00:00"}


def test_route_methods_keep_their_signature() -> None:
    """Methods written before ``as_of`` still run: the moment travels on the env."""
    from logicmem.routes.base import Method, RouteEnv

    class Legacy(Method):
        name = "legacy"

        def search(self, env, query, scope, k, filters):  # type: ignore[no-untyped-def]
            ids, _ = env.store.vectors(scope, as_of=env.as_of)
            return ids

    class Store:
        def vectors(self, scope: Scope, *, as_of: str | None = None) -> tuple[list[str], Any]:
            return [f"at {as_of}"], np.zeros((1, 1))

    env = RouteEnv(store=Store(), embedder=HashEmbedder(), settings=None)  # type: ignore[arg-type]
    assert Legacy().search(env.at("2023-03-01T00:00:00"), "q", MAYA, 1, None) == [
        "at 2023-03-01T00:00:00"
    ]
