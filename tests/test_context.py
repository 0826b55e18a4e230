import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from kit import HashEmbedder

from logicmem import Memory
from logicmem.context import ContextAssembler, estimate_tokens, time_note
from logicmem.errors import InputError
from logicmem.routes.base import Proposal, Route, RouteEnv
from logicmem.routes.semantic import SemanticRoute
from logicmem.types import Budget, Hit, Scope

FACTS = [
    "I have a kitten named Pico who chews plants.",
    "I'm hosting a dinner party on Saturday.",
    "I want a big centerpiece with candles.",
    "My sister Ana loves purple flowers.",
    "I run along the river three mornings a week.",
]


@pytest.fixture
def mem(tmp_path: Path):  # type: ignore[no-untyped-def]
    # The assembler on its own: the visible route is tested in tests/routes/test_visible.py.
    config = {"llm": {"provider": "none"}, "visibility": {"enabled": False}}
    m = Memory(tmp_path / "m.db", embedder=HashEmbedder(), config=config)
    for i, fact in enumerate(FACTS):
        m.add([{"content": fact, "turn_id": f"t{i}"}], user_id="maya", session_id="s1")
    yield m
    m.close()


def test_items_respect_k_and_carry_provenance(mem: Memory) -> None:
    ctx = mem.context("flowers for the dinner party", user_id="maya", k=3)
    assert len(ctx.items) == 3 and ctx.budget.k == 3
    for item in ctx.items:
        assert item.route == "semantic" and item.reason and item.source_turns
    assert ctx.dropped["k"] > 0
    assert ctx.to_dict()["budget"] == {"k": 3, "max_tokens": None}


def test_token_budget_is_never_exceeded(mem: Memory) -> None:
    ctx = mem.context("flowers for the dinner party", user_id="maya", k=30, max_tokens=25)
    assert 0 < ctx.tokens <= 25
    assert ctx.tokens == sum(estimate_tokens(i.text) for i in ctx.items)


def test_render_numbers_items_and_handles_empty(mem: Memory) -> None:
    ctx = mem.context("flowers", user_id="maya", k=2)
    lines = ctx.render().splitlines()
    assert lines[0] == "<memories>" and lines[-1] == "</memories>" and len(lines) == 4
    rows = [json.loads(line) for line in lines[1:-1]]
    assert [r["n"] for r in rows] == [1, 2]
    assert [r["text"] for r in rows] == [i.text for i in ctx.items]
    assert all(r["why"] == i.reason for r, i in zip(rows, ctx.items, strict=True))
    assert "no stored memories" in mem.context("flowers", user_id="nobody", k=2).render()


def test_bad_budgets_are_refused(mem: Memory) -> None:
    with pytest.raises(InputError, match="k must be at least 1"):
        mem.context("x", user_id="maya", k=0)
    with pytest.raises(InputError, match="max_tokens"):
        mem.context("x", user_id="maya", max_tokens=0)
    with pytest.raises(InputError, match="query is empty"):
        mem.context("  ", user_id="maya")


class PinnedRoute(Route):
    """A route with a reserved share, like the visibility route."""

    name = "pinned"
    priority = 10

    def __init__(self, hits: list[Hit], quota: int) -> None:
        self.hits, self.quota = hits, quota

    def propose(self, env: RouteEnv, query: str, scope: Scope, k: int, filters: Any) -> Proposal:
        return Proposal(self.hits, quota=self.quota)


