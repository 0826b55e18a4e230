"""The public API, mem0-shaped."""

from pathlib import Path

import pytest
from kit import FakeLLM, HashEmbedder

from logicmem import ConfigError, InputError, Memory, NotFoundError, StoreError


def test_crud_history_and_scoping(memory: Memory) -> None:
    memory.add("I have a kitten named Pico.", user_id="maya", agent_id="chef")
    memory.add("I'm training for a 10k race.", user_id="maya", agent_id="coach")
    assert len(memory.get_all(user_id="maya")) == 2
    [chef] = memory.get_all(user_id="maya", agent_id="chef")
    assert "Pico" in chef.text
    updated = memory.update(
        chef.id, "maya has a kitten named Pico who chews plants.", user_id="maya"
    )
    assert updated.text.endswith("chews plants.")
    assert [h["event"] for h in memory.history(chef.id, user_id="maya")] == ["ADD", "UPDATE"]
    hits = memory.search("plants", user_id="maya", agent_id="coach", k=5).hits
    assert all(h.id != chef.id for h in hits)
    memory.delete(chef.id, user_id="maya")
    with pytest.raises(NotFoundError):
        memory.get(chef.id, user_id="maya")
    assert memory.history(chef.id, user_id="maya")[-1]["event"] == "DELETE"


def test_a_short_health_fact_typed_out_in_full_is_stored(memory: Memory) -> None:
    # The rule extractor dropped "I am pregnant." (and kept "I'm pregnant."): the fact
    # that most changes advice was lost without a word.
    for said in ("I am pregnant.", "We are vegan.", "I am 81."):
        assert memory.add(said, user_id="maya").added, said
    texts = sorted(m.text for m in memory.get_all(user_id="maya"))
    assert texts == ["maya and family are vegan.", "maya is 81.", "maya is pregnant."]


def test_a_fact_said_in_a_fragment_is_stored(memory: Memory) -> None:
    for said in ("On warfarin.", "Allergic to penicillin."):
        assert memory.add(said, user_id="maya").added, said
    assert len(memory.get_all(user_id="maya")) == 2


def test_a_yes_to_the_assistants_question_is_stored_as_what_it_says(memory: Memory) -> None:
    # "Yep." after "Are you vegetarian?" was an acknowledgement, and nothing was kept.
    said = [
        {"role": "assistant", "content": "Before I suggest recipes: are you vegetarian?"},
        {"role": "user", "content": "Yep."},
    ]
    assert memory.add(said, user_id="maya").added
    said = [
        {"role": "assistant", "content": "Are you allergic to anything?"},
        {"role": "user", "content": "yes, shellfish"},
    ]
    memory.add(said, user_id="maya")
    texts = sorted(m.text for m in memory.get_all(user_id="maya"))
    assert texts == ["maya is allergic to shellfish.", "maya is vegetarian."]


def test_a_yes_sent_in_its_own_add_is_read_with_the_question_of_the_session(
    memory: Memory,
) -> None:
    # A chat app stores each message as it comes: the question is in the store already.
    memory.add(
        [{"role": "assistant", "content": "Are you vegetarian?"}], user_id="maya", session_id="c1"
    )
    memory.add([{"role": "user", "content": "Yep."}], user_id="maya", session_id="c1")
    assert [m.text for m in memory.get_all(user_id="maya")] == ["maya is vegetarian."]


def test_delete_user_and_reset(memory: Memory) -> None:
    memory.add("I have a kitten.", user_id="maya")
    memory.add("I keep bees.", user_id="zed")
    assert memory.delete_user("maya") == 1
    assert memory.admin_users() == ["zed"]
    memory.reset()
    assert memory.admin_users() == [] and memory.stats()["turns"] == 0


def test_answer_sends_context_and_request_to_the_llm(tmp_path: Path) -> None:
    llm = FakeLLM().queue("Skip the lilies: they are toxic to cats.")
    config = {"extract": {"mode": "rules"}, "visibility": {"use_llm": "never"}}
    mem = Memory(tmp_path / "a.db", embedder=HashEmbedder(), llm=llm, config=config)
    mem.add("We adopted a kitten named Pico.", user_id="maya")
    answer = mem.answer("Which flowers for the table?", user_id="maya", k=5)
    assert answer.text.startswith("Skip the lilies") and answer.model == "fake"
    system, user = llm.calls[0]["messages"]
    assert "kitten named Pico" in system["content"]
    assert user["content"] == "Which flowers for the table?"
    assert answer.context.items[0].text in system["content"]


def test_answer_without_llm_says_how_to_configure_one(memory: Memory) -> None:
    memory.add("I have a kitten.", user_id="maya")
    with pytest.raises(ConfigError, match="LOGICMEM_LLM"):
        memory.answer("flowers?", user_id="maya")


def test_reopening_with_another_embedder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    with Memory(path, embedder=HashEmbedder(dims=16), config={"llm": {"provider": "none"}}) as m:
        m.add("I have a kitten.", user_id="maya")
    with pytest.raises(StoreError, match="same embedder"):
        Memory(path, embedder=HashEmbedder(dims=32), config={"llm": {"provider": "none"}})


