"""Phrase matching that survives plurals, possessives and person: "my cats" ~ "Maya's cat"."""

from __future__ import annotations

import re

_DROP = frozenset(
    [
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "their",
        "the",
        "a",
        "an",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
    ]
)


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 4 and word.endswith(("ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokens(text: str) -> tuple[str, ...]:
    """Lowercase word stems without pronouns, articles or possessive endings."""
    words = re.findall(r"[a-z0-9][a-z0-9&+-]*(?:'[a-z]+)?", text.lower().replace("’", "'"))
    out = []
    for word in words:
        word = re.sub(r"'s$|'$", "", word)
        if word in _DROP:
            continue
        out.append(_stem(word))
    return tuple(out)


def contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """Whether ``needle`` occurs as a contiguous run of ``haystack``."""
    n = len(needle)
    if n == 0 or n > len(haystack):
        return False
    first = needle[0]
    return any(
        haystack[i] == first and haystack[i : i + n] == needle for i in range(len(haystack) - n + 1)
    )
