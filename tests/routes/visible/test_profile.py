"""The always-visible profile (``profile`` consolidator, ``profile_llm`` method), on facts
written for these tests (not benchmark items)."""

from typing import Any, ClassVar

import pytest
from kit import FakeLLM, HashEmbedder
from pg import Backend

from logicmem import Memory
from logicmem.bench.methods import resolve
from logicmem.errors import ConfigError, ModelError
from logicmem.routes.visible.profile_text import fit, parse_reply
from logicmem.routes.visible.repo import Criticality, ProfileLine, VisibleRepository

USER = "noor"
HOBBIES = [
    "I restore old bicycles.",
    "We keep bees on the roof.",
    "My brother lives in Lisbon.",
    "I am saving for a sailing course.",
    "Jazz piano lessons on Thursdays.",
    "Our allotment floods every spring.",
]


class WeakLLM(FakeLLM):
    """Like the embedded 135M model: available, but not capable."""

    capable: ClassVar[bool] = False


def _memory(store: str, llm: FakeLLM | None = None, **profile: Any) -> Memory:
    config = {
        "llm": {"provider": "none"},
        "extract": {"mode": "rules"},
        "visibility": {"enabled": False},  # criticality rows are set by hand where needed
        "profile": profile,
    }
    return Memory(store, embedder=HashEmbedder(), llm=llm, config=config)


def _session(mem: Memory, session: str, *texts: str) -> list[str]:
    """Store ``texts`` verbatim as one session; returns their memory ids in order."""
    turns = [{"content": t, "turn_id": f"{session}-t{i}"} for i, t in enumerate(texts)]
    added = mem.add(turns, user_id=USER, session_id=session, infer=False).added
    return [m.id for m in added]


def _prompt(llm: FakeLLM, call: int = -1) -> str:
    return str(llm.calls[call]["messages"][1]["content"])


def test_llm_rewrites_the_profile_after_each_session_once(store_url: str) -> None:
    llm = FakeLLM()
    mem = _memory(store_url, llm)
    first = _session(mem, "s1", "I can't eat sesame, I break out in hives.", "We adopted a beagle.")
    llm.queue("## Health\n- Allergic to sesame [m1]\n## Home\n- Has a beagle [m2]")
    done = mem.consolidate(user_id=USER, only=["profile"])["profile"]
    assert done["kind"] == "llm" and done["sessions"] == 1 and done["llm_calls"] == 1
    assert done["lines"] == 4 and done["bytes"] == len(
        VisibleRepository.of(mem.store).get_profile(USER)[0].encode()
    )
    assert "(empty)" in _prompt(llm) and '{"id": "m1", "text": "I can\'t eat sesame' in _prompt(llm)

    # The watermark: a folded session is never sent again.
    again = mem.consolidate(user_id=USER, only=["profile"])["profile"]
    assert again["sessions"] == 0 and len(llm.calls) == 1

    second = _session(mem, "s2", "The beagle died in March; we now foster two cats.")
    llm.queue("## Health\n- Allergic to sesame [m1]\n## Home\n- Fosters two cats [m3, m2]")
    mem.consolidate(user_id=USER, only=["profile"])
    assert len(llm.calls) == 2
    shown = _prompt(llm)
    assert "- Allergic to sesame [m1]" in shown and "- Has a beagle [m2]" in shown
    assert '{"id": "m3", "text": "The beagle died in March' in shown
    assert "sesame, I break" not in shown

    profile = VisibleRepository.of(mem.store).load_profile(USER)
    assert profile is not None and profile.kind == "llm" and profile.version == 2
    assert [line.text for line in profile.lines] == [
        "## Health",
        "- Allergic to sesame",
        "## Home",
        "- Fosters two cats",
    ]
    # Provenance: tags become memory ids, memory ids become the turns that said them.
    assert profile.lines[1].memory_ids == [first[0]]
    assert profile.lines[3].memory_ids == [second[0], first[1]]
    assert profile.lines[3].source_turns == ["s2-t0", "s1-t1"]
    assert profile.lines[0].memory_ids == [] and profile.lines[0].source_turns == []


