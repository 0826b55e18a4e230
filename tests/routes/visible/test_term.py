"""The end a memory states for its own term (``routes.visible.term``), on sentences written
for these tests from everyday life (not benchmark items)."""

from datetime import date

import pytest

from logicmem.routes.visible.term import stated_end


@pytest.mark.parametrize(
    ("text", "said", "end"),
    [
        # until a month (its last day; the next such month), a day, a weekday
        ("Ana can't drive until March.", "2024-01-05", date(2024, 3, 31)),
        ("Ana can't drive until March.", "2024-05-10", date(2025, 3, 31)),
        ("Ana is staying at her sister's until May 3.", "2024-03-20", date(2024, 5, 3)),
        ("Ana is staying at her sister's till the 3rd of May.", "2024-03-20", date(2024, 5, 3)),
        ("Ana can't lift anything heavy until the 14th.", "2024-03-20", date(2024, 4, 14)),
        ("Ana is on a spending freeze through mid-June.", "2024-03-20", date(2024, 6, 15)),
        ("Ana's mom is staying with them until Sunday.", "2024-03-06", date(2024, 3, 10)),
        ("Ana works from home until Wednesday.", "2024-03-06", date(2024, 3, 13)),
        ("Ana can't have caffeine until 2026.", "2024-03-20", date(2026, 12, 31)),
        # as an LLM extractor may write a date it resolved
        ("Ana cannot drive until 31 March 2024.", "2024-01-05", date(2024, 3, 31)),
        ("Ana cannot drive until 2024-03-31.", "2024-01-05", date(2024, 3, 31)),
        # the end of a period
        ("Ana is grounded until the end of the month.", "2024-02-10", date(2024, 2, 29)),
        ("Ana is away until next week.", "2024-03-20", date(2024, 3, 31)),
        ("Ana's licence is suspended until next year.", "2024-03-20", date(2024, 12, 31)),
        # a term that runs from now
        ("Ana is on amoxicillin for the next 10 days.", "2024-03-02", date(2024, 3, 12)),
        ("Ana is off alcohol for another two weeks.", "2024-03-02", date(2024, 3, 16)),
        ("Ana is on crutches for 3 more weeks.", "2024-03-20", date(2024, 4, 10)),
        ("Ana was told to rest her knee for a week.", "2024-03-20", date(2024, 3, 27)),
        ("Ana is on a liquid diet for a couple of days.", "2024-03-20", date(2024, 3, 22)),
        ("Ana takes prednisone for the next month.", "2024-01-31", date(2024, 2, 29)),
        ("Ana is on nights for the rest of the week.", "2024-03-20", date(2024, 3, 24)),
        # a period the state fills
        ("No alcohol for Ana this month.", "2024-03-02", date(2024, 3, 31)),
        ("Ana is on call this weekend.", "2024-03-06", date(2024, 3, 10)),
        ("Ana is fasting tomorrow for a blood test.", "2024-03-20", date(2024, 3, 21)),
        # a relative date's hint, as the write path appends it, is not the text's
        ("Ana is on call tonight (tonight = 20 March 2024).", "2024-03-20", date(2024, 3, 20)),
        # a pregnancy: by its stage, 42 weeks at most, or two weeks after the day it is due
        ("Ana is 8 weeks pregnant.", "2024-01-10", date(2024, 9, 4)),
        ("Ana's wife is 7 months pregnant with their second.", "2024-01-10", date(2024, 4, 3)),
        ("Ana is pregnant!", "2024-01-10", date(2024, 10, 30)),
        ("Ana is expecting a baby in March.", "2024-01-10", date(2024, 4, 14)),
        ("Ana is due on May 3 with twins.", "2024-01-10", date(2024, 5, 17)),
    ],
)  # fmt: skip
def test_the_last_day_a_stated_term_holds(text: str, said: str, end: date) -> None:
    assert stated_end(text, said) == end


@pytest.mark.parametrize(
    "text",
    [
        # no time at all, or a span into the past
        "Ana is allergic to shellfish.",
        "Ana has been vegetarian for 10 years.",
        "For the past two weeks Ana has had headaches.",
        "Ana has had asthma for years.",
        # an end tied to an event with no date, or none at all
        "Ana can't drive until her cast comes off.",
        "Ana is off work until further notice.",
        # when, not how long; a frequency
        "The party is this weekend.",
        "Can't wait for tomorrow's recital!",
        "Ana is going to visit her aunt this weekend, no plans after.",
        "Ana is planning a garage sale later this month.",
        "Ana's surgery is on March 3.",
        "Ana runs three times a week.",
        # over, a plan or a wish, a question
        "Ana was on antibiotics until Monday.",
        "Ana used to smoke until 2019.",
        "Ana went to Spain for a week.",
        "Ana might cut out sugar for a month.",
        "If the job comes through, Ana moves in June and rents until December.",
        "Should Ana stop ibuprofen for a week?",
        # a fact with no end beside one with an end is kept whole
        "Ana is allergic to penicillin and is on amoxicillin for 10 days.",
        "Ana is diabetic. Ana is on antibiotics for a week.",
        # a pregnancy wished, over or in doubt; a due day of something else
        "Ana is trying to get pregnant.",
        "Ana was pregnant with twins in 2019.",
        "Ana might be pregnant.",
        "Ana's report is due in March.",
    ],
)  # fmt: skip
def test_no_end_is_read_where_none_is_stated_for_what_holds(text: str) -> None:
    assert stated_end(text, "2024-03-20") is None


def test_an_end_already_past_when_said_or_an_undated_memory_has_none() -> None:
    assert stated_end("Ana can't drive until the end of 2023.", "2024-03-20") is None
    assert stated_end("Ana can't drive until March.", None) is None
    assert stated_end("Ana can't drive until March.", "not a date") is None
