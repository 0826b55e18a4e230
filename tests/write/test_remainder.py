"""What a memory still says once a later statement ended part of it.

The clause reading and ``rest`` are tested on their own (no model); the write path runs
the real MiniLM embedder, on which the retraction thresholds were set.
"""

from __future__ import annotations

import pytest

from logicmem import Memory
from logicmem.types import MemoryEntry
from logicmem.write.remainder import clauses, introduced, parts, rest


def _texts(text: str) -> list[str]:
    return [c.text for c in clauses(text, "Maya")]


# -- clauses --------------------------------------------------------------------------------
def test_a_clause_starts_with_a_subject_and_a_verb_or_a_verb_that_shares_one() -> None:
    assert _texts("Maya takes 20 mg of lisinopril and Maya is allergic to penicillin.") == [
        "Maya takes 20 mg of lisinopril",
        "Maya is allergic to penicillin",
    ]
    assert _texts("Maya lives in Boston and works at a bakery.") == [
        "Maya lives in Boston",
        "Maya works at a bakery",
    ]
    assert _texts("Maya's daughter Ava is 7 and she plays the violin.") == [
        "Maya's daughter Ava is 7",
        "Maya's daughter Ava plays the violin",
    ]
    # Two sentences are two clauses; a pronoun takes the subject of the one before.
    assert _texts("Maya's car is old. It needs new brakes.") == [
        "Maya's car is old",
        "Maya's car needs new brakes",
    ]


def test_what_cannot_stand_alone_stays_with_the_clause_before() -> None:
    # Lists, objects and verbs of no subject read are not clauses.
    assert _texts("Maya likes hiking and camping with friends.") == [
        "Maya likes hiking and camping with friends"
    ]
    assert _texts("Maya's kids are 5 and 9.") == ["Maya's kids are 5 and 9"]
    # Maya says "I": "she" after Maya's own clause is someone else, not read as Maya.
    assert _texts("Maya met Lena at work and she is a pilot.") == [
        "Maya met Lena at work and she is a pilot"
    ]
    # "they" stands only for a plural.
    assert _texts("Maya has two kids, and they love soccer.") == [
        "Maya has two kids, and they love soccer"
    ]
    assert _texts("Maya's parents are retired and they live in Porto.") == [
        "Maya's parents are retired",
        "Maya's parents live in Porto",
    ]


def test_a_pronoun_contracted_with_its_verb_is_spelled_out() -> None:
    assert _texts("Maya's dad lives with Maya and he's been unwell since May.") == [
        "Maya's dad lives with Maya",
        "Maya's dad has been unwell since May",
    ]
    assert _texts("Maya's twins are 3 and they're in daycare.") == [
        "Maya's twins are 3",
        "Maya's twins are in daycare",
    ]


def test_a_dose_after_a_dose_is_a_clause_taken_as_the_first_was() -> None:
    said = "Maya takes 10 mg of lisinopril, 20 mg of atorvastatin and 5 mg of amlodipine daily."
    assert [c.text for c in clauses(said, "Maya")] == [
        "Maya takes 10 mg of lisinopril",
        "Maya takes 20 mg of atorvastatin",
        "Maya takes 5 mg of amlodipine daily",
    ]
    # Not a number of anything else, nor a dose with no dose before it.
    assert len(clauses("Maya ran 5 km and 3 km.", "Maya")) == 1
    assert len(clauses("Maya takes lisinopril and 20 mg of atorvastatin.", "Maya")) == 1


def test_one_of_a_list_of_things_named_is_a_clause_had_as_the_first_was() -> None:
    assert parts("Maya has a cat named Miso and a dog named Biscuit.", "Maya") == [
        "Maya has a cat named Miso",
        "Maya has a dog named Biscuit",
    ]
    # Two named with one verb, not each a thing of its own: one clause.
    assert parts("Maya's dogs are named Rex and Bella.", "Maya") == []


