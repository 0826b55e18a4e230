"""Build the configured models from settings, through the registries."""

from __future__ import annotations

from logicmem.config import EmbedderSettings, LLMSettings, check_provider
from logicmem.models.embed.base import EMBEDDERS, Embedder
from logicmem.models.llm.base import LLM, LLMS


def build_embedder(settings: EmbedderSettings) -> Embedder:
    check_provider("embedder", settings.provider)
    return EMBEDDERS.create(settings.provider, settings)


def build_llm(settings: LLMSettings) -> LLM | None:
    """The configured LLM, or None when ``provider = "none"``. Nothing is loaded yet."""
    if settings.provider == "none":
        return None
    check_provider("llm", settings.provider)  # settings built by hand skip load_settings
    return LLMS.create(settings.provider, settings)
