"""Constrained random walks: the constraints hold on every path, and walks reproduce."""

import itertools
import random

from logicmem.routes.rulemem.repo import Quad
from logicmem.routes.rulemem.walks import Graph, entities, mine_paths, walk


def q(fid: str, memory: str, s: str, r: str, o: str, t: str | None) -> Quad:
    return Quad(fid, memory, s, r, o, t)


FACTS = [
    q("a", "m1", "Maya", "adopted", "a dog named Rex", "2024-03-01"),
    q("b", "m2", "Maya", "walks", "Rex in Riverside Park", "2024-04-01"),
    q("c", "m3", "Maya", "joined", "a running club in Riverside Park", "2024-05-01"),
    q("d", "m3", "Maya", "runs", "with the club on Sundays", "2024-05-01"),
    q("e", "m4", "Maya", "is allergic to", "peanuts", "2024-06-01"),
    q("f", "m5", "Maya", "plans", "a trip to Lisbon", None),
]


def test_entities_cover_subject_object_names_and_words() -> None:
    keys = entities(FACTS[1])
    assert {"e:maya", "e:rex in riverside park", "e:rex", "e:riverside", "w:rivers"} <= keys


def check(graph: Graph, facts: list[Quad], max_len: int) -> None:
    assert 2 <= len(facts) <= max_len
    assert len({f.id for f in facts}) == len(facts)  # no fact twice
    assert len({f.memory_id for f in facts}) == len(facts)  # no memory twice
    for earlier, later in itertools.pairwise(facts):
        assert graph.touches[earlier.id] & graph.touches[later.id]  # adjacent
        if earlier.time and later.time:
            assert earlier.time <= later.time  # body before head


def test_every_walk_respects_the_constraints() -> None:
    graph = Graph.build(FACTS)
    for seed in range(30):
        for start in "abcdef":
            path = walk(graph, start, random.Random(seed), max_len=3)
            if path is None:
                continue
            check(graph, path.facts, 3)
            assert path.head.id == start  # the walk's start is the rule head
            assert len(set(path.junctions)) == len(path.junctions)  # no junction twice


def test_first_fact_has_no_earlier_fact_so_no_path() -> None:
    dated = Graph.build(FACTS[:-1])
    assert walk(dated, "a", random.Random(0), max_len=3) is None
    # an undated fact is not constrained by time
    path = walk(Graph.build(FACTS), "a", random.Random(0), max_len=3)
    assert path is not None and path.facts[0].id == "f"


def test_mine_paths_is_seeded_distinct_and_ranked() -> None:
    graph = Graph.build(FACTS)
    one = mine_paths(graph, ["c", "e", "b"], walks=5, max_len=3, seed=7)
    two = mine_paths(graph, ["b", "e", "c"], walks=5, max_len=3, seed=7)
    assert [[f.id for f in p.facts] for p in one] == [[f.id for f in p.facts] for p in two]
    assert len({frozenset(f.id for f in p.facts) for p in one}) == len(one)
    assert [p.specificity for p in one] == sorted((p.specificity for p in one), reverse=True)
    # a link through "Riverside Park" is more specific than one through the user alone
    best = one[0]
    assert [f.id for f in best.facts][-2:] == ["b", "c"]
    assert not best.junctions[-1].startswith("e:maya")
    assert mine_paths(graph, ["zzz"], walks=3, max_len=3, seed=0) == []
