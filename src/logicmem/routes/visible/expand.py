"""What a request implies without saying it: "a long weekend in Cancún" is a trip abroad,
to Mexico, and "runs this January" are winter runs. Anticipation keys name concepts
("international travel", "mexico", "winter", "cold weather"); requests name places and
months. A small shipped gazetteer (``data/places.json``) bridges places; ``SEASONS``
months, by the northern-hemisphere calendar the knowledge resource's holidays follow."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from logicmem.routes.visible.text import contains, tokens

TRAVEL = ("international travel", "travel abroad", "trip abroad", "international trip")
# Months and the season they fall in, with the keys the season implies. "March" and "May"
# are left out (also a verb and a modal), and autumn does not imply 'fall' (a fall risk).
SEASONS = {
    ("winter", ("winter", "cold weather")): ("december", "january", "february"),
    ("spring", ("spring",)): ("april",),
    ("summer", ("summer", "hot weather")): ("june", "july", "august"),
    ("autumn", ("autumn",)): ("september", "october", "november"),
}


@lru_cache(maxsize=1)
def _places() -> list[tuple[tuple[str, ...], str, str, str]]:
    raw = json.loads(resources.files("logicmem.data").joinpath("places.json").read_text())
    rows = [
        (tokens(name), name, country, region) for name, (country, region) in raw["places"].items()
    ]
    # Longest names first, so "mexico city" is read before "mexico".
    return sorted(rows, key=lambda r: -len(r[0]))


@lru_cache(maxsize=1)
def place_words() -> frozenset[str]:
    """The words (``tokens``) of the gazetteer's place names: "Lisbon", "Cabo", "Kyoto"."""
    return frozenset(word for needle, _, _, _ in _places() for word in needle)


def expansions(query: str) -> list[tuple[str, str]]:
    """(implied phrase, why) for the foreign places and the months a request names."""
    words = tokens(query)
    out: dict[str, str] = {}
    for needle, name, country, region in _places():
        if not contains(words, needle):
            continue
        why = f"'{name}' is in {country.title()}" if name != country else f"'{name}' is abroad"
        for phrase in (country, f"{country} trip", region, f"{region} trip", *TRAVEL):
            out.setdefault(phrase, why)
    for part in (part for word in words for part in word.split("-")):  # "mid-July"
        for phrase, why in _month_phrases().get(part, ()):
            out.setdefault(phrase, why)
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
