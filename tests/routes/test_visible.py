"""The visibility route on examples written for these tests (not benchmark items)."""

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from kit import FakeLLM, HashEmbedder

from logicmem import Memory
from logicmem.config import VisibilitySettings, load_settings
from logicmem.errors import ConfigError
from logicmem.routes.visible.criticality import (
    NEAREST_PRECISION,
    P_MIN,
    Assessment,
    train_classifier,
)
from logicmem.routes.visible.expand import dated_days, expansions, place_words_in
from logicmem.routes.visible.hook import VisibilityIndexer, about_user
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.keyindex import key_score
from logicmem.routes.visible.relevance import load_model, pool_shift
from logicmem.routes.visible.repo import Criticality, VisibleRepository
from logicmem.routes.visible.route import (
    VisibleRoute,
    _Candidate,
    asks_about_someone,
    asks_for_record,
    diverse,
    quota,
    request_date,
    semantic_prior,
    shifted,
    state,
    without_keys,
)
from logicmem.routes.visible.text import (
    PROTOTYPE_SUBJECT,
    contains,
    contains_loosely,
    fact_tokens,
    gives_advice,
    neutral_subject,
    sentence_subject,
    tokens,
)
from logicmem.types import MemoryEntry, Scope
from logicmem.write import pipeline

ORDINARY = [
    "I went to a jazz concert last Friday.",
    "I painted a sunset over the harbour.",
    "My book club is reading a mystery novel.",
    "I finished a big project at work.",
    "I bought new running shoes.",
    "I love rainy afternoons with tea.",
]


def _memory(store: str, llm: FakeLLM | None = None, **visibility: object) -> Memory:
    config = {
        "llm": {"provider": "none"},
        "extract": {"mode": "rules"},
        # The classifier means nothing over hashed words: these tests judge criticality by
        # the knowledge resource (and the fake LLM); the real embedder's classifier is
        # tested in tests/integration. Hashed words give similarities far below MiniLM's,
        # so the calibrated threshold (tested there too) is lowered for them here.
        "visibility": {
            "use_llm": "auto",
            "critical_min": 1.0,
            "min_probability": 0.1,
            **visibility,
        },
    }
    return Memory(store, embedder=HashEmbedder(), llm=llm, config=config)


def critical(m: Memory) -> set[str]:
    """The texts of maya's memories judged standing constraints."""
    rows = VisibleRepository.of(m.store).critical_memories(Scope("maya"))
    texts = {e.id: e.text for e in m.get_all(user_id="maya")}
    return {texts[r.memory_id] for r in rows}


