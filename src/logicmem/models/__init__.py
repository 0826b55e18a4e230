"""Model backends: embedders and LLMs, each behind a small interface and one registry."""

from logicmem.models.embed.base import EMBEDDERS, Embedder
from logicmem.models.llm.base import LLM, LLMS, ChatMessage

__all__ = ["EMBEDDERS", "LLM", "LLMS", "ChatMessage", "Embedder"]