def test_limits_are_enforced_and_a_cut_is_recorded(store_url: str) -> None:
    llm = FakeLLM()
    mem = _memory(store_url, llm, max_lines=3, max_bytes=60)
    _session(mem, "s1", "I run a bakery.", "I sing in a choir.", "I am learning Welsh.")
    llm.queue("- Runs a bakery [m1]\n- Sings in a choir [m2]\n- Learns Welsh [m3]\n- Extra [m1]")
    done = mem.consolidate(user_id=USER, only=["profile"])["profile"]
    assert done["truncated"] == 1 and done["lines"] == 3
    assert mem.stats()["events"] == {"profile_truncated": 1}

    lines = [ProfileLine("- " + "x" * 30, ["a"], ["t"]) for _ in range(3)]
    kept, cut = fit(lines, max_lines=200, max_bytes=50)
    assert cut and len("\n".join(line.text for line in kept).encode()) <= 50
    assert [len(line.text) for line in kept] == [32, 17]  # the last line is cut, not dropped
    assert fit(lines, 3, 25_000) == (lines, False)


def test_an_invalid_reply_keeps_the_previous_profile_and_is_recorded(store_url: str) -> None:
    llm = FakeLLM()
    mem = _memory(store_url, llm, llm_attempts=2)
    _session(mem, "s1", "My daughter Lina is six.")
    llm.queue("- Has a daughter, Lina, aged six [m1]")
    mem.consolidate(user_id=USER, only=["profile"])
    before = VisibleRepository.of(mem.store).load_profile(USER)

    _session(mem, "s2", "I started a night shift job at the hospital.")
    llm.queue("Sure! The user is a person who likes things.", ModelError("server went away"))
    done = mem.consolidate(user_id=USER, only=["profile"])["profile"]
    assert done["failures"] == 1 and done["llm_calls"] == 2
    assert "That reply was invalid" in str(llm.calls[2]["messages"][-1]["content"])
    after = VisibleRepository.of(mem.store).load_profile(USER)
    assert after is not None and before is not None and after.lines == before.lines
    assert after.state["failed"] == ["s2"]
    assert mem.stats()["events"] == {"profile_llm_failure": 1}
    # The failed session counts as folded: the same prompt at temperature 0 fails again.
    mem.consolidate(user_id=USER, only=["profile"])
    assert len(llm.calls) == 3


@pytest.mark.parametrize(
    "reply",
    ["", "   ", "```\n```", "I am a helpful assistant.\nHello!", "- a [m9]\n- b\n- c"],
)
def test_replies_that_are_not_a_profile_are_refused(reply: str) -> None:
    with pytest.raises(ValueError):
        parse_reply(reply, {"m1": "mem-1"})


def test_tags_are_stripped_and_unknown_ids_ignored() -> None:
    parsed = parse_reply(
        "```markdown\n# Noor\n- Vegan [M1][m7]\n- Rows [m1; m2]\n```", {"m1": "a", "m2": "b"}
    )
    assert parsed == [("# Noor", []), ("- Vegan", ["a"]), ("- Rows", ["a", "b"])]


def test_extractive_profile_puts_critical_facts_first(store_url: str) -> None:
    mem = _memory(store_url, max_lines=3)
    ids = _session(
        mem,
        "s1",
        "I collect vintage postcards.",
        "I have type 1 diabetes and use an insulin pump.",
        "I went kayaking on Saturday.",
        "My landlord forbids any pets in the flat.",
        "I painted the kitchen yellow.",
        "I watched a documentary about owls.",
    )
    VisibleRepository.of(mem.store).set_criticality(
        USER,
        [
            Criticality(ids[1], 0.9, "health_condition", "test", "kb"),
            Criticality(ids[3], 0.7, "housing_rule", "test", "kb"),
        ],
    )
    done = mem.consolidate(user_id=USER, only=["profile"])["profile"]
    assert done["kind"] == "extractive" and done["left_out"] == 3 and done["lines"] == 3
    profile = VisibleRepository.of(mem.store).load_profile(USER)
    assert profile is not None and profile.kind == "extractive"
    assert [line.memory_ids for line in profile.lines] == [[ids[1]], [ids[3]], [ids[5]]]
    assert profile.lines[0].text == "- I have type 1 diabetes and use an insulin pump."
    assert profile.lines[0].source_turns == ["s1-t1"]

    hits = mem.search("anything", user_id=USER, k=1, method="profile_llm").hits
    assert len(hits) == 3  # the whole profile, whatever k
    assert hits[0].reason == "always-visible profile (extractive), line 1"
    assert hits[0].text == "I have type 1 diabetes and use an insulin pump."
    assert hits[0].source_turns == ["s1-t1"] and hits[0].extras["memory_ids"] == [ids[1]]


