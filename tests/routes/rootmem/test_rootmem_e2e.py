"""RootMem with the real MiniLM embedder and the embedded SmolLM2-135M, small: one batch.

A 135M model's units are weak or absent; what must hold is the plumbing: one
construction call (or two with the retry), a watermark that moves only when the batch
was applied, a failure recorded rather than raised, and k items at query time.
"""

from pathlib import Path

import pytest

from logicmem import Memory
from logicmem.routes.rootmem.repo import RootMemRepository
from logicmem.types import Scope

pytestmark = pytest.mark.slow


def test_embedded_models_build_and_route_without_crashing(
    store_url: str, model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    config = {"visibility": {"enabled": False}, "rootmem": {"max_tokens": 160}}
    with Memory(store_url, config=config, routes=("semantic", "rootmem")) as mem:
        for text in (
            "Maya works in a small studio downtown.",
            "Maya's cat Miso stays with her at the studio.",
            "Maya is allergic to peanuts.",
            "Maya hosts a dinner for friends every month.",
        ):
            mem.add(text, user_id="maya", infer=False)
        stats = mem.consolidate(user_id="maya", only=["rootmem"])["rootmem"]
        assert stats["batches"] == 1 and 1 <= stats["llm_calls"] <= 2
        marks = RootMemRepository.of(mem.store).marks(Scope("maya"))
        if stats["failed_batches"]:
            assert mem.stats()["events"]["rootmem_batch_failed"] == 1
            assert {state for state, _ in marks.values()} == {"failed"}
        else:
            assert {state for state, _ in marks.values()} == {"done"}
        units = RootMemRepository.of(mem.store).units(Scope("maya"))
        assert len(units) <= mem.settings.rootmem.max_units

        hits = mem.search("Can I repaint my studio?", user_id="maya", k=3, method="rootmem").hits
        assert len(hits) == 3 and "llm_usage" in hits[0].extras
        turns = {t for m in mem.get_all(user_id="maya") for t in m.source_turns}
        for hit in hits:
            assert hit.source_turns and set(hit.source_turns) <= turns
            if hit.route == "rootmem":
                assert "root memory unit" in hit.reason
        ctx = mem.context("Can I repaint my studio?", user_id="maya", k=3)
        assert len(ctx.items) == 3
