"""Injection position and provenance tracing on tiny histories."""

from __future__ import annotations

import itertools
from pathlib import Path

from logicmem.bench.adapters import common, imlogic, inmind
from logicmem.bench.data import load_backgrounds, load_locomo_file
from logicmem.bench.engine import Plan, Probe, Session, Tracer, score
from logicmem.bench.methods import Item
from logicmem.types import Scope


def item(*turns: str, session: str | None = None, text: str = "x") -> Item:
    # The tracer memoizes by memory id, so each test item gets its own.
    return Item(f"m{next(_IDS)}", text, list(turns), session, None, 1, "semantic")


_IDS = itertools.count()


def test_session_positions() -> None:
    assert common.middle(19) == 9 and common.first_third(19) == 6  # sessions 10 and 7
    assert common.middle(4) == 1 and common.first_third(4) == 1
    assert common.middle(1) == 0 and common.first_third(1) == 0
    assert [common.near(9, j, 19) for j in range(5)] == [9, 10, 8, 11, 7]
    assert [common.near(0, j, 2) for j in range(3)] == [0, 1, 0]  # clipped to the dialogue


def test_place_appends_to_the_end_of_the_session_and_keeps_the_prefix() -> None:
    sessions = [Session(f"s{i}", None, [{"turn_id": f"{i}:1"}]) for i in range(4)]
    late = common.Injection(2, [{"turn_id": "ms"}], order=1)
    early = common.Injection(2, [{"turn_id": "ml"}], order=0)
    prefix, rest = common.place(sessions, [late, early])
    assert [s.id for s in prefix] == ["s0", "s1"]
    assert [t["turn_id"] for t in rest[0].turns] == ["2:1", "ml", "ms"]
    assert [s.id for s in rest] == ["s2", "s3"]
    assert sessions[2].turns == [{"turn_id": "2:1"}]  # the input is not mutated


