"""The OpenAI-compatible backends against a real server: llama.cpp's, from the xllamacpp
wheel, serving the embedded SmolLM2-135M GGUF on 127.0.0.1 (slow: ~1 s to start).

The server runs in a child process, so llama.cpp's threads, logs and signal handling stay
out of pytest's; closing its stdin stops it. The tests use tiny prompts and max_tokens.
"""

from __future__ import annotations

import importlib.util
import json
import math
import queue
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from logicmem.config import EmbedderSettings, LLMSettings
from logicmem.errors import ModelError
from logicmem.models.embed.openai_compat import OpenAIEmbedder
from logicmem.models.factory import build_embedder, build_llm
from logicmem.models.llm import local_gguf
from logicmem.models.llm.openai_compat import OpenAICompatLLM

pytestmark = pytest.mark.slow

if importlib.util.find_spec("xllamacpp") is None:
    pytest.skip("xllamacpp is not installed (pip install xllamacpp)", allow_module_level=True)

MODEL = "smollm2-135m"  # the alias the server lists; llama.cpp serves any name to its one model
N_CTX = 512
EMBED_DIMS = 576  # SmolLM2-135M's hidden size: mean-pooled embeddings
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 15.0

# The child: start the server (the constructor returns once the model is loaded and the
# port listens), print its address, serve until stdin closes, then stop it.
SERVER = r"""
import json, sys
try:
    import xllamacpp as xlc
except Exception as exc:
    print(json.dumps({"error": f"xllamacpp cannot be imported: {exc}"}), flush=True)
    raise SystemExit(0)
gguf, alias, n_ctx, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
p = xlc.CommonParams()
p.model.path = gguf
p.model_alias = {alias}
p.hostnames = ["127.0.0.1"]
p.port = 0  # the OS picks a free port; listening_address says which
p.n_ctx = n_ctx
p.n_parallel = 1
p.cpuparams.n_threads = threads
p.cpuparams_batch.n_threads = threads
p.embedding = True  # /v1/embeddings too (mean pooling); chat and completions still work
p.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
server = xlc.Server(p)
print(json.dumps({"address": server.listening_address}), flush=True)
sys.stdin.read()
del server
"""


@dataclass
class LlamaServer:
    address: str  # http://127.0.0.1:PORT
    proc: subprocess.Popen[str]

    @property
    def url(self) -> str:
        return self.address + "/v1"


def free_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _healthy(address: str) -> bool:
    try:
        with urllib.request.urlopen(address + "/health", timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    try:
        gguf = local_gguf.gguf_path()
    except ModelError as exc:
        pytest.skip(str(exc))
    log_path = tmp_path_factory.mktemp("llamacpp") / "server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(gguf), MODEL, str(N_CTX), "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    lines: queue.Queue[str] = queue.Queue()
    out = proc.stdout
    assert out is not None

    def read() -> None:
        for line in out:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def stop() -> None:
        if proc.stdin is not None and not proc.stdin.closed:
            proc.stdin.close()
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=STOP_TIMEOUT_S)
        reader.join(timeout=STOP_TIMEOUT_S)

    def fail(why: str) -> None:
        stop()
        tail = log_path.read_text(errors="replace")[-2000:]
        pytest.fail(f"the llama.cpp server did not start: {why}\n{tail}")

    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        first = json.loads(lines.get(timeout=START_TIMEOUT_S))
    except queue.Empty:
        fail(f"no address after {START_TIMEOUT_S:.0f} s (exit code {proc.poll()})")
    except json.JSONDecodeError as exc:
        fail(f"unexpected output ({exc})")
    if "error" in first:
        stop()
        pytest.skip(first["error"])
    address = first["address"]
    while not _healthy(address):  # the constructor returned, so this is at most a moment
        if time.monotonic() > deadline or proc.poll() is not None:
            fail(f"{address}/health never answered 200 (exit code {proc.poll()})")
        time.sleep(0.1)
    try:
        yield LlamaServer(address, proc)
    finally:
        stop()
        assert proc.returncode is not None and not reader.is_alive()


