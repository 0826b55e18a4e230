"""The llamacpp LLM: the embedded SmolLM2-135M GGUF run by llama.cpp in-process through
the xllamacpp wheel (slow: loads the model, ~1 s)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from logicmem.config import LLMSettings
from logicmem.errors import ModelError
from logicmem.models.llm import local_gguf
from logicmem.models.llm.llamacpp import LlamaCppLLM

pytestmark = pytest.mark.slow

if importlib.util.find_spec("xllamacpp") is None:
    pytest.skip("xllamacpp is not installed (pip install xllamacpp)", allow_module_level=True)

YES_NO_PROMPT = 'Is Paris in France? Reply {"answer": "yes"} or {"answer": "no"}.'
YES_NO = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def llm() -> Iterator[LlamaCppLLM]:
    try:
        local_gguf.gguf_path()
    except ModelError as exc:
        pytest.skip(str(exc))
    model = LlamaCppLLM(LLMSettings(provider="llamacpp", threads=1))
    model._load()
    yield model
    model.close()


def test_capabilities(llm: LlamaCppLLM) -> None:
    assert llm.name == "llamacpp:smollm2-135m"
    assert llm.supports_loglik and llm.supports_json_schema and not llm.capable


def test_chat_replies_within_max_tokens(llm: LlamaCppLLM) -> None:
    before = llm.usage()
    reply = llm.chat([{"role": "user", "content": "What is the capital of France?"}], max_tokens=8)
    assert isinstance(reply, str) and reply.strip()
    after = llm.usage()
    assert after["calls"] == before["calls"] + 1
    assert 1 <= after["completion_tokens"] - before["completion_tokens"] <= 8
    assert after["prompt_tokens"] > before["prompt_tokens"]


def test_chat_schema_is_constrained_json(llm: LlamaCppLLM) -> None:
    reply = llm.chat(
        [
            {
                "role": "user",
                "content": 'Is Paris in France? Reply {"answer": "yes"} or {"answer": "no"}.',
            }
        ],
        schema=YES_NO,
        max_tokens=16,
        temperature=0,
    )
    assert json.loads(reply)["answer"] in ("yes", "no")


def test_schema_llamacpp_cannot_compile_goes_into_the_prompt(llm: LlamaCppLLM) -> None:
    external = {"type": "object", "properties": {"a": {"$ref": "http://example.com/a.json"}}}
    reply = llm.chat(
        [{"role": "user", "content": "Reply with JSON."}], schema=external, max_tokens=8
    )
    assert isinstance(reply, str)  # answered unconstrained; callers validate


def test_prompt_over_the_context_is_a_model_error(llm: LlamaCppLLM) -> None:
    too_long = [{"role": "user", "content": "word " * 2100}]
    with pytest.raises(ModelError, match="context size"):
        llm.chat(too_long, schema=YES_NO, max_tokens=4)  # type: ignore[arg-type]


def test_loglik_is_finite_negative_and_ranks(llm: LlamaCppLLM) -> None:
    prefix = "The capital of France is"
    paris = llm.loglik(prefix, " Paris")
    assert math.isfinite(paris) and paris < 0
    assert paris > llm.loglik(prefix, " banana")
    # The same when the space ends the prefix: " Paris" straddles the boundary and counts.
    assert llm.loglik(prefix + " ", "Paris") == pytest.approx(paris)
    assert llm.loglik(prefix + " ", "Paris") > llm.loglik(prefix + " ", "banana")


def test_loglik_edge_cases(llm: LlamaCppLLM) -> None:
    assert llm.loglik("anything", "") == 0.0
    empty = llm.loglik("", "Hello world")  # scored after the document-start token
    assert math.isfinite(empty) and empty < 0
    # Special-token names in text are text: scoring must not stop at them.
    special = llm.loglik("Say", " <|im_end|> twice <|im_end|>")
    assert math.isfinite(special) and special < llm.loglik("Say", " <|im_end|>")
    calls = llm.usage()["loglik_calls"]
    llm.loglik("a", " b")
    assert llm.usage()["loglik_calls"] == calls + 1


def test_loglik_agrees_with_the_transformers_engine(llm: LlamaCppLLM, model_cache: Path) -> None:
    # Same GGUF, different arithmetic (llama.cpp multiplies the 4-bit weights directly,
    # transformers dequantises them to float16): close, not equal.
    local = local_gguf.LocalGGUF(LLMSettings(threads=1))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(model_cache))
        local._load()
    pairs = [
        ("The capital of France is", " Paris"),
        ("The capital of France is", " banana"),
        ("", "Hello world"),
        ("Alice is allergic to", " peanuts, so she checks the ingredients."),
    ]
    for prefix, cont in pairs:
        want = local.loglik(prefix, cont)
        assert llm.loglik(prefix, cont) == pytest.approx(want, abs=0.5, rel=0.05), (prefix, cont)


def test_missing_wheel_is_a_model_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import fails
    llm = LlamaCppLLM(LLMSettings(provider="llamacpp"))
    with pytest.raises(ModelError, match="pip install xllamacpp"):
        llm.chat([{"role": "user", "content": "hi"}])


def test_missing_gguf_is_a_model_error(tmp_path: Path) -> None:
    llm = LlamaCppLLM(LLMSettings(provider="llamacpp", model=str(tmp_path / "none.gguf")))
    assert llm.name == "llamacpp:none"
    with pytest.raises(ModelError, match="no GGUF file"):
        llm.loglik("a", " b")


def test_close_stops_and_a_call_restarts(llm: LlamaCppLLM) -> None:
    llm.close()
    assert llm._server is None
    assert llm.chat([{"role": "user", "content": "hi"}], max_tokens=2).strip()
    assert llm._server is not None
