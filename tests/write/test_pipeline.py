"""The write path with the fake LLM: turns first, validation, retries, fallback, merging."""

import json
from pathlib import Path

from kit import FakeLLM, HashEmbedder

from logicmem import Memory
from logicmem.errors import ModelError
from logicmem.types import Scope


def _memory(tmp_path: Path, llm: FakeLLM | None, mode: str = "auto") -> Memory:
    return Memory(
        tmp_path / "m.db",
        embedder=HashEmbedder(),
        llm=llm,
        config={
            "llm": {"provider": "none"},
            "extract": {"mode": mode, "llm_attempts": 2},
            "visibility": {"use_llm": "never"},  # these tests count extraction calls only
        },
    )


def _reply(*items: dict) -> str:
    return json.dumps({"memories": list(items)})


MSGS = [
    {"role": "user", "content": "I'm allergic to tree nuts.", "turn_id": "t1"},
    {"role": "assistant", "content": "Noted.", "turn_id": "t2"},
]


def test_llm_memories_are_validated_and_keep_provenance(tmp_path: Path) -> None:
    llm = FakeLLM().queue(
        _reply(
            {
                "text": "Maya is allergic to tree nuts.",
                "subject": "Maya",
                "category": "STATES",
                "source_turns": ["t1"],
            }
        )
    )
    mem = _memory(tmp_path, llm)
    result = mem.add(MSGS, user_id="maya", session_id="s1")
    assert result.extractor == "llm" and result.failures == 0
    [entry] = result.added
    assert entry.text == "Maya is allergic to tree nuts."
    assert entry.category == "states" and entry.source_turns == ["t1"]
    assert llm.calls[0]["schema"]["required"] == ["memories"]
    assert '{"turn": "t1", ' in llm.calls[0]["messages"][1]["content"]


def test_malformed_reply_is_retried_with_the_error_shown(tmp_path: Path) -> None:
    good = _reply({"text": "Maya is allergic to tree nuts.", "category": "states",
                   "source_turns": ["t1"]})  # fmt: skip
    llm = FakeLLM().queue("Sure! Here are the memories: {not json", good)
    mem = _memory(tmp_path, llm)
    result = mem.add(MSGS, user_id="maya", session_id="s1")
    assert [m.text for m in result.added] == ["Maya is allergic to tree nuts."]
    assert "invalid" in llm.calls[1]["messages"][-1]["content"]
    assert result.failures == 0


def test_unknown_turn_ids_count_as_invalid(tmp_path: Path) -> None:
    bad = _reply({"text": "Maya is allergic.", "category": "states", "source_turns": ["x9"]})
    llm = FakeLLM().queue(bad, bad)
    mem = _memory(tmp_path, llm)
    result = mem.add(MSGS, user_id="maya", session_id="s1")
    assert result.failures == 1 and result.extractor == "llm+rules-fallback"
    assert [m.source_turns for m in result.added] == [["t1"]]  # the rule extractor's


def test_unreachable_llm_never_loses_the_turns_and_is_counted(tmp_path: Path) -> None:
    llm = FakeLLM().queue(ModelError("server down"), ModelError("server down"))
    mem = _memory(tmp_path, llm)
    result = mem.add(MSGS, user_id="maya", session_id="s1")
    assert [t.text for t in mem.store.get_turns(Scope("maya"))] == [
        "I'm allergic to tree nuts.",
        "Noted.",
    ]
    assert result.failures == 1
    assert mem.stats()["events"] == {"extraction_failure": 1}
    assert [m.text for m in mem.get_all(user_id="maya")] == ["maya is allergic to tree nuts."]


def test_empty_llm_answer_for_real_content_is_not_silent(tmp_path: Path) -> None:
    mem = _memory(tmp_path, FakeLLM().queue(_reply()))
    result = mem.add(MSGS, user_id="maya", session_id="s1")
    assert result.failures == 1 and len(result.added) == 1
    assert mem.stats()["events"] == {"extraction_empty": 1}


