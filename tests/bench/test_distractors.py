"""Where distractors go (--distractor-age) and which are never picked (the slot rule)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from logicmem.bench.adapters import common, imlogic, inmind
from logicmem.bench.data import load_backgrounds
from logicmem.bench.engine import Plan
from logicmem.errors import InputError

HOBBIES = ["knits scarves", "plays chess", "grows tomatoes", "collects stamps", "rows boats"]
HOBBIES += ["keeps bees", "paints murals", "builds kites", "bakes bagels", "sings in a choir"]


def task(i: int, memory: str, kind: str = "positive") -> dict[str, Any]:
    return {
        "id": f"t{i}",
        "kind": kind,
        "domain": "d",
        "fact": memory.replace("{user}", "I"),
        "fact_memory": memory,
        "ack": "Noted.",
        "naive_query": "What did I say?",
        "indirect_query": "Any advice?",
    }


def hobby_tasks() -> list[dict[str, Any]]:
    return [task(i, "{user} " + hobby + ".") for i, hobby in enumerate(HOBBIES)]


def item(i: int, ms: str, ml: str) -> dict[str, Any]:
    return {
        "id": f"i{i}",
        "category": "Others",
        "semantic_memory": ms,
        "logical_memory": ml,
        "semantic_utterance": ms.replace("{user}", "I"),
        "logical_utterance": ml.replace("{user}", "I"),
        "query": "Any advice?",
        "options": {},
    }


def memory_order(plan: Plan) -> list[str]:
    return [str(t["turn_id"]) for t in plan.sessions[0].turns]


def dialogue_order(plan: Plan) -> list[str]:
    return [str(t["turn_id"]) for s in [*plan.background, *plan.sessions] for t in s.turns]


def relative(order: list[str], own: str) -> tuple[int, int]:
    """(distractor facts before ``own``, those after it) in a turn order (acks left out)."""
    at = order.index(own)
    kept = [i for i, t in enumerate(order) if t.startswith("distract:") and t[-4:] != ":ack"]
    return sum(i < at for i in kept), sum(i > at for i in kept)


def test_older_puts_every_distractor_before_the_task(background: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    tasks = hobby_tasks()
    for level, order in (("memory", memory_order), ("conversation", dialogue_order)):
        opt = inmind.Options(level, distractors=4, distractor_age="older")
        for plan in inmind.plans(tasks, convs, opt):
            own = f"inject:{plan.key.split('/')[1]}:fact"
            assert relative(order(plan), own) == (4, 0), (level, plan.key)


def test_older_picks_and_places_as_before(background: Path) -> None:
    """The default of the old code: the picks of pick_others, inserted before the task."""
    convs = load_backgrounds(background, ["1"])
    tasks = hobby_tasks()
    opt = inmind.Options(distractors=3, seed=5, distractor_age="older")
    ids = [str(t["id"]) for t in tasks]
    for plan, t in zip(inmind.plans(tasks, convs, opt), tasks, strict=True):
        picked = common.pick_others(ids, str(t["id"]), 3, 5)
        want = [f"distract:{o}:fact" for o in picked] + [f"inject:{t['id']}:fact"]
        assert memory_order(plan) == want


def test_random_places_distractors_on_both_sides(background: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    tasks = hobby_tasks()
    for level, order in (("memory", memory_order), ("conversation", dialogue_order)):
        opt = inmind.Options(level, distractors=4, distractor_age="random")
        sides = [
            relative(order(plan), f"inject:{plan.key.split('/')[1]}:fact")
            for plan in inmind.plans(tasks, convs, opt)
        ]
        assert all(before + after == 4 for before, after in sides)
        assert sum(after for _, after in sides) > 0, level  # some distractor is newer
        assert sum(before for before, _ in sides) > 0, level  # and some older


def test_random_age_is_fixed_by_seed_task_and_distractor(background: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    tasks = hobby_tasks()

    def orders(seed: int) -> list[list[str]]:
        opt = inmind.Options(seed=seed, distractors=4)
        return [memory_order(p) for p in inmind.plans(tasks, convs, opt)]

    assert orders(0) == orders(0)
    assert orders(0) != orders(1)
    pool = inmind.distractors(tasks, inmind.Options(distractors=4))
    others = ["t1", "t2", "t3", "t4", "t5", "t6"]
    older, newer = pool.split("t0", others)
    assert older and newer and sorted(older + newer) == others
    # a distractor's side does not depend on which others were picked with it
    for o in others:
        assert pool.split("t0", [o]) == (([o], []) if o in older else ([], [o]))


def test_newer_distractors_are_said_after_the_injection(background: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    tasks = hobby_tasks()
    opt = inmind.Options("conversation", distractors=4, inject_per_run=2)
    for plan in inmind.plans(tasks, convs, opt):
        order = dialogue_order(plan)
        owns = [order.index(f"inject:{i}:fact") for i in plan.key.split("/")[1].split("+")]
        for i, t in enumerate(order):
            if t.startswith("distract:"):  # older than both facts of the run, or newer
                assert i < min(owns) or i > max(owns), (plan.key, t)


def test_spread_after_stays_after_the_last_injection() -> None:
    import random

    rng = random.Random(0)
    assert all(2 < s < 5 for s in common.spread_after(2, 5, 2, rng))
    assert common.spread_after(4, 5, 2, rng) == [4, 4]  # no later session: the last one


def test_same_slot_distractor_is_never_picked(background: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    tasks = [
        task(0, "{user} lives in Denver now."),
        task(1, "{user} moved to Boston last spring."),  # residence, like t0
        task(2, "{user} works at Initech."),  # employer, like t4
        *[task(3 + i, "{user} " + hobby + ".") for i, hobby in enumerate(HOBBIES[:3])],
        task(6, "{user} is employed by Globex.", "negative"),
    ]
    for seed in range(10):
        opt = inmind.Options(seed=seed, distractors=len(tasks))
        plans = {p.key.split("/")[1]: memory_order(p) for p in inmind.plans(tasks, convs, opt)}
        assert "distract:t1:fact" not in plans["t0"] and "distract:t0:fact" not in plans["t1"]
        assert "distract:t2:fact" not in plans["t6"]
        assert "distract:t1:fact" in plans["t2"]  # other slots are fine
    older = inmind.Options(distractors=len(tasks), distractor_age="older")
    # older distractors cannot supersede the task's fact: the old picks stand
    first = next(inmind.plans(tasks, convs, older))
    assert "distract:t1:fact" in memory_order(first)


def test_imlogic_slot_rule_checks_both_memories(background: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    items = [
        item(0, "{user} wants to learn surfing.", "{user} is vegan."),
        item(1, "{user} became vegetarian last year.", "{user} plays the flute."),  # diet
        item(2, "{user} loves jazz.", "{user} has a sore knee."),
        item(3, "{user} likes museums.", "{user} is afraid of heights."),
    ]
    opt = imlogic.Options(distractors=3)
    plans = {p.key.split("/")[1]: memory_order(p) for p in imlogic.plans(items, convs, opt)}
    assert not any(t.startswith("distract:i1:") for t in plans["i0"])
    assert not any(t.startswith("distract:i0:") for t in plans["i1"])
    assert any(t.startswith("distract:i2:") for t in plans["i0"])


def test_imlogic_random_age_puts_some_distractors_after_the_pair(background: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    items = [item(i, "{user} " + h + ".", "{user} " + h + " daily.") for i, h in enumerate(HOBBIES)]
    for level, order in (("memory", memory_order), ("conversation", dialogue_order)):
        after = 0
        for plan in imlogic.plans(items, convs, imlogic.Options(level, distractors=3)):
            turns, iid = order(plan), plan.probes[0].id
            assert turns.index(f"inject:{iid}:ml") < turns.index(f"inject:{iid}:ms")
            after += relative(turns, f"inject:{iid}:ms")[1]
            # a distractor is older than m_l or newer than m_s, never in between
            assert relative(turns, f"inject:{iid}:ml")[1] == relative(turns, f"inject:{iid}:ms")[1]
        assert after > 0, level


def test_unknown_age_is_an_input_error() -> None:
    with pytest.raises(InputError, match="distractor age"):
        common.Distractors([], {}, common.InjectionOptions(distractor_age="newest"))
