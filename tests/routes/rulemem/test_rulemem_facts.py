"""Quadruple extraction: the rule-based reader and the LLM's schema call."""

import json

from kit import FakeLLM

from logicmem.routes.rulemem.facts import extract, rule_quads
from logicmem.types import MemoryEntry


def memory(text: str, mid: str = "m1", subject: str = "Caroline") -> MemoryEntry:
    return MemoryEntry(mid, "caroline", text, said_at="2023-05-08", metadata={"subject": subject})


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(q.subject, q.relation, q.object) for q in rule_quads(memory(text))]


def test_rule_reader_splits_clauses_and_keeps_time_and_ids() -> None:
    m = memory("Caroline attended an LGBTQ support group recently and found the stories inspiring.")
    quads = rule_quads(m)
    assert [(q.subject, q.relation, q.object) for q in quads] == [
        ("Caroline", "attended", "an LGBTQ support group recently"),
        ("Caroline", "found", "the stories inspiring"),
    ]
    assert [q.id for q in quads] == ["m1#0", "m1#1"]
    assert all(
        q.time == "2023-05-08" and q.memory_id == "m1" and q.source == "rules" for q in quads
    )


def test_rule_reader_verb_phrases_subjects_and_hints() -> None:
    assert triples("Caroline is planning to continue her education.") == [
        ("Caroline", "is planning to continue", "her education")
    ]
    assert triples("Caroline went to the beach.") == [("Caroline", "went", "to the beach")]
    # a clause that does not start with the person: the words before the verb
    assert triples("Painting is a fun way for Melanie to relax.") == [
        ("Painting", "is", "a fun way for Melanie to relax")
    ]
    # the write path's date hints are not part of the object
    assert triples("Caroline moved to Paris yesterday (yesterday = 7 May 2023).") == [
        ("Caroline", "moved", "to Paris yesterday")
    ]
    # "X said: ..." memories: X is the owner of what follows
    assert triples("Maya said: The support group was amazing.") == [
        ("The support group", "was", "amazing")
    ]


def test_llm_quads_validated_with_fallback_for_uncovered_memories() -> None:
    mems = [
        memory("Caroline adopted a cat named Luna.", "a"),
        memory("Caroline moved to Berlin.", "b"),
        memory("Caroline is a nurse.", "c"),
    ]
    reply = {
        "facts": [
            {"memory": "m1", "subject": "Caroline", "relation": "adopted", "object": "Luna"},
            {"memory": "m1", "subject": "Luna", "relation": "is a", "object": "cat", "time": None},
            {"memory": "m2", "subject": "", "relation": "moved to", "object": "Berlin"},
            {"memory": "m9", "subject": "X", "relation": "y", "object": "z"},
            "not an object",
        ]
    }
    llm = FakeLLM(replies=[json.dumps(reply)])
    got = extract(llm, mems)
    assert llm.calls[0]["schema"] is not None
    assert '{"memory": "m1", "date": ' in llm.calls[0]["messages"][1]["content"]
    # empty subject, unknown memory label and a non-object item: skipped and counted
    assert got.malformed == 3 and got.by_llm == 2 and got.llm_calls == 1
    by_memory = {}
    for q in got.quads:
        by_memory.setdefault(q.memory_id, []).append(q)
    assert [q.source for q in by_memory["a"]] == ["llm", "llm"]
    assert by_memory["a"][0].time == "2023-05-08"  # the memory's date when the LLM gives none
    # m2's only item was malformed and m3 got none: the rule reader covers both
    assert [q.source for q in by_memory["b"]] == ["rules"]
    assert [(q.relation, q.object) for q in by_memory["c"]] == [("is", "a nurse")]


def test_llm_reply_not_json_or_empty_lists_fall_back_to_rules() -> None:
    mems = [memory("Caroline adopted a cat named Luna.")]
    got = extract(FakeLLM(replies=["Sure! Here are the facts: none"]), mems)
    assert got.malformed == 1 and got.by_rules == 1 and got.by_llm == 0
    # what the 135M model does: valid JSON, nothing in it
    got = extract(FakeLLM(replies=['{"facts": []}']), mems)
    assert got.malformed == 0 and got.by_rules == 1
