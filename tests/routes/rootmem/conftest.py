"""Fixtures for the RootMem tests (helpers in rootmem_kit)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kit import FakeLLM
from rootmem_kit import make_memory

from logicmem import Memory


@pytest.fixture
def llm() -> FakeLLM:
    return FakeLLM()


@pytest.fixture
def mem(store_url: str, llm: FakeLLM) -> Iterator[Memory]:
    m = make_memory(store_url, llm)
    yield m
    m.close()
