"""Any OpenAI-compatible server (OpenAI, vLLM, llama.cpp server, Ollama, ...) via the SDK."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from typing import Any

import openai

from logicmem.config import LLMSettings
from logicmem.errors import ConfigError, ModelError
from logicmem.models.llm.base import LLM, ChatMessage, schema_instruction

# Ways to ask for JSON, best first. A server that rejects one (HTTP 400) gets the next;
# the first that works is remembered for that schema, so later calls do not pay for the
# rejection again. A way is given up for every schema only once the server has rejected it
# for two different schemas and never accepted it: llama.cpp's server answers 400 to the
# one schema it cannot compile (e.g. an external $ref) yet constrains every other.
_FORMATS = ("json_schema", "json_object", "plain")
_MAX_REMEMBERED = 256  # schemas whose own level is remembered (some are built per call)
# How servers without prompt logprobs answer a completions request with echo.
_REJECTS = (openai.BadRequestError, openai.NotFoundError, openai.UnprocessableEntityError)


def model_error(exc: openai.OpenAIError, url: str, fallback: str) -> ModelError:
    """Turn an SDK error into a ModelError that says which URL failed and what to do."""
    if isinstance(exc, openai.APIConnectionError):  # includes timeouts
        return ModelError(f"cannot reach the model server at {url} ({exc}): {fallback}")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ModelError(f"the model server at {url} refused the API key ({exc.message})")
    if isinstance(exc, openai.NotFoundError):
        return ModelError(
            f"the model server at {url} answered 404 ({exc.message}): check the base URL "
            "(it usually ends in /v1) and the model name"
        )
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return ModelError(f"the model server at {url} answered HTTP {status}: {exc.message}")
    return ModelError(f"the model server at {url} failed: {exc}")


class OpenAICompatLLM(LLM):
    supports_json_schema = True
    supports_loglik = True
    capable = True

    def __init__(self, settings: LLMSettings) -> None:
        if not settings.base_url or not settings.model:
            raise ConfigError(
                "the openai LLM provider needs a server and a model: "
                "set LOGICMEM_LLM_BASE_URL and LOGICMEM_LLM_MODEL"
            )
        self.settings = settings
        self.base_url = settings.base_url
        self.model = settings.model
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key or "unused",  # local servers ignore it; the SDK needs one
            timeout=settings.timeout_s,
            max_retries=settings.max_retries,
        )
        self._format = 0  # index into _FORMATS: the best way still tried for every schema
        self._levels: dict[str, int] = {}  # schema -> the way that worked for it
        self._worked: set[int] = set()  # ways this server has answered
        self._rejected: dict[int, set[str]] = {}  # way -> schemas it was rejected for
        self._lock = threading.Lock()
        self._usage = {"calls": 0, "loglik_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def _error(self, exc: openai.OpenAIError) -> ModelError:
        return model_error(
            exc,
            self.base_url,
            "check that the server is running, or set LOGICMEM_LLM=local "
            "(embedded model) or LOGICMEM_LLM=none",
        )

    def _count(self, usage: Any, **add: int) -> None:
        with self._lock:
            for key, value in add.items():
                self._usage[key] += value
            if usage is not None:
                self._usage["prompt_tokens"] += usage.prompt_tokens or 0
                self._usage["completion_tokens"] += usage.completion_tokens or 0

    def usage(self) -> dict[str, int]:
        return dict(self._usage)

    def chat(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        args: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens or self.settings.max_tokens,
            "temperature": self.settings.temperature if temperature is None else temperature,
        }
        if schema is None:
            return self._complete_chat(list(messages), args)
        key = json.dumps(schema, sort_keys=True, separators=(",", ":"), default=str)
        level = max(self._format, self._levels.get(key, 0))
        while True:
            try:
                reply = self._complete_chat(self._with_format(messages, schema, level, args), args)
            except _Rejected:
                self._note_rejection(level, key)
                level += 1
                continue
            self._note_success(level, key)
            return reply

    def _note_rejection(self, level: int, key: str) -> None:
        with self._lock:
            if level in self._worked:
                return  # the server takes this way: only this schema is the problem
            schemas = self._rejected.setdefault(level, set())
            schemas.add(key)
            if len(schemas) >= 2:
                self._format = max(self._format, level + 1)

    def _note_success(self, level: int, key: str) -> None:
        with self._lock:
            self._worked.add(level)
            if level > self._format:
                if len(self._levels) >= _MAX_REMEMBERED:
                    self._levels.clear()
                self._levels[key] = level

    def _with_format(
        self,
        messages: list[ChatMessage],
        schema: dict[str, Any],
        level: int,
        args: dict[str, Any],
    ) -> list[ChatMessage]:
        """Set ``args["response_format"]`` for this level; return the messages to send."""
        kind = _FORMATS[level]
        args.pop("response_format", None)
        if kind == "json_schema":
            args["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema},
            }
            return list(messages)
        if kind == "json_object":
            args["response_format"] = {"type": "json_object"}
        # Without schema-constrained decoding the model must be told the schema.
        system: ChatMessage = {"role": "system", "content": schema_instruction(schema)}
        if messages and messages[0]["role"] == "system":
            first = messages[0]["content"] + "\n\n" + system["content"]
            return [{"role": "system", "content": first}, *messages[1:]]
        return [system, *messages]

    def _complete_chat(self, messages: list[ChatMessage], args: dict[str, Any]) -> str:
        try:
            resp = self._client.chat.completions.create(messages=messages, **args)  # type: ignore[arg-type]
        except openai.BadRequestError as exc:
            kind = args.get("response_format", {}).get("type")
            # A prompt too long for the context is refused whatever the format, and the
            # fallbacks only lengthen it (the schema moves into the prompt): no retry.
            if kind is not None and kind != _FORMATS[-1] and not _context_overflow(exc):
                raise _Rejected from exc
            raise self._error(exc) from None
        except openai.OpenAIError as exc:
            raise self._error(exc) from None
        self._count(resp.usage, calls=1)
        if not resp.choices:
            raise ModelError(f"the model server at {self.base_url} returned no choices")
        return resp.choices[0].message.content or ""

    def loglik(self, prefix: str, continuation: str) -> float:
        """Score via the legacy completions API with ``echo`` (vLLM-style prompt logprobs)."""
        if not continuation:
            return 0.0
        text = prefix + continuation
        try:
            # max_tokens=1, not 0: vLLM and OpenAI accept it everywhere; the one generated
            # token starts at len(text) and so is never summed.
            resp = self._client.completions.create(
                model=self.model, prompt=text, echo=True, logprobs=1, max_tokens=1, temperature=0
            )
        except _REJECTS as exc:
            raise self._unsupported(f"it answered HTTP {exc.status_code} ({exc.message})") from None
        except openai.OpenAIError as exc:
            raise self._error(exc) from None
        self._count(resp.usage, loglik_calls=1)
        lp = resp.choices[0].logprobs if resp.choices else None
        no_echo = "it did not echo logprobs for the prompt tokens"
        if lp is None or lp.text_offset is None or lp.token_logprobs is None:
            # llama.cpp's server ignores echo and answers in the chat format ("content"),
            # with the logprob of the generated token only.
            if lp is not None and getattr(lp, "content", None):
                raise self._unsupported(f"{no_echo} (only for the generated token)")
            raise self._unsupported("it returned no logprobs")
        # A server that ignores echo but answers in the legacy format would silently score
        # every continuation alike: demand one logprob per prompt token.
        prompt_tokens = resp.usage.prompt_tokens if resp.usage else 0
        if len(lp.token_logprobs) < max(prompt_tokens, 2):
            raise self._unsupported(no_echo)
        return sum_continuation(lp.text_offset, lp.token_logprobs, len(prefix), len(text))

    def _unsupported(self, why: str) -> ModelError:
        return ModelError(
            f"log-likelihood needs the completions API with echo=True and logprobs on "
            f"{self.base_url}, but {why}; use a vLLM-style server, or set LOGICMEM_LLM=local"
        )


def sum_continuation(
    offsets: Sequence[int], logprobs: Sequence[float | None], start: int, end: int
) -> float:
    """Sum logprobs of the echoed tokens that overlap text[start:end].

    A token spans from its offset to the next token's. A token that straddles the boundary
    (e.g. " Paris" when the prefix ends with a space) counts as continuation, as it does
    in the local backend. Only the first token of a text can lack a logprob.
    """
    total, scored = 0.0, 0
    n = min(len(offsets), len(logprobs))
    for i in range(n):
        span_end = offsets[i + 1] if i + 1 < n else end
        if span_end <= start or offsets[i] >= end:
            continue
        value = logprobs[i]
        if value is None:
            if i == 0:
                continue  # nothing to condition on: the server cannot score the first token
            raise ModelError("the server returned a null logprob inside the continuation")
        total += value
        scored += 1
    if not scored:
        raise ModelError("the server's logprobs covered none of the continuation")
    return total


def _context_overflow(exc: openai.APIStatusError) -> bool:
    """Whether a 400 says the prompt does not fit the context (llama.cpp, vLLM, OpenAI)."""
    text = " ".join(str(part) for part in (exc.code, exc.type, exc.message) if part)
    return re.search(r"context[ _](length|size|window)", text, re.IGNORECASE) is not None


class _Rejected(Exception):
    """The server answered 400 to a response_format: try the next way of asking for JSON."""