def test_a_list_keeps_the_things_an_ending_does_not_end() -> None:
    def ends(name: str):  # an ending that names one thing
        return lambda clause: name in clause

    said = "Maya takes metformin, lisinopril and atorvastatin."
    assert rest(said, "Maya", ends("lisinopril")) == "Maya takes metformin and atorvastatin."
    said = "Maya is allergic to penicillin and sulfa drugs."
    assert rest(said, "Maya", ends("penicillin")) == "Maya is allergic to sulfa drugs."
    said = "Maya takes metformin and lisinopril every day."
    assert rest(said, "Maya", ends("metformin")) == "Maya takes lisinopril every day."
    # Names before the head noun they share: each is a thing of that kind.
    said = "Maya has a Spotify and a Netflix subscription."
    assert rest(said, "Maya", ends("Spotify")) == "Maya has a Netflix subscription."
    # Things owned, kept, driven: each its own ("sold the kayak" keeps the bike).
    said = "Maya owns a kayak and a mountain bike."
    assert rest(said, "Maya", ends("kayak")) == "Maya owns a mountain bike."
    said = "Maya's dad drives a pickup and a minivan."
    assert rest(said, "Maya", ends("pickup")) == "Maya's dad drives a minivan."
    # The user among those named is no list of things: one household, ended whole.
    said = "Maya's dad lives with Maya and family since his fall."
    assert rest(said, "Maya", ends("Maya ")) is None
    # Every thing of the list ended, or none alone: the whole memory ends.
    assert rest(said, "Maya", lambda clause: True) is None
    assert rest(said, "Maya", lambda clause: "and" in clause) is None


def test_a_relative_outside_the_household_is_introduced_too() -> None:
    said = "Maya's sister Dana is staying with Maya and family until she finds a place."
    assert introduced(said, "Maya", "Maya said: Dana moved out.") == [
        "Maya's sister is named Dana."
    ]


def test_a_short_phrase_after_and_shares_the_subjects_be() -> None:
    assert parts("Maya's daughter is 6 and in first grade.", "Maya") == [
        "Maya's daughter is 6",
        "Maya's daughter is in first grade",
    ]
    assert parts("Maya's dog Rex is 3 and weighs 60 pounds.", "Maya") == [
        "Maya's dog Rex is 3",
        "Maya's dog Rex weighs 60 pounds",
    ]
    # Not a phrase with a verb of its own.
    assert parts("Maya is allergic to cats and in the spring gets hay fever.", "Maya") == []


def test_who_a_memory_introduces_and_a_later_one_names_alone() -> None:
    old = "Maya's son Leo is in 2nd grade and Maya's wife Ana is a nurse."
    assert introduced(old, "Maya", "Maya said: Leo started third grade.") == [
        "Maya's son is named Leo."
    ]
    # Told with the relation, or not named at all: nothing to keep.
    assert introduced(old, "Maya", "Maya's son Leo started third grade.") == []
    assert introduced(old, "Maya", "Maya said: Sam started third grade.") == []
    # Told by the relation alone, the name stays known too.
    assert introduced(old, "Maya", "Maya's son started third grade.") == [
        "Maya's son is named Leo."
    ]


def test_a_list_of_names_is_no_clause() -> None:
    assert _texts("Maya and family have two cats, Luna and Pip, and Maya is allergic to dogs.") == [
        "Maya and family have two cats, Luna and Pip",
        "Maya is allergic to dogs",
    ]


def test_a_consequence_follows_from_the_clause_before() -> None:
    found = clauses("Maya's son has a peanut allergy, so Maya carries an EpiPen.", "Maya")
    assert [c.text for c in found] == ["Maya's son has a peanut allergy", "Maya carries an EpiPen"]
    assert [c.follows for c in found] == [False, True]


# -- rest -----------------------------------------------------------------------------------
def test_rest_keeps_the_clauses_not_ended() -> None:
    text = "Maya takes 20 mg of lisinopril every morning and Maya is allergic to penicillin."
    assert rest(text, "Maya", lambda c: "lisinopril" in c) == "Maya is allergic to penicillin."


def test_rest_is_none_when_nothing_or_everything_ends_alone() -> None:
    text = "Maya takes metformin and Maya walks every evening."
    assert rest(text, "Maya", lambda c: False) is None
    assert rest(text, "Maya", lambda c: True) is None
    assert rest("Maya takes metformin.", "Maya", lambda c: True) is None


def test_a_subject_may_have_an_adverb_before_its_verb() -> None:
    assert _texts("Maya also takes vitamin D and Maya still smokes.") == [
        "Maya also takes vitamin D",
        "Maya still smokes",
    ]
    assert _texts("Maya and family always camp in May, and they usually bring the dog.") == [
        "Maya and family always camp in May, and they usually bring the dog"
    ]


def test_what_follows_from_all_before_it_ends_only_when_all_did() -> None:
    text = "Sam has diabetes and Sam uses an insulin pump, so Maya keeps juice in the car."
    assert rest(text, "Maya", lambda c: "pump" in c) == (
        "Sam has diabetes. Maya keeps juice in the car."
    )
    assert rest(text, "Maya", lambda c: "pump" in c or "diabetes" in c) is None


