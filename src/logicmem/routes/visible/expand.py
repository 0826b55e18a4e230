"""What a request implies without saying it: "a long weekend in Cancún" is a trip abroad,
to Mexico, "runs this January" are winter runs, and "a haircut tomorrow" is on the
weekday after today. Anticipation keys name concepts ("international travel", "mexico",
"winter", "cold weather") and a duty's days ("wednesday"); requests name places, months
and days as people say them. A small shipped gazetteer (``data/places.json``) bridges
places; ``SEASONS`` months, by the northern-hemisphere calendar the knowledge resource's
holidays follow; ``RELATIVE_DAYS`` the days counted from the request's date."""

from __future__ import annotations

import json
from datetime import date, timedelta
from functools import lru_cache
from importlib import resources
from typing import Any

from logicmem.routes.visible.schedule import span
from logicmem.routes.visible.text import contains, tokens
from logicmem.write.rules import WEEKDAYS

TRAVEL = ("international travel", "travel abroad", "trip abroad", "international trip")
# Months and the season they fall in, with the keys the season implies. "March" and "May"
# are left out (also a verb and a modal), and autumn does not imply 'fall' (a fall risk).
SEASONS = {
    ("winter", ("winter", "cold weather")): ("december", "january", "february"),
    ("spring", ("spring",)): ("april",),
    ("summer", ("summer", "hot weather")): ("june", "july", "august"),
    ("autumn", ("autumn",)): ("september", "october", "november"),
}


# Days a request names by their distance from its date ("the day after tomorrow" first,
# so that its "tomorrow" is not read again).
RELATIVE_DAYS = (
    (("day", "after", "tomorrow"), 2),
    (("tomorrow",), 1),
    (("tonight",), 0),
    (("today",), 0),
)


@lru_cache(maxsize=1)
def _gazetteer() -> dict[str, Any]:
    return dict(json.loads(resources.files("logicmem.data").joinpath("places.json").read_text()))


@lru_cache(maxsize=1)
def _places() -> list[tuple[tuple[str, ...], str, str, str]]:
    raw = _gazetteer()
    rows = [
        (tokens(name), name, country, region) for name, (country, region) in raw["places"].items()
    ]
    # Longest names first, so "mexico city" is read before "mexico".
    return sorted(rows, key=lambda r: -len(r[0]))


# The words before a place name that make a given name one ("tips for Sydney").
_PLACE_BEFORE = frozenset(
    (
        *("in", "to", "for", "from", "near", "around", "at", "across", "through", "outside"),
        *("into", "via", "visit", "visiting", "visited", "of"),
    )
)


@lru_cache(maxsize=1)
def _place_names() -> dict[str, list[tuple[tuple[str, ...], bool]]]:
    """Per first word (``tokens``), every place name of the gazetteer, abroad or at home,
    longest first, and whether it is also a common given name (``given_names``)."""
    raw = _gazetteer()
    given = {tokens(name) for name in raw["given_names"]}
    out: dict[str, list[tuple[tuple[str, ...], bool]]] = {}
    for name in sorted({*raw["places"], *raw["home"]}, key=lambda n: -len(tokens(n))):
        needle = tokens(name)
        if needle:
            out.setdefault(needle[0], []).append((needle, needle in given))
    return out


def place_words_in(query: str) -> frozenset[str]:
    """The words (``tokens``) of the place names ``query`` names, abroad or at home: the
    whole name ("Playa del Carmen", not a "Carmen"), and a place that is also a given name
    only after a preposition of place ("tips for Sydney", not "What did Sydney bring?")."""
    words = tokens(query)
    out: set[str] = set()
    for i, word in enumerate(words):
        for needle, also_given in _place_names().get(word, ()):
            if words[i : i + len(needle)] != needle:
                continue
            if not also_given or (i > 0 and words[i - 1] in _PLACE_BEFORE):
                out.update(needle)
            break
    return frozenset(out)


def expansions(query: str) -> list[tuple[str, str]]:
    """(implied phrase, why) for the foreign places and the months a request names, and
    the days it names inside a hyphenated word ("a Friday-to-Sunday trip")."""
    words = tokens(query)
    out: dict[str, str] = {}
    for needle, name, country, region in _places():
        if not contains(words, needle):
            continue
        why = f"'{name}' is in {country.title()}" if name != country else f"'{name}' is abroad"
        for phrase in (country, f"{country} trip", region, f"{region} trip", *TRAVEL):
            out.setdefault(phrase, why)
    for word in words:
        parts = word.split("-")
        for part in parts:  # "mid-July"
            for phrase, why in _month_phrases().get(part, ()):
                out.setdefault(phrase, why)
        days = [p for p in parts if p in WEEKDAYS] if len(parts) > 1 else []
        if len(days) == 2 and {"to", "through", "thru", "till"} & set(parts):
            days = span(days[0], days[1])  # "Friday-to-Sunday" takes in Saturday
        for day in days:
            out.setdefault(day, f"'{word}' names {day.title()}")
    return list(out.items())


@lru_cache(maxsize=1)
def _month_phrases() -> dict[str, list[tuple[str, str]]]:
    """Per month's token ("january"), the phrases its season implies and why (``SEASONS``)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for (season, phrases), months in SEASONS.items():
        for month in months:
            (word,) = tokens(month)
            out[word] = [(phrase, f"'{month.title()}' is in {season}") for phrase in phrases]
    return out


def dated_days(query: str, today: date) -> list[tuple[str, str]]:
    """(day, why) for the days a request names by their distance from ``today``, its date:
    "tomorrow" on a Thursday is a Friday. Only a duty's days are matched with them
    (``KeyIndex.match``): they depend on the clock, and a duty's day is what they are
    for."""
    said = tokens(query)
    out: dict[str, str] = {}
    for needle, ahead in RELATIVE_DAYS:
        at = next((i for i in range(len(said)) if said[i : i + len(needle)] == needle), -1)
        if at < 0:
            continue
        day = WEEKDAYS[(today + timedelta(days=ahead)).weekday()]
        out.setdefault(day, f"'{' '.join(needle)}' is a {day.title()}")
        said = said[:at] + said[at + len(needle) :]  # its words are not read again
    return list(out.items())