def test_a_route_with_a_quota_fills_first_and_duplicates_are_dropped(mem: Memory) -> None:
    pico = next(m for m in mem.get_all(user_id="maya") if "Pico" in m.text)
    pinned = Hit(id=pico.id, text=pico.text, score=1.0, score_kind="rule", route="pinned",
                 reason="standing constraint: pet", source_turns=pico.source_turns)  # fmt: skip
    extra = Hit(id="x", text="never placed", score=0.5, score_kind="rule", route="pinned",
                reason="over quota", source_turns=["z"])  # fmt: skip
    assembler = ContextAssembler([SemanticRoute(), PinnedRoute([pinned, extra], quota=1)])
    ctx = assembler.build(mem.env, "flowers for the dinner party", Scope("maya"), Budget(k=3))
    assert ctx.items[0].route == "pinned" and ctx.items[0].reason == "standing constraint: pet"
    assert [i.memory_id for i in ctx.items].count(pico.id) == 1
    assert "never placed" not in [i.text for i in ctx.items]
    assert ctx.routes == {"pinned": 1, "semantic": 2}


class CompetingRoute(PinnedRoute):
    """A reserved share whose hits carry a probability of mattering."""

    def __init__(self, hits: list[Hit], probabilities: list[float]) -> None:
        super().__init__(hits, quota=len(hits))
        self.probabilities = probabilities

    def propose(self, env: RouteEnv, query: str, scope: Scope, k: int, filters: Any) -> Proposal:
        return Proposal(
            self.hits, quota=self.quota, probabilities=self.probabilities, prior=lambda r: 0.5 / r
        )


@pytest.mark.parametrize(("p", "position"), [(0.9, 0), (0.3, 1), (0.2, 2), (0.01, None)])
def test_a_hit_with_a_probability_displaces_only_less_likely_hits(
    mem: Memory, p: float, position: int | None
) -> None:
    hit = Hit(id="c", text="a standing constraint", score=p, score_kind="p", route="pinned",
              reason="constraint", source_turns=["t9"])  # fmt: skip
    assembler = ContextAssembler([SemanticRoute(), CompetingRoute([hit], [p])])
    ctx = assembler.build(mem.env, "flowers for the dinner party", Scope("maya"), Budget(k=3))
    ids = [i.memory_id for i in ctx.items]
    # open ranks 1, 2, 3 count 0.5, 0.25, 0.167: the hit goes before the first it beats
    assert (ids.index("c") if "c" in ids else None) == position
    assert len(ids) == 3


def test_a_persons_age_said_a_year_or_more_ago_is_told_as_now() -> None:
    said = "2024-03-01T10:00:00"
    note = time_note("Maya's son Leo is 6 and loves trains.", said, date(2026, 12, 5))
    assert note == "2 years since said: 6 then, 8 or 9 now"
    assert time_note("Maya's son Leo is 6.", said, date(2025, 3, 1)).startswith("1 year since")
    # Less than a year, no person's age, or no date: nothing to say.
    assert time_note("Maya's son Leo is 6.", said, date(2025, 2, 28)) == ""
    assert time_note("Maya's laptop is 5 years old.", said, date(2030, 1, 1)) == ""
    assert time_note("Maya's son Leo is 6.", None, date(2030, 1, 1)) == ""


def test_a_stated_term_that_has_ended_is_told() -> None:
    said = "2024-01-05T10:00:00"
    text = "Maya can't drive until March."
    assert time_note(text, said, date(2024, 5, 2)) == (
        "said to hold until 2024-03-31; that day has passed"
    )
    assert time_note(text, said, date(2024, 3, 31)) == ""  # its last day: it still holds


def test_the_rendered_context_says_how_old_someone_is_now() -> None:
    mem = Memory(":memory:", embedder=HashEmbedder(), config={"llm": {"provider": "none"}})
    mem.add("My son Leo is 6.", user_id="maya", timestamp="2024-03-01")
    later = mem.context("How old is Leo?", user_id="maya", k=3, as_of="2026-12-05")
    (line,) = [json.loads(x) for x in later.render().splitlines() if x.startswith("{")]
    assert line["now"] == "2 years since said: 6 then, 8 or 9 now"
    assert later.items[0].note == line["now"]
    soon = mem.context("How old is Leo?", user_id="maya", k=3, as_of="2024-06-01")
    assert "now" not in soon.render() and soon.items[0].note == ""