def _batches_read(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the batches a reindex reads from the store, appended as it reads."""
    sizes: list[int] = []
    indexable = mem.store.indexable

    def read(ids: list[str]) -> list[tuple[MemoryEntry, np.ndarray]]:
        sizes.append(len(ids))
        return indexable(ids)

    monkeypatch.setattr(mem.store, "indexable", read)
    return sizes


def _add(mem: Memory, *texts: str, user: str = "maya") -> None:
    for i, text in enumerate(texts):
        mem.add([{"content": text, "turn_id": f"t{len(mem.get_all(user_id=user))}-{i}"}],
                user_id=user, session_id="s")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "user", "expected"),
    [
        ("Caroline's dog is afraid of storms.", "Caroline", "Sam's dog is afraid of storms."),
        ("caroline moved to Leeds.", "Caroline", "Sam moved to Leeds."),
        ("I'm allergic to my neighbour's cat.", "u-1", "Sam is allergic to Sam's neighbour's cat."),
        ("I have two kids and I work nights.", "u-1", "Sam has two kids and Sam work nights."),
        ("Carolina lives here.", "Carol", "Carolina lives here."),
        # any script, and ids that are not names
        ("Zoë takes warfarin; Zoë's son is two.", "Zoë", "Sam takes warfarin; Sam's son is two."),
        ("u-1842 is vegan.", "u-1842", "Sam is vegan."),
        ("ana@example.com rents.", "ana@example.com", "Sam rents."),
        ("Ana rents from u-18420.", "u-1842", "Ana rents from u-18420."),
    ],
)
def test_memories_are_compared_in_one_persons_name(text: str, user: str, expected: str) -> None:
    assert neutral_subject(text, user) == expected


def test_the_user_is_renamed_under_any_name_they_speak_under() -> None:
    text = "Omar's dog sleeps on Lena's bed; Omar walks him at six."
    assert neutral_subject(text, "u-1842") == text
    assert neutral_subject(text, "u-1842", ["Omar"]) == (
        "Sam's dog sleeps on Lena's bed; Sam walks him at six."
    )
    assert about_user("Omar has two kids.", "u-1842") is False
    assert about_user("Omar has two kids.", "u-1842", ["Omar"]) is True
    assert about_user("Lena lent Omar her car.", "u-1842", ["Omar"]) is False
    assert about_user("Lena has three kids.", "u-1842", ["Omar"]) is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Is allergic to peanuts.", "Sam is allergic to peanuts."),
        ("Takes warfarin daily.", "Sam takes warfarin daily."),
        ("Allergic to penicillin.", "Sam is allergic to penicillin."),
        ("The user's daughter is four.", "Sam's daughter is four."),
        ("User rents a flat.", "Sam rents a flat."),
        ("Is it raining?", "Is it raining?"),
        ("Looks like rain again.", "Looks like rain again."),
        ("Peanuts are everywhere.", "Peanuts are everywhere."),
        ("Happy Friday everyone!", "Happy Friday everyone!"),
    ],
)
def test_notes_without_a_subject_or_about_the_user_are_the_users(text: str, expected: str) -> None:
    assert neutral_subject(text, "u-1842") == expected
    if expected != text:
        assert about_user(text, "u-1842")


def test_text_matching_survives_person_plural_and_possessive() -> None:
    assert contains(tokens("Maya's cats sleep a lot"), tokens("my cat"))
    assert contains(tokens("Should I buy lilies?"), tokens("lily"))
    assert not contains(tokens("a catalogue"), tokens("cat"))


def test_a_word_whose_s_is_not_a_plural_keeps_it() -> None:
    """The word "news" is not "new": stripped, the resource's key 'news' was named by every
    request that said "new" (a new job, new friends) and engaged its constraints."""
    assert any("news" in e.situations for e in load_kb().entries.values())
    assert not contains(tokens("Where can I meet new friends?"), tokens("news"))
    assert contains(tokens("I keep reading the news before bed"), tokens("news"))
    assert not contains(tokens("Pour me a glass of wine"), tokens("glasses"))
    assert not contains(tokens("A short trip to the coast"), tokens("shorts"))
    assert contains(tokens("Are lilies safe around my cats?"), tokens("cat"))


def test_fact_matching_survives_who_says_it_numbers_and_ages() -> None:
    said = fact_tokens("Jo is a licensed realtor and has a drone.")
    assert contains_loosely(said, fact_tokens("I'm a realtor"))
    assert contains_loosely(said, fact_tokens("I have a drone"))
    assert contains_loosely(fact_tokens("Jo's son is turning four."), fact_tokens("4-year-old"))
    assert contains_loosely(fact_tokens("Jo is nineteen years old."), fact_tokens("i'm 19"))
    assert contains_loosely(fact_tokens("Jo uses home oxygen."), fact_tokens("uses oxygen"))
    assert not contains_loosely(fact_tokens("Jo ran 19 miles."), fact_tokens("i'm 19"))
    # A present state is not matched by what no longer holds; a past pattern still is.
    assert not contains_loosely(
        fact_tokens("Jo was a realtor in 2010."), fact_tokens("i'm a realtor")
    )
    assert contains_loosely(fact_tokens("Jo was recently evicted."), fact_tokens("was evicted"))
    assert contains_loosely(fact_tokens("Jo has been sober for a year."), fact_tokens("been sober"))
    assert not contains_loosely(fact_tokens("Jo had a dog back home."), fact_tokens("has a dog"))
    assert contains_loosely(fact_tokens("Jo has had a dog for years."), fact_tokens("has a dog"))
    assert contains_loosely(fact_tokens("She's had a dog since May."), fact_tokens("my dog"))
    assert contains_loosely(
        fact_tokens("Jo had a bad concussion."), fact_tokens("had a concussion")
    )
    assert not contains_loosely(
        fact_tokens("Jo uses a big old home oxygen"), fact_tokens("uses oxygen")
    )
    assert tokens("Washington, D.C. and Cancún") == ("washington", "dc", "and", "cancun")


def test_a_place_abroad_implies_international_travel() -> None:
    implied = dict(expansions("Planning four days in Kyoto and Osaka next spring"))
    assert "international travel" in implied and "japan" in implied
    assert "is in Japan" in implied["japan"]
    assert expansions("Roast turkey for thanksgiving in New York?") == []


def test_the_places_a_request_names_are_read_whole() -> None:
    named = place_words_in("Two days in New York, then on to Playa del Carmen")
    assert {"new", "york", "playa", "carmen"} <= named
    assert place_words_in("What did Carmen bring to the picnic?") == frozenset()
    # A place that is also a given name: a place only after a preposition of place.
    assert place_words_in("What did Sydney bring to the picnic?") == frozenset()
    assert place_words_in("Any tips for Sydney in July?") == {"sydney"}
    # A place at home is a place, but not a trip abroad.
    assert place_words_in("Any brunch spots in Austin?") == {"austin"}
    assert expansions("Any brunch spots in Austin?") == []


def test_a_month_implies_its_season() -> None:
    implied = dict(expansions("Can you plan my first 5K runs this January?"))
    assert implied == {
        "winter": "'January' is in winter",
        "cold weather": "'January' is in winter",
    }
    assert set(dict(expansions("A beach day in mid-July"))) == {"summer", "hot weather"}
    # Not a month: the verb and the modal; and autumn implies no 'fall'.
    assert expansions("May I march in the parade?") == []
    assert "fall" not in dict(expansions("Leaf peeping in October"))


def test_the_classifier_learns_a_boundary_between_unbalanced_classes() -> None:
    rng = np.random.default_rng(7)
    centre = rng.normal(size=16)
    centre /= np.linalg.norm(centre)
    pos = rng.normal(size=(40, 16)) * 0.3 + centre
    neg = rng.normal(size=(400, 16)) * 0.3 - centre
    x = np.vstack([pos, neg]).astype(np.float32)
    y = np.r_[np.ones(40), np.zeros(400)]
    model = train_classifier(x, y)
    assert np.array_equal(model.w, train_classifier(x, y).w)  # deterministic
    p = model.proba(x)
    assert (p[:40] >= P_MIN).mean() > 0.95 and (p[40:] < P_MIN).mean() > 0.95
    # Balanced weights: the midpoint between the classes is near even odds.
    assert 0.2 < float(model.proba(np.zeros((1, 16), dtype=np.float32))[0]) < 0.8


def test_every_authored_example_is_about_the_prototype_subject() -> None:
    from importlib import resources

    for name in ("criticality.json", "criticality_examples.json"):
        raw = json.loads(resources.files("logicmem.data").joinpath(name).read_text())
        sentences = [s for v in raw["critical"].values() for s in v] + raw["ordinary"]
        assert len(sentences) == len({s.lower() for s in sentences})
        assert all(PROTOTYPE_SUBJECT in s for s in sentences), name
        assert set(raw["critical"]) <= set(json.loads(
            resources.files("logicmem.data").joinpath("criticality.json").read_text()
        )["critical"])  # fmt: skip


def test_criticality_from_the_knowledge_resource(store_url: str) -> None:
    mem = _memory(store_url)
    _add(mem, "I'm allergic to peanuts.", "I take warfarin every evening.", *ORDINARY)
    rows = {
        r.memory_id: r for r in VisibleRepository.of(mem.store).critical_memories(Scope("maya"))
    }
    texts = {m.id: m.text for m in mem.get_all(user_id="maya")}
    critical = {texts[i]: r.ctype for i, r in rows.items()}
    assert critical == {"maya is allergic to peanuts.": "allergy",
                        "maya takes warfarin every evening.": "medication"}  # fmt: skip
    assert all(r.source == "kb" and r.reason.startswith("states") for r in rows.values())


def test_a_family_members_fact_said_in_few_words_is_theirs(store_url: str) -> None:
    """ "Mom is diabetic." was too short to keep, and written "maya said: Mom ..." it was
    no member's. Kept as "maya's mom ...", it comes into view for a request about her."""
    mem = _memory(store_url)
    _add(mem, "Mom is diabetic.", "On warfarin.", *ORDINARY)
    texts = {m.id: m.text for m in mem.get_all(user_id="maya")}
    assert {"maya's mom is diabetic.", "maya said: On warfarin."} <= set(texts.values())
    rows = VisibleRepository.of(mem.store).critical_memories(Scope("maya"))
    assert {texts[r.memory_id]: r.ctype for r in rows} == {
        "maya's mom is diabetic.": "condition",
        "maya said: On warfarin.": "medication",
    }
    ctx = mem.context("What should I bake for Mom's birthday?", user_id="maya", k=4)
    (mom,) = [item for item in ctx.items if "mom is diabetic" in item.text]
    assert mom.route == "visible" and "the request is about their mother" in mom.reason


def test_a_user_whose_id_is_not_their_name(store_url: str) -> None:
    """An account id ("u-1842") with turns spoken as "Omar": the memories name Omar, and
    they are still the user's own constraints; another speaker's are not."""
    mem = _memory(store_url)
    said = ["I'm allergic to peanuts.", "I take warfarin every evening.", *ORDINARY]
    mem.add(
        [{"role": "user", "name": "Omar", "content": text} for text in said]
        + [{"role": "other", "name": "Lena", "content": "I'm allergic to shellfish."}],
        user_id="u-1842",
        session_id="s",
    )
    rows = VisibleRepository.of(mem.store).critical_memories(Scope("u-1842"))
    texts = {m.id: m.text for m in mem.get_all(user_id="u-1842")}
    assert "Lena is allergic to shellfish." in texts.values()
    assert {texts[r.memory_id] for r in rows} == {
        "Omar is allergic to peanuts.",
        "Omar takes warfarin every evening.",
    }
    ctx = mem.context("Can you give me a good pad thai recipe?", user_id="u-1842", k=4)
    assert ctx.items[0].route == "visible" and "peanuts" in ctx.items[0].text


def test_what_other_speakers_say_is_not_the_users_constraint(store_url: str) -> None:
    """Another speaker's turns are their own life or an echo of the user's words, even
    where the written memory does not start with their name ("Noted—Lena will remember
    ..."): only the user's own statements become constraints."""
    mem = _memory(store_url)
    mem.add(
        [
            {"role": "user", "name": "Omar", "content": "I'm allergic to peanuts."},
            {"role": "other", "name": "Lena",
             "content": "Noted—I'll remember you're allergic to peanuts."},
            {"role": "other", "name": "Lena", "content": "Honestly—I take warfarin daily."},
            {"role": "other", "name": "Lena",
             "content": "For me, being allergic to shellfish, takeout is a gamble."},
            *({"role": "user", "name": "Omar", "content": text} for text in ORDINARY),
        ],
        user_id="u-1842",
        session_id="s",
    )  # fmt: skip
    rows = VisibleRepository.of(mem.store).critical_memories(Scope("u-1842"))
    texts = {m.id: m.text for m in mem.get_all(user_id="u-1842")}
    assert "Noted—Lena will remember you're allergic to peanuts." in texts.values()
    assert {texts[r.memory_id] for r in rows} == {"Omar is allergic to peanuts."}
    ctx = mem.context("Can you give me a good pad thai recipe?", user_id="u-1842", k=4)
    shown = [i.text for i in ctx.items if i.route == "visible"]
    assert shown == ["Omar is allergic to peanuts."]


def test_the_question_an_answer_keeps_is_not_the_users_fact(store_url: str) -> None:
    """An answer keeps the question it answers (``rules.in_reply_to``), but only what the
    user said is judged: "Are you allergic to peanuts?" states nothing of theirs."""
    mem = _memory(store_url)
    mem.add(
        [
            {"role": "other", "name": "Lena", "content": "Are you allergic to peanuts?"},
            {"role": "user", "name": "Omar",
             "content": "Not that I know of, I eat pretty much everything."},
            {"role": "other", "name": "Lena", "content": "What do you take every evening?"},
            {"role": "user", "name": "Omar", "content": "I take warfarin every evening."},
            *({"role": "user", "name": "Omar", "content": text} for text in ORDINARY),
        ],
        user_id="u-1842",
        session_id="s",
    )  # fmt: skip
    rows = VisibleRepository.of(mem.store).critical_memories(Scope("u-1842"))
    texts = {m.id: m.text for m in mem.get_all(user_id="u-1842")}
    assert (
        'Not that Omar knows of, Omar eats pretty much everything. (in reply to "Are you '
        'allergic to peanuts?")' in texts.values()
    )
    assert {texts[r.memory_id] for r in rows} == {
        'Omar takes warfarin every evening. (in reply to "What do you take every evening?")'
    }


def test_reindex_judges_stored_memories_again(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memories judged by earlier rules (here: none, with visibility off, and one wrongly
    marked critical) are judged by the current ones; a crash after the marking is
    finished when the store is opened again."""
    mem = _memory(store_url, enabled=False)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY[:3])
    repo = VisibleRepository.of(mem.store)
    assert repo.critical_memories(Scope("maya")) == []
    ordinary = next(m for m in mem.get_all(user_id="maya") if "painted" in m.text)
    repo.set_criticality("maya", [Criticality(ordinary.id, 1.0, "environment", "old rule", "kb")])
    mem.close()
    mem = _memory(store_url)
    assert critical(mem) == {ordinary.text}
    monkeypatch.setattr(pipeline, "INDEX_BATCH", 3)  # two batches
    loaded = _batches_read(mem, monkeypatch)
    assert mem.reindex(user_id="maya") == 4
    assert loaded == [3, 1]  # texts and vectors read one batch at a time, not all claimed
    assert critical(mem) == {"maya is allergic to peanuts."}
    ctx = mem.context("Can you give me a good pad thai recipe?", user_id="maya", k=3)
    assert ctx.items[0].route == "visible" and "peanuts" in ctx.items[0].text
    # Marked, then the process dies before indexing: the next open finishes the work.
    VisibleRepository.of(mem.store).clear([m.id for m in mem.get_all(user_id="maya")])
    assert mem.store.mark_unindexed("maya") == 4
    mem.close()
    mem = _memory(store_url)
    assert critical(mem) == {"maya is allergic to peanuts."}
    mem.close()


def test_stats_count_the_memories_other_rules_indexed_until_reindexed(store_url: str) -> None:
    """Each memory carries the version of the write hooks that indexed it: memories indexed
    with visibility off, under another criticality floor, or before versions were kept are
    counted (and the CLI says to reindex) until ``reindex`` judges them again."""
    mem = _memory(store_url, enabled=False)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY[:2])
    assert mem.stats()["index"] == {"version": "none", "indexed_otherwise": 0}
    mem.close()
    mem = _memory(store_url)
    index = mem.stats()["index"]
    assert index["version"].startswith("visibility-") and index["indexed_otherwise"] == 3
    assert mem.indexed_otherwise(user_prefix="may") == 3
    assert mem.indexed_otherwise(user_prefix="someone else") == 0
    assert mem.reindex(user_id="maya") == 3
    assert mem.stats()["index"] == {"version": index["version"], "indexed_otherwise": 0}
    mem.close()
    mem = _memory(store_url, critical_min=0.9)
    assert mem.pipeline.index_version != index["version"]
    _add(mem, ORDINARY[3])  # indexed under the current settings: not counted
    assert mem.indexed_otherwise() == 3
    mem.reindex()
    assert mem.indexed_otherwise() == 0
    # a store written before versions were kept: every memory's version is unknown
    with mem.store.transaction():
        mem.store.db.execute("UPDATE memories SET indexed_with = NULL")
    assert mem.indexed_otherwise() == 4
    mem.close()


def test_the_index_version_names_the_llm_only_when_it_judges(tmp_path: Path) -> None:
    """A capable LLM that may judge criticality is part of what decides the verdicts;
    one told never to judge is not."""
    versions = []
    judges = (("a", None, "auto"), ("b", FakeLLM(), "auto"), ("c", FakeLLM(), "never"))
    for name, llm, use in judges:
        mem = _memory(str(tmp_path / f"{name}.db"), llm=llm, use_llm=use)
        versions.append(mem.pipeline.index_version)
        mem.close()
    assert versions[0] != versions[1] and versions[0] == versions[2]


def test_notes_in_another_memory_layers_style_are_the_users(store_url: str) -> None:
    """Memories stored as written (infer=False) the way other memory layers write them:
    without a subject ("Is allergic to peanuts.") or about "the user"."""
    mem = _memory(store_url)
    notes = ["Is allergic to peanuts.", "The user takes warfarin every evening.", *ORDINARY]
    mem.add(notes, user_id="u-1842", session_id="s", infer=False)
    rows = VisibleRepository.of(mem.store).critical_memories(Scope("u-1842"))
    texts = {m.id: m.text for m in mem.get_all(user_id="u-1842")}
    assert {texts[r.memory_id] for r in rows} == set(notes[:2])


@pytest.mark.parametrize(
    ("fact", "query", "word", "key", "entry"),
    [
        ("I'm allergic to peanuts.", "Can you give me a good pad thai recipe for tonight?",
         "peanuts", "pad thai", "allergy-peanut"),
        # a short-term illness is a constraint while it lasts
        ("I came down with the flu on Monday.", "Can we still host the baby shower at my place?",
         "flu", "baby shower", "acute-influenza"),
    ],
)  # fmt: skip
def test_anticipation_key_brings_the_constraint_into_context(
    store_url: str, fact: str, query: str, word: str, key: str, entry: str
) -> None:
    mem = _memory(store_url)
    _add(mem, fact, *ORDINARY)
    ctx = mem.context(query, user_id="maya", k=4)
    first = ctx.items[0]
    assert first.route == "visible" and word in first.text
    assert f"the request mentions '{key}'" in first.reason and entry in first.reason
    assert first.source_turns  # provenance to the turn that said it
    for item in ctx.items:
        assert item.route and item.reason and item.source_turns


def test_a_travel_constraint_matches_a_request_that_names_only_a_city(store_url: str) -> None:
    mem = _memory(store_url)
    _add(mem, "I'm on probation until next year.", *ORDINARY)
    ctx = mem.context(
        "Friends invited me to a week in Tulum, what should I book?", user_id="maya", k=4
    )
    first = ctx.items[0]
    assert first.route == "visible" and "probation" in first.text
    assert "the request implies" in first.reason and "Mexico" in first.reason


def test_a_cold_weather_constraint_matches_a_request_that_names_only_a_winter_month(
    store_url: str,
) -> None:
    mem = _memory(store_url)
    _add(mem, "I have COPD.", *ORDINARY)
    query = "Can you plan a weekend by the lake this January?"
    ctx = mem.context(query, user_id="maya", k=4)
    first = ctx.items[0]
    assert first.route == "visible" and "COPD" in first.text
    assert "the request implies" in first.reason and "'January' is in winter" in first.reason
    # The same plan with no month names no season.
    ctx = mem.context(query.replace(" this January", ""), user_id="maya", k=4)
    assert "is in winter" not in " ".join(item.reason for item in ctx.items)


def test_a_constraint_the_request_does_not_engage_stays_out_at_every_budget(
    store_url: str,
) -> None:
    mem = _memory(store_url)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    for k in (4, 20, 50):
        ctx = mem.context("What jazz albums should I try?", user_id="maya", k=k)
        assert all(i.route == "semantic" for i in ctx.items), k  # the slice may be empty


def test_the_slice_never_exceeds_its_share(store_url: str) -> None:
    mem = _memory(store_url, share=0.25)
    _add(mem, "I'm allergic to peanuts.", "I'm allergic to tree nuts.", "I have celiac disease.",
         "I'm allergic to sesame.", *ORDINARY)  # fmt: skip
    for k in (2, 4, 8, 20):
        ctx = mem.context("Ideas for a satay and pad thai dinner party?", user_id="maya", k=k)
        assert ctx.routes.get("visible", 0) <= quota(k, 0.25)
        assert len(ctx.items) <= k


def test_a_superseded_constraint_leaves_the_slice(store_url: str) -> None:
    mem = _memory(store_url)
    mem.add("I am vegetarian.", user_id="maya", timestamp="2024-01-01")
    mem.add("I became vegan this spring.", user_id="maya", timestamp="2024-05-01")
    _add(mem, *ORDINARY)
    ctx = mem.context("Which gummy bears should I buy for the party?", user_id="maya", k=20)
    visible = [i.text for i in ctx.items if i.route == "visible"]
    assert visible == ["maya became vegan this spring."]


def test_an_llm_anticipates_situations_the_resource_lacks(store_url: str) -> None:
    llm = FakeLLM()
    # extraction is rules-only here; the one LLM call is the criticality judgement
    llm.queue(json.dumps({"items": [
        {"index": 0, "critical": True, "type": "hobby rule",
         "situations": ["weekend regatta", "sailing gloves"]},
    ]}))  # fmt: skip
    mem = _memory(store_url, llm=llm)
    _add(mem, "My club bans members from racing without a safety course.")
    assert llm.calls and llm.calls[0]["schema"]["required"] == ["items"]
    llm.queue(json.dumps({"hypotheses": []}))  # the query-time bridge call
    ctx = mem.context("Should I enter the weekend regatta?", user_id="maya", k=3)
    assert ctx.items[0].route == "visible"
    assert "hobby rule" in ctx.items[0].reason and "weekend regatta" in ctx.items[0].reason


def test_bridge_hypotheses_find_a_deciding_fact_no_key_anticipates(store_url: str) -> None:
    llm = FakeLLM()
    llm.default = json.dumps({"items": []})  # write time: nothing judged critical
    mem = _memory(store_url, llm=llm)
    _add(mem, "I volunteer at the food bank every Saturday morning.", *ORDINARY)
    llm.default = None
    llm.queue(json.dumps({"hypotheses": ["maya volunteers at the food bank on Saturday."]}))
    query = "Which brunch spot should we book for Saturday morning?"
    ctx = mem.context(query, user_id="maya", k=3)
    [found] = [i for i in ctx.items if i.route == "visible"]
    assert "food bank" in found.text
    assert "answers the hypothesis 'maya volunteers at the food bank" in found.reason
    prompts = [c for c in llm.calls if c.get("schema") and "hypotheses" in c["schema"]["required"]]
    assert len(prompts) == 1 and query in prompts[0]["messages"][0]["content"]
    mem.context(query, user_id="maya", k=5)  # the same request again: no second call
    assert len([c for c in llm.calls if c.get("schema") == prompts[0]["schema"]]) == 1


def test_a_failing_bridge_call_is_counted_and_the_keys_still_work(store_url: str) -> None:
    from logicmem.errors import ModelError

    llm = FakeLLM()
    llm.default = json.dumps({"items": []})
    mem = _memory(store_url, llm=llm)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    llm.default = None
    llm.queue(ModelError("server down"))
    ctx = mem.context("Can you give me a good pad thai recipe?", user_id="maya", k=4)
    assert ctx.items[0].route == "visible" and "peanuts" in ctx.items[0].text
    assert mem.stats()["events"].get("bridge_llm_failure") == 1


def test_a_failing_llm_falls_back_to_the_resource_and_is_counted(store_url: str) -> None:
    llm = FakeLLM()
    llm.queue("not json at all")
    mem = _memory(store_url, llm=llm)
    _add(mem, "I'm allergic to peanuts.")
    assert mem.stats()["events"] == {"criticality_llm_failure": 1}
    assert len(VisibleRepository.of(mem.store).critical_memories(Scope("maya"))) == 1
    # The rules alone judged it, not the version that names the LLM: counted as indexed
    # otherwise, and judged again by a stale-only reindex once the LLM answers.
    assert mem.indexed_otherwise() == 1
    llm.queue(json.dumps({"items": [
        {"index": 0, "critical": True, "type": "allergy", "situations": ["satay sauce"]},
    ]}))  # fmt: skip
    assert mem.reindex(user_id="maya", stale=True) == 1
    assert mem.indexed_otherwise() == 0 and not llm.replies
    llm.queue(json.dumps({"hypotheses": []}))  # the query-time bridge call
    ctx = mem.context("Which satay sauce should I buy?", user_id="maya", k=2)
    assert ctx.items[0].route == "visible" and "satay sauce" in ctx.items[0].reason


def test_a_stale_reindex_judges_only_what_another_version_indexed(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``reindex(stale=True)`` marks only the memories ``indexed_otherwise`` counts: those
    indexed by other rules or settings, or before versions were kept; the rest are left
    as they are, and a second run finds nothing to do."""
    mem = _memory(store_url, enabled=False)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY[:2])
    mem.close()
    mem = _memory(store_url)
    _add(mem, ORDINARY[3])  # indexed by the current version
    read = _batches_read(mem, monkeypatch)
    assert mem.reindex(user_id="maya", stale=True) == 3
    assert read == [3] and critical(mem) == {"maya is allergic to peanuts."}
    assert mem.reindex(stale=True) == 0 and mem.indexed_otherwise() == 0
    assert mem.reindex(user_id="maya") == 4  # without stale: every memory
    with mem.store.transaction():  # written before versions were kept
        mem.store.db.execute("UPDATE memories SET indexed_with = NULL")
    assert mem.reindex(stale=True) == 4 and mem.indexed_otherwise() == 0
    mem.close()


def test_visibility_can_be_switched_off(store_url: str) -> None:
    mem = _memory(store_url, enabled=False)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    ctx = mem.context("A pad thai recipe?", user_id="maya", k=3)
    assert "visible" not in ctx.routes


def test_every_entry_of_the_resource_names_a_source() -> None:
    kb = load_kb()
    assert len(kb) >= 100
    assert all(e.source and e.why and e.situations for e in kb.entries.values())


@pytest.mark.parametrize(
    "k, share, expected", [(30, 0.4, 12), (10, 0.4, 4), (2, 0.4, 1), (30, 0.3, 9)]
)
def test_quota(k: int, share: float, expected: int) -> None:
    assert quota(k, share) == expected


@pytest.mark.parametrize(
    "text, mine",
    [
        ("Omar's son is one year old.", True),
        ("Omar has a dog named Max.", True),
        ("Lena adopted a pup named Pepper.", False),
        ("Lena's puppy is called Biscuit.", False),
        ("The lease forbids pets.", True),
        ("After the move he sold his car.", True),
        ("Lena offered Omar her condolences after his loss.", False),
        ("Ravi shared a soup recipe with Omar.", False),
        ("Lena and Omar adopted a rescue dog.", True),
        ("Barcelona's metro is crowded, and Omar will ride it daily.", True),
        ("Quick heads-up: Omar's cardiologist started Omar on apixaban.", True),
        ("Big news—Omar is eleven weeks pregnant!", True),
        ("Pollen sets off Omar's hay fever.", True),
        # said by the user in the first person, whatever the first word
        ("We adopted a kitten last week.", True),
        ("Ever since the crash I avoid highways.", True),
        ("Please remember I'm vegan.", True),
        ("Lena and I adopted a rescue dog.", True),
        ("Lena lent me her car for the week.", False),
        ("Lena has three kids.", False),
        # a thing, not a person, as the subject: the user is the one it acts on
        ("Shrimp makes me break out in a rash.", True),
        ("Strawberries give Omar hives.", True),
        ("Cats and dust leave me sneezing all night.", True),
        ("Cheese and yogurt do terrible things to my stomach.", True),
        ("Even a sip of wine makes my face flush.", True),
        ("Flying terrifies me.", True),
        ("Fairness matters more to Omar than winning.", True),
        ("Punctuality is important to me.", True),
        ("Walking everywhere keeps Omar sane.", True),
        ("Sugar-free sweets upset my stomach.", True),
        ("What would Omar even do with a boat?", True),
        ("Omar'll be forty in May.", True),
        # ... or on someone else, and a name in any script is a name
        ("Shellfish makes Lena's throat swell.", False),
        ("Penicillin and sulfa drugs give Ravi hives.", False),
        ("If Lena had a garden she'd grow tomatoes.", False),
        ("Since her surgery, Lena has used a cane.", False),
        ("Zoë has two kids.", False),
        ("Ji-ho is allergic to cats.", False),
        ("Lena's kids are five and seven.", False),
        ("Lena and her husband have three dogs.", False),
        ("Lena thinks cats are smarter than dogs.", False),
        ("Lena finally beat her brother at chess.", False),
        # what the user said of someone else, as the rules extractor writes it
        ("Omar said: She chews on every plant she can reach.", False),
        ("Omar said: His landlord bans dogs.", False),
        ("Omar said: But she retired years ago.", False),  # a linking word first
        ("Omar said: Yeah, they keep bees on the roof.", False),
        ("Omar said: So, his knee is still bad.", False),
        ("Omar said: The lease forbids pets.", True),
        # a place is not a person, and "the user" is the user
        ("The lease in Denver forbids pets.", True),
        ("The user moved to Denver last year.", True),
    ],
)
def test_only_the_users_own_facts_are_constraints(text: str, mine: bool) -> None:
    assert about_user(text, "Omar") is mine


def test_a_key_many_entries_share_is_weaker_evidence_than_a_specific_one() -> None:
    # "wedding" (named by dozens of entries) at 0.66 against "destination wedding" at 0.60
    assert key_score(0.66, 0.3, 0.3) < key_score(0.60, 0.72, 0.3)
    assert key_score(0.6, 1.0, 0.3) == pytest.approx(0.6)
    model = load_model()

    def p(sim: float, specificity: float, memory_sim: float = 0.1) -> float:
        score = float(key_score(sim, specificity, model.discount))
        return float(model.probability(np.array([[score, sim, 0.0, memory_sim]]))[0])

    assert p(0.6, 0.72) > p(0.66, 0.3)
    # calibrated: a close specific key is likely to matter, a loose one is not
    assert p(0.85, 1.0) > 0.5 > p(0.35, 1.0)
    assert p(0.5, 1.0, memory_sim=0.5) > p(0.5, 1.0, memory_sim=0.0)
    strong = _Candidate("d", "pet", 0.9, "", lexical="lilies", relevance=0.9)
    assert strong.probability == pytest.approx(0.81)  # p(engaged) x p(a constraint)


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("I swell up if I eat lupin.", "me"),
        ("My lease forbids pets.", "me"),
        ("Tom's landlord won't allow pets.", "Tom"),
        ("Tom takes warfarin.", "Tom"),
        ("the lease forbids pets", "me"),
        ("Our garden backs onto a railway line.", "me"),
        ("We share one car between four drivers.", "me"),
        # a capitalised opener is not a name: the speaker, or the name that follows it
        ("Shellfish makes me break out in hives.", "me"),
        ("Every Sunday I drive my father to church.", "me"),
        ("On Thursdays Nina coaches a youth rugby team.", "Nina"),
        ("At 15, Leo still needs a booster seat in some cars.", "Leo"),
        ("Since the accident, Rui can't drive at night.", "Rui"),
        ("In August, Cleo starts a night-shift rotation.", "Cleo"),
        ("June works weekends at the hospital.", "June"),
        ("Dr. Varga prescribed Ola a beta blocker.", "Varga"),
    ],
)
def test_the_subject_of_a_standalone_sentence(text: str, who: str) -> None:
    assert sentence_subject(text) == who


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        ("Nora recommends a gluten-free bakery to her sister.", True),
        ("Nora strongly suggests oat milk as a healthier alternative to cream.", True),
        ("Nora's advice for new parents includes sleeping when the baby sleeps.", True),
        ("Nora encourages her brother to keep going with physical therapy.", True),
        ("Nora is allergic to peanuts and suggested we skip the satay.", False),
        ("Nora's doctor recommends she avoid grapefruit.", False),
        ("Nora takes warfarin.", False),
        # a quoted sentence that tells the listener what to do
        ("Nora said: Remember to drink plenty of water after the run.", True),
        ("Nora said: Don't skip the allergy shots.", True),
        ("Nora said: Can't wait to drive it again!", False),
        ("Nora said: Love that bakery.", False),
    ],
)
def test_advice_given_to_others_is_recognised(text: str, advice: bool) -> None:
    assert gives_advice(text) is advice


