"""The key index and the learned relevance model, on keys written for these tests."""

from __future__ import annotations

import numpy as np
import pytest

from logicmem.config import load_settings
from logicmem.models.factory import build_embedder
from logicmem.routes.visible.kb import KnowledgeBase, load_kb
from logicmem.routes.visible.keyindex import KeyIndex, key_score
from logicmem.routes.visible.relevance import (
    FEATURES,
    load_model,
    request_windows,
    training_set,
)
from logicmem.routes.visible.repo import MemoryKey
from logicmem.routes.visible.text import tokens

KEYS = [
    ("m2", "pad thai", "allergy-peanut"),
    ("m1", "lilies", "pet-cat-toxins"),
    ("m1", "essential oils", "pet-cat-toxins"),
    ("m2", "satay", "allergy-peanut"),
    ("m3", "lilies", "pet-cat-toxins"),
    ("m3", "international travel", "legal-probation-parole"),
]


def _index(rng: np.random.Generator) -> tuple[KeyIndex, np.ndarray]:
    keys = [MemoryKey(m, k, "kb", ref) for m, k, ref in KEYS]
    distinct = {k for _, k, _ in KEYS}
    vec = {
        k: v / np.linalg.norm(v) for k, v in zip(distinct, rng.normal(size=(6, 8)), strict=False)
    }
    matrix = np.vstack([vec[k] for _, k, _ in KEYS]).astype(np.float32)
    return KeyIndex(keys, matrix, load_kb()), matrix


def test_the_index_matches_the_plain_loop_it_replaces() -> None:
    rng = np.random.default_rng(3)
    index, matrix = _index(rng)
    assert len(index.texts) == 5 and index.memory_ids == ["m1", "m2", "m3"]  # lilies once
    windows = rng.normal(size=(3, 8)).astype(np.float32)
    words = tokens("Should I bring lilies or a satay platter?")
    match = index.match(windows, words, {}, discount=0.3, implied_weight=0.8)
    kb = load_kb()
    for m, memory_id in enumerate(index.memory_ids):
        rows = [i for i, (mid, _, _) in enumerate(KEYS) if mid == memory_id]
        sims = [(windows @ matrix[i]).max() for i in rows]
        specs = [kb.specificity(KEYS[i][1]) for i in rows]
        scores = [float(key_score(s, p, 0.3)) for s, p in zip(sims, specs, strict=True)]
        assert match.key_score[m] == pytest.approx(max(scores), abs=1e-5)
        assert match.key_sim[m] == pytest.approx(max(sims), abs=1e-5)
        assert index.rows[match.scored_row[m]].key == KEYS[rows[int(np.argmax(scores))]][1]
    named = {index.memory_ids[m]: index.rows[r].key for m, r in enumerate(match.lexical_row)}
    assert named == {"m1": "lilies", "m2": "satay", "m3": "lilies"}
    assert match.lexical_weight[1] == pytest.approx(kb.specificity("satay"), abs=1e-6)


def test_an_implied_key_counts_for_less_than_a_named_one() -> None:
    index, _ = _index(np.random.default_rng(5))
    windows = np.zeros((1, 8), dtype=np.float32)
    phrases = {tokens("international travel"): "'tulum' is in Mexico"}
    match = index.match(windows, tokens("A week in Tulum?"), phrases, discount=0.3,
                        implied_weight=0.8)  # fmt: skip
    m3 = index.memory_ids.index("m3")
    spec = load_kb().specificity("international travel")
    assert match.lexical_weight[m3] == pytest.approx(0.8 * spec, abs=1e-6)
    assert match.lexical_specificity[m3] == pytest.approx(spec, abs=1e-6)
    assert match.implied_by == {m3: "'tulum' is in Mexico"}
    assert match.lexical_row[index.memory_ids.index("m1")] == -1


def test_an_empty_index_matches_nothing() -> None:
    index = KeyIndex([], np.zeros((0, 8), dtype=np.float32), load_kb())
    match = index.match(np.ones((1, 8), dtype=np.float32), ("a",), {}, discount=0.3,
                        implied_weight=0.8)  # fmt: skip
    assert len(index) == 0 and match.key_score.shape == (0,)


def test_only_a_request_of_several_clauses_is_split() -> None:
    assert request_windows("Which flowers for the table?") == []
    assert request_windows("We fly to Lisbon on Friday, and I need a pain reliever.") == [
        "We fly to Lisbon on Friday",
        "I need a pain reliever",
    ]


def test_the_shipped_model_reads_its_features_in_order() -> None:
    model = load_model()
    assert len(model.weights) == len(FEATURES) and model.meta["trained_by"]
    # more similar to a specific key, or naming one, is never less likely to matter
    base = np.array([[0.4, 0.4, 0.0, 0.2]], dtype=np.float32)
    for column, step in ((0, 0.2), (2, 0.8), (3, 0.3)):
        up = base.copy()
        up[0, column] += step
        assert model.probability(up)[0] > model.probability(base)[0], FEATURES[column]


@pytest.mark.slow
def test_training_pairs_separate_relevant_constraints() -> None:
    """The training recipe on a slice of the resource, with the real embedder: a request
    written around one entry's situation scores that entry above the others
    (scripts/train_relevance.py runs it on everything)."""
    embedder = build_embedder(load_settings(env={}).embedder)
    kb = load_kb()
    kept = [e for e in kb.entries.values() if e.type in ("allergy", "pet", "medication")][:40]
    small = KnowledgeBase(kept)
    data = training_set(small, embedder.embed, embedder.embed, per_entry=1, negatives=5)
    assert data.x.shape[1] == len(FEATURES) and 0 < data.y.sum() < len(data.y)
    p = load_model().probability(data.x)
    pos, neg = p[data.y > 0], p[data.y == 0]
    # AUC: a positive pair outranks a negative one far more often than chance
    auc = float((pos[:, None] > neg[None, :]).mean())
    assert auc > 0.8