def test_what_follows_from_an_ended_clause_ends_with_it() -> None:
    text = "Maya's son has a peanut allergy, so Maya carries an EpiPen. Maya rides to work."
    assert rest(text, "Maya", lambda c: "allergy" in c) == "Maya rides to work."
    # A sentence that leans on the one before it ends with it too.
    text = "Maya works nights at the hospital. That is hard on Maya. Maya plays chess."
    assert rest(text, "Maya", lambda c: "nights" in c) == "Maya plays chess."


def test_rest_keeps_the_date_hints_of_its_words_the_question_and_the_speaker() -> None:
    text = (
        "Maya's mom moved in with Maya last month, she uses a cane since her fall. "
        "(last month = March 2026)"
    )
    assert rest(text, "Maya", lambda c: "cane" in c) == (
        "Maya's mom moved in with Maya last month. (last month = March 2026)"
    )
    assert rest(text, "Maya", lambda c: "moved" in c) == "Maya's mom uses a cane since her fall."
    answered = 'Maya walks to work and Maya swims on Fridays. (in reply to "Do you exercise?")'
    assert rest(answered, "Maya", lambda c: "swims" in c) == (
        'Maya walks to work. (in reply to "Do you exercise?")'
    )
    quoted = "Maya said: Tom quit his job and Tom plays in a band."
    assert rest(quoted, "Maya", lambda c: "job" in c) == "Maya said: Tom plays in a band."


def test_rest_asks_about_each_clause_as_the_memory_would_say_it() -> None:
    asked: list[str] = []
    rest("Maya said: Tom quit his job and Tom plays in a band.", "Maya", asked.append)  # type: ignore[arg-type]
    assert asked == ["Maya said: Tom quit his job", "Maya said: Tom plays in a band"]


def test_parts_are_the_clauses_as_the_memory_says_them() -> None:
    text = 'Maya said: Tom sold his boat and Tom bought a van. (in reply to "News?")'
    assert parts(text, "Maya") == ["Maya said: Tom sold his boat", "Maya said: Tom bought a van"]
    assert parts("Maya sold Maya's boat last week. (last week = 2 March 2026)", "Maya") == []


# -- the write path -------------------------------------------------------------------------
def _said(mem: Memory, text: str, when: str) -> MemoryEntry:
    return mem.add(text, user_id="Maya", timestamp=when).added[0]


def _current(mem: Memory) -> list[str]:
    return [m.text for m in mem.get_all(user_id="Maya")]


@pytest.mark.slow
def test_stopping_a_drug_keeps_the_allergy_said_with_it(mem: Memory) -> None:
    both = _said(mem, "I take 20 mg of lisinopril and I'm allergic to penicillin.", "2026-03-02")
    stopped = mem.add("I stopped taking lisinopril.", user_id="Maya", timestamp="2026-05-02")
    [kept] = [m for m in stopped.added if m.metadata.get("kept_from") == both.id]
    assert kept.text == "Maya is allergic to penicillin."
    assert both.id in stopped.superseded
    assert _current(mem) == ["Maya stopped taking lisinopril.", kept.text]
    # Before the ending the whole memory held; after it, the part that still holds.
    before = [m.text for m in mem.get_all(user_id="Maya", as_of="2026-04-01")]
    after = [m.text for m in mem.get_all(user_id="Maya", as_of="2026-06-01")]
    assert before == [both.text] and kept.text in after and both.text not in after
    stored = mem.get(kept.id, user_id="Maya")
    assert (stored.said_at, stored.source_turns) == (both.said_at, both.source_turns)
    [closed] = [h for h in mem.history(both.id, user_id="Maya") if h["event"] == "RETRACT"]
    assert closed["detail"]["kept"] == kept.id
    hits = [h.id for h in mem.search("penicillin allergy", user_id="Maya", k=3).hits]
    assert kept.id in hits and both.id not in hits


@pytest.mark.slow
def test_a_new_value_keeps_what_else_the_memory_said(mem: Memory) -> None:
    _said(mem, "I live in Boston and work at a bakery as a pastry chef.", "2026-01-05")
    _said(mem, "My mom moved in with us, she uses a walker since her hip surgery.", "2026-02-01")
    mem.add("I moved to Denver.", user_id="Maya", timestamp="2026-04-01")
    mem.add("Mom doesn't need the walker anymore!", user_id="Maya", timestamp="2026-05-01")
    now = _current(mem)
    assert "Maya works at a bakery as a pastry chef." in now
    assert "Maya's mom moved in with Maya and family." in now
    assert not [t for t in now if "Boston" in t or "uses a walker" in t]