def test_one_memory_per_constraint_but_a_matched_repeat_precedes_unmatched_fills() -> None:
    def cand(memory_id: str, entry: str) -> _Candidate:
        return _Candidate(memory_id, "child", 1.0, "", key_ref=entry)

    seen: set[str] = set()
    matched = diverse([cand("a", "kids"), cand("b", "kids"), cand("c", "baby")], seen)
    rest = diverse([cand("d", "dog"), cand("e", "kids")], seen)
    assert [c.memory_id for c in matched + rest] == ["a", "c", "b", "d", "e"]


@pytest.mark.parametrize(
    ("query", "about_someone"),
    [
        ("What did Rosa paint last summer?", True),
        ("Is Omar married?", True),
        ("Which laptop should I buy?", False),
        ("What's a good lentil soup recipe?", False),
        ("Recommend a few day hikes near Denver.", False),
        ("Where should we stay in Lisbon?", False),
        ("What should we get Dad for his birthday?", False),  # the user's own father
        ("What did Mom and Priya cook?", True),
        # A month, a weekday, a holiday or a place abroad is not a person.
        ("Any ideas for a cabin weekend in January?", False),
        ("What goes well with ham at Easter?", False),
        ("Any restaurant tips for Lisbon on Friday?", False),
        ("What did Rosa cook at Easter in Lisbon?", True),
        # A place at home is not a person either; a word of a longer place name is, and
        # so is a place that is also a given name, unless a preposition of place precedes.
        ("Any brunch spots in Austin?", False),
        ("What's the best time of year for Yellowstone?", False),
        ("Any tips for Sydney in July?", False),
        ("Is Kenya safe for a solo safari?", False),  # a country, rarely a person's name
        ("What did Sydney bring to the picnic?", True),
        ("What did Carmen bring to the picnic?", True),
        ("Did Rosa like Playa del Carmen?", True),
        # A request to the assistant, or for ideas, about someone is a request for advice.
        ("Can you plan a road trip with Leo?", False),
        ("Could you suggest a birthday cake for Priya?", False),
        ("Any snack ideas for Leo?", False),
        ("Gift ideas for Omar?", False),
        ("Can Omar swim?", True),
        ("Did you ask Omar about the keys?", True),
    ],
)
def test_recall_questions_about_a_named_person_are_told_apart(
    query: str, about_someone: bool
) -> None:
    assert asks_about_someone(query) is about_someone


