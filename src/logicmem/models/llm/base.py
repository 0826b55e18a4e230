"""The LLM interface: chat (optionally constrained by a JSON schema) and log-likelihood.

Capabilities are data on the class, not guessed by sniffing methods:
``supports_json_schema`` (the backend constrains decoding to a schema),
``supports_loglik`` (``loglik`` works) and ``capable`` (good enough to trust for
extraction and judgement; the embedded 135M model is not).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar, TypedDict

from logicmem.errors import ModelError
from logicmem.registry import Registry


class ChatMessage(TypedDict):
    role: str
    content: str


class LLM(ABC):
    supports_json_schema: ClassVar[bool] = False
    supports_loglik: ClassVar[bool] = False
    capable: ClassVar[bool] = False

    @property
    @abstractmethod
    def name(self) -> str:
        """Identity for reports, e.g. ``openai:gpt-4o-mini`` or ``local:smollm2-135m``."""

    @abstractmethod
    def chat(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        """Reply text. With ``schema``, the reply should be JSON matching it: backends that
        cannot constrain decoding put the schema in the prompt; callers still validate."""

    def loglik(self, prefix: str, continuation: str) -> float:
        """Sum of log-probabilities (natural log) of ``continuation`` given ``prefix``."""
        raise ModelError(
            f"{self.name} cannot compute log-likelihoods: use llm provider 'local' "
            "(embedded SmolLM2) or a server with the completions logprobs API"
        )

    def usage(self) -> dict[str, int]:
        """Calls and tokens so far, for reports."""
        return {}


def schema_instruction(schema: dict[str, Any]) -> str:
    """Prompt text asking for JSON that matches ``schema`` (for backends without constraint)."""
    return (
        "Reply with one JSON object and nothing else. It must match this JSON schema:\n"
        + json.dumps(schema, separators=(",", ":"))
    )


def extract_json(text: str) -> Any:
    """Parse the first JSON object or array in ``text`` (models wrap JSON in prose/fences)."""
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("\n") + 1 :] if "\n" in text else text
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                value, _ = decoder.raw_decode(text[i:])
                return value
            except json.JSONDecodeError:
                continue
    raise ValueError("no JSON object found in the reply")


LLMS: Registry[LLM] = Registry("llm")
LLMS.register("local", "logicmem.models.llm.local_gguf:LocalGGUF")
LLMS.register("openai", "logicmem.models.llm.openai_compat:OpenAICompatLLM")
LLMS.register("llamacpp", "logicmem.models.llm.llamacpp:LlamaCppLLM")  # opt-in; needs xllamacpp
