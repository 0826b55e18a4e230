"""How closely a stated fact bears on a request: similarity learned from the knowledge
resource, for links by theme that plain similarity misses.

Plain embedding similarity asks whether two texts are about the same thing. A fact that
decides a request is often about something else: being a volunteer firefighter on call
and how far away to plan a Saturday hike, singing in a choir and a loud concert the night
before a performance. The knowledge resource holds thousands of such links, every entry's
fact patterns against the situations where the fact changes advice. ``LinkModel`` learns
from them one low-rank correction to the embedding space's dot product,

    link(memory, request) = m . q + (m U) . (q V),

with U and V of shape (dimensions, rank), fit by a contrastive loss: a fact, said as a
memory is stored (``memory_forms``: each fact pattern as a short sentence, and the
authored sentences that state the entry), should be closer to a situation of its own
entry than to the situations of the other entries in its batch (a situation its entry
also lists is not counted against it), and everyday talk that states no constraint should
gain nothing towards any situation. With U = 0 it is the plain similarity. It is one of
the relevance model's features (``relevance.FEATURES``), so what it adds is weighed
against the keys and the memory's own similarity, never trusted alone; and it scores
standing constraints only: values, goals and reasons keep the model fit without it
(``route.view_relevance``).

On entries held out of the fit (a fifth of them, by entry), the facts rank their entry's
situations better than plain similarity does (AUC 0.797 against 0.719;
``scripts/train_relevance.py`` prints both). The fitted matrices ship as
``data/link.npz`` with the embedder they were fit on; any other embedder gets the plain
similarity.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from logicmem.routes.visible.kb import KnowledgeBase
from logicmem.routes.visible.text import fact_sentence

RANK = 64
"""The correction's rank. The fit's dials were chosen on the knowledge resource alone: a
fifth of its entries, drawn at random, held out of a fit on the rest, scored by
``ranking_auc`` (plain similarity 0.740). Rank 16 / 64 / 128: 0.775 / 0.790 / 0.791;
``l2`` 1e-2 / 1e-3 / 1e-4: 0.777 / 0.790 / 0.783; 5 / 10 / 20 epochs: 0.793 / 0.790 /
0.792. Those were measured when the fit read the resource's fragments; the fit on
sentences (``memory_forms``) kept them, and its one new dial, ``ordinary_weight`` = 1, was
set before any run and not varied."""


@dataclass(frozen=True)
class LinkModel:
    u: np.ndarray  # (dimensions, rank), applied to the memory (the fact)
    v: np.ndarray  # (dimensions, rank), applied to the request (the situation)
    embedder: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def dimensions(self) -> int:
        return int(self.u.shape[0])

    def memory_side(self, memories: np.ndarray) -> np.ndarray:
        """The memories' half of the correction (rows x rank): computed once per store."""
        out: np.ndarray = (memories @ self.u).astype(np.float32)
        return out

    def correction(self, memory_side: np.ndarray, query: np.ndarray) -> np.ndarray:
        """What the learned part adds to each memory's plain similarity to the request."""
        out: np.ndarray = (memory_side @ (query @ self.v)).astype(np.float32)
        return out

    def scores(self, memories: np.ndarray, query: np.ndarray) -> np.ndarray:
        """``link`` of every memory row to one request vector."""
        out: np.ndarray = memories @ query + self.correction(self.memory_side(memories), query)
        return out.astype(np.float32)

    def serves(self, embedder: str, dimensions: int) -> bool:
        """Whether the matrices were fit in this embedding space."""
        return self.embedder == embedder and self.dimensions == dimensions


def plain(dimensions: int) -> LinkModel:
    """The plain similarity (no correction)."""
    zero = np.zeros((dimensions, 1), dtype=np.float32)
    return LinkModel(zero, zero)


@lru_cache(maxsize=1)
def load_link() -> LinkModel:
    """The shipped matrices (``data/link.npz``)."""
    with resources.files("logicmem.data").joinpath("link.npz").open("rb") as f:
        raw = np.load(f)
        meta = json.loads(str(raw["meta"]))
        return LinkModel(
            raw["u"].astype(np.float32), raw["v"].astype(np.float32), meta["embedder"], meta
        )


def save_link(model: LinkModel, path: Any) -> None:
    meta = dict(model.meta, embedder=model.embedder)
    np.savez_compressed(path, u=model.u, v=model.v, meta=np.array(json.dumps(meta)))


# -- fitting (scripts/train_relevance.py) ---------------------------------------------------
def memory_forms(
    kb: KnowledgeBase, entry_ids: Iterable[str], linked: dict[str, list[str]] | None = None
) -> dict[str, list[str]]:
    """How each entry's fact is said as a memory is stored: every fact pattern as a short
    sentence (``text.fact_sentence``: "takes warfarin" -> "Sam takes warfarin.") and the
    authored sentences that state the entry (``linked``), not the resource's fragments."""
    out: dict[str, list[str]] = {}
    for entry_id in entry_ids:
        entry = kb.entries[entry_id]
        said = [fact_sentence(p, entry.type) for p in entry.fact_patterns]
        out[entry_id] = list(dict.fromkeys([*said, *(linked or {}).get(entry_id, [])]))
    return out


