"""Questions for the record told from requests for advice by the learned reading (requests
written for these tests from general knowledge, not benchmark items, and not among the
model's examples)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from logicmem import Memory
from logicmem.config import load_settings
from logicmem.errors import ConfigError
from logicmem.models.embed.base import Embedder
from logicmem.routes.visible.intent import intent_examples, record_intent
from logicmem.routes.visible.route import asks_for_record, open_to_intent, reads_as_record

# Questions for the record that the rules of asks_for_record do not read so.
RECORD = [
    "Who drives me to choir practice on Wednesdays?",
    "Who looks after my cat when I travel?",
    "What are the ages of my nieces?",
]
# Requests for advice about the speaker's own life, asked with a question word.
ADVICE = [
    "What's a nice side dish for my roast chicken?",
    "Which snacks are fine for my son's class party?",
    "What are some fun things to do with my kids this weekend?",
    "What games are good for my daughter's sleepover?",
]


def test_the_examples_are_two_distinct_sets() -> None:
    record, advice = intent_examples()
    assert len(record) >= 300 and len(advice) >= 300
    folded = [t.strip().lower() for t in record + advice]
    assert len(set(folded)) == len(folded)
    assert not set(RECORD + ADVICE) & set(record + advice)


@pytest.mark.parametrize(
    ("query", "open_"),
    [
        ("Who looks after my cat when I travel?", True),
        ("who looks after my cat when i travel", True),  # typed as chat types it
        ("i need a birthday present for my sister", False),  # not a question
        ("who feeds our rabbits when we're away?", True),  # "we", as chat types it
        ("Why is the sky blue?", False),  # not about the speaker
        ("How many cups are in a quart?", False),
        ("Can you get me tickets for the Friday show?", False),  # a modal of advice
        ("Which house should we see first?", False),
        ("I moved last spring. Who is my landlord now?", True),  # the question's sentence
        ("Who is the best plumber in the US?", False),  # the country, not "us"
        ("Book me a table for two at eight.", False),  # not a question
    ],
)
def test_only_questions_about_the_speaker_are_left_to_the_learned_reading(
    query: str, open_: bool
) -> None:
    assert open_to_intent(query) is open_


@pytest.fixture(scope="module")
def minilm_memory(tmp_path_factory: pytest.TempPathFactory, minilm_embedder: Embedder) -> Memory:
    path = tmp_path_factory.mktemp("intent") / "m.db"
    mem = Memory(path, embedder=minilm_embedder, config={"llm": {"provider": "none"}})
    yield mem
    mem.close()


def test_the_learned_reading_takes_record_questions_the_rules_miss(
    minilm_memory: Memory,
) -> None:
    env = minilm_memory.env
    assert env.visibility.record_intent == pytest.approx(0.7)
    for query in RECORD:
        assert not asks_for_record(query) and open_to_intent(query)
        assert reads_as_record(env, query), query
    for query in ADVICE:
        assert not asks_for_record(query) and open_to_intent(query)
        assert not reads_as_record(env, query), query
    p = record_intent(env.store, env.embedder).probability(env.embedder.embed(RECORD + ADVICE))
    assert min(p[: len(RECORD)]) > max(p[len(RECORD) :])


def test_record_intent_one_leaves_the_rules_alone(minilm_memory: Memory) -> None:
    env = minilm_memory.env
    rules = env.visibility.model_copy(update={"record_intent": 1.0})
    env_rules = replace(env, visibility=rules)
    for query in RECORD + ADVICE + ["When did I start physio?"]:
        assert reads_as_record(env_rules, query) is asks_for_record(query)


def test_record_intent_out_of_range_is_refused() -> None:
    with pytest.raises(ConfigError, match="record_intent"):
        load_settings(env={"LOGICMEM_VISIBILITY_RECORD_INTENT": "1.5"})


ORDINARY = [
    "I repotted the fern on the windowsill.",
    "We watched a documentary about glaciers.",
    "I finally fixed the squeaky kitchen door.",
    "My cousin visited from Porto for the weekend.",
    "I started a jigsaw puzzle of a lighthouse.",
]


@pytest.mark.parametrize("threshold", [0.7, 1.0])
def test_a_question_for_the_record_the_rules_miss_gives_no_slot_to_a_lookalike(
    tmp_path: Path, minilm_embedder: Embedder, threshold: float
) -> None:
    # "Who reminds me ...?" asks who did something: the evidence is the semantic route's
    # to find. Read as a request for advice (the rules alone), the allergy it resembles
    # took a reserved slot; read for the record, only a key it names could give one.
    query = "Who reminds me about my peanut allergy at parties?"
    assert not asks_for_record(query)
    config = {
        "llm": {"provider": "none"},
        "visibility": {"record_intent": threshold, "critical_min": 1.0},
    }
    with Memory(tmp_path / "m.db", embedder=minilm_embedder, config=config) as mem:
        texts = ["I'm allergic to peanuts since childhood.", *ORDINARY]
        mem.add([{"content": t, "turn_id": f"t{i}"} for i, t in enumerate(texts)],
                user_id="maya", session_id="s")  # fmt: skip
        items = mem.context(query, user_id="maya", k=3).items
    assert any(i.route == "visible" for i in items) is (threshold == 1.0)
