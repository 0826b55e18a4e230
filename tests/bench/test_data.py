"""Dev halves: a split by a salted hash of each id, before --limit."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from logicmem.bench.adapters import imlogic, inmind
from logicmem.bench.data import half_of, select
from logicmem.errors import InputError

IDS = [f"syn-{n:04d}" for n in range(1000)]


def test_half_is_the_parity_of_the_salted_hash() -> None:
    for item_id in IDS[:50]:
        even = int(hashlib.sha256(f"logicmem-half:{item_id}".encode()).hexdigest(), 16) % 2 == 0
        assert half_of(item_id) == ("A" if even else "B")
        assert half_of(item_id) == half_of(item_id)


def test_halves_are_roughly_balanced() -> None:
    share = sum(half_of(i) == "A" for i in IDS) / len(IDS)
    assert 0.45 < share < 0.55


def test_halves_partition_the_items_whatever_the_order() -> None:
    rows = [{"id": i} for i in IDS[:40]]
    a, b = select(rows, "A", None), select(rows, "B", None)
    assert {r["id"] for r in a} | {r["id"] for r in b} == set(IDS[:40])
    assert not {r["id"] for r in a} & {r["id"] for r in b}
    shuffled = random.Random(7).sample(rows, len(rows))
    assert {r["id"] for r in select(shuffled, "A", None)} == {r["id"] for r in a}


def test_half_comes_before_limit() -> None:
    rows = [{"id": i} for i in IDS[:40]]
    assert select(rows, "A", 3) == select(rows, "A", None)[:3]
    assert all(half_of(r["id"]) == "A" for r in select(rows, "A", 3))
    assert select(rows, None, 3) == rows[:3]
    with pytest.raises(InputError, match="half 'C'"):
        select(rows, "C", None)


def test_an_empty_half_is_an_input_error() -> None:
    rows = [{"id": i} for i in IDS[:40] if half_of(i) == "B"]
    with pytest.raises(InputError, match="half A"):
        select(rows, "A", None)


def test_loaders_split_positives_and_negatives_alike(
    inmind_halves: Path, imlogic_items: Path
) -> None:
    every = inmind.load_tasks(inmind_halves, None)
    a, b = (inmind.load_tasks(inmind_halves, None, h) for h in ("A", "B"))
    assert sorted(t["id"] for t in a + b) == sorted(t["id"] for t in every)
    for half, tasks in (("A", a), ("B", b)):
        assert all(half_of(t["id"]) == half for t in tasks)
        assert {t["kind"] for t in tasks} == {"positive", "negative"}
    items = imlogic.load_items(imlogic_items, None)
    halves = [imlogic.load_items(imlogic_items, None, h) for h in ("A", "B")]
    assert sorted(i["id"] for h in halves for i in h) == sorted(i["id"] for i in items)
