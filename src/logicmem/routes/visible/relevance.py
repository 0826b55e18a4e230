"""How likely a standing constraint is to matter for a request: a small learned model.

A constraint enters the visible slice only when the request engages it. Whether it does
is judged from four numbers per (request, memory), computed by ``KeyIndex.match``:

- ``key_score``: the best similarity of the request to one of the memory's anticipation
  keys, discounted as far as that key is shared by many knowledge entries;
- ``key_sim``: the best raw similarity to a key;
- ``lexical``: how specific a key the request names or implies is (0: none);
- ``memory_sim``: the similarity of the request to the memory itself.

A logistic regression over them turns these into a probability. It is trained, by
``scripts/train_relevance.py``, on the knowledge resource's own fact–situation pairs
and nothing else: a request is written around a situation of one entry from a few
generic templates ("Any ideas for {situation}?"); the entries that list that situation
are positives, other entries negatives. Half the positives keep the situation among the
entry's keys (the request names it), half hold it out (the request must be matched
through the entry's other situations, as a new request would). Classes are weighed
equally to fit, then the bias is shifted to the stated prior (``prior_negatives``
irrelevant constraints for each relevant one), so a probability means the same for
every user: p = 0.5 is "as likely to matter as not" among that many. A store holding far
more critical memories can move it to its own number (``pool_shift``, on with
``visibility.store_pool``; off by default, as it cost dev recall: docs/benchmarks.md).

The fitted numbers ship as ``data/relevance.json``; the script reproduces them.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from logicmem.routes.visible.kb import KnowledgeBase
from logicmem.routes.visible.keyindex import KeyIndex, KeyMatch
from logicmem.routes.visible.repo import MemoryKey
from logicmem.routes.visible.text import tokens

FEATURES = ("key_score", "key_sim", "lexical", "memory_sim")

# Requests built around one situation, written for this model (general phrasings of
# asking for help; no benchmark text).
TEMPLATES = (
    "Any ideas for {s}?",
    "What should I keep in mind for {s}?",
    "Can you help me plan {s}?",
    "Looking for suggestions: {s}.",
    "I'm thinking about {s} this weekend.",
    "Recommendations for {s}, please.",
    "What's a good option for {s}?",
    "Help me choose something for {s}.",
    "Quick tips for {s}?",
    "We're doing {s} next week, what do we need?",
    "Is {s} a good idea for us?",
    "How do I get ready for {s}?",
    # longer requests, where the situation is a small part of what is said
    "My partner and I were talking last night and we'd love some ideas for {s} soon.",
    "I've got a busy couple of weeks coming up, so what's the easiest way to handle {s}?",
    "Could you put together a short plan for {s} that fits a normal Saturday afternoon?",
    "A friend suggested {s} for the long weekend; what would you recommend we look into?",
    "Before I commit to anything, can you walk me through {s} step by step?",
    "I keep putting off {s}, can you give me a simple checklist to get it done?",
)

MAX_WINDOWS = 4


def request_windows(query: str, max_windows: int = MAX_WINDOWS) -> list[str]:
    """The clauses of a request, when it has more than one ("We fly to Lisbon on Friday,
    and I need a pain reliever"): a key is compared with each part as well as the whole.
    A one-clause request adds nothing, so most requests cost one embedding."""
    parts = re.split(r"[.?!,;:()\u2014\u2013]|\s-\s|\band\b|\bbut\b", query)
    clauses = [c.strip() for c in parts if len(c.split()) >= 2]
    clauses = list(dict.fromkeys(clauses))
    if len(clauses) < 2:
        return []
    return clauses[:max_windows]


def features(match: KeyMatch, memory_sim: np.ndarray) -> np.ndarray:
    """The model's input, one row per memory, in the order of ``FEATURES``."""
    x = np.column_stack([match.key_score, match.key_sim, match.lexical_weight, memory_sim])
    return x.astype(np.float32)


@dataclass(frozen=True)
class RelevanceModel:
    weights: np.ndarray
    bias: float
    discount: float = 0.3
    """Similarity lost by a key every knowledge entry names (see ``keyindex.key_score``)."""
    implied_weight: float = 0.8
    """What a key the request implies (a place abroad implies international travel)
    counts for against one it names."""
    meta: dict[str, Any] = field(default_factory=dict)

    def probability(self, x: np.ndarray, candidates: int = 0) -> np.ndarray:
        """p(the constraint matters), for a store whose request weighs ``candidates``
        constraints (``pool_shift``; 0: as trained)."""
        bias = self.bias + pool_shift(candidates, int(self.meta.get("prior_negatives", 0)))
        z = np.clip(x @ self.weights + bias, -30.0, 30.0)
        result: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return result

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(FEATURES),
            "weights": [round(float(w), 6) for w in self.weights],
            "bias": round(self.bias, 6),
            "discount": self.discount,
            "implied_weight": self.implied_weight,
            "meta": self.meta,
        }


