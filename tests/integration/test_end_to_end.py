"""The real embedder and the real embedded LLM, end to end, small."""

import math
from pathlib import Path

import pytest

from logicmem import Memory

pytestmark = pytest.mark.slow


def test_embedded_defaults_add_context_answer_and_loglik(
    tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    with Memory(tmp_path / "e2e.db", config={"llm": {"max_tokens": 24}}) as mem:
        assert mem.settings.llm.provider == "local" and mem.settings.embedder.provider == "minilm"
        result = mem.add(
            [{"role": "user", "content": "I'm allergic to tree nuts, so I avoid almonds."},
             {"role": "assistant", "content": "Noted, I'll keep that in mind."},
             {"role": "user", "content": "I'm planning a picnic by the lake on Sunday."}],
            user_id="maya", timestamp="2024-05-01",
        )  # fmt: skip
        # auto mode: the 135M model is not capable, so the rule extractor did the work
        assert result.extractor == "rules" and len(result.added) == 2
        ctx = mem.context("What should I pack for the picnic?", user_id="maya", k=2)
        assert "picnic" in ctx.items[0].text
        answer = mem.answer("What should I pack for the picnic?", user_id="maya", k=2)
        assert answer.text.strip() and answer.model.startswith("local")
        llm = mem.llm()
        assert llm is not None and llm.supports_loglik
        good = llm.loglik("Maya is allergic to tree", " nuts")
        assert math.isfinite(good) and good < 0
