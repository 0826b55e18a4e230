"""The embedded SmolLM2-135M GGUF run by llama.cpp in-process (the prebuilt xllamacpp wheel).

An alternative to ``local`` (transformers): the same GGUF, no conversion or cache, loaded
in well under a second, with llama.cpp's own JSON-schema-constrained decoding. llama.cpp
has no prompt logprobs (its server ignores ``echo``; xllamacpp exposes no logits), so
``loglik`` forces the continuation's tokens with a token grammar and sums the
*pre-sampling* logprob llama.cpp reports for each forced token: the model's own
log-probability of that token given everything before it.

xllamacpp always opens its HTTP server as well; it listens on 127.0.0.1 on a free port and
requires a random per-process API key, so only this process can use it (for ``/tokenize``).
"""

from __future__ import annotations

import json
import secrets
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from logicmem.config import LLMSettings
from logicmem.errors import ModelError
from logicmem.models.llm.base import LLM, ChatMessage, schema_instruction
from logicmem.models.llm.local_gguf import MAX_NEW_TOKENS, gguf_path

PIP_HINT = "pip install xllamacpp"
N_CTX = 2048  # tokens of context; longer loglik texts lose their oldest context tokens
DOC_START = "<|endoftext|>"  # SmolLM2's document start, the context of every score


