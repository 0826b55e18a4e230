"""The learned fact-to-request similarity (``link``)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from logicmem.config import load_settings
from logicmem.models.factory import build_embedder
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.link import (
    LinkModel,
    fit_link,
    load_link,
    memory_forms,
    plain,
    ranking_auc,
    save_link,
)


def test_without_a_correction_it_is_the_plain_similarity() -> None:
    rng = np.random.default_rng(0)
    memories = rng.normal(size=(5, 8)).astype(np.float32)
    query = rng.normal(size=8).astype(np.float32)
    assert np.allclose(plain(8).scores(memories, query), memories @ query, atol=1e-6)


def test_the_correction_is_the_low_rank_product() -> None:
    rng = np.random.default_rng(1)
    u, v = rng.normal(size=(8, 2)), rng.normal(size=(8, 2))
    model = LinkModel(u.astype(np.float32), v.astype(np.float32), "e")
    m, q = rng.normal(size=(3, 8)).astype(np.float32), rng.normal(size=8).astype(np.float32)
    expected = m @ q + np.einsum("id,de,fe,f->i", m, u, v, q)
    assert np.allclose(model.scores(m, q), expected, atol=1e-4)
    side = model.memory_side(m)
    assert np.allclose(m @ q + model.correction(side, q), expected, atol=1e-4)


def test_the_matrices_serve_only_the_embedding_space_they_were_fit_in(tmp_path) -> None:
    shipped = load_link()
    assert shipped.embedder == "minilm:all-MiniLM-L6-v2"
    assert shipped.u.shape == shipped.v.shape == (384, shipped.meta["rank"])
    assert shipped.serves("minilm:all-MiniLM-L6-v2", 384)
    assert not shipped.serves("openai:text-embedding-3-small", 384)
    assert not shipped.serves("minilm:all-MiniLM-L6-v2", 768)
    held = shipped.meta["held_out_fifth_auc"]
    assert held["learned"] > held["plain"]  # what the training script measured
    save_link(shipped, tmp_path / "copy.npz")
    with np.load(tmp_path / "copy.npz") as raw:
        assert np.array_equal(raw["u"], shipped.u) and np.array_equal(raw["v"], shipped.v)


@pytest.mark.slow
def test_fitting_brings_facts_closer_to_their_own_situations() -> None:
    """The fit on a slice of the resource, with the real embedder: afterwards the slice's
    facts, said as sentences, rank their own entries' situations above the others' better
    than the plain similarity does (scripts/train_relevance.py measures it on held-out
    entries)."""
    embedder = build_embedder(load_settings(env={}).embedder)
    kb = load_kb()
    kept = [e.id for e in kb.entries.values() if e.type in ("allergy", "pet", "medication")]
    kept = kept[:40]
    model = fit_link(kb, embedder.embed, entries=kept, rank=8, epochs=3)
    assert model.u.shape == (384, 8) and model.meta["entries"] == len(kept)
    before = ranking_auc(kb, embedder.embed, plain(384), kept)
    after = ranking_auc(kb, embedder.embed, model, kept)
    assert after > before


def _hashed(texts: list[str]) -> np.ndarray:
    """A stand-in embedder for the fit's plumbing: a unit vector per text, from its hash."""
    out = []
    for t in texts:
        rng = np.random.default_rng(zlib.crc32(t.encode()))
        v = rng.normal(size=16)
        out.append(v / np.linalg.norm(v))
    return np.array(out, dtype=np.float32)


def test_facts_are_said_as_memories_are_stored() -> None:
    """The fit reads each entry's fact as sentences (never the resource's fragments) and
    the authored sentences linked to it."""
    kb = load_kb()
    entry = next(e for e in kb.entries.values() if e.type == "pet")
    forms = memory_forms(kb, [entry.id], {entry.id: ["Sam's cat sleeps on the bed."]})
    said = forms[entry.id]
    assert "Sam's cat sleeps on the bed." in said
    assert all(s.endswith(".") and s.startswith("Sam") for s in said)
    assert not set(said) & set(entry.fact_patterns)


def test_everyday_talk_gains_less_from_the_correction_when_fit_against_it() -> None:
    """Fit beside ordinary sentences, the correction brings them closer to the resource's
    situations less than a fit without them does."""
    kb = load_kb()
    kept = [e.id for e in kb.entries.values() if e.type in ("allergy", "pet")][:12]
    talk = [f"Sam had a nice lunch with a friend on day {i}." for i in range(64)]
    situations = sorted({s for e in kept for s in kb.entries[e].situations})
    o, s = _hashed(talk), _hashed(situations)

    def gain(model: LinkModel) -> float:
        return float(np.maximum(model.memory_side(o) @ (s @ model.v).T, 0).mean())

    common = {"entries": kept, "rank": 4, "epochs": 2, "seed": 0}
    without = fit_link(kb, _hashed, **common)
    against = fit_link(kb, _hashed, ordinary=talk, ordinary_weight=1.0, **common)
    assert gain(against) < gain(without)