@pytest.mark.parametrize(
    ("query", "for_record"),
    [
        ("When did I start physio?", True),
        ("Which hotel did we like in Rome?", True),
        ("What was the book I read on the train?", True),
        ("How long have I lived in this flat?", True),
        ("Were we at Lena's wedding in May?", True),
        ("What's my sister's new address?", True),
        ("Which gym am I a member of?", True),
        ("What are our kids' shoe sizes?", True),
        ("Did I renew the car insurance?", True),
        ("What did the vet tell us about the stitches?", True),
        ("Who told me about that plumber?", True),
        ("What advice did I give Sam about his landlord?", True),  # what they did
        ("Which tips have we tried for the garden?", True),
        ("Which plumber was recommended to us?", True),
        ("what did i say about the boiler", False),  # no "I": not read as the speaker
        # Advice, even about something past: a modal or a word of advice decides.
        ("What should I cook tonight?", False),
        ("Can I take ibuprofen with this?", False),
        ("Any ideas for a gift I forgot to buy?", False),
        ("Which laptop should I buy now that mine died?", False),
        ("What's a good follow-up to the course I finished?", False),
        ("How do I bleed a radiator?", False),  # "bleed" is no past tense
        ("We moved in last week. What plants suit a north window?", False),  # told, not asked
        ("Is my allergy to peanuts a problem here?", False),
        ("Is my rash anything to worry about?", False),  # a judgement, asked yes or no
        ("Am I too old for braces?", False),
        ("How long do I roast a chicken?", False),
        ("What do I wear?", False),
        ("What goes well with my lasagna?", False),
        ("Did I get good advice from the bank?", True),  # a question about what was done
        ("What did Omar suggest for the leaky tap?", True),  # what someone did
        ("What did my dentist suggest for the sensitivity?", True),
        ("Did the kids have any ideas for the weekend?", True),
        ("Did you recommend a good plumber?", False),  # asks the assistant now
        # the question word as the subject of a past verb on what is the speaker's
        ("What happened to our flight on Tuesday?", True),
        ("Which storm damaged our roof?", True),
        ("What was on the menu at our wedding?", True),  # the past of "be" after the question word
        ("Which is one of our favourite trails?", True),  # "one of our" is the speaker's
        ("Which shoes are suited to my flat feet?", False),  # a state, not the past
        ("What caused my rash?", False),  # a diagnosis, which a constraint can decide
        ("What flowers are related to my birth month?", False),
        ("What tips did I get? Which should I try first?", False),  # asked: should
        ("What did Rosa paint last summer?", True),  # about someone: asks_about_someone too
        # the speaker with someone named is still the speaker
        ("What do Priya and I have in common?", True),
        ("Which trails have both Omar and I hiked?", True),
        ("Which shows have Omar and I both seen?", True),
        ("What should Lena and I cook tonight?", False),
        # a word of advice that is something of theirs ("my best friend", "our plan")
        ("When is my best friend's birthday?", True),
        ("Where do I keep my ideas for the novel?", True),
        ("What is our plan for Tuesday?", True),
        ("What's a good gift for my best friend?", False),
        ("Any ideas for my best friend's birthday?", False),
        ("What are my options for a cheaper phone plan?", False),
        # what someone named says or thinks now, like what they said
        ("What does Omar think of my plan?", True),
        ("What nickname does Lena usually call me?", True),
        ("What does Advil do to my stomach?", False),  # a drug is no speaker
        ("How does Ozempic make me feel?", False),
        ("What does Mayo Clinic recommend for a sore throat?", False),
        # how long something took them, and which of theirs were
        ("How long did it take me to heal after the fall?", True),
        ("Which of our bills were paid late?", True),
        # what is true of what is theirs, as the subject of the question
        ("Which bus does my son take to school?", True),
        ("What does my tattoo stand for?", True),
        ("What time do our neighbours leave for work?", True),
        ("What does my doctor think of the new dose?", True),
        ("How does my blood pressure pill mix with grapefruit?", False),  # how it works
        ("What should my son pack for camp?", False),
        ("What does ibuprofen do to my kidneys?", False),
        # an inference about the speaker, asked with "would" or "might" of them
        ("Would I enjoy a week in Lapland?", True),
        ("What might my grandfather have done for work?", True),
        ("Which of these two films would we like more?", True),
        ("Would I need a visa for Vietnam?", False),  # a modal of advice
        ("What would be a good gift for my niece?", False),  # a word of advice
        ("Would I be able to hike it with my knee?", False),  # what they can do
        ("Would I qualify for the first-time buyer grant?", False),
        ("Would I be okay eating sushi this month?", False),
        ("What snacks wouldn't upset my stomach on a drive?", False),  # not of the speaker
        # a title's full stop ends no sentence: the question is all of it
        ("What did Dr. Lee tell me about my knee?", True),
        # how to do something, whatever the request told before it asked
        ("I bought a cast-iron pan last week, how do I season it?", False),
        ("We missed our connection in Lyon, how do we get a refund?", False),
        ("Which pan did I buy last week?", True),
        # a request to be told again what was said, not a reminder to set
        ("Remind me what the vet said about the stitches", True),
        ("Can you remind me which hotel we booked in Porto?", True),
        ("Do you remember when we moved in?", True),
        ("tell me again what my nephew is called", True),
        ("Remind me to call the vet at noon", False),
        ("remind me about the meeting tomorrow", False),
        # "won't" is no past tense
        ("Is there a film we won't regret renting tonight?", False),
        ("Is there a film we watched twice?", True),
    ],
)
def test_questions_about_the_speakers_own_past_are_told_apart_from_advice(
    query: str, for_record: bool
) -> None:
    assert asks_for_record(query) is for_record