def test_turns_are_committed_before_the_llm_is_called(tmp_path: Path) -> None:
    seen: list[int] = []
    mem = _memory(tmp_path, None)

    class Spy(FakeLLM):
        def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
            # A second connection sees the turns: they were committed before this call.
            import sqlite3

            other = sqlite3.connect(mem.settings.store)
            seen.append(other.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
            other.close()
            return _reply()

    mem._llm, mem._llm_built = Spy(), True
    mem.add(MSGS, user_id="maya", session_id="s1")
    assert seen == [2]


def test_rules_mode_never_calls_the_llm(tmp_path: Path) -> None:
    llm = FakeLLM()
    mem = _memory(tmp_path, llm, mode="rules")
    mem.add("I'm allergic to tree nuts.", user_id="maya")
    assert llm.calls == []


def test_near_duplicates_merge_their_provenance(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    mem.add([{"content": "I have a cat named Pico.", "turn_id": "a"}], user_id="m", session_id="s")
    result = mem.add(
        [{"content": "I have a cat named Pico.", "turn_id": "b"}], user_id="m", session_id="s2"
    )
    assert result.added == [] and len(result.merged) == 1
    [entry] = mem.get_all(user_id="m")
    assert entry.source_turns == ["a", "b"]
    assert [h["event"] for h in mem.history(entry.id, user_id="m")] == ["ADD", "MERGE"]


def test_a_newer_statement_supersedes_the_old_one(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    mem.add("I live in Boston.", user_id="m", timestamp="2024-01-01")
    result = mem.add("I moved to Denver.", user_id="m", timestamp="2024-06-01")
    assert len(result.superseded) == 1
    active = [e.text for e in mem.get_all(user_id="m")]
    assert active == ["m moved to Denver."]
    old = mem.get(result.superseded[0], user_id="m")
    assert old.status == "superseded" and old.superseded_by == result.added[0].id
    assert mem.history(old.id, user_id="m")[-1]["event"] == "SUPERSEDE"
    hits = mem.search("Where does m live?", user_id="m", k=5).hits
    assert all("Boston" not in h.text for h in hits)


def test_a_family_members_slot_is_not_replaced_by_the_speakers_own(tmp_path: Path) -> None:
    # The speaker going vegan changes no one else's diet; a brother's move is not the
    # speaker's; "we live in" is the speaker's home, which the speaker's move replaces.
    mem = _memory(tmp_path, None)
    mem.add("My wife Lina is vegetarian.", user_id="m", timestamp="2024-01-01")
    mem.add("My brother lives in Paris.", user_id="m", timestamp="2024-01-02")
    mem.add("We live in Boston.", user_id="m", timestamp="2024-01-03")
    assert mem.add("I went vegan last month.", user_id="m", timestamp="2024-03-01").superseded == []
    moved = mem.add("I moved to Denver.", user_id="m", timestamp="2024-06-01")
    active = {e.text for e in mem.get_all(user_id="m")}
    assert "m's wife Lina is vegetarian." in active
    assert "m's brother lives in Paris." in active
    assert "m and family live in Boston." not in active and len(moved.superseded) == 1
    # The brother moving replaces his home and leaves the speaker's.
    mem.add("My brother moved to Rome.", user_id="m", timestamp="2024-07-01")
    active = {e.text for e in mem.get_all(user_id="m")}
    assert "m's brother lives in Paris." not in active and "m moved to Denver." in active


def test_a_shift_a_freelance_job_and_gym_days_said_anew_replace_the_old(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    for text in (
        "My husband works nights at the hospital.",
        "I freelance as a graphic designer.",
        "I go to the gym on Mondays and Wednesdays.",
    ):
        mem.add(text, user_id="m", timestamp="2024-01-01")
    for text in (
        "My husband switched to day shifts.",
        "I took a full-time job as an art director at a studio.",
        "I go to the gym on Tuesdays and Thursdays now.",
    ):
        assert len(mem.add(text, user_id="m", timestamp="2024-06-01").superseded) == 1, text
    # Where the husband works stays told when his shift changes.
    assert {e.text for e in mem.get_all(user_id="m")} == {
        "m's husband switched to day shifts.",
        "M's husband works at the hospital.",
        "m took a full-time job as an art director at a studio.",
        "m goes to the gym on Tuesdays and Thursdays now.",
    }


def test_a_late_arriving_older_statement_does_not_supersede(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    mem.add("I moved to Denver.", user_id="m", timestamp="2024-06-01")
    result = mem.add("I live in Boston.", user_id="m", timestamp="2024-01-01")
    assert result.superseded == []


def test_infer_false_stores_text_verbatim(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    result = mem.add("Ana: prefers aisle seats", user_id="m", infer=False)
    assert [m.text for m in result.added] == ["Ana: prefers aisle seats"]
    assert result.extractor == "verbatim"


def test_the_turn_before_a_write_is_the_llms_context_and_not_written_again(
    tmp_path: Path,
) -> None:
    """An answer written by its own add: the question said just before it (stored by the
    add before) goes to the LLM with it, and what the LLM draws from that turn alone is
    not written a second time."""
    memory = lambda text, *turns: {  # noqa: E731
        "text": text,
        "subject": "Maya",
        "category": "STATES",
        "source_turns": list(turns),
    }
    llm = FakeLLM().queue(
        _reply(memory("Maya is allergic to tree nuts.", "t1")),
        _reply(
            memory("Maya was asked whether she bakes.", "t2"),
            memory("Maya bakes with oat flour.", "t2", "t3"),
        ),
    )
    mem = _memory(tmp_path, llm)
    mem.add(
        [MSGS[0], {"role": "assistant", "content": "Noted. Do you bake?", "turn_id": "t2"}],
        user_id="maya",
        session_id="s1",
    )
    result = mem.add(
        [{"role": "user", "content": "Yes, with oat flour.", "turn_id": "t3"}],
        user_id="maya",
        session_id="s1",
    )
    assert [e.text for e in result.added] == ["Maya bakes with oat flour."]
    assert result.added[0].source_turns == ["t2", "t3"]
    assert "Do you bake?" in llm.calls[1]["messages"][1]["content"]


def test_a_statement_that_ends_two_things_ends_both(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    mem.add("I play tennis on Sundays.", user_id="m", timestamp="2024-01-01")
    mem.add("I volunteer at the food bank.", user_id="m", timestamp="2024-01-02")
    mem.add("I play tennis on Sundays and volunteer at the food bank.", user_id="n")
    said = "I quit tennis and stopped volunteering at the food bank."
    assert len(mem.add(said, user_id="m", timestamp="2024-03-01").superseded) == 2
    assert {e.text for e in mem.get_all(user_id="m")} == {f"m{said[1:]}"}
    # one memory that holds both ends once, and nothing of it is kept
    assert len(mem.add(said, user_id="n", timestamp="2024-03-01").superseded) == 1
    assert {e.text for e in mem.get_all(user_id="n")} == {f"n{said[1:]}"}


def test_his_or_her_ends_a_fact_only_when_it_can_stand_for_one_person(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    # "his" may be the son's or the husband's: nothing ends. (The son's two clauses were
    # read alone, without the husband's fact, and his Zyrtec ended.)
    mem.add("My son Leo takes Zyrtec, and he plays soccer.", user_id="m", timestamp="2024-01-01")
    mem.add("My husband takes Zyrtec every day.", user_id="m", timestamp="2024-01-02")
    stopped = mem.add("Stopped his Zyrtec last week.", user_id="m", timestamp="2024-03-01")
    assert stopped.superseded == []
    # One it can stand for: the injury ends with its cast, and who the son is stays known.
    mem.add("My son Tom broke his leg skiing, he's in a cast.", user_id="n", timestamp="2024-01-05")
    healed = mem.add("His leg is all healed now!", user_id="n", timestamp="2024-03-05")
    assert len(healed.superseded) == 1
    held = {e.text for e in mem.get_all(user_id="n")}
    assert not any("cast" in text or "broke" in text for text in held), held
    assert "n's son is named Tom." in held


def test_a_new_department_keeps_the_employer_and_a_new_employer_the_department_not(
    tmp_path: Path,
) -> None:
    mem = _memory(tmp_path, None)
    mem.add("I live in Denver. I work in the marketing department at Acme.", user_id="m")
    moved = mem.add("I got moved to Sales last week.", user_id="m", timestamp="2024-03-01")
    assert len(moved.superseded) == 1
    held = {e.text for e in mem.get_all(user_id="m")}
    assert "M works at Acme." in held  # the employer, told on its own (a sentence's capital)
    assert "m lives in Denver." in held  # a department is no town
    assert "m works in the marketing department at Acme." not in held
    mem.add("I work in the IT department at Globex.", user_id="n", timestamp="2024-01-01")
    mem.add("I started a new job at Initech.", user_id="n", timestamp="2024-03-01")
    held = {e.text for e in mem.get_all(user_id="n")}
    # the old department was the old employer's: it is not told as current
    assert not any("IT department" in text for text in held), held


def test_a_new_workplace_said_by_its_kind_replaces_the_named_one(tmp_path: Path) -> None:
    mem = _memory(tmp_path, None)
    mem.add("I work at Fieldstone.", user_id="m", timestamp="2024-01-01")
    # Exercise somewhere, and a day's desk, leave the job as it was.
    assert (
        mem.add("I work out at Gold's Gym.", user_id="m", timestamp="2024-02-01").superseded == []
    )
    assert (
        mem.add("I'm working at the library today.", user_id="m", timestamp="2024-03-01").superseded
        == []
    )
    assert "m works at Fieldstone." in {e.text for e in mem.get_all(user_id="m")}
    moved = mem.add("I'm working at the library now.", user_id="m", timestamp="2024-06-01")
    assert len(moved.superseded) == 1
    assert "m works at Fieldstone." not in {e.text for e in mem.get_all(user_id="m")}
