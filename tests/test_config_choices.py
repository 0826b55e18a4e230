"""Backend names are checked against the registries; the message size limit is a setting."""

import pytest

from logicmem.config import LLMSettings, load_settings
from logicmem.errors import ConfigError
from logicmem.models.factory import build_llm
from logicmem.models.llm.base import LLMS


def test_an_unknown_llm_names_it_and_every_registered_choice() -> None:
    with pytest.raises(ConfigError) as exc:
        load_settings(env={"LOGICMEM_LLM": "gpt"})
    message = str(exc.value)
    assert "unknown LLM 'gpt'" in message and "LOGICMEM_LLM" in message
    assert message.endswith("choose one of " + ", ".join(sorted([*LLMS.names(), "none"])))


def test_a_plugin_registered_before_loading_is_a_valid_choice() -> None:
    LLMS.register("my-plugin", "somewhere:Nothing")
    try:
        assert load_settings(env={"LOGICMEM_LLM": "my-plugin"}).llm.provider == "my-plugin"
    finally:
        LLMS.unregister("my-plugin")


def test_settings_built_by_hand_get_the_same_message_from_the_factory() -> None:
    with pytest.raises(ConfigError, match=r"unknown LLM 'gpt'.*none"):
        build_llm(LLMSettings(provider="gpt"))


def test_an_unknown_embedder_lists_the_choices() -> None:
    with pytest.raises(ConfigError, match=r"unknown embedder 'bert'.*minilm.*openai"):
        load_settings(env={"LOGICMEM_EMBEDDER": "bert"})


def test_max_message_chars_defaults_and_env() -> None:
    assert load_settings(env={}).extract.max_message_chars == 32_000
    env = {"LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS": "100000"}
    assert load_settings(env=env).extract.max_message_chars == 100_000
    with pytest.raises(ConfigError, match=r"extract\.max_message_chars"):
        load_settings(env={"LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS": "0"})