def test_a_question_about_ones_own_past_earns_a_slot_by_a_key_not_by_similarity(
    store_url: str,
) -> None:
    # "When did I ...?" asks for evidence, as a question about a named person does: a
    # constraint that merely resembles it takes no reserved slot, one whose key it names
    # does. Before recall_own_past, the resemblance alone engaged it.
    similar = "When did I first find out I'm allergic to peanuts since childhood?"
    for own_past, shown in ((True, False), (False, True)):
        mem = _memory(store_url, recall_weight=1.0, recall_own_past=own_past)
        if not mem.get_all(user_id="maya"):
            _add(mem, "I'm allergic to peanuts since childhood.", *ORDINARY)
        items = mem.context(similar, user_id="maya", k=10).items
        assert any(i.route == "visible" for i in items) is shown
    [named] = [
        i
        for i in mem.context("Did we order satay at the party?", user_id="maya", k=10).items
        if i.route == "visible"
    ]
    assert "the request mentions 'satay'" in named.reason


def test_no_request_gets_constraints_it_does_not_engage(store_url: str) -> None:
    mem = _memory(store_url)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    advice = mem.context("Which laptop should I buy?", user_id="maya", k=10)
    recall = mem.context("What did Rosa paint last summer?", user_id="maya", k=10)
    assert not any(i.route == "visible" for i in advice.items)  # no fill for its own sake
    assert not any(i.route == "visible" for i in recall.items)