@pytest.fixture
def llm(server: LlamaServer, monkeypatch: pytest.MonkeyPatch) -> OpenAICompatLLM:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # a developer's proxy must not interfere
    built = build_llm(LLMSettings(provider="openai", base_url=server.url, model=MODEL))
    assert isinstance(built, OpenAICompatLLM)
    return built


def record_formats(llm: OpenAICompatLLM, monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The response_format type of every chat request the backend sends from now on."""
    sent: list[str | None] = []
    completions = llm._client.chat.completions
    create = completions.create

    def spy(**kwargs: Any) -> Any:
        sent.append((kwargs.get("response_format") or {}).get("type"))
        return create(**kwargs)

    monkeypatch.setattr(completions, "create", spy)
    return sent


YES_NO = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
    "additionalProperties": False,
}
# Asking for the compact form keeps SmolLM2 from spending max_tokens on newlines.
YES_NO_PROMPT = 'Is Paris in France? Reply {"answer": "yes"} or {"answer": "no"}.'


# -- chat ------------------------------------------------------------------------------------


def test_chat_replies(llm: OpenAICompatLLM) -> None:
    reply = llm.chat([{"role": "user", "content": "What is the capital of France?"}], max_tokens=8)
    assert isinstance(reply, str) and reply.strip()
    assert llm.name == f"openai:{MODEL}"


def test_chat_is_deterministic_at_temperature_zero(llm: OpenAICompatLLM) -> None:
    messages = [{"role": "user", "content": "Name a colour."}]
    first = llm.chat(messages, max_tokens=6, temperature=0)  # type: ignore[arg-type]
    assert llm.chat(messages, max_tokens=6, temperature=0) == first  # type: ignore[arg-type]


def test_chat_schema_is_constrained_json(
    llm: OpenAICompatLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = record_formats(llm, monkeypatch)
    reply = llm.chat(
        [{"role": "user", "content": YES_NO_PROMPT}], schema=YES_NO, max_tokens=16, temperature=0
    )
    assert json.loads(reply)["answer"] in ("yes", "no")  # the whole reply, not prose around it
    assert sent == ["json_schema"]  # llama.cpp takes the schema itself: no fallback


def test_unsupported_schema_does_not_lose_json_schema_for_others(
    llm: OpenAICompatLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # llama.cpp answers 400 to a schema it cannot compile; the fallback for that schema
    # must not switch every later schema to the unconstrained json_object.
    external = {"type": "object", "properties": {"a": {"$ref": "http://example.com/a.json"}}}
    sent = record_formats(llm, monkeypatch)
    message = [{"role": "user", "content": "Reply with JSON."}]
    llm.chat(message, schema=external, max_tokens=8)  # type: ignore[arg-type]
    assert sent == ["json_schema", "json_object"]
    sent.clear()
    reply = llm.chat(
        [{"role": "user", "content": YES_NO_PROMPT}], schema=YES_NO, max_tokens=16, temperature=0
    )
    assert sent == ["json_schema"] and json.loads(reply)["answer"] in ("yes", "no")
    sent.clear()
    llm.chat(message, schema=external, max_tokens=8)  # type: ignore[arg-type]
    assert sent == ["json_object"]  # that schema's own fallback is remembered


def test_json_schema_given_up_after_two_schemas_and_no_success(
    llm: OpenAICompatLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server that has never taken json_schema and refused it for two different schemas
    # is taken not to support it: later schemas go straight to json_object.
    sent = record_formats(llm, monkeypatch)
    message = [{"role": "user", "content": "Reply with JSON."}]
    for ref in ("http://example.com/a.json", "http://example.com/b.json"):
        schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
        llm.chat(message, schema=schema, max_tokens=4)  # type: ignore[arg-type]
    assert sent == ["json_schema", "json_object"] * 2
    sent.clear()
    llm.chat(message, schema=YES_NO, max_tokens=4)  # type: ignore[arg-type]
    assert sent == ["json_object"]


def test_prompt_over_the_context_fails_once_with_a_clear_error(
    llm: OpenAICompatLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = record_formats(llm, monkeypatch)
    too_long = [{"role": "user", "content": "word " * (N_CTX + 100)}]
    with pytest.raises(ModelError, match="context") as err:
        llm.chat(too_long, schema=YES_NO, max_tokens=4)  # type: ignore[arg-type]
    assert "HTTP 400" in str(err.value) and llm.base_url in str(err.value)
    assert sent == ["json_schema"]  # not retried as json_object and plain (longer prompts)


def test_usage_counts_server_tokens(llm: OpenAICompatLLM) -> None:
    llm.chat([{"role": "user", "content": "Say hi."}], max_tokens=4)
    llm.chat([{"role": "user", "content": "Say bye."}], max_tokens=4)
    usage = llm.usage()
    assert usage["calls"] == 2 and usage["loglik_calls"] == 0
    assert 2 <= usage["completion_tokens"] <= 8
    assert usage["prompt_tokens"] > 2 * 3  # the chat template's tokens count too


# -- loglik ----------------------------------------------------------------------------------


def test_loglik_is_refused_with_the_documented_error(llm: OpenAICompatLLM) -> None:
    # llama.cpp's /v1/completions ignores echo: logprobs come only for the generated token,
    # in the chat format. Scoring with them would rate every continuation alike.
    with pytest.raises(ModelError, match="did not echo logprobs for the prompt tokens") as err:
        llm.loglik("The capital of France is", " Paris")
    assert llm.base_url in str(err.value) and "LOGICMEM_LLM=local" in str(err.value)
    assert llm.loglik("anything", "") == 0.0  # nothing to score: no request


# -- failures --------------------------------------------------------------------------------


def test_wrong_path_gives_model_error(server: LlamaServer) -> None:
    wrong = OpenAICompatLLM(
        LLMSettings(provider="openai", base_url=server.address + "/v2", model=MODEL)
    )
    with pytest.raises(ModelError, match="404") as err:
        wrong.chat([{"role": "user", "content": "hi"}], max_tokens=2)
    assert "base URL" in str(err.value)


def test_unknown_model_name_is_served_anyway(server: LlamaServer) -> None:
    # A single-model llama.cpp server ignores the name: a typo is not an error there.
    other = OpenAICompatLLM(LLMSettings(provider="openai", base_url=server.url, model="typo"))
    assert other.chat([{"role": "user", "content": "hi"}], max_tokens=2).strip()


def test_closed_port_gives_model_error() -> None:
    url = free_port_url()
    llm = OpenAICompatLLM(LLMSettings(provider="openai", base_url=url, model=MODEL, max_retries=0))
    with pytest.raises(ModelError, match="cannot reach") as err:
        llm.chat([{"role": "user", "content": "hi"}])
    assert url in str(err.value)


# -- embeddings ------------------------------------------------------------------------------


def test_embedder_against_the_server(server: LlamaServer) -> None:
    settings = EmbedderSettings(provider="openai", base_url=server.url, model=MODEL, batch_size=2)
    emb = build_embedder(settings)
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.dims == EMBED_DIMS  # probed from the server
    vecs = emb.embed(["Alice lives in Berlin.", "The cat sleeps.", "Alice lives in Berlin."])
    assert vecs.shape == (3, EMBED_DIMS) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[0], vecs[2], atol=1e-4)  # same text, across two batches
    assert math.isfinite(float(vecs[0] @ vecs[1])) and not np.allclose(vecs[0], vecs[1])


def test_embedder_dims_mismatch_is_model_error(server: LlamaServer) -> None:
    emb = OpenAIEmbedder(
        EmbedderSettings(provider="openai", base_url=server.url, model=MODEL, dims=384)
    )
    with pytest.raises(ModelError, match="576-dim"):
        emb.embed(["x"])


def test_models_lists_the_alias(server: LlamaServer) -> None:
    with urllib.request.urlopen(server.url + "/models", timeout=5) as resp:
        models = json.loads(resp.read())
    assert [m["id"] for m in models["data"]] == [MODEL]