def test_import_loads_no_models() -> None:
    import subprocess
    import sys

    code = "import logicmem, sys; print('torch' in sys.modules, 'openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_consolidate_runs_registered_builders_and_refuses_unknown(memory: Memory) -> None:
    from logicmem.errors import InputError
    from logicmem.routes.base import CONSOLIDATORS, Consolidator

    seen: list[str] = []

    class Counting(Consolidator):
        name = "counting"

        def consolidate(self, env, scope):  # type: ignore[no-untyped-def]
            seen.append(scope.user_id)
            return {"memories": len(env.store.list_memories(scope))}

    memory.add("I have a kitten.", user_id="maya")
    CONSOLIDATORS.register("counting", Counting)
    try:
        done = memory.consolidate(user_id="maya", only=["counting"])
        assert seen == ["maya"] and done["counting"]["memories"] == 1
        assert done["counting"]["seconds"] >= 0
        with pytest.raises(InputError, match="unknown consolidator 'nope'"):
            memory.consolidate(user_id="maya", only=["nope"])
    finally:
        CONSOLIDATORS.unregister("counting")


def test_get_all_refuses_a_limit_no_backend_can_hold(memory) -> None:
    """A huge limit was a StoreError ("datatype mismatch") from SQLite; it is bad input."""
    memory.add("I like hiking in the hills.", user_id="u", infer=False)
    with pytest.raises(InputError, match="limit"):
        memory.get_all(user_id="u", limit=10**30)
    assert len(memory.get_all(user_id="u", limit=2**62)) == 1


def test_metadata_given_with_an_add_is_on_its_memories_and_filters_find_them(memory) -> None:
    """It stayed on the turns only, so a metadata filter never matched anything."""
    memory.add("I am learning to play the cello.", user_id="u", metadata={"source": "chat"})
    memory.add(
        [{"role": "user", "content": "My cello teacher is called Ines.", "metadata": {"n": 2}}],
        user_id="u",
        metadata={"source": "email"},
    )
    chat = memory.search("cello", user_id="u", filters={"source": "chat"}).hits
    assert [h.text for h in chat] and all("learning" in h.text for h in chat)
    [entry] = [m for m in memory.get_all(user_id="u") if "Ines" in m.text]
    assert entry.metadata["source"] == "email" and entry.metadata["n"] == 2
    assert entry.metadata["subject"] == "u"  # the caller's keys never replace the subject


def test_caller_metadata_cannot_set_the_write_paths_own_keys(memory) -> None:
    memory.add(
        "I live in Porto.", user_id="u", metadata={"slots": ["bogus"], "subject": "x", "k": 1}
    )
    [entry] = memory.get_all(user_id="u")
    assert entry.metadata["k"] == 1 and entry.metadata["subject"] == "u"
    assert entry.metadata.get("slots") != ["bogus"]


def test_an_answer_written_apart_keeps_the_question_it_answers(memory: Memory) -> None:
    """A client that writes each message as it comes: the assistant's question is stored
    by one add, the answer by the next, and the answer still keeps its question. What the
    earlier turns said is not written again."""
    said = lambda text: [{"role": "user", "name": "Maya", "content": text}]  # noqa: E731
    memory.add(
        [
            *said("I'm hosting my book club on Friday."),
            {"role": "assistant", "content": "Lovely! What are you reading this month?"},
        ],
        user_id="maya",
        session_id="s1",
    )
    memory.add(said("A biography of Ada Lovelace, my pick."), user_id="maya", session_id="s1")
    memory.add(said("A biography of Ada Lovelace, my pick."), user_id="maya", session_id="s2")
    assert sorted(m.text for m in memory.get_all(user_id="maya")) == [
        "A biography of Ada Lovelace, Maya's pick.",  # another session: no question
        "A biography of Ada Lovelace, Maya's pick. (in reply to \"What are you reading this "
        'month?")',
        "Maya is hosting Maya's book club on Friday.",
    ]


def test_the_question_an_answer_keeps_closes_no_fact(memory: Memory) -> None:
    """Only the user's own words change or end a fact: a question asked of them names
    an employer, a home, a habit or a dose without stating that it changed."""
    said = lambda text: {"role": "user", "name": "Maya", "content": text}  # noqa: E731
    asked = lambda text: {"role": "other", "name": "Ben", "content": text}  # noqa: E731
    facts = [
        "I live in Denver.",
        "I work at Stripe.",
        "I smoke every day.",
        "I take 20 mg of lisinopril.",
    ]
    memory.add([said(f) for f in facts], user_id="maya", session_id="s1", timestamp="2024-01-01")
    result = memory.add(
        [
            asked("Did you ever live in Paris?"),
            said("Yes, for two years after college."),
            asked("Are you still working at Google?"),
            said("Ha, no, that was ages ago."),
            asked("Have you quit smoking yet?"),
            said("Sadly no, I never managed to cut back."),
            asked("Did the doctor put you on 40 mg of lisinopril?"),
            said("No, my doctor kept me on the same dose."),
        ],
        user_id="maya",
        session_id="s2",
        timestamp="2024-02-01",
    )
    assert result.superseded == [] and len(result.added) == 4
    stored = memory.get_all(user_id="maya", include_superseded=True)
    assert len(stored) == 8 and {m.status for m in stored} == {"active"}
