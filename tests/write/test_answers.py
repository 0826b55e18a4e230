"""A short reply read with the assistant's question as the user's statement (examples
written for these tests from general knowledge, not benchmark items)."""

from __future__ import annotations

import pytest

from logicmem.types import Turn
from logicmem.write.answers import answered
from logicmem.write.rules import RuleExtractor


@pytest.mark.parametrize(
    ("question", "reply", "statement"),
    [
        # a yes or no to a question about the user
        ("Are you vegetarian?", "Yep.", "I am vegetarian."),
        ("Are you vegetarian?", "no way!", "I am not vegetarian."),
        ("Do you drink alcohol?", "Never.", "I do not drink alcohol."),
        ("Do you smoke?", "Not anymore.", "I do not smoke anymore."),
        ("Do you have a pet?", "No, not anymore.", "I do not have a pet anymore."),
        ("Can you eat dairy?", "nope", "I cannot eat dairy."),
        ("Have you ever had surgery?", "Yes.", "I have had surgery."),
        ("Are you still vegetarian?", "No.", "I am not vegetarian anymore."),
        ("Have you had a flu shot?", "Not yet.", "I have not had a flu shot yet."),
        ("Do you cook?", "not much", "I do not cook much."),
        ("Can you manage stairs?", "Not easily.", "I cannot manage stairs easily."),
        ("How old is your daughter?", "She's 7.", "My daughter is 7 years old."),
        ("Do you smoke?", "Used to.", "I do not smoke anymore (used to)."),
        ("Are you vegetarian?", "haha no", "I am not vegetarian."),
        ("Do you drink alcohol?", "Zero.", "I do not drink alcohol."),
        ("Are you pregnant?", "Hmm, yes!", "I am pregnant."),
        ("Do you drink coffee?", "Quit in May.", "I do not drink coffee anymore (quit in May)."),
        ("Great, and are you vegan?", "yes please", "I am vegan."),
        # ... or about what is theirs
        ("Does your son wear glasses?", "Yes.", "My son wears glasses."),
        ("Does your daughter have allergies?", "No.", "My daughter does not have allergies."),
        ("Is your flat on the ground floor?", "No", "My flat is not on the ground floor."),
        # the thing asked for, named
        ("Are you allergic to anything?", "Yes, wasps.", "I am allergic to wasps."),
        ("Are you allergic to anything?", "No.", "I am not allergic to anything."),
        ("Do you take any medications?", "Just levothyroxine.",
         "I take medications: just levothyroxine."),
        ("Do you have any drug allergies?", "Sulfa drugs.", "I have drug allergies: Sulfa drugs."),
        ("Any allergies?", "Latex.", "I have allergies: Latex."),
        ("Any dietary restrictions I should know about?", "Halal.",
         "I have dietary restrictions: Halal."),
        ("Any pets at home?", "Nope, none.", "I have no pets."),
        ("Do you need any mobility aids?", "None needed.", "I do not need any mobility aids."),
        # a detail beside a yes or no
        ("Do you have a car?", "Yes, an old Civic.", "I have a car (an old Civic)."),
        # an age, a number, what is the user's
        ("How old are your kids?", "3 and 11.", "My kids are 3 and 11 years old."),
        ("How old is your mum?", "eighty-two", "My mum is eighty-two years old."),
        ("How old are you?", "61", "I am 61 years old."),
        ("How old is your baby?", "Ten months.", "My baby is ten months old."),
        ("Any allergies or intolerances?", "None.", "I have no allergies or intolerances."),
        ("How many dogs do you have?", "Two.", "I have two dogs."),
        ("How many kids do you have?", "zero", "I have no kids."),
        ("What's your budget?", "About 300 a month.", "My budget is about 300 a month."),
        ("Which medications do you take?", "Only lisinopril.",
         "The medications I take: only lisinopril."),
        ("What foods is your son allergic to?", "Eggs and sesame.",
         "The foods my son is allergic to: Eggs and sesame."),
        ("What do you do for work?", "ICU nurse, nights.", "My job: ICU nurse, nights."),
        # anyone the user lives with, and who
        ("Does anyone at home have allergies?", "My son, tree nuts.",
         "My son has allergies (tree nuts)."),
        ("Is anyone at home allergic to anything?", "my wife, bees",
         "My wife is allergic to bees."),
        ("Is anyone in your household pregnant?", "Yes, my partner.", "My partner is pregnant."),
        ("Does anyone in your family use a cane?", "My grandma does.", "My grandma uses a cane."),
        ("Is anyone at home vegetarian?", "Yes.", "Someone in my household is vegetarian."),
    ],
)  # fmt: skip
def test_a_reply_and_its_question_read_as_the_users_statement(
    question: str, reply: str, statement: str
) -> None:
    assert answered(question, reply) == statement


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Do you want me to save this?", "Yes."),  # consent to the assistant
        ("Can you tell me more about it?", "Sure, it was in May."),
        ("Would you like a reminder?", "Yes please."),
        ("Tea or coffee?", "Coffee."),
        ("Do you prefer tea or coffee?", "Coffee."),
        ("Did you sleep well?", "Not really."),  # one night
        ("Did you eat yet?", "yes"),
        ("Are you going out tonight?", "No, staying in."),  # the moment
        ("Are you hungry?", "yeah, starving"),
        ("Is your phone charged?", "nope"),  # a thing, not the household
        ("Does your coworker eat meat?", "No, she's vegan."),  # not the user's
        ("Are you pregnant?", "not sure yet"),  # no answer
        ("Any allergies?", "Why do you ask?"),
        ("Are you allergic to anything?", "Yes, I'm allergic to bee stings."),  # says it
        ("Where do you live?", "Leeds."),  # a form not read
        ("Anything else?", "No."),
        # no yes or no, and no "any" for it to name: a yes cannot be told from a no
        ("Is your flat on the ground floor?", "Third floor, no lift."),
        ("Do you have asthma?", "Mild."),
        ("Is your cat an indoor cat?", "She is."),  # a sentence of its own
        ("Any allergies or medications?", "Penicillin."),  # which one?
        ("How old are your kids or grandkids?", "4 and 9"),
        ("Does anyone at home smoke?", "My neighbour."),  # not the household
        ("Does anyone at home smoke?", "Nope."),  # "No one ... smokes" reads as smoking
        ("Does anyone at home have allergies?", "My son has hay fever."),  # says it
    ],
)
def test_a_pair_of_no_form_read_gives_nothing(question: str, reply: str) -> None:
    assert answered(question, reply) is None