def test_a_question_about_someone_earns_a_slot_by_a_key_not_by_similarity(
    store_url: str,
) -> None:
    # Recall about a named person is the semantic route's job: a constraint that merely
    # resembles the question takes no reserved slot, one whose key it names does (at the
    # model's full probability here; recall_weight scales it, tested below).
    mem = _memory(store_url, recall_weight=1.0)
    _add(mem, "I'm allergic to peanuts since childhood.", *ORDINARY)
    similar = "When did Rosa learn that Maya is allergic to peanuts since childhood?"
    assert not any(i.route == "visible" for i in mem.context(similar, user_id="maya", k=10).items)
    [named] = [
        i
        for i in mem.context("Did Rosa bring satay to the party?", user_id="maya", k=10).items
        if i.route == "visible"
    ]
    assert "the request mentions 'satay'" in named.reason
    advice = mem.context(
        "Is my allergy to peanuts since childhood a problem?", user_id="maya", k=10
    )
    assert any(i.route == "visible" for i in advice.items)  # the speaker's own request


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("Maya is 20 weeks along in her pregnancy.", "preg-food-safety"),
        ("Maya runs three mornings a week along the river.", None),
    ],
)
def test_a_fact_pattern_needs_its_own_sense(text: str, entry: str | None) -> None:
    found = [e.id for e, _ in load_kb().match_facts(text)]
    assert (entry in found) if entry else not found


def test_a_question_about_someone_sharing_an_everyday_key_gets_no_constraint(
    store_url: str,
) -> None:
    # 'restaurant' is a situation of dozens of entries: naming it in a question about
    # someone else is no evidence that the user's allergy matters there; 'satay' is.
    mem = _memory(store_url, min_probability=0.0)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    shared = mem.context("Which restaurant did Rosa pick last week?", user_id="maya", k=10)
    assert not any(i.route == "visible" for i in shared.items)
    specific = mem.context("Did Rosa order satay last week?", user_id="maya", k=10)
    assert any(i.route == "visible" for i in specific.items)


@pytest.mark.parametrize(("decay", "at_4"), [(1.0, 0.125), (1.5, 0.0625), (2.0, 0.03125)])
def test_the_semantic_hits_count_for_less_down_the_list_as_configured(
    store_url: str, decay: float, at_4: float
) -> None:
    # A standing constraint is placed ahead of the semantic hit of rank r only when it is
    # more likely to matter than semantic_p1 / r ** semantic_decay.
    assert semantic_prior(0.5, 4, decay) == pytest.approx(at_4)
    mem = _memory(store_url, min_probability=0.0, semantic_decay=decay)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    proposal = VisibleRoute().propose(
        mem.env, "Should I order satay tonight?", Scope("maya"), 10, None
    )
    assert proposal.prior is not None
    assert proposal.prior(1) == pytest.approx(0.5)
    assert proposal.prior(4) == pytest.approx(at_4)


def test_in_a_recall_question_a_constraint_competes_with_the_slower_envelope(
    store_url: str,
) -> None:
    # A question about a named person asks for evidence, which a standing constraint
    # rarely is: its constraints are placed against semantic_p1 / r ** recall_decay.
    mem = _memory(store_url, min_probability=0.0, semantic_decay=2.0, recall_decay=1.0)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    route, scope = VisibleRoute(), Scope("maya")
    own = route.propose(mem.env, "Should I order satay tonight?", scope, 10, None)
    recall = route.propose(mem.env, "Did Rosa order satay last week?", scope, 10, None)
    assert own.prior is not None and recall.prior is not None
    assert own.prior(4) == pytest.approx(0.5 / 16)
    assert recall.prior(4) == pytest.approx(0.5 / 4)


def test_a_recall_questions_probabilities_count_for_recall_weight(store_url: str) -> None:
    # The relevance model is trained on advice requests; on a question about a named
    # person its probability counts for recall_weight of itself, in a request of the
    # user's own in full.
    mem = _memory(store_url, min_probability=0.0, recall_weight=1.0)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    route, scope = VisibleRoute(), Scope("maya")
    recall_q, own_q = "Did Rosa order satay last week?", "Should I order satay tonight?"
    full = route.propose(mem.env, recall_q, scope, 10, None).probabilities
    own = route.propose(mem.env, own_q, scope, 10, None).probabilities
    mem.env.visibility = mem.env.visibility.model_copy(update={"recall_weight": 0.25})
    scaled = route.propose(mem.env, recall_q, scope, 10, None).probabilities
    assert full and full[0] > 0
    assert scaled == pytest.approx([p * 0.25 for p in full])
    assert route.propose(mem.env, own_q, scope, 10, None).probabilities == pytest.approx(own)


@pytest.mark.parametrize("user_id", ["u-1842", "ab12cd34", "maya.r@example.com", "maya"])
def test_a_users_facts_are_judged_whatever_their_id(store_url: str, user_id: str) -> None:
    # A message with no speaker name is stored under the user id ("u-1842 takes warfarin").
    # Before, the rules read such a memory with an account id for a subject as a general
    # statement, no one's fact: a deployment with opaque ids kept no constraint at all.
    mem = _memory(store_url)
    for text in ("I take warfarin every evening.", "I'm allergic to peanuts."):
        mem.add({"role": "user", "content": text}, user_id=user_id)
    found = VisibleRepository.of(mem.store).critical_memories(Scope(user_id))
    assert sorted(c.ctype for c in found) == ["allergy", "medication"]


def test_the_write_path_marks_keys_borrowed_from_the_closest_entry(store_url: str) -> None:
    mem = _memory(store_url)
    indexer = VisibilityIndexer(mem.store, mem.env.embedder, lambda: None, mem.env.visibility)
    entry = MemoryEntry("m1", "maya", "Maya's little one still wakes up for a bottle.")
    for borrowed, kind in ((True, "nearest"), (False, "kb")):
        found = Assessment(True, 0.6, "child", "", "classifier", ["child-newborn"])
        found.borrowed = borrowed
        keys, vectors = indexer._keys(entry, found)
        assert keys and len(keys) == len(vectors)
        assert {k.kind for k in keys} == {kind}
        assert {k.ref for k in keys} == {"child-newborn"}


