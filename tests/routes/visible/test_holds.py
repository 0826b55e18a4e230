"""Sentences that name a constraint's topic but state no standing fact that holds for
anyone now: a general statement or a report of one, something over, an absence, the topic
of something watched or read (sentences written for these tests from general knowledge,
not benchmark items)."""

from __future__ import annotations

import pytest

from logicmem.routes.visible.holds import ABSENT, GENERIC, OVER, TOPIC, not_standing
from logicmem.write.person import to_third_person


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # general statements and reports of them
        ("Gout is more common in men than in women.", ""),  # one word: a name as often
        ("Sickle cell disease runs in families.", GENERIC),
        ("Most cats can't digest cow's milk.", GENERIC),
        ("Migraine headaches are often worse with bright light.", GENERIC),
        ("Apparently lots of welders end up with hearing loss.", GENERIC),
        ("Shift workers have higher rates of insomnia, did you know.", GENERIC),
        ("Milk and cheese are hard on a lot of stomachs.", GENERIC),
        ("I read that statins can cause muscle aches.", GENERIC),
        ("Ana says lupus is hard to diagnose.", GENERIC),
        ("Grapes are toxic to dogs, or so I heard.", GENERIC),
        ("omar said: Tree nut allergies are rarely outgrown.", GENERIC),  # a rules note
        ("omar is lactose intolerant.", ""),  # a user id in lower case is still a name
        ("According to the pharmacist, ibuprofen irritates the stomach.", GENERIC),
        # the same topics, a person's own fact
        ("My doctor says I'm prediabetic.", ""),
        ("Ana's cardiologist says Ana has to stay on the statin for good.", ""),
        ("Sickle cell disease runs in my family.", ""),
        ("Omar is vegan.", ""),
        ("Marcus can't eat gluten.", ""),
        ("Takes warfarin daily.", ""),
        ("Bad knee here, so no stairs.", ""),
        ("Vegan, so no butter please.", ""),
        ("The twins are in daycare until five.", ""),
        ("Both knees are shot after years of running.", ""),
        ("Kids are 5 and 8.", ""),
        ("Allergies are acting up today.", ""),
        ("Working nights is rough.", ""),
        ("Our cat is on thyroid pills.", ""),
        ("Priya thinks the new bakery's rye loaves are perfect.", ""),
        ("Marcus gave up drinking after a health scare and doesn't miss it.", ""),
        ("Cows are sacred in Ravi's family, so beef never comes into the house.", ""),
        ("Every paycheck is spoken for before it lands.", ""),
        ("Omar'd rather walk to work than earn more across town.", ""),
        # over, and left nothing
        ("My sprained ankle healed ages ago.", OVER),
        ("Got over the flu and I'm back at work.", OVER),
        ("The rash cleared up once I switched soap.", OVER),
        ("Lena finished the course of antibiotics and feels fine now.", OVER),
        ("Years ago I broke my wrist; it's been fine since.", OVER),
        # over, but something holds
        ("My knee never healed right.", ""),
        ("I'm still not over this chest cold.", ""),
        ("The fracture healed, but I can't kneel anymore.", ""),
        ("The infection cleared up, though I'm still on a low dose of antibiotics.", ""),
        ("My blood sugar is fine now that I'm on metformin.", ""),
        ("I'm back at work after the baby, pumping twice a day.", ""),
        ("My gallbladder is gone, so fatty meals are out.", ""),
        ("I recovered from an eating disorder in my twenties.", ""),
        # absences
        ("I'm not allergic to any foods.", ABSENT),
        ("Dev doesn't take any medication.", ABSENT),
        ("Ivy has never broken a bone.", ABSENT),
        ("Her strep test came back negative.", ABSENT),
        ("No known allergies.", ABSENT),
        # the absence's own words are not something that still holds ("on", "taking")
        ("Omar isn't on any medication.", ABSENT),
        ("Lena isn't taking any pills at the moment.", ABSENT),
        ("Ravi doesn't have any chronic conditions.", ABSENT),
        ("Ivy has no food intolerances.", ABSENT),
        ("Jon does not need any mobility aids.", ABSENT),
        ("Ana does not have children.", ABSENT),
        # ... but what is said beside them is
        ("Omar isn't on any medication except insulin.", ""),
        ("Lena doesn't take any pills but uses an inhaler.", ""),
        # a rule about intake, or someone else's rule, is no absence
        ("I don't eat any meat.", ""),
        ("I can't have anything with gluten.", ""),
        ("The landlord says no pets.", ""),
        ("Wheat bloats me, though my celiac test came back negative.", ""),
        # the topic of something watched, read or heard, and nothing more
        ("Sam watched a documentary about living with epilepsy.", TOPIC),
        ("Priya is reading a memoir about a paramedic in Glasgow.", TOPIC),
        ("Leo listened to a podcast on paying off student loans.", TOPIC),
        ("Sam reads books about bonsai.", TOPIC),
        # ... unless the sentence goes on, or the topic is someone's own
        ("Sam read a book about celiac disease after the diagnosis.", ""),
        ("Sam watched a documentary about his own heart condition.", ""),
        ("Sam read a book about minimalism and now owns very little.", ""),
    ],
)
def test_a_sentence_that_states_no_standing_fact_says_why(text: str, why: str) -> None:
    assert not_standing(text) == why


@pytest.mark.parametrize(
    "said",
    [
        "I haven't had a drink in two years.",
        "I haven't driven since the seizure.",
        "I wanna keep the dog's diet grain-free.",
    ],
)
def test_a_users_own_fact_stays_theirs_whatever_their_name_ends_in(said: str) -> None:
    # Written by the write path for a user named James: a name ending in "s" with a verb
    # left in the first person ("James haven't ...") reads as a plural kind ("Nurses
    # haven't ..."), a general statement, unless the verb is conjugated.
    assert not_standing(to_third_person(said, "James")) == ""


@pytest.mark.parametrize(
    "said",
    [
        "We're vegan.",
        "We are lactose intolerant.",
        "We have a dog and two cats.",
        "We're both allergic to shellfish.",
        "We live on the fourth floor with no lift.",
    ],
)
def test_what_the_speaker_says_of_us_stays_the_households_fact(said: str) -> None:
    # The write path writes "we" as "Maya and family": a name and a plural verb, like a
    # kind's ("Dogs and cats are ..."), until "family" reads as people.
    assert not_standing(to_third_person(said, "Maya")) == ""
