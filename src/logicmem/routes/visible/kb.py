"""The anticipation knowledge resource: standing constraints and where they matter.

Entries live in package data (``logicmem/data/anticipation/*.jsonl``), each with the
phrases that state the constraint (``fact_patterns``), the situations where it changes
advice (``situations``), the public-knowledge bridge (``why``) and its ``source``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from logicmem.routes.visible.text import ANIMALS, MARKERS, contains_loosely, fact_tokens


def _gap(needle: tuple[str, ...]) -> int:
    """Words allowed between a pattern's words: one when it has two content words ("uses
    oxygen" in "uses home oxygen") or is a copula ("is a psychologist" in "is a licensed
    psychologist"); none for possession of one thing ("my kids" is not "her fur kids")."""
    return 1 if len(set(needle) - MARKERS) > 1 or needle[0] in ("be", "was", "had") else 0


@dataclass(frozen=True)
class Entry:
    id: str
    type: str
    domain: str
    fact_patterns: tuple[str, ...]
    situations: tuple[str, ...]
    why: str
    source: str
    pattern_tokens: tuple[tuple[str, ...], ...] = field(default=(), repr=False)


class KnowledgeBase:
    def __init__(self, entries: list[Entry]) -> None:
        self.entries = {e.id: e for e in entries}
        df: dict[str, int] = {}
        for entry in entries:
            for situation in set(entry.situations):
                df[situation] = df.get(situation, 0) + 1
        self._df = df

    def specificity(self, situation: str) -> float:
        """1 for a situation only one entry names ("lilies"), near 0 for one that most
        entries name ("travel"): a shared key is weak evidence for any one constraint."""
        n = max(2, len(self.entries))
        df = self._df.get(situation, 1)
        return max(0.0, 1.0 - math.log(df) / math.log(n))

    def __len__(self) -> int:
        return len(self.entries)

    def match_facts(self, text: str) -> list[tuple[Entry, str]]:
        """Entries whose fact patterns occur in ``text`` (with the pattern that matched)."""
        words = fact_tokens(text)
        animal = ANIMALS.search(text.lower()) is not None
        found = []
        for entry in self.entries.values():
            for pattern, needle in zip(entry.fact_patterns, entry.pattern_tokens, strict=True):
                # A pattern of numbers only ("i'm 20" once the subject is dropped) would
                # match any figure; ages match through their "N year old" form.
                if animal and "year" in needle and "old" in needle:
                    continue  # "Luna, the cat, is 5 years old" is not a child's age
                if any(w.isalpha() for w in needle) and contains_loosely(
                    words, needle, gap=_gap(needle)
                ):
                    found.append((entry, pattern))
                    break
        return found

    def patterns(self) -> list[tuple[str, str]]:
        """(entry id, pattern) for every fact pattern, for embedding-based matching."""
        return [(e.id, p) for e in self.entries.values() for p in e.fact_patterns]


def _entry(row: dict[str, object]) -> Entry:
    patterns = tuple(str(p) for p in row["fact_patterns"])  # type: ignore[attr-defined]
    return Entry(
        id=str(row["id"]),
        type=str(row["type"]),
        domain=str(row.get("domain", "other")),
        fact_patterns=patterns,
        situations=tuple(str(s) for s in row["situations"]),  # type: ignore[attr-defined]
        why=str(row.get("why", "")),
        source=str(row.get("source", "")),
        pattern_tokens=tuple(fact_tokens(p) for p in patterns),
    )


@lru_cache(maxsize=1)
def load_kb() -> KnowledgeBase:
    """The shipped knowledge resource (read once per process)."""
    folder = resources.files("logicmem.data").joinpath("anticipation")
    entries = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".jsonl"):
            for line in item.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entries.append(_entry(json.loads(line)))
    return KnowledgeBase(entries)
