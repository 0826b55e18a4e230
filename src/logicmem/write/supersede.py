"""Supersession: a newer statement about the same slot replaces the older one.

"Maya lives in Boston" then "Maya moved to Denver": both fill the slot *residence* of
subject Maya with different values, so the older memory is marked superseded (it keeps
its history and leaves retrieval) instead of contradicting the new one. Slots are a
small list of single-valued attributes people change; anything else accumulates.
"""

from __future__ import annotations

import re

# Places and employers are proper names: "lives in a flat" fills no slot.
_VALUE = r"(?P<v>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)"
SLOTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "residence",
        re.compile(
            r"\b(?:lives|living|lived|moved|moving|relocated|relocating|based)\s+(?:back\s+)?"
            r"(?:in|to)\s+(?:the\s+)?" + _VALUE
        ),
    ),
    (
        "employer",
        re.compile(
            r"\b(?:(?:works|working|employed|hired)\s+(?:\w+\s+){0,2}?(?:at|for|by)|"
            r"job\s+(?:\w+\s+){0,2}?(?:at|with))\s+(?:the\s+)?" + _VALUE
        ),
    ),
    ("occupation", re.compile(r"\b(?:works|working|job) as an?\s+(?P<v>[a-z]+(?: [a-z]+)?)")),
    (
        "relationship",
        re.compile(
            r"\b(?:is|got|became|recently)\s+(?P<v>married|engaged|divorced|separated|single|"
            r"widowed|dating)\b"
        ),
    ),
    (
        "diet",
        re.compile(r"\b(?:is|became|went|turned)\s+(?:a\s+)?(?P<v>vegan|vegetarian|pescatarian)"),
    ),
]


def slots_of(text: str) -> dict[str, str]:
    """Slot name -> normalised value for every single-valued attribute ``text`` states."""
    found = {}
    for name, pattern in SLOTS:
        match = pattern.search(text)
        if match:
            found[name] = re.sub(r"\s+", " ", match.group("v")).strip(" .,").lower()
    return found


def conflicts(new_text: str, old_text: str) -> list[str]:
    """Slots where ``new_text`` states a different value than ``old_text``."""
    new, old = slots_of(new_text), slots_of(old_text)
    return [slot for slot, value in new.items() if slot in old and old[slot] != value]
