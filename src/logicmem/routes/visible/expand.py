"""What a request implies without saying it: "a long weekend in Cancún" is a trip abroad,
to Mexico. Anticipation keys name concepts ("international travel", "mexico"); requests
name places. A small shipped gazetteer (``data/places.json``) bridges the two."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from logicmem.routes.visible.text import contains, tokens

TRAVEL = ("international travel", "travel abroad", "trip abroad", "international trip")


@lru_cache(maxsize=1)
def _places() -> list[tuple[tuple[str, ...], str, str, str]]:
    raw = json.loads(resources.files("logicmem.data").joinpath("places.json").read_text())
    rows = [
        (tokens(name), name, country, region) for name, (country, region) in raw["places"].items()
    ]
    # Longest names first, so "mexico city" is read before "mexico".
    return sorted(rows, key=lambda r: -len(r[0]))


def expansions(query: str) -> list[tuple[str, str]]:
    """(implied phrase, why) for the foreign places a request names."""
    words = tokens(query)
    out: dict[str, str] = {}
    for needle, name, country, region in _places():
        if not contains(words, needle):
            continue
        why = f"'{name}' is in {country.title()}" if name != country else f"'{name}' is abroad"
        for phrase in (country, f"{country} trip", region, f"{region} trip", *TRAVEL):
            out.setdefault(phrase, why)
    return list(out.items())
