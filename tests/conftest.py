"""Every test gets its own data dir and a clean environment; test doubles are registered
through the normal registries (``hash`` embedder, ``fake`` LLM). Store tests run on every
backend through ``backend`` / ``store_url`` (SQLite, and PostgreSQL where a server is
available: see ``tests/pg.py``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit import FakeLLM, HashEmbedder
from pg import BACKENDS, Backend, PGServer, open_backend, start_server

from logicmem.models.embed.base import EMBEDDERS
from logicmem.models.llm.base import LLMS

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "postgresql: runs on the PostgreSQL backend (a pgserver or LOGICMEM_TEST_PG)"
    )


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for key in list(os.environ):
        if key.startswith("LOGICMEM_") or key == "OPENAI_API_KEY":
            monkeypatch.delenv(key)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("LOGICMEM_STORE", str(tmp_path / "store.db"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    EMBEDDERS.register("hash", HashEmbedder)
    LLMS.register("fake", FakeLLM)
    yield tmp_path
    EMBEDDERS.unregister("hash")
    LLMS.unregister("fake")


@pytest.fixture
def fast_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """CLI runs with the hash embedder and no LLM (no model loads)."""
    monkeypatch.setenv("LOGICMEM_EMBEDDER", "hash")
    monkeypatch.setenv("LOGICMEM_LLM", "none")


@pytest.fixture
def fake_llm() -> FakeLLM:
    return FakeLLM()


@pytest.fixture
def memory(tmp_path: Path):  # type: ignore[no-untyped-def]
    from logicmem import Memory

    mem = Memory(tmp_path / "mem.db", embedder=HashEmbedder(), config={"llm": {"provider": "none"}})
    yield mem
    mem.close()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.exists():
        pytest.skip("../shared (benchmark data) is not beside the checkout")
    return SHARED


@pytest.fixture(scope="session")
def model_cache(request: pytest.FixtureRequest) -> Path:
    """A model cache in pytest's cache dir. Every test gets an empty XDG_CACHE_HOME, so
    without this the embedded LLM would redo its ~30 s GGUF conversion on every run:
    tests that load it point XDG_CACHE_HOME here."""
    return Path(request.config.cache.mkdir("logicmem-model-cache"))


@pytest.fixture(scope="session")
def minilm_embedder():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 (one per test session); skips where it is not installed."""
    from logicmem.config import EmbedderSettings
    from logicmem.errors import ModelError
    from logicmem.models.embed import minilm

    try:
        minilm.packaged_model_dir()
    except ModelError as exc:
        pytest.skip(str(exc))
    return minilm.MiniLMEmbedder(EmbedderSettings(threads=1))


# -- store backends -------------------------------------------------------------------------
@pytest.fixture(scope="session")
def pg_server() -> Iterator[PGServer]:
    """The session's PostgreSQL server, with pgvector, started on first use.

    ``LOGICMEM_TEST_PG`` (read when the tests are collected) is the libpq URL of a running
    server to use instead, e.g. ``postgresql://postgres:@/postgres?host=/run/pg``. Otherwise
    the ``pgserver`` wheel starts one in a short tmp dir, stopped and removed at session end.
    Where there is no server (pgserver or psycopg missing, a start that fails, a
    LOGICMEM_TEST_PG that cannot be reached, no pgvector), every PostgreSQL test is skipped
    with one line saying why; set ``LOGICMEM_TEST_PG_REQUIRED=1`` to fail them instead."""
    server = start_server()
    yield server
    server.close()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each store backend in turn (ids ``sqlite``, ``postgresql``). ``backend.url(name)``
    names a store: a file in ``tmp_path``, or a fresh PostgreSQL schema dropped after the
    test; the same name, the same store."""
    with open_backend(request, request.param, tmp_path) as chosen:
        yield chosen


@pytest.fixture
def store_url(backend: Backend) -> str:
    """The URL (or SQLite path) of a fresh store on each backend."""
    return backend.url()
