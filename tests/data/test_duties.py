"""Duties on fixed days, end to end with the real embedder (``routes.visible.schedule``):
a duty comes into view (route ``visible``) for a request that names one of its days and
shares no other word with it, stays out for a request on another day, and a pastime on a
fixed day is no constraint at all. The sentences were written for this test from everyday
life; none comes from a benchmark or an evaluation set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from logicmem import Memory

BACKGROUND = [
    "I went to a jazz concert last Friday.",
    "My book club is reading a mystery novel.",
    "I do yoga on Tuesday nights.",
    "We play board games every Friday.",
    "I bought new running shoes.",
]
CASES = {
    "daycare": (
        "I pick up my son from daycare at 5:30 every weekday.",
        "Can you book me a 5 pm haircut on Thursday?",
        "Can you book me a brunch table for Sunday at 11?",
    ),
    "volunteer": (
        "I volunteer at the animal shelter every Saturday morning.",
        "Could we do the farmers market run on Saturday at 9?",
        "Find me a lunch spot for Tuesday with a coworker.",
    ),
    "tutor": (
        "I tutor a neighbour's kid in maths on Monday and Wednesday evenings.",
        "Sign me up for the Monday evening Spanish class.",
        "Plan a Saturday morning hike for me.",
    ),
}


def _visible(mem: Memory, query: str) -> list[str]:
    return [i.text for i in mem.context(query, user_id="sam", k=10).items if i.route == "visible"]


@pytest.fixture
def sam(tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    """Sam's store, with the real embedder and no LLM, holding the background."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    with Memory(tmp_path / "sam.db", config={"llm": {"provider": "none"}}) as mem:
        for text in BACKGROUND:
            mem.add(text, user_id="sam", infer=False)
        yield mem


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_a_duty_comes_into_view_on_its_days(sam: Memory, name: str) -> None:
    duty, ask, other_day = CASES[name]
    sam.add(duty, user_id="sam", infer=False)
    assert _visible(sam, ask)[:1] == [duty], f"not first in view for {ask!r}"
    assert duty not in _visible(sam, other_day), f"in view for {other_day!r}"
    # The pastimes on fixed days are never constraints, whatever day is asked about.
    for query in ("Can we meet on Tuesday night?", "Any plans for Friday evening?"):
        assert not set(_visible(sam, query)) & set(BACKGROUND), query
