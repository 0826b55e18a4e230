"""Fusion behaviour on controlled vectors: the properties the hybrid method promises."""

import numpy as np
import pytest
from kit import HashEmbedder

from logicmem import Memory
from logicmem.errors import InputError
from logicmem.routes.semantic import query_terms


class TableEmbedder(HashEmbedder):
    """Known vectors for known texts, so dense ranks are set by the test."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        super().__init__(dims=3)
        self.table = table

    @property
    def name(self) -> str:
        return "table:3"

    def _embed(self, texts: list[str]) -> np.ndarray:
        return np.asarray([self.table.get(t, [0.0, 0.0, 1.0]) for t in texts], dtype=np.float32)


QUERY = "Any ideas for a macaron recipe?"
TABLE = {
    QUERY: [1.0, 0.0, 0.0],
    "Maya bakes French pastries every weekend.": [0.9, 0.1, 0.0],  # dense only
    "Maya's favourite recipe site is Serious Eats.": [0.0, 1.0, 0.0],  # BM25 only ("recipe")
    "Maya is a nurse.": [0.3, 0.7, 0.0],
}


@pytest.fixture
def mem(store_url: str):  # type: ignore[no-untyped-def]
    m = Memory(store_url, embedder=TableEmbedder(TABLE), config={"llm": {"provider": "none"}})
    for text in list(TABLE)[1:]:
        m.add(text, user_id="maya", infer=False)
    yield m
    m.close()


def test_bm25_only_memory_survives_fusion(mem: Memory) -> None:
    dense = [h.text for h in mem.search(QUERY, user_id="maya", k=3, method="dense").hits]
    bm25 = [h.text for h in mem.search(QUERY, user_id="maya", k=3, method="bm25").hits]
    hybrid = mem.search(QUERY, user_id="maya", k=3, method="hybrid").hits
    assert bm25 == ["Maya's favourite recipe site is Serious Eats."]
    assert dense[-1] == "Maya's favourite recipe site is Serious Eats."
    assert {h.text for h in hybrid} == set(TABLE) - {QUERY}
    recipe = next(h for h in hybrid if "recipe" in h.text)
    assert "keyword match" in recipe.reason


def test_strong_dense_hit_is_not_demoted_when_bm25_is_silent(mem: Memory) -> None:
    for fusion, expect_first in (("dense_anchored", "Maya bakes"), ("rrf", "Maya's favourite")):
        mem.env.settings = mem.env.settings.model_copy(update={"fusion": fusion})
        top = mem.search(QUERY, user_id="maya", k=1, method="hybrid").hits[0]
        # RRF ranks the lone BM25 match first although its cosine is 0; we do not.
        assert top.text.startswith(expect_first), fusion


def test_every_hit_says_what_its_score_means(mem: Memory) -> None:
    for method in ("bm25", "dense", "hybrid"):
        for hit in mem.search(QUERY, user_id="maya", k=3, method=method).hits:
            assert hit.score_kind and hit.reason and hit.route == "semantic"
            assert hit.source_turns


def test_filters_narrow_the_candidates(mem: Memory) -> None:
    hits = mem.search(QUERY, user_id="maya", k=5, filters={"category": "nothing"}).hits
    assert hits == []
    with pytest.raises(InputError, match="filters must be a dict"):
        mem.search(QUERY, user_id="maya", filters=["x"])  # type: ignore[arg-type]


def test_query_terms_drop_stopwords() -> None:
    assert query_terms("What did I say about the adoption agencies?") == [
        "say",
        "adoption",
        "agencies",
    ]