def fit_link(
    kb: KnowledgeBase,
    embed: Callable[[list[str]], np.ndarray],
    *,
    entries: Iterable[str] | None = None,
    linked: dict[str, list[str]] | None = None,
    ordinary: list[str] | None = None,
    ordinary_weight: float = 1.0,
    rank: int = RANK,
    epochs: int = 10,
    batch: int = 512,
    temperature: float = 0.05,
    l2: float = 1e-3,
    lr: float = 1e-3,
    seed: int = 0,
    embedder: str = "",
) -> LinkModel:
    """Fit U and V on the (fact, situation) pairs of ``entries`` (default: every entry),
    each fact said as a memory is (``memory_forms``, with the ``linked`` sentences). Each
    batch scores every fact against every situation in it; the loss is the cross-entropy
    of the pair's own situation (and of its own fact, the other way) at ``temperature``,
    plus ``l2`` on U and V, plus, for as many ``ordinary`` sentences (everyday talk that
    states no constraint) drawn at random, the correction they would get towards the
    batch's situations where it is positive, times ``ordinary_weight`` over
    ``temperature``: talk that binds nothing should come no closer to a situation than
    plain similarity puts it. Deterministic for a seed on one machine."""
    import torch  # only to fit; the route reads the matrices with numpy

    torch.manual_seed(seed)
    rng = random.Random(seed)
    chosen = [kb.entries[e] for e in (entries if entries is not None else kb.entries)]
    forms = memory_forms(kb, [e.id for e in chosen], linked)
    facts = sorted({p for e in chosen for p in forms[e.id]})
    situations = sorted({s for e in chosen for s in e.situations})
    fact_at = {t: i for i, t in enumerate(facts)}
    sit_at = {t: i for i, t in enumerate(situations)}
    f_vec = torch.tensor(np.asarray(embed(facts), dtype=np.float32))
    s_vec = torch.tensor(np.asarray(embed(situations), dtype=np.float32))
    member = torch.zeros(len(chosen), len(situations), dtype=torch.bool)
    pairs: list[tuple[int, int, int]] = []
    for j, e in enumerate(chosen):
        own = [sit_at[s] for s in e.situations]
        member[j, own] = True
        pairs.extend((fact_at[f], s, j) for f in forms[e.id] for s in own)
    talk = sorted(set(ordinary or []))
    o_vec = torch.tensor(np.asarray(embed(talk), dtype=np.float32)) if talk else None
    dims = f_vec.shape[1]
    u = torch.zeros(dims, rank, requires_grad=True)
    v = (torch.randn(dims, rank) * 0.01).requires_grad_(True)
    opt = torch.optim.Adam([u, v], lr=lr)
    for _ in range(epochs):
        rng.shuffle(pairs)
        for start in range(0, len(pairs), batch):
            part = torch.tensor(pairs[start : start + batch])
            f, s = f_vec[part[:, 0]], s_vec[part[:, 1]]
            logits = (f @ s.T + (f @ u) @ (s @ v).T) / temperature
            # A situation the fact's own entry lists is no negative for it.
            shared = member[part[:, 2]][:, part[:, 1]]
            shared.fill_diagonal_(False)
            logits = logits.masked_fill(shared, -1e9)
            target = torch.arange(len(part))
            ce = torch.nn.functional.cross_entropy
            loss = (ce(logits, target) + ce(logits.T, target)) / 2
            loss = loss + l2 * ((u**2).sum() + (v**2).sum())
            if o_vec is not None:
                drawn = o_vec[torch.tensor([rng.randrange(len(talk)) for _ in range(len(part))])]
                correction = (drawn @ u) @ (s @ v).T
                loss = loss + ordinary_weight * torch.relu(correction).mean() / temperature
            opt.zero_grad()
            loss.backward()
            opt.step()
    meta: dict[str, Any] = {"rank": rank, "epochs": epochs, "temperature": temperature}
    meta.update(l2=l2, seed=seed)
    meta.update(entries=len(chosen), pairs=len(pairs), ordinary=len(talk))
    meta.update(ordinary_weight=ordinary_weight, facts="memory_forms")
    return LinkModel(u.detach().numpy(), v.detach().numpy(), embedder, meta)


def ranking_auc(
    kb: KnowledgeBase,
    embed: Callable[[list[str]], np.ndarray],
    model: LinkModel,
    entries: list[str],
    linked: dict[str, list[str]] | None = None,
) -> float:
    """How well ``model`` tells each situation of ``entries`` its own entries from the
    others among them (AUC; an entry scores a situation by its closest way of saying its
    fact, ``memory_forms``)."""
    chosen = [kb.entries[e] for e in entries]
    forms = memory_forms(kb, entries, linked)
    situations = sorted({s for e in chosen for s in e.situations})
    s_vec = np.asarray(embed(situations), dtype=np.float32)
    scores: list[float] = []
    labels: list[bool] = []
    for e in chosen:
        f_vec = np.asarray(embed(forms[e.id]), dtype=np.float32)
        best = np.max(f_vec @ s_vec.T + model.memory_side(f_vec) @ (s_vec @ model.v).T, axis=0)
        own = set(e.situations)
        scores.extend(best.tolist())
        labels.extend(s in own for s in situations)
    y = np.array(labels, dtype=np.bool_)
    p = np.array(scores)
    order = np.argsort(p, kind="stable")
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    npos = int(y.sum())
    nneg = len(y) - npos
    return float((ranks[y].sum() - npos * (npos + 1) / 2) / max(npos * nneg, 1))