def test_observation_bank_keeps_dia_ids(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(
        '{"speaker_a": "A", "speaker_b": "B", "session_1": [], "session_1_date_time": "x",'
        ' "session_1_observation": {"A": [["f1", "D1:3"], ["f2", "D1:3"],'
        ' ["f3", ["D1:4", "D1:5"]]]}}'
    )
    sessions, aliases = common.observation_bank(load_locomo_file(path))
    turns = [t["turn_id"] for t in sessions[0].turns]
    assert turns == ["D1:3", "D1:3#2", "D1:4+D1:5"]
    assert aliases == {"D1:3": ["D1:3"], "D1:3#2": ["D1:3"], "D1:4+D1:5": ["D1:4", "D1:5"]}


def test_tracer_maps_aliases_and_sessions() -> None:
    plan = Plan(
        "p",
        "u",
        False,
        [Session("session_1", None, [{"turn_id": "D1:4+D1:5"}])],
        [],
        [],
        aliases={"D1:4+D1:5": ["D1:4", "D1:5"]},
    )
    tracer = Tracer(plan)
    assert tracer.is_gold(Probe("q", "?", frozenset({"D1:5"})), item("D1:4+D1:5"))
    assert not tracer.is_gold(Probe("q", "?", frozenset({"D1:6"})), item("D1:4+D1:5"))
    by_session = Probe("q", "?", gold_sessions=frozenset({"session_1"}))
    assert tracer.is_gold(by_session, item("D1:4+D1:5"))
    # Turn gold wins: a gold session does not count when gold turns are given.
    both = Probe("q", "?", frozenset({"D9:9"}), frozenset({"session_1"}))
    assert not tracer.is_gold(both, item("D1:4+D1:5"))


def test_score_rank_and_answer() -> None:
    plan = Plan("p", "u", True, [], [], [])
    probe = Probe("q", "?", frozenset({"g"}), answer="Carla")
    items = [item("a"), item("g", text="Ann went out"), item("g", text="Carla taught Ann")]
    assert score(probe, items, Tracer(plan)) == (True, True, 2)
    assert score(probe, items[:2], Tracer(plan)) == (True, False, 2)
    assert score(probe, items[:1], Tracer(plan)) == (False, False, None)


def test_inmind_conversation_injection_position(background: Path, inmind_tasks: Path) -> None:
    convs = load_backgrounds(background)
    tasks = inmind.load_tasks(inmind_tasks, None)
    plan = next(inmind.plans(tasks, convs, inmind.Options(level="conversation")))
    # 4 sessions: the fact and ack end session 2; session 1 is the shared template.
    assert [s.id for s in plan.background] == ["session_1"]
    assert [s.id for s in plan.sessions] == ["session_2", "session_3", "session_4"]
    fact, ack = plan.sessions[0].turns[-2:]
    assert (fact["turn_id"], fact["speaker"], fact["role"]) == ("inject:t0:fact", "Ann", "user")
    assert (ack["turn_id"], ack["speaker"], ack["role"]) == ("inject:t0:ack", "Bob", "other")
    assert plan.probes[1].gold_turns == {"inject:t0:fact"}


def test_imlogic_logical_fact_is_older(background: Path, imlogic_items: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    items = imlogic.load_items(imlogic_items, None)
    plan = next(imlogic.plans(items, convs, imlogic.Options(level="conversation")))
    ids = [t["turn_id"] for s in [*plan.background, *plan.sessions] for t in s.turns]
    assert ids.index("inject:i0:ml") < ids.index("inject:i0:ms")


def test_injected_fact_is_stored_in_place_and_traced(
    make_engine, background: Path, inmind_tasks: Path, tmp_path: Path
) -> None:
    convs = load_backgrounds(background, ["1"])
    tasks = inmind.load_tasks(inmind_tasks, 1)
    plan = next(inmind.plans(tasks, convs, inmind.Options(level="conversation")))
    with make_engine("full") as engine:
        mem = engine.open(plan, tmp_path / "store.db")
        turns = [t.turn_id for t in mem.store.get_turns(Scope("Ann"))]
        assert turns.index("inject:t0:fact") == turns.index("D2:3") + 1
        assert turns.index("inject:t0:fact") < turns.index("D3:1")
        sources = {t for m in mem.get_all(user_id="Ann") for t in m.source_turns}
        assert "inject:t0:fact" in sources
        mem.close()
        records = engine.run([plan])
    assert all(r.hit for r in records)


def test_template_is_built_once_per_background(
    make_engine, background: Path, inmind_tasks: Path
) -> None:
    convs = load_backgrounds(background, ["1"])
    tasks = inmind.load_tasks(inmind_tasks, None)
    with make_engine("dense") as engine:
        records = engine.run(inmind.plans(tasks, convs, inmind.Options()))
        assert len(engine._templates) == 1
        assert len(engine.store_stats) == 4
        # the bank (4 sessions x 3 observations) plus the one injected memory
        assert {s["memories"] for s in engine.store_stats} == {13}
    assert len(records) == 4 * 2 * 2  # tasks x (naive, target) x ks


def test_older_distractors_come_before_the_task(background: Path, imlogic_items: Path) -> None:
    convs = load_backgrounds(background, ["1"])
    items = imlogic.load_items(imlogic_items, None)
    older = imlogic.Options(distractors=2, distractor_age="older")
    mem_plan = next(imlogic.plans(items, convs, older))
    ids = [t["turn_id"] for t in mem_plan.sessions[0].turns]
    assert ids[-2:] == ["inject:i0:ml", "inject:i0:ms"] and len(ids) == 6
    older.level = "conversation"
    conv_plan = next(imlogic.plans(items, convs, older))
    order = [t["turn_id"] for s in [*conv_plan.background, *conv_plan.sessions] for t in s.turns]
    assert max(i for i, t in enumerate(order) if t.startswith("distract:")) < order.index(
        "inject:i0:ml"
    )


def test_spread_stays_before_the_limit() -> None:
    import random

    rng = random.Random(0)
    assert all(s < 5 for s in common.spread(5, 3, rng))
    assert len(common.spread(2, 5, rng)) == 5  # more distractors than sessions: repeats
    assert common.spread(0, 2, rng) == [0, 0]  # no earlier session: the first injected one


def test_requests_are_read_on_the_day_the_history_ends(make_engine) -> None:  # type: ignore[no-untyped-def]
    """ "Tomorrow", and whether a stated term has ended, count from the history's last
    session, not from the day the bench runs; a configured day is kept."""
    from logicmem.bench.engine import request_day

    plan = Plan(
        key="p",
        user_id="u",
        infer=True,
        background=[Session("b", "1:56 pm on 8 May, 2023", [])],
        sessions=[Session("s1", "2023-06-02T10:00:00", []), Session("s2", None, [])],
        probes=[],
    )
    assert request_day(plan) == "2023-06-02"
    engine = make_engine()
    assert engine._reading(plan).visibility.today == "2023-06-02"
    assert engine.settings.visibility.today == ""
    undated = Plan(key="q", user_id="u", infer=True, background=[], sessions=[], probes=[])
    assert engine._reading(undated).visibility.today == ""
    fixed = engine.settings.model_copy(
        update={"visibility": engine.settings.visibility.model_copy(update={"today": "2030-01-01"})}
    )
    engine.settings = fixed
    assert engine._reading(plan).visibility.today == "2030-01-01"