@pytest.mark.slow
def test_a_statement_arriving_late_keeps_what_the_newer_one_does_not_end(mem: Memory) -> None:
    _said(mem, "I stopped taking lisinopril.", "2026-05-02")
    late = mem.add(
        "I take 20 mg of lisinopril and I'm allergic to penicillin.",
        user_id="Maya",
        timestamp="2026-03-02",
    )
    whole, kept = late.added
    assert whole.status == "superseded" and kept.metadata["kept_from"] == whole.id
    assert kept.valid_from == "2026-05-02T00:00:00"
    assert _current(mem) == ["Maya stopped taking lisinopril.", "Maya is allergic to penicillin."]


@pytest.mark.slow
def test_an_ending_that_needs_the_whole_memory_closes_it_whole(mem: Memory) -> None:
    # Nothing of it is a clause the ending ends alone: it closes as before.
    _said(mem, "Our dog Rex is 12 now and has arthritis, so short walks only.", "2026-01-03")
    mem.add("Sad news: Rex passed away last night.", user_id="Maya", timestamp="2026-04-02")
    assert not [t for t in _current(mem) if "arthritis" in t]


@pytest.mark.slow
def test_an_ending_reaches_a_clause_of_someone_else_said_after_another(mem: Memory) -> None:
    # The memory opens with the partner's fact: read whole, it is not the daughter's.
    both = _said(mem, "My partner is a firefighter and my daughter Ivy takes piano lessons.",
                 "2026-01-05")  # fmt: skip
    mem.add("Ivy quit piano last month.", user_id="Maya", timestamp="2026-06-01")
    assert mem.get(both.id, user_id="Maya").status == "superseded"
    now = _current(mem)
    # Who Ivy is stays known with what stays (since 2026-12-06: an ending keeps who the
    # closed memory introduces).
    assert "Maya's partner is a firefighter. Maya's daughter is named Ivy." in now
    assert not [t for t in now if "piano lessons" in t]


@pytest.mark.slow
def test_an_ending_of_a_pet_named_reaches_its_clause(mem: Memory) -> None:
    # Only a name is said of what ended: it embeds far from the fact that names it.
    _said(mem, "We have a parrot named Kiwi and we live near the coast.", "2026-01-05")
    mem.add("We rehomed Kiwi with my aunt.", user_id="Maya", timestamp="2026-03-01")
    now = _current(mem)
    assert "Maya and family live near the coast." in now
    assert not [t for t in now if "parrot" in t]


@pytest.mark.slow
def test_a_members_job_ending_keeps_the_speakers_own_job(mem: Memory) -> None:
    _said(mem, "I work as a nurse and my husband Tom is a teacher.", "2026-01-05")
    mem.add("Tom retired last week.", user_id="Maya", timestamp="2026-03-05")
    now = _current(mem)
    assert "Maya works as a nurse. Maya's husband is named Tom." in now  # who Tom is stays
    assert not [t for t in now if "teacher" in t]


@pytest.mark.slow
def test_a_new_dose_of_one_drug_keeps_the_other_said_with_it(mem: Memory) -> None:
    _said(mem, "I take 10 mg of lisinopril and 20 mg of atorvastatin.", "2026-01-05")
    mem.add("I'm on 20 mg of lisinopril now.", user_id="Maya", timestamp="2026-04-05")
    now = _current(mem)
    assert "Maya takes 20 mg of atorvastatin." in now
    assert not [t for t in now if "10 mg" in t]


@pytest.mark.slow
def test_a_new_year_of_school_replaces_the_year_said_with_a_pronoun(mem: Memory) -> None:
    _said(mem, "I'm a nurse. My son Leo goes to Lincoln Elementary and he's in 2nd grade.",
          "2026-01-05")  # fmt: skip
    mem.add("Leo started third grade this week.", user_id="Maya", timestamp="2026-09-01")
    now = _current(mem)
    assert "Maya's son is named" not in " ".join(now)  # the part kept says who Leo is
    assert "Maya's son Leo goes to Lincoln Elementary." in " ".join(now)
    assert not [t for t in now if "2nd grade" in t]