class LlamaCppLLM(LLM):
    supports_json_schema = True
    supports_loglik = True
    capable = False  # the default model is the 135M one; judge a bigger GGUF yourself

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self._path = Path(settings.model) if settings.model else None  # a GGUF; default: ours
        self._server: Any = None
        self._start_ids: list[int] = []
        self._key = secrets.token_hex(16)
        self._lock = threading.Lock()
        self._usage = {"calls": 0, "loglik_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}

    @property
    def name(self) -> str:
        return f"llamacpp:{self._path.stem}" if self._path else "llamacpp:smollm2-135m"

    # -- loading ---------------------------------------------------------------------------

    def _load(self) -> Any:
        with self._lock:
            if self._server is None:
                self._server = self._start()
            return self._server

    def _start(self) -> Any:
        path = self._path or gguf_path()
        if not path.is_file():
            raise ModelError(f"no GGUF file at {path}: fix llm.model (LOGICMEM_LLM_MODEL)")
        try:
            import xllamacpp as xlc
        except ImportError as exc:
            raise ModelError(
                f"the llamacpp LLM needs the xllamacpp wheel ({exc}): run `{PIP_HINT}`, "
                "or set LOGICMEM_LLM=local"
            ) from None
        params = xlc.CommonParams()
        params.model.path = str(path)
        params.n_ctx = N_CTX
        params.n_parallel = 1
        params.cpuparams.n_threads = max(1, self.settings.threads)
        params.cpuparams_batch.n_threads = max(1, self.settings.threads)
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # any free port
        params.api_keys = [self._key]
        params.verbosity = 0  # llama.cpp logs to stderr otherwise
        try:
            return xlc.Server(params)
        except (RuntimeError, ValueError) as exc:
            raise ModelError(f"llama.cpp could not load {path} ({exc})") from None

    def close(self) -> None:
        """Stop the engine (its threads and port); the next call starts it again."""
        with self._lock:
            server, self._server = self._server, None
        del server  # xllamacpp stops the server and joins its threads when it is freed

    def _call(self, method: str, request: dict[str, Any]) -> dict[str, Any]:
        server = self._load()
        try:
            reply = getattr(server, method)(request)
        except (RuntimeError, ValueError) as exc:  # e.g. a schema it cannot compile
            raise _Refused(str(exc)) from None
        if isinstance(reply, str | bytes):
            reply = json.loads(reply)
        if not isinstance(reply, dict):
            raise ModelError(f"llama.cpp answered {type(reply).__name__}, not a JSON object")
        error = reply.get("error")
        if error:
            message = error.get("message", error) if isinstance(error, dict) else error
            raise _Refused(str(message))
        return reply

    def _doc_start(self) -> list[int]:
        """The token every score is conditioned on: <|endoftext|>, else the model's BOS."""
        if not self._start_ids:
            ids = self._tokenize(DOC_START, special=True)
            self._start_ids = ids if len(ids) == 1 else self._tokenize("", special=True)[:1]
        return self._start_ids

    def _tokenize(self, text: str, *, special: bool = False) -> list[int]:
        server = self._load()
        # Special-token names in user text stay plain text: a forced end-of-text token
        # would stop the scoring early.
        body = json.dumps({"content": text, "add_special": special, "parse_special": special})
        req = urllib.request.Request(
            server.listening_address + "/tokenize",
            data=body.encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self._key}"},
        )
        try:
            # No proxy: the address is this process's own loopback port.
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(req, timeout=self.settings.timeout_s) as resp:
                return [int(t) for t in json.loads(resp.read())["tokens"]]
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(f"llama.cpp could not tokenize ({exc})") from None

    # -- chat ------------------------------------------------------------------------------

    def chat(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        temp = self.settings.temperature if temperature is None else temperature
        request: dict[str, Any] = {
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "max_tokens": min(max_tokens or self.settings.max_tokens, MAX_NEW_TOKENS),
            "temperature": temp,
        }
        if temp > 0:  # plain temperature sampling, as the local backend does
            request.update(top_k=0, top_p=1.0, min_p=0.0)
        if schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema},
            }
        try:
            reply = self._call("handle_chat_completions", request)
        except _Refused as exc:
            # A prompt over the context would only grow with the schema in it: no retry.
            if schema is None or "context size" in str(exc):
                raise ModelError(f"llama.cpp refused the chat request: {exc}") from None
            # A schema llama.cpp cannot compile: put it in the prompt instead.
            request.pop("response_format")
            request["messages"] = _with_instruction(request["messages"], schema)
            try:
                reply = self._call("handle_chat_completions", request)
            except _Refused as again:
                raise ModelError(f"llama.cpp refused the chat request: {again}") from None
        usage = reply.get("usage") or {}
        self._count(
            calls=1,
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
        )
        try:
            content = reply["choices"][0]["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ModelError("llama.cpp returned no choices") from None
        return str(content or "").strip()

    # -- log-likelihood --------------------------------------------------------------------

    def loglik(self, prefix: str, continuation: str) -> float:
        """Natural-log probability of ``continuation`` after ``prefix``.

        Tokenised as in the local backend: tokens shared by the tokenisations of ``prefix``
        and ``prefix + continuation`` are context, the rest (including a token that merges
        across the boundary) is scored, after a document-start token. The scored tokens are
        forced one by one with a grammar; each one's logprob is read before sampling.
        """
        if not continuation:
            return 0.0
        head = self._tokenize(prefix) if prefix else []
        full = self._tokenize(prefix + continuation)
        shared = 0
        while shared < min(len(head), len(full)) and head[shared] == full[shared]:
            shared += 1
        context, targets = [*self._doc_start(), *full[:shared]], full[shared:]
        if not targets:
            return 0.0  # the continuation added no token of its own
        if not context:
            raise ModelError(f"{self.name} has no document-start token to score after")
        if len(targets) >= N_CTX:
            raise ModelError(f"continuation too long to score ({len(targets)} tokens)")
        context = context[max(0, len(context) + len(targets) - N_CTX) :]  # oldest go first
        grammar = "%llguidance {}\nstart: " + " ".join(f"<[{t}]>" for t in targets)
        request = {
            "prompt": context,
            "max_tokens": len(targets),
            "temperature": 0,
            "logprobs": 1,
            "grammar": grammar,
        }
        try:
            reply = self._call("handle_completions", request)
        except _Refused as exc:
            raise ModelError(f"llama.cpp could not score the continuation: {exc}") from None
        try:
            entries = reply["choices"][0]["logprobs"]["content"]
            got = [int(e["id"]) for e in entries]
            total = sum(float(e["logprob"]) for e in entries)
        except (KeyError, IndexError, TypeError, ValueError):
            raise ModelError("llama.cpp returned no logprobs for the forced tokens") from None
        if got != targets:  # e.g. a build without LLGuidance ignores the grammar
            raise ModelError(
                "llama.cpp did not follow the token grammar (it needs the LLGuidance build "
                f"of xllamacpp): forced {targets[:8]}, got {got[:8]}"
            )
        self._count(loglik_calls=1, prompt_tokens=len(context) + len(targets))
        return total

    # -- usage -----------------------------------------------------------------------------

    def _count(self, **add: int) -> None:
        with self._lock:
            for key, value in add.items():
                self._usage[key] += int(value)

    def usage(self) -> dict[str, int]:
        return dict(self._usage)


def _with_instruction(
    messages: list[dict[str, str]], schema: dict[str, Any]
) -> list[dict[str, str]]:
    msgs = [dict(m) for m in messages]
    if msgs and msgs[0]["role"] == "system":
        msgs[0]["content"] += "\n\n" + schema_instruction(schema)
    else:
        msgs.insert(0, {"role": "system", "content": schema_instruction(schema)})
    return msgs


class _Refused(Exception):
    """llama.cpp answered a request with an error."""