def test_extractive_profile_respects_the_byte_limit_and_follows_the_store(store_url: str) -> None:
    mem = _memory(store_url, max_bytes=40)
    long = "I live on a houseboat on the canal with two herons."
    ids = _session(mem, "s1", "I play chess.", "I grow tomatoes.", long)
    mem.consolidate(user_id=USER, only=["profile"])
    profile = VisibleRepository.of(mem.store).load_profile(USER)
    assert profile is not None and len(profile.text.encode()) <= 40
    # The newest line does not fit; the shorter older ones still do, newest first.
    assert [line.memory_ids for line in profile.lines] == [[ids[1]], [ids[0]]]
    mem.delete(ids[1], user_id=USER)  # the profile follows the store at the next consolidation
    mem.consolidate(user_id=USER, only=["profile"])
    profile = VisibleRepository.of(mem.store).load_profile(USER)
    assert profile is not None and [line.memory_ids for line in profile.lines] == [[ids[0]]]


def test_the_mode_setting_chooses_the_builder(backend: Backend) -> None:
    weak = WeakLLM()
    mem = _memory(backend.url(), weak)  # auto: a model that is not capable is not asked
    _session(mem, "s1", "I am training for a marathon.")
    assert mem.consolidate(user_id=USER, only=["profile"])["profile"]["kind"] == "extractive"
    assert weak.calls == []
    mem.close()

    capable = FakeLLM()
    mem = _memory(backend.url("b"), capable, mode="extractive")
    _session(mem, "s1", "I am training for a marathon.")
    assert mem.consolidate(user_id=USER, only=["profile"])["profile"]["kind"] == "extractive"
    assert capable.calls == []
    mem.close()

    mem = _memory(backend.url("c"), WeakLLM(replies=["nonsense"] * 2), mode="llm")
    _session(mem, "s1", "I am training for a marathon.")
    done = mem.consolidate(user_id=USER, only=["profile"])["profile"]
    assert done["kind"] == "llm" and done["failures"] == 1
    assert (done["lines"], done["bytes"], done["tokens"]) == (0, 0, 0)
    mem.close()

    mem = _memory(backend.url("d"), None, mode="llm")
    _session(mem, "s1", "I am training for a marathon.")
    with pytest.raises(ConfigError, match=r"profile\.mode is 'llm'"):
        mem.consolidate(user_id=USER, only=["profile"])


def test_bench_treats_the_profile_as_budget_and_query_free(store_url: str) -> None:
    mem = _memory(store_url)
    _session(mem, "s1", *HOBBIES)
    mem.consolidate(user_id=USER, only=["profile"])
    [method] = resolve(["profile_llm"])
    assert method.k_independent and method.query_independent
    assert method.consolidators == ("profile",)
    small = method.retrieve(mem, "what should I cook?", USER, 1)
    large = method.retrieve(mem, "plan my weekend", USER, 30)
    assert len(small) == len(large) == len(HOBBIES)
    assert [i.source_turns for i in small] == [i.source_turns for i in large]
    assert all(i.route == "profile" and i.tokens > 0 for i in small)


def test_deleting_a_user_or_resetting_clears_the_profile(store_url: str) -> None:
    mem = _memory(store_url)
    _session(mem, "s1", "I volunteer at a food bank.")
    mem.consolidate(user_id=USER, only=["profile"])
    assert VisibleRepository.of(mem.store).load_profile(USER) is not None
    mem.delete_user(USER)
    assert VisibleRepository.of(mem.store).load_profile(USER) is None
    assert mem.search("x", user_id=USER, method="profile_llm").hits == []
    _session(mem, "s1", "I volunteer at a food bank.")
    mem.consolidate(user_id=USER, only=["profile"])
    mem.reset()
    assert VisibleRepository.of(mem.store).load_profile(USER) is None
    lines = mem.store.db.execute("SELECT COUNT(*) AS n FROM profile_lines")  # type: ignore[attr-defined]
    assert lines.fetchone()["n"] == 0
