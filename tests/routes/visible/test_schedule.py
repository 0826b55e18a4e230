"""Duties on fixed days (``routes.visible.schedule``), on sentences written for these tests
from everyday life (not benchmark items)."""

import pytest

from logicmem.routes.visible.criticality import Assessment, duties
from logicmem.routes.visible.schedule import (
    COMMITMENT,
    commitment,
    day_keys,
    recurring_days,
    when,
)

WORK = ("monday", "tuesday", "wednesday", "thursday", "friday")
ALL = (*WORK, "saturday", "sunday")


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Ana babysits her nephew every Wednesday afternoon.", ("wednesday",)),
        ("I volunteer at the shelter on Saturdays.", ("saturday",)),
        ("I have dialysis on Mondays, Wednesdays and Fridays.", ("monday", "wednesday", "friday")),
        ("He drives his dad to rehab every Tuesday and Thursday.", ("tuesday", "thursday")),
        ("I tutor a neighbour's kid on Monday and Wednesday evenings.", ("monday", "wednesday")),
        ("She works the night shift Friday through Sunday.", ("friday", "saturday", "sunday")),
        ("I pick up the twins from school every weekday.", WORK),
        ("We have the kids every other weekend.", ("saturday", "sunday")),
        ("I coach the under-12s on Sunday mornings.", ("sunday",)),
        ("I sit for the neighbours' toddler Mon/Wed/Fri.", ("monday", "wednesday", "friday")),
        ("I give my mother her insulin every evening.", ALL),
        # a day said by its place in the week, or every night of the working week
        ("I pick up my son at the end of each school week.", ("friday",)),
        ("I visit my grandmother at the start of every week.", ("monday",)),
        ("I help my dad with his exercises every weeknight.", WORK),
        ("Let's catch up at the end of the week.", ()),
        # days said as free are not the recurrence's
        ("I work at the garage every day except Sundays.", ALL[:6]),
        ("She works weekdays but has Fridays off.", WORK[:4]),
        ("I work weekends, not on Sundays though.", ("saturday",)),
        # one occasion, not a recurrence
        ("I'm babysitting my nephew next Wednesday.", ()),
        ("We drove to the coast on Saturday.", ()),
        ("Dinner at my parents' this Sunday.", ()),
        ("I had a long meeting on Monday.", ()),
    ],
)  # fmt: skip
def test_the_days_a_recurrence_names(text: str, days: tuple[str, ...]) -> None:
    assert recurring_days(text) == days


@pytest.mark.parametrize(
    "text",
    [
        "Ana babysits her nephew every Wednesday afternoon.",
        "I pick up my daughter from daycare at 5:30 every weekday.",
        "I drop the kids off at swim practice at 6 on weekdays.",
        "He drives his mother to physical therapy every Tuesday.",
        "I volunteer at the food pantry on Saturdays.",
        "I teach a pottery class on Thursday evenings.",
        "She coaches her son's hockey team every Sunday morning.",
        "I work at the bakery on weekends.",
        "I'm on call every other Friday night.",
        "I have chemo every other Tuesday.",
        "I visit my grandfather at the nursing home every Sunday.",
        "I walk my neighbour's dog every weekday at noon.",
        "I lead the youth group at church on Wednesday evenings.",
    ],
)
def test_a_duty_on_fixed_days(text: str) -> None:
    assert commitment(text)


@pytest.mark.parametrize(
    "text",
    [
        # pastimes and routines bind no one
        "I do yoga on Tuesday nights.",
        "We play board games every Friday.",
        "I call my grandma every Sunday afternoon.",
        "I go running on weekdays before work.",
        "Working on my old car every weekend is my therapy.",
        "He works out every morning.",
        # a duty over, wished for, considered or someone else's
        "I used to coach my son's team on Saturdays.",
        "I no longer volunteer on Saturdays.",
        "I should volunteer more on weekends.",
        "I'm thinking about tutoring on Tuesdays.",
        "My sister teaches on weekdays.",
        "My dad drives my nephew to practice on Wednesdays.",
        # a duty said once
        "I'm babysitting my nephew next Wednesday.",
        "I picked up my son from school on Monday.",
    ],
)
def test_no_duty(text: str) -> None:
    assert not commitment(text)


def test_the_days_are_said_and_keyed_as_a_request_would_name_them() -> None:
    assert when(("wednesday",)) == "on Wednesdays"
    assert when(("tuesday", "thursday")) == "on Tuesdays and Thursdays"
    assert when(WORK) == "on weekdays"
    assert when(("saturday", "sunday")) == "on weekends"
    assert when(ALL) == "every day"
    assert day_keys(("saturday",)) == ["saturday", "weekend"]
    assert day_keys(("monday",)) == ["monday", "weekday", "weeknight"]


def test_a_duty_becomes_a_constraint_and_a_known_constraint_gains_its_days() -> None:
    texts = [
        "Ana babysits her nephew every Wednesday afternoon.",
        "Ana has dialysis on Mondays, Wednesdays and Fridays.",
        "Ana does yoga on Tuesday nights.",
        "Ana used to babysit her nephew every Wednesday.",
        "Ana babysits her nephew every Wednesday afternoon.",
    ]
    found = [
        Assessment(False, 0.1),
        Assessment(True, 1.0, "condition", "states 'dialysis'", "kb", ["dialysis"]),
        Assessment(False, 0.1),
        Assessment(False, 0.1),
        # a reason against it stands (here: judged someone else's by an earlier rule)
        Assessment(False, 0.1, reason="someone else's"),
    ]
    out = duties(texts, found)
    assert out[0].critical and out[0].ctype == COMMITMENT and out[0].source == "schedule"
    assert out[0].score == 1.0 and out[0].days == ["wednesday", "weekday", "weeknight"]
    assert out[0].reason == "a standing duty on Wednesdays"
    assert out[1].ctype == "condition" and out[1].entries == ["dialysis"]
    assert out[1].days == ["monday", "wednesday", "friday", "weekday", "weeknight"]
    assert not out[2].critical and not out[3].critical and not out[4].critical
