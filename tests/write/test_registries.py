"""The write path's parts come from their registries: extractors by ``extract.mode``,
write hooks by name, each on or off by its settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kit import FakeLLM

from logicmem.config import load_settings
from logicmem.errors import ConfigError
from logicmem.memory import Memory
from logicmem.routes.visible.hook import VisibilityIndexer
from logicmem.types import MemoryEntry, Scope, Turn
from logicmem.write.base import EXTRACTORS, WRITE_HOOKS, Candidate, Extractor
from logicmem.write.llm_extract import LLMExtractor
from logicmem.write.rules import RuleExtractor

BASE = {"embedder": {"provider": "hash"}, "llm": {"provider": "none"}}


class ShoutExtractor(Extractor):
    name = "shout"

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        return [Candidate(t.text.upper(), t.user_id, [t.turn_id], t.session_id) for t in turns]


class Recorder:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_added(self, scope: Scope, entries: list[MemoryEntry], vectors: np.ndarray) -> None:
        self.seen.extend(e.text for e in entries)


@pytest.fixture
def plugins() -> Iterator[Recorder]:
    recorder = Recorder()
    EXTRACTORS.register("shout", lambda settings, llm: ShoutExtractor())
    WRITE_HOOKS.register("recorder", lambda store, embedder, llm, settings: recorder)
    yield recorder
    EXTRACTORS.unregister("shout")
    WRITE_HOOKS.unregister("recorder")


def _memory(tmp_path: Path, **extra: Any) -> Memory:
    return Memory(tmp_path / "m.db", config={**BASE, **extra})


def test_extract_mode_picks_a_registered_extractor(tmp_path: Path, plugins: Recorder) -> None:
    with _memory(tmp_path, extract={"mode": "shout"}) as mem:
        assert isinstance(mem.pipeline.extractor(), ShoutExtractor)
        mem.add("I keep bees on the roof.", user_id="ana")
        assert [m.text for m in mem.get_all(user_id="ana")] == ["I KEEP BEES ON THE ROOF."]
        assert plugins.seen == ["I KEEP BEES ON THE ROOF."]  # registered hooks run too
        # a hook without a version is known by its class in the version memories carry
        assert "test_registries.Recorder" in mem.pipeline.index_version.split("+")
        assert mem.indexed_otherwise() == 0


def test_auto_uses_the_llm_extractor_only_when_the_llm_is_capable(tmp_path: Path) -> None:
    with _memory(tmp_path, extract={"mode": "rules"}) as mem:
        assert isinstance(mem.pipeline.extractor(), RuleExtractor)
    with _memory(tmp_path) as mem:  # auto, no LLM
        assert isinstance(mem.pipeline.extractor(), RuleExtractor)
    llm = FakeLLM()  # capable, like a configured server
    with Memory(tmp_path / "m.db", config=BASE, llm=llm) as mem:
        assert isinstance(mem.pipeline.extractor(), LLMExtractor)


def test_llm_mode_without_an_llm_and_an_unknown_mode_are_config_errors(tmp_path: Path) -> None:
    with (
        _memory(tmp_path, extract={"mode": "llm"}) as mem,
        pytest.raises(ConfigError, match="no LLM is configured"),
    ):
        mem.pipeline.extractor()
    with pytest.raises(ConfigError, match=r"unknown extract\.mode 'magic'.*auto, llm, rules"):
        load_settings({"extract": {"mode": "magic"}}, env={})


def test_the_visibility_hook_comes_from_the_registry_and_its_settings(tmp_path: Path) -> None:
    assert "visibility" in WRITE_HOOKS.names()
    with _memory(tmp_path) as mem:
        assert [type(h) for h in mem.pipeline.hooks] == [VisibilityIndexer]
    with _memory(tmp_path, visibility={"enabled": False}) as mem:
        assert mem.pipeline.hooks == []