@pytest.mark.slow
def test_a_new_year_of_school_said_with_the_school_keeps_the_school(mem: Memory) -> None:
    # One clause holds both: the year ends, the school and who the child is stay.
    _said(mem, "My daughter Mia is in 4th grade at Lincoln Elementary.", "2025-09-02")
    mem.add("Mia is in 5th grade now.", user_id="Maya", timestamp="2026-09-01")
    now = _current(mem)
    assert "Maya's daughter Mia goes to Lincoln Elementary." in now
    assert not [t for t in now if "4th grade" in t]
    # A new school the same way keeps the year.
    _said(mem, "My son Sam is a junior at Westfield High School.", "2026-01-05")
    mem.add("Sam transferred to Eastside High School.", user_id="Maya", timestamp="2026-02-01")
    now = _current(mem)
    assert "Maya's son Sam is a junior." in now
    assert not [t for t in now if "Westfield" in t]


@pytest.mark.slow
def test_a_new_dentist_keeps_the_email_said_with_the_old_one(mem: Memory) -> None:
    _said(mem, "My dentist is Dr. Patel and my email is mk@mail.com.", "2026-01-05")
    mem.add("I switched dentists, I see Dr. Gomez now.", user_id="Maya", timestamp="2026-04-05")
    now = _current(mem)
    assert "Maya's email is mk@mail.com." in now
    assert not [t for t in now if "Patel" in t]


@pytest.mark.slow
def test_a_new_school_of_the_only_son_told_of_replaces_his_school(mem: Memory) -> None:
    # "Our son" with one son named is that son; with two, neither school is replaced.
    sam = _said(mem, "Our son Sam attends Riverside Middle School.", "2026-01-05")
    mem.add("Our son started at Westfield High this week.", user_id="Maya",
            timestamp="2026-09-01")  # fmt: skip
    assert mem.get(sam.id, user_id="Maya").status == "superseded"
    assert "Maya's son is named Sam." in _current(mem)
    ben = _said(mem, "Our son Ben goes to Lincoln Elementary.", "2026-09-02")
    mem.add("Our son goes to Eastside Middle School now.", user_id="Maya", timestamp="2026-09-04")
    assert mem.get(ben.id, user_id="Maya").status == "active"


@pytest.mark.slow
def test_a_new_year_of_school_keeps_the_age_said_with_the_old_one(mem: Memory) -> None:
    old = _said(mem, "My daughter is 6 and in first grade.", "2026-01-05")
    mem.add("My daughter just started second grade.", user_id="Maya", timestamp="2026-09-01")
    assert mem.get(old.id, user_id="Maya").status == "superseded"
    now = _current(mem)
    assert "Maya's daughter is 6." in now
    assert not [t for t in now if "first grade" in t]


@pytest.mark.slow
def test_a_drug_switched_keeps_the_condition_said_with_it(mem: Memory) -> None:
    old = _said(mem, "My son has ADHD and takes Adderall.", "2026-01-05")
    mem.add("My son's doctor switched him to Vyvanse.", user_id="Maya", timestamp="2026-03-02")
    assert mem.get(old.id, user_id="Maya").status == "superseded"
    now = _current(mem)
    assert "Maya's son has ADHD." in now
    assert not [t for t in now if "Adderall" in t and "switched" not in t]


@pytest.mark.slow
def test_a_new_job_keeps_the_job_title_said_with_the_old_employer(mem: Memory) -> None:
    old = _said(mem, "I'm a nurse at St. Mary's.", "2026-01-05")
    mem.add("I switched to a clinic job at Evergreen Health.", user_id="Maya",
            timestamp="2026-03-02")  # fmt: skip
    assert mem.get(old.id, user_id="Maya").status == "superseded"
    assert "Maya works as a nurse." in _current(mem)


@pytest.mark.slow
def test_a_new_school_keeps_who_the_child_is(mem: Memory) -> None:
    _said(mem, "Our son Sam attends Riverside Middle School.", "2026-01-05")
    mem.add("Sam started at Westfield High School this week.", user_id="Maya",
            timestamp="2026-09-01")  # fmt: skip
    now = _current(mem)
    assert "Maya's son is named Sam." in now
    assert not [t for t in now if "Riverside" in t]


def test_a_verb_in_a_simple_past_of_its_own_form_opens_a_clause() -> None:
    # "quit", "broke" and "hurt" were no verbs: the subject before them went unread, and
    # a second verb after "and" stayed part of the first clause.
    assert _texts("Maya quit smoking and stopped drinking coffee.") == [
        "Maya quit smoking",
        "Maya stopped drinking coffee",
    ]
    assert _texts("Maya's son broke his arm and he is in a cast.") == [
        "Maya's son broke his arm",
        "Maya's son is in a cast",
    ]
    assert _texts("Maya's son is in 5th grade now and Maya's daughter quit the swim team.") == [
        "Maya's son is in 5th grade now",
        "Maya's daughter quit the swim team",
    ]