@lru_cache(maxsize=1)
def load_model() -> RelevanceModel:
    """The shipped model (``data/relevance.json``)."""
    raw = json.loads(resources.files("logicmem.data").joinpath("relevance.json").read_text())
    if tuple(raw["features"]) != FEATURES:
        raise ValueError(f"relevance.json has features {raw['features']}, expected {FEATURES}")
    return RelevanceModel(
        np.array(raw["weights"], dtype=np.float32),
        float(raw["bias"]),
        float(raw["discount"]),
        float(raw["implied_weight"]),
        dict(raw.get("meta", {})),
    )


# -- training (scripts/train_relevance.py) ------------------------------------------------
@dataclass
class TrainingSet:
    x: np.ndarray
    y: np.ndarray
    groups: np.ndarray  # the entry each request was written from, for grouped CV


def training_set(
    kb: KnowledgeBase,
    embed: Callable[[list[str]], np.ndarray],
    situation_vectors: Callable[[list[str]], np.ndarray],
    *,
    per_entry: int = 3,
    negatives: int = 20,
    max_sharing: int = 3,
    seed: int = 0,
    discount: float = 0.3,
    implied_weight: float = 0.8,
) -> TrainingSet:
    """Feature rows for (request, entry) pairs built from the knowledge resource alone.

    ``embed`` embeds requests and memories; ``situation_vectors`` an entry's situations
    (the vectors the write path stores as keys). ``per_entry`` requests are written from
    each entry's situations; each is paired with every entry that lists the situation
    (positives) and ``negatives`` entries that do not; only situations at most
    ``max_sharing`` entries list are written into requests."""
    rng = random.Random(seed)
    entries = list(kb.entries.values())
    by_situation: dict[str, list[str]] = {}
    for e in entries:
        for s in e.situations:
            by_situation.setdefault(s, []).append(e.id)
    requests: list[tuple[str, str, str]] = []  # (text, situation, source entry)
    for e in entries:
        # Requests are written around situations few entries list: a request about a
        # situation dozens of entries share ("restaurant") says little about any one.
        own = [s for s in e.situations if len(by_situation[s]) <= max_sharing]
        for s in rng.sample(own, min(per_entry, len(own))):
            requests.append((rng.choice(TEMPLATES).format(s=s), s, e.id))
    texts = [r[0] for r in requests]
    windows = [request_windows(t) for t in texts]
    flat = [*texts, *(w for ws in windows for w in ws)]
    vectors = embed(flat)
    memory_text = {e.id: e.fact_patterns[0] for e in entries}
    memory_vec = dict(zip(memory_text, embed(list(memory_text.values())), strict=True))
    key_vecs = {e.id: situation_vectors(list(e.situations)) for e in entries}
    rows: list[np.ndarray] = []
    labels: list[float] = []
    groups: list[int] = []
    offset = len(texts)
    entry_index = {e.id: i for i, e in enumerate(entries)}
    for i, (text, situation, source) in enumerate(requests):
        n_win = len(windows[i])
        w = np.vstack([vectors[i][None, :], vectors[offset : offset + n_win]])
        offset += n_win
        positives = by_situation[situation]
        pool = [e.id for e in entries if e.id not in positives]
        chosen = [(p, 1.0) for p in positives] + [(n, 0.0) for n in rng.sample(pool, negatives)]
        keys: list[MemoryKey] = []
        mats: list[np.ndarray] = []
        for j, (entry_id, label) in enumerate(chosen):
            situations = kb.entries[entry_id].situations
            # Half the positives hold the request's situation out of their keys.
            drop = label > 0 and rng.random() < 0.5
            for s, v in zip(situations, key_vecs[entry_id], strict=True):
                if drop and s == situation:
                    continue
                keys.append(MemoryKey(f"{j:04d}", s, "kb", entry_id))
                mats.append(v)
        index = KeyIndex(keys, np.vstack(mats), kb)
        match = index.match(
            w, tokens(text, request=True), {}, discount=discount, implied_weight=implied_weight
        )
        # An entry whose only key was held out is not in the index: it matches nothing.
        at = np.array([int(m) for m in index.memory_ids])
        memory_sim = np.array([float(memory_vec[e] @ vectors[i]) for e, _ in chosen])
        x = features(match.aligned(at, len(chosen)), memory_sim)
        rows.append(x)
        labels.extend(label for _, label in chosen)
        groups.extend([entry_index[source]] * len(chosen))
    return TrainingSet(np.vstack(rows).astype(np.float32), np.array(labels), np.array(groups))


def pool_shift(candidates: int, negatives: int) -> float:
    """The bias correction from the training's pool (each request weighed its relevant
    entries against ``negatives`` others) to a store's: with more candidate constraints
    than that, each is less likely to be one that matters, as one request engages few
    of them however many the store holds (odds times ``negatives / (candidates - 1)``).
    A smaller store keeps the trained prior: a constraint is not made likelier for being
    among few."""
    if negatives <= 0 or candidates - 1 <= negatives:
        return 0.0
    return math.log(negatives / (candidates - 1))


def prior_shift(negatives: int) -> float:
    """The bias correction from a class-balanced fit to ``negatives`` to one."""
    return -math.log(max(negatives, 1))
