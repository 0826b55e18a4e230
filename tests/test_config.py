from pathlib import Path

import pytest

from logicmem.config import load_settings
from logicmem.errors import ConfigError


def test_precedence_args_over_env_over_toml_over_defaults(tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text('[llm]\nprovider = "openai"\nmodel = "from-toml"\n[retrieval]\npool = 7\n')
    env = {"LOGICMEM_LLM_MODEL": "from-env"}
    s = load_settings({"llm": {"base_url": "http://127.0.0.1:1/v1"}}, config_file=toml, env=env)
    assert s.llm.provider == "openai"  # toml
    assert s.llm.model == "from-env"  # env beats toml
    assert s.llm.base_url == "http://127.0.0.1:1/v1"  # argument
    assert s.retrieval.pool == 7
    assert s.extract.mode == "auto"  # default
    s2 = load_settings({"llm": {"model": "from-arg"}}, config_file=toml, env=env)
    assert s2.llm.model == "from-arg"


def test_env_aliases_and_masked_secret() -> None:
    s = load_settings(env={"LOGICMEM_LLM": "none", "OPENAI_API_KEY": "sk-secret"})
    assert s.llm.provider == "none"
    assert s.public_dict()["llm"]["api_key"] == "***"


def test_bad_toml_and_bad_values_say_what_to_fix(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[llm\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(config_file=bad, env={})
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(config_file=tmp_path / "missing.toml", env={})
    with pytest.raises(ConfigError, match=r"retrieval\.pool"):
        load_settings({"retrieval": {"pool": "many"}}, env={})
    with pytest.raises(ConfigError, match=r"extract\.mode"):
        load_settings(env={"LOGICMEM_EXTRACT_MODE": "magic"})
    with pytest.raises(ConfigError, match="YYYY-MM-DD"):
        load_settings(env={"LOGICMEM_VISIBILITY_TODAY": "next tuesday"})
    assert load_settings(env={"LOGICMEM_VISIBILITY_TODAY": "2030-01-02"}).visibility.today