def _peanut_allergy(store_url: str) -> tuple[Memory, VisibleRoute, Scope, str]:
    """A user with a peanut allergy among ordinary memories, and a request it decides."""
    mem = _memory(store_url, min_probability=0.0)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    return mem, VisibleRoute(), Scope("maya"), "Should I order satay tonight?"


def test_keys_borrowed_from_the_closest_entry_count_for_their_precision(
    store_url: str,
) -> None:
    # A constraint no entry links gets its closest entry's keys (kind "nearest"); they are
    # its own only NEAREST_PRECISION of the time, else its similarity alone speaks for it.
    mem, route, scope, query = _peanut_allergy(store_url)
    [linked] = route.propose(mem.env, query, scope, 10, None).probabilities
    repo = VisibleRepository.of(mem.store)
    keys, vectors = repo.memory_keys(scope)
    repo.add_keys("maya", [replace(k, kind="nearest") for k in keys], vectors)
    st = state(mem.env, scope)
    assert st.borrowed.tolist() == [True]
    x, _ = route._features(mem.env, query, st, load_model())
    alone = float(load_model().probability(without_keys(x))[0])
    [borrowed] = route.propose(mem.env, query, scope, 10, None).probabilities
    assert borrowed == pytest.approx(NEAREST_PRECISION * linked + (1 - NEAREST_PRECISION) * alone)
    assert borrowed < linked


def test_a_balanced_probability_moves_to_the_stated_prior() -> None:
    p = np.array([0.5, 0.9, 0.99, 1.0], dtype=np.float32)
    assert shifted(p, 0.5) is p
    low = shifted(p, 0.2)  # odds times 1/4
    assert low[0] == pytest.approx(0.2)
    assert low[1] == pytest.approx(9 / 4 / (1 + 9 / 4))
    assert low[2] == pytest.approx(99 / 4 / (1 + 99 / 4), rel=1e-4)
    assert low[3] == pytest.approx(1.0, abs=1e-6)
    assert (shifted(p, 0.8)[:3] > p[:3]).all()


def test_the_trained_pool_moves_only_toward_a_larger_store() -> None:
    # The relevance model weighed each request's relevant entries against 20 others.
    assert pool_shift(0, 20) == 0.0  # as trained
    assert pool_shift(5, 20) == 0.0  # a small store does not make a constraint likelier
    assert pool_shift(21, 20) == 0.0
    assert pool_shift(201, 20) == pytest.approx(np.log(0.1))
    assert pool_shift(201, 0) == 0.0  # a model without a stated pool
    model = load_model()
    x = np.array([[0.6, 0.6, 0.0, 0.4]], dtype=np.float32)
    p, q = float(model.probability(x)[0]), float(model.probability(x, 201)[0])
    assert q / (1 - q) == pytest.approx(p / (1 - p) / 10, rel=1e-4)


def test_a_constraint_weighs_less_among_many_stored_constraints(store_url: str) -> None:
    # With store_pool on, the same allergy, engaged by the same request, is less likely to
    # matter when the store holds 41 critical memories than when it holds one (odds times
    # 20 / 40); off (the default) it is read as trained.
    mem, route, scope, query = _peanut_allergy(store_url)
    mem.env.visibility = mem.env.visibility.model_copy(
        update={"named_min_specificity": 1.0, "store_pool": True}
    )
    [alone] = route.propose(mem.env, query, scope, 10, None).probabilities
    _add(mem, *(f"I walked to the park with a friend on day {i}." for i in range(40)))
    repo = VisibleRepository.of(mem.store)
    allergy = {r.memory_id for r in repo.critical_memories(scope)}
    others = [e for e in mem.get_all(user_id="maya") if e.id not in allergy]
    repo.set_criticality(
        "maya", [Criticality(e.id, 1.0, "other", "test", "kb") for e in others[:40]]
    )
    assert len(state(mem.env, scope).rows) == 41

    def allergy_probability() -> float:
        shown = route.propose(mem.env, query, scope, 10, None)
        [p] = [p for h, p in zip(shown.hits, shown.probabilities, strict=True) if h.id in allergy]
        return p

    among = allergy_probability()
    assert among / (1 - among) == pytest.approx(alone / (1 - alone) / 2, rel=1e-3)
    mem.env.visibility = mem.env.visibility.model_copy(update={"store_pool": False})
    assert allergy_probability() == pytest.approx(alone)


def test_only_the_classifiers_probability_moves_to_the_constraint_prior(
    store_url: str,
) -> None:
    # The criticality classifier is fit on balanced classes; constraint_prior moves its
    # probability to the share of constraints a real store holds. A fact the knowledge
    # resource states (1.0) does not move.
    mem, route, scope, query = _peanut_allergy(store_url)
    [stated] = route.propose(mem.env, query, scope, 10, None).probabilities
    mem.env.visibility = mem.env.visibility.model_copy(update={"constraint_prior": 0.2})
    assert route.propose(mem.env, query, scope, 10, None).probabilities == pytest.approx([stated])
    repo = VisibleRepository.of(mem.store)
    [row] = repo.critical_memories(scope)
    repo.set_criticality("maya", [replace(row, score=0.8, source="classifier")])
    keys, vectors = repo.memory_keys(scope)
    repo.add_keys("maya", keys, vectors)
    [classified] = route.propose(mem.env, query, scope, 10, None).probabilities
    assert state(mem.env, scope).classified.tolist() == [True]
    assert classified == pytest.approx(stated * 0.5, rel=1e-4)  # odds 4 x 1/4


def test_a_named_key_leads_only_in_the_users_own_request(store_url: str) -> None:
    # In a question about someone else, naming 'satay' engages the allergy but does not by
    # itself outrank the evidence the semantic route found; in the user's own request it
    # leads.
    mem = _memory(store_url, min_probability=0.0)
    _add(mem, "I'm allergic to peanuts.", *ORDINARY)
    own = mem.context("Should I order satay tonight?", user_id="maya", k=4)
    assert own.items[0].route == "visible"
    recall = mem.context("Did Rosa order satay last week?", user_id="maya", k=4)
    assert recall.items[0].route == "semantic"


def _shown_beside_ordinary(store_url: str, fact: str) -> Callable[[str], bool]:
    """Whether a request puts ``fact``, stored among ordinary memories, in view (k = 4)."""
    mem = _memory(store_url)
    _add(mem, fact, *ORDINARY)

    def shown(request: str) -> bool:
        ctx = mem.context(request, user_id="maya", k=4)
        return any(i.route == "visible" for i in ctx.items)

    return shown


def test_the_auxiliary_will_names_no_key(store_url: str) -> None:
    # 'will' (the document) is a key of a dozen entries, a recent divorce among them: "my
    # will" names it; "What will ..." asks about the future and must not engage them.
    assert any("will" in e.situations for e in load_kb().entries.values())
    assert "will" not in tokens("What will the weather be like?", request=True)
    assert "will" not in tokens("Will it rain?", request=True)
    assert "will" not in tokens("Our plan will work, this will help", request=True)
    assert "will" in tokens("Should I update my will?", request=True)
    assert "will" in tokens("What will the weather be like?")  # a key's own text keeps it
    shown = _shown_beside_ordinary(store_url, "I'm in the middle of a divorce.")
    assert shown("Should I update my will?")
    assert not shown("What will the weather be like for a picnic?")


def test_a_noun_key_used_as_a_verb_names_no_key(store_url: str) -> None:
    # 'train' (the vehicle) is a key of motion sickness and of several other entries; "I
    # train on Sundays" is the verb and must not engage them, "the train" names it.
    assert any("train" in e.situations for e in load_kb().entries.values())
    for verb in ("Could we play chess?", "How do I train for a 5k?", "How to iron a shirt?"):
        assert not {"play", "train", "iron"} & set(tokens(verb, request=True)), verb
    for noun in ("Tickets for a play?", "Is the train ok?", "Foods high in iron?"):
        assert {"play", "train", "iron"} & set(tokens(noun, request=True)), noun
    assert "course" not in tokens("Of course, what should I cook?", request=True)
    assert "course" in tokens("Is an online course worth it?", request=True)
    shown = _shown_beside_ordinary(store_url, "I get motion sickness.")
    assert shown("Should I take the train to Leeds?")
    assert not shown("How often should I train for a 5k?")