def _turn(n: int, speaker: str, text: str) -> Turn:
    role = {"Maya": "user", "assistant": "assistant"}.get(speaker, "other")
    return Turn(user_id="maya", session_id="s1", turn_id=f"t{n}", speaker=speaker, text=text,
                role=role)  # type: ignore[arg-type]  # fmt: skip


def _exchange(asked: str, said: str, asker: str = "assistant") -> list[Turn]:
    return [_turn(0, asker, asked), _turn(1, "Maya", said)]


def test_the_extractor_writes_the_pair_as_the_users_statement() -> None:
    # "Yep." alone was an acknowledgement, and nothing was kept.
    (memory,) = RuleExtractor().extract(_exchange("Are you vegetarian?", "Yep."))
    assert memory.text == "Maya is vegetarian."
    assert memory.source_turns == ["t1"]
    (member,) = RuleExtractor().extract(_exchange("How old are your boys?", "4 and 9."))
    assert member.text == "Maya's boys are 4 and 9 years old."
    # What the reply says after the answer goes on as before: here it leans on the first.
    (pets,) = RuleExtractor().extract(
        _exchange("Do you have any pets?", "Yes, a beagle. He is nine and half deaf.")
    )
    assert pets.text == "Maya has pets: a beagle. He is nine and half deaf."


def test_a_reply_to_two_questions_is_kept_beside_them() -> None:
    # Which one "Penicillin." answers is not for rules to guess.
    (memory,) = RuleExtractor().extract(_exchange("Any allergies? Any medications?", "Penicillin."))
    assert memory.text == 'Maya said: Penicillin. (in reply to "Any allergies? Any medications?")'


def test_another_persons_question_is_not_read_so() -> None:
    assert RuleExtractor().extract(_exchange("Are you vegetarian?", "Yep.", asker="Ben")) == []
