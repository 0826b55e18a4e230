"""The OpenAI-compatible backends against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from logicmem.config import EmbedderSettings, LLMSettings
from logicmem.errors import ConfigError, ModelError
from logicmem.models.embed.openai_compat import OpenAIEmbedder
from logicmem.models.llm.openai_compat import OpenAICompatLLM, sum_continuation

DIMS = 8
REPLY = {"answer": "ok"}


def word_tokens(text: str) -> list[tuple[int, str]]:
    """The fake server's tokenizer: each word with its leading spaces, with its offset."""
    return [(m.start(), m.group()) for m in re.finditer(r"\s*\S+", text)]


def token_logprob(token: str) -> float:
    return -0.5 * len(token.strip())  # deterministic, so tests can compute expected sums


class FakeOpenAI(ThreadingHTTPServer):
    """Speaks enough of the OpenAI protocol; knobs let a test make it misbehave."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.rejected_formats: set[str] = set()
        self.completions_mode = "echo"  # "echo", "missing" (404) or "generated-only"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        routes = {
            "/v1/chat/completions": self.chat,
            "/v1/embeddings": self.embeddings,
            "/v1/completions": self.completions,
        }
        route = routes.get(self.path)
        if route is None:
            self.send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
        else:
            route(body)

    def send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def chat(self, body: dict[str, Any]) -> None:
        kind = (body.get("response_format") or {}).get("type")
        if kind in self.server.rejected_formats:
            error = {"message": f"response_format {kind} is not supported", "type": "invalid"}
            self.send(400, {"error": error})
            return
        content = json.dumps(REPLY) if kind else "Sure! " + json.dumps(REPLY)
        prompt = sum(len(m["content"].split()) for m in body["messages"])
        self.send(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": 0},
            },
        )

    def embeddings(self, body: dict[str, Any]) -> None:
        data = []
        for i, text in enumerate(body["input"]):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
            vec = np.random.default_rng(seed).normal(size=DIMS) * 3.0  # deliberately not unit
            data.append({"object": "embedding", "index": i, "embedding": vec.tolist()})
        data.reverse()  # the client must order by index, not by position
        usage = {"prompt_tokens": len(data), "total_tokens": len(data)}
        self.send(200, {"object": "list", "data": data, "model": body["model"], "usage": usage})

    def completions(self, body: dict[str, Any]) -> None:
        mode = self.server.completions_mode
        if mode == "missing":
            self.send(404, {"error": {"message": "completions not supported", "type": "x"}})
            return
        text = body["prompt"]
        toks = word_tokens(text)
        offsets = [o for o, _ in toks]
        tokens = [t for _, t in toks]
        logprobs: list[float | None] = [token_logprob(t) for t in tokens]
        logprobs[0] = None  # nothing to condition the first token on
        for _ in range(body.get("max_tokens") or 0):  # the generated token, after the prompt
            offsets.append(len(text))
            tokens.append(" x")
            logprobs.append(-9.0)
        if mode == "generated-only":  # llama.cpp's server: echo ignored
            offsets, tokens, logprobs = offsets[-1:], tokens[-1:], logprobs[-1:]
        choice = {
            "index": 0,
            "finish_reason": "length",
            "text": "".join(tokens) if mode == "echo" else " x",
            "logprobs": {"text_offset": offsets, "token_logprobs": logprobs, "tokens": tokens},
        }
        usage = {"prompt_tokens": len(toks), "completion_tokens": 1, "total_tokens": 0}
        self.send(
            200,
            {
                "id": "cmpl-1",
                "object": "text_completion",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
                "usage": usage,
            },
        )


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # a developer's proxy must not interfere
    srv = FakeOpenAI()
    thread = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def llm(server: FakeOpenAI) -> OpenAICompatLLM:
    return OpenAICompatLLM(LLMSettings(provider="openai", base_url=server.url, model="fake-1"))


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- chat -------------------------------------------------------------------------------------


def test_chat_plain(llm: OpenAICompatLLM, server: FakeOpenAI) -> None:
    reply = llm.chat([{"role": "user", "content": "say hi please"}], max_tokens=7)
    assert reply.startswith("Sure!")
    path, body = server.requests[-1]
    assert path == "/v1/chat/completions"
    assert body["max_tokens"] == 7 and body["temperature"] == 0.0
    assert "response_format" not in body
    assert llm.name == "openai:fake-1"
    assert llm.capable and llm.supports_json_schema and llm.supports_loglik


def test_chat_schema_uses_json_schema(llm: OpenAICompatLLM, server: FakeOpenAI) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    reply = llm.chat([{"role": "user", "content": "q"}], schema=schema)
    assert json.loads(reply) == REPLY
    body = server.requests[-1][1]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == schema
    assert body["messages"] == [{"role": "user", "content": "q"}]  # no prompt-side schema


def test_chat_schema_falls_back_and_remembers(llm: OpenAICompatLLM, server: FakeOpenAI) -> None:
    server.rejected_formats = {"json_schema"}
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "q"}]
    assert json.loads(llm.chat(messages, schema=schema)) == REPLY  # type: ignore[arg-type]
    kinds = [b["response_format"]["type"] for _, b in server.requests]
    assert kinds == ["json_schema", "json_object"]
    system = server.requests[-1][1]["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Be brief.")
    assert '"answer"' in system["content"]  # the schema moved into the prompt

    llm.chat([{"role": "user", "content": "again"}], schema=schema)
    assert server.requests[-1][1]["response_format"]["type"] == "json_object"
    assert len(server.requests) == 3  # the rejected format was not tried again


def test_chat_schema_falls_back_to_plain(llm: OpenAICompatLLM, server: FakeOpenAI) -> None:
    server.rejected_formats = {"json_schema", "json_object"}
    reply = llm.chat([{"role": "user", "content": "q"}], schema={"type": "object"})
    assert reply.startswith("Sure!")  # the caller extracts and validates
    last = server.requests[-1][1]
    assert "response_format" not in last
    assert last["messages"][0]["role"] == "system"


def test_usage_counts_calls_and_tokens(llm: OpenAICompatLLM) -> None:
    llm.chat([{"role": "user", "content": "one two three"}])
    llm.chat([{"role": "user", "content": "four"}])
    llm.loglik("a b", " c")
    usage = llm.usage()
    assert usage["calls"] == 2 and usage["loglik_calls"] == 1
    assert usage["prompt_tokens"] == 3 + 1 + 3
    assert usage["completion_tokens"] == 5 + 5 + 1


# -- loglik -----------------------------------------------------------------------------------


def test_loglik_sums_only_continuation(llm: OpenAICompatLLM, server: FakeOpenAI) -> None:
    got = llm.loglik("The capital of France is", " Paris today")
    assert got == pytest.approx(token_logprob(" Paris") + token_logprob(" today"))
    body = server.requests[-1][1]
    assert body["prompt"] == "The capital of France is Paris today"
    assert body["echo"] is True and body["logprobs"] >= 0


def test_loglik_counts_token_straddling_boundary(llm: OpenAICompatLLM) -> None:
    # The fake tokenizer makes " Paris" one token starting inside the prefix's trailing space.
    got = llm.loglik("The capital of France is ", "Paris")
    assert got == pytest.approx(token_logprob(" Paris"))


def test_loglik_empty_prefix_skips_unscorable_first_token(llm: OpenAICompatLLM) -> None:
    assert llm.loglik("", "hello big world") == pytest.approx(
        token_logprob(" big") + token_logprob(" world")
    )
    assert llm.loglik("anything", "") == 0.0


def test_sum_continuation_spans() -> None:
    # "ab|cd ef": tokens "ab" [0,2), "cd" [2,4), " ef" [4,7), generated [7,...)
    offsets, logprobs = [0, 2, 4, 7], [None, -1.0, -2.0, -9.0]
    assert sum_continuation(offsets, logprobs, 2, 7) == pytest.approx(-3.0)
    assert sum_continuation(offsets, logprobs, 3, 7) == pytest.approx(-3.0)  # straddling "cd"
    assert sum_continuation(offsets, logprobs, 4, 7) == pytest.approx(-2.0)
    with pytest.raises(ModelError):
        sum_continuation([0, 2], [None, None], 2, 4)


@pytest.mark.parametrize("mode", ["missing", "generated-only"])
def test_loglik_unsupported_server(llm: OpenAICompatLLM, server: FakeOpenAI, mode: str) -> None:
    server.completions_mode = mode
    with pytest.raises(ModelError, match="echo") as err:
        llm.loglik("The sky is", " blue")
    assert server.url in str(err.value)


# -- embeddings -------------------------------------------------------------------------------


def test_embeddings_unit_rows_in_order(server: FakeOpenAI) -> None:
    emb = OpenAIEmbedder(
        EmbedderSettings(provider="openai", base_url=server.url, model="emb-1", batch_size=2)
    )
    texts = ["alpha", "beta", "gamma", "alpha"]
    vecs = emb.embed(texts)
    assert vecs.shape == (4, DIMS) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[0], vecs[3])  # same text, same vector despite reversed replies
    assert not np.allclose(vecs[0], vecs[1])
    assert [len(b["input"]) for _, b in server.requests] == [2, 2]  # batch_size honoured
    assert all(b["encoding_format"] == "float" for _, b in server.requests)
    assert emb.name == "openai:emb-1"


def test_embedding_dims_probe_and_setting(server: FakeOpenAI) -> None:
    probed = OpenAIEmbedder(EmbedderSettings(provider="openai", base_url=server.url, model="e"))
    assert probed.dims == DIMS
    assert probed.dims == DIMS
    assert len(server.requests) == 1  # probed once, then remembered

    told = OpenAIEmbedder(
        EmbedderSettings(provider="openai", base_url=server.url, model="e", dims=DIMS)
    )
    assert told.dims == DIMS and len(server.requests) == 1
    wrong = OpenAIEmbedder(
        EmbedderSettings(provider="openai", base_url=server.url, model="e", dims=DIMS + 1)
    )
    with pytest.raises(ModelError, match="dim"):
        wrong.embed(["x"])


# -- configuration and failures ---------------------------------------------------------------


def test_missing_settings_say_what_to_set() -> None:
    with pytest.raises(ConfigError, match="LOGICMEM_LLM_BASE_URL and LOGICMEM_LLM_MODEL"):
        OpenAICompatLLM(LLMSettings(provider="openai"))
    with pytest.raises(ConfigError, match="LOGICMEM_EMBED_BASE_URL"):
        OpenAIEmbedder(EmbedderSettings(provider="openai", model="e"))


def test_unreachable_server_fails_fast_with_url() -> None:
    url = closed_port_url()
    llm = OpenAICompatLLM(LLMSettings(provider="openai", base_url=url, model="m"))
    start = time.monotonic()
    with pytest.raises(ModelError) as err:
        llm.chat([{"role": "user", "content": "hi"}])
    assert time.monotonic() - start < 15  # default retries back off briefly, then give up
    assert url in str(err.value) and "LOGICMEM_LLM=local" in str(err.value)

    emb = OpenAIEmbedder(EmbedderSettings(provider="openai", base_url=url, model="e", dims=DIMS))
    with pytest.raises(ModelError, match=re.escape(url)):
        emb.embed(["x"])