def test_a_household_members_constraint_is_in_view_when_the_request_is_about_them(
    store_url: str,
) -> None:
    # The request names none of the constraint's keys: only the person it binds.
    fact = "My father has used a wheelchair since his stroke."
    shown = _shown_beside_ordinary(store_url, fact)
    assert shown("What should we plan for my parents' visit next month?")
    assert shown("Ideas for Dad's birthday dinner?")
    assert not shown("What should I get my son for his birthday?")
    assert not shown("Which laptop should I buy for work?")
    mem = _memory(store_url, member_weight=0.0)
    ctx = mem.context("Ideas for Dad's birthday dinner?", user_id="maya", k=4)
    assert not [i for i in ctx.items if i.route == "visible"]
    ctx = _memory(store_url).context("Ideas for Dad's birthday dinner?", user_id="maya", k=4)
    [item] = [i for i in ctx.items if i.route == "visible"]
    assert "the request is about their father" in item.reason


def test_a_general_statement_an_absence_or_an_illness_over_is_never_in_view(
    store_url: str,
) -> None:
    # Each names a constraint the resource covers; none is the user's fact now. The user's
    # own allergy, said after them, still is.
    said = [
        "Tree nut allergies are common in children.",  # stored as "maya said: ..."
        "My doctor says shellfish allergies often start in adulthood.",
        "My sprained ankle healed ages ago.",
        "I have no allergies to any medicines.",
    ]
    shown = _shown_beside_ordinary(store_url, said[0])
    assert not shown("Should I try the pecan pie?")
    mem = _memory(store_url)
    _add(mem, *said[1:], *ORDINARY)
    assert VisibleRepository.of(mem.store).critical_memories(Scope("maya")) == []
    _add(mem, "I'm allergic to peanuts.")
    ctx = mem.context("Should I order satay tonight?", user_id="maya", k=4)
    assert [i.text for i in ctx.items if i.route == "visible"] == ["maya is allergic to peanuts."]


def test_a_duty_on_fixed_days_comes_into_view_on_its_days_only(store_url: str) -> None:
    mem = _memory(store_url)
    _add(mem, "I babysit my nephew every Wednesday afternoon.", "I do yoga on Tuesday nights.",
         *ORDINARY)  # fmt: skip
    ctx = mem.context("Could you book me a dentist appointment for Wednesday at 2?",
                      user_id="maya", k=4)  # fmt: skip
    first = ctx.items[0]
    assert first.route == "visible" and "nephew" in first.text
    assert "commitment; a standing duty on Wednesdays" in first.reason
    assert "the request mentions 'wednesday'" in first.reason
    # Another day, or the pastime's day, engages no duty.
    for query in ("Could you book me a dentist appointment for Thursday at 2?",
                  "Can we meet on Tuesday night?"):  # fmt: skip
        ctx = mem.context(query, user_id="maya", k=4)
        assert all(i.route != "visible" for i in ctx.items), query


def test_a_request_names_a_duty_s_day_by_its_distance_from_today(store_url: str) -> None:
    mem = _memory(store_url)
    _add(mem, "I babysit my nephew every Wednesday afternoon.", *ORDINARY)
    query = "Could you book me a dentist appointment tomorrow at 2?"
    # 2030-01-01 is a Tuesday, so its "tomorrow" is a Wednesday; 2030-01-03 a Thursday.
    ctx = mem.context(query, user_id="maya", k=4, as_of="2030-01-01T09:00:00")
    first = ctx.items[0]
    assert first.route == "visible" and "nephew" in first.text
    assert "the request implies 'wednesday' ('tomorrow' is a Wednesday)" in first.reason
    ctx = mem.context(query, user_id="maya", k=4, as_of="2030-01-03T09:00:00")
    assert all(i.route != "visible" for i in ctx.items)


def test_tomorrow_counts_from_today_in_the_users_time_zone() -> None:
    """At any instant, Kiritimati (UTC+14) is a day or two ahead of Pago Pago (UTC-11)."""
    from types import SimpleNamespace
    from zoneinfo import ZoneInfo

    def today(zone: str) -> date:
        env = SimpleNamespace(as_of=None, visibility=VisibilitySettings(timezone=zone))
        return request_date(env)  # type: ignore[arg-type]

    ahead, behind = today("Pacific/Kiritimati"), today("Pacific/Pago_Pago")
    assert (ahead - behind).days in (1, 2)
    assert behind in {datetime.now(ZoneInfo("Pacific/Pago_Pago")).date() - timedelta(days=d)
                      for d in (0, 1)}  # fmt: skip
    with pytest.raises(ConfigError, match="unknown time zone 'Mars/Olympus'"):
        load_settings({"visibility": {"timezone": "Mars/Olympus"}})


def test_days_a_request_implies() -> None:
    thursday = date(2026, 12, 3)
    assert dated_days("Can you book me a haircut tomorrow at 5?", thursday) == [
        ("friday", "'tomorrow' is a Friday")
    ]
    assert dated_days("Dinner tonight, or the day after tomorrow?", thursday) == [
        ("saturday", "'day after tomorrow' is a Saturday"),
        ("thursday", "'tonight' is a Thursday"),
    ]
    assert dated_days("Any ideas for a quiet dinner?", thursday) == []
    implied = dict(expansions("Plan a Friday-to-Sunday getaway"))
    assert [d for d in ("friday", "saturday", "sunday") if d in implied] == [
        "friday",
        "saturday",
        "sunday",
    ]
    assert implied["saturday"] == "'friday-to-sunday' names Saturday"


@pytest.mark.parametrize("llm_says_critical", [True, False])
def test_a_duty_keeps_its_days_whatever_the_llm_judges(
    store_url: str, llm_says_critical: bool
) -> None:
    llm = FakeLLM()
    item = {"index": 0, "critical": llm_says_critical, "type": "childcare",
            "situations": ["dentist appointment"] if llm_says_critical else []}  # fmt: skip
    llm.queue(json.dumps({"items": [item]}))
    mem = _memory(store_url, llm=llm)
    _add(mem, "I babysit my nephew every Wednesday afternoon.")
    llm.queue(json.dumps({"hypotheses": []}), json.dumps({"hypotheses": []}))
    ctx = mem.context("Can we get lunch on Wednesday?", user_id="maya", k=3)
    assert ctx.items[0].route == "visible"
    assert "the request mentions 'wednesday'" in ctx.items[0].reason
    if llm_says_critical:  # the model's situations join the days
        ctx = mem.context("When should I book the dentist appointment?", user_id="maya", k=3)
        assert "the request mentions 'dentist appointment'" in ctx.items[0].reason


def test_a_constraint_with_a_stated_term_engages_until_its_last_day(store_url: str) -> None:
    mem = _memory(store_url)
    mem.add("I can't drive until March.", user_id="maya", timestamp="2031-01-05")
    mem.add("I'm allergic to penicillin.", user_id="maya", timestamp="2031-01-05")
    for text in ORDINARY:
        mem.add(text, user_id="maya", timestamp="2031-01-06")
    query = "Can you plan a road trip for us?"
    # Before the end it engages the request and says until when it holds.
    during = mem.context(query, user_id="maya", k=4, as_of="2031-02-10T09:00:00")
    shown = [i for i in during.items if i.route == "visible" and "drive" in i.text]
    assert shown and "holds until 2031-03-31, as stated" in shown[0].reason
    # After it, the route no longer puts it in view; search still finds it.
    after = mem.context(query, user_id="maya", k=4, as_of="2031-04-02T09:00:00")
    assert not [i for i in after.items if i.route == "visible" and "drive" in i.text]
    assert any("drive" in h.text for h in mem.search("drive", user_id="maya", k=4).hits)
    # A constraint stated with no end engages whenever the request does.
    query = "Which antibiotics are safe for me?"
    for moment in ("2031-02-10T09:00:00", "2040-01-01T09:00:00"):
        ctx = mem.context(query, user_id="maya", k=4, as_of=moment)
        assert any(i.route == "visible" and "penicillin" in i.text for i in ctx.items), moment


def test_a_configured_day_reads_terms_and_tomorrow(store_url: str) -> None:
    """``visibility.today`` fixes the day requests are read on, as ``as_of`` does."""
    mem = _memory(store_url, today="2031-02-10")
    mem.add("I can't drive until March.", user_id="maya", timestamp="2031-01-05")
    for text in ORDINARY:
        mem.add(text, user_id="maya", timestamp="2031-01-06")
    ctx = mem.context("Can you plan a road trip for us?", user_id="maya", k=4)
    assert any(i.route == "visible" and "drive" in i.text for i in ctx.items)
    later = _memory(store_url, today="2031-04-02")
    ctx = later.context("Can you plan a road trip for us?", user_id="maya", k=4)
    assert not [i for i in ctx.items if i.route == "visible" and "drive" in i.text]
