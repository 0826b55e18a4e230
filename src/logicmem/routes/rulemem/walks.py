"""Reasoning paths: constrained random walks over the graph of a user's quadruples.

Nodes are entities: a quadruple's subject and object (lowercased, leading articles and
possessives dropped), the capitalised names inside its object, and its object's longer
content words (``w:`` keys, 6-letter prefixes) so that "a pottery class" and "a fan of
pottery" meet even when the offline reader leaves objects as whole phrases. Two facts
are adjacent when they share an entity (the *junction*).

A walk starts at a new fact, the would-be rule head, and steps backwards in time
(after TLogic, Liu et al. 2022): the body facts are the ones that led up to the head.
Constraints, all enforced per step:
1. the next fact shares an entity with the current one;
2. its time is not after the current fact's (facts without a time are not constrained);
3. no cycles: no fact, memory or junction entity is visited twice, so a path is a simple
   path in the entity graph and no two body atoms restate one memory;
4. at most ``walk_length`` facts;
5. the next fact is drawn with weight 1/degree of the junction, so specific links (a
   shared place, a named person, a rare word) are preferred over the hub that joins
   everything (the user);
6. the RNG is seeded from the setting's seed and the start fact's id, so walks are
   reproducible and independent of the order in which starts are processed.
Paths with fewer than two facts are dropped; duplicates (the same set of facts) are kept
once; the rest are ranked by junction specificity.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from logicmem.routes.rulemem.facts import DETERMINERS as _DROP
from logicmem.routes.rulemem.repo import Quad
from logicmem.write.rules import STOPWORDS

_NAME = re.compile(r"\b([A-Z][\w+'-]{2,})")


def entity_key(text: str) -> str:
    words = re.findall(r"[\w+'-]+", text.lower())
    while words and words[0] in _DROP:
        words = words[1:]
    return " ".join(words)


def entities(quad: Quad) -> set[str]:
    """The entity keys a fact touches (see the module docstring)."""
    keys = {"e:" + entity_key(quad.subject), "e:" + entity_key(quad.object)}
    for name in _NAME.findall(quad.object):
        keys.add("e:" + name.lower())
    for word in re.findall(r"[a-z][a-z'-]+", quad.object.lower()):
        if len(word) >= 5 and word not in STOPWORDS:
            keys.add("w:" + word[:6])
    keys.discard("e:")
    return keys


@dataclass
class Graph:
    facts: dict[str, Quad] = field(default_factory=dict)
    touches: dict[str, set[str]] = field(default_factory=dict)
    incident: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, quads: Iterable[Quad]) -> Graph:
        graph = cls()
        for quad in quads:
            graph.facts[quad.id] = quad
            keys = entities(quad)
            graph.touches[quad.id] = keys
            for key in keys:
                graph.incident.setdefault(key, []).append(quad.id)
        return graph

    def degree(self, key: str) -> int:
        return len(self.incident.get(key, ()))


@dataclass
class Path:
    """Facts of a reasoning path, earliest first; the last one is the head's fact."""

    facts: list[Quad]
    junctions: list[str]
    specificity: float

    @property
    def head(self) -> Quad:
        return self.facts[-1]

    @property
    def body(self) -> list[Quad]:
        return self.facts[:-1]

    def memory_ids(self) -> list[str]:
        return list(dict.fromkeys(q.memory_id for q in self.facts))


def _not_after(candidate: Quad, current: Quad) -> bool:
    if not candidate.time or not current.time:
        return True
    return candidate.time[:10] <= current.time[:10]


def walk(graph: Graph, start: str, rng: random.Random, max_len: int) -> Path | None:
    """One constrained random walk from fact ``start`` (see the module docstring)."""
    current = graph.facts[start]
    visited, memories = [current], {current.memory_id}
    used: set[str] = set()
    junctions: list[str] = []
    while len(visited) < max_len:
        options: list[tuple[str, str]] = []
        weights: list[float] = []
        seen = {q.id for q in visited}
        for key in sorted(graph.touches[current.id] - used):
            for fid in graph.incident[key]:
                cand = graph.facts[fid]
                if fid in seen or cand.memory_id in memories or not _not_after(cand, current):
                    continue
                options.append((fid, key))
                weights.append(1.0 / graph.degree(key))
        if not options:
            break
        fid, key = rng.choices(options, weights=weights)[0]
        current = graph.facts[fid]
        visited.append(current)
        memories.add(current.memory_id)
        used.add(key)
        junctions.append(key)
    if len(visited) < 2:
        return None
    spec = sum(1.0 / graph.degree(k) for k in junctions) / len(junctions)
    return Path(list(reversed(visited)), list(reversed(junctions)), spec)


def mine_paths(
    graph: Graph, starts: Iterable[str], walks: int, max_len: int, seed: int
) -> list[Path]:
    """Distinct paths from ``walks`` walks per start, most specific junctions first."""
    found: dict[frozenset[str], Path] = {}
    for start in starts:
        if start not in graph.facts:
            continue
        rng = random.Random(f"{seed}:{start}")
        for _ in range(walks):
            path = walk(graph, start, rng, max_len)
            if path is not None:
                found.setdefault(frozenset(q.id for q in path.facts), path)
    return sorted(
        found.values(), key=lambda p: (-p.specificity, -len(p.facts), [q.id for q in p.facts])
    )
