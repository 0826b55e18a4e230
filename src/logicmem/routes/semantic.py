"""The semantic route: BM25 (SQLite FTS5), dense (MiniLM cosine) and their fusion.

Fusion is *dense-anchored*: every candidate from the union of both rankers gets its
exact cosine, plus ``bm25_weight`` times its BM25 score relative to the best BM25 score
for this query. When BM25 has nothing to say the ranking is pure dense (reciprocal-rank
fusion would instead demote strong dense hits); when a name or date matches, BM25 lifts
it. A memory only BM25 finds keeps its place in the pool. ``fusion = "rrf"`` gives plain
reciprocal-rank fusion for comparison. Measured in docs/benchmarks.md.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from logicmem.errors import InputError
from logicmem.routes.base import Method, Proposal, Route, RouteEnv, query_vector
from logicmem.types import Hit, MemoryEntry, Scope
from logicmem.write.rules import STOPWORDS

_FILTER_FIELDS = {"category", "session_id", "subject", "said_after", "said_before"}


def query_terms(query: str) -> list[str]:
    """Lowercase word tokens minus stopwords, deduplicated, in order."""
    words = re.findall(r"[\w][\w'-]*", query.lower())
    terms = [w.strip("'-") for w in words if w not in STOPWORDS and len(w) > 1]
    return list(dict.fromkeys(t for t in terms if t))


def _matches(entry: MemoryEntry, filters: dict[str, Any]) -> bool:
    for key, want in filters.items():
        if key == "category":
            wanted = [want] if isinstance(want, str) else list(want)
            if entry.category not in wanted:
                return False
        elif key == "session_id":
            if entry.session_id != str(want):
                return False
        elif key == "subject":
            if entry.metadata.get("subject") != want:
                return False
        elif key == "said_after":
            if not entry.said_at or entry.said_at < str(want):
                return False
        elif key == "said_before":
            if not entry.said_at or entry.said_at >= str(want):
                return False
        elif entry.metadata.get(key) != want:
            return False
    return True


def allowed_ids(env: RouteEnv, scope: Scope, filters: dict[str, Any] | None) -> set[str] | None:
    """Ids passing ``filters`` (None when there are no filters)."""
    if not filters:
        return None
    if not isinstance(filters, dict):
        raise InputError("filters must be a dict, e.g. {'category': 'states'}")
    memories = env.store.list_memories(scope, as_of=env.as_of)
    return {m.id for m in memories if _matches(m, filters)}


def _hits(
    env: RouteEnv, ranked: list[tuple[str, float, str]], score_kind: str, route: str
) -> list[Hit]:
    entries = env.store.get_memories([r[0] for r in ranked])
    out = []
    for rank, (memory_id, score, reason) in enumerate(ranked, 1):
        entry = entries.get(memory_id)
        if entry is None:
            continue
        out.append(
            Hit(
                id=entry.id,
                text=entry.text,
                score=round(float(score), 6),
                score_kind=score_kind,
                route=route,
                reason=reason,
                source_turns=entry.source_turns,
                session_id=entry.session_id,
                category=entry.category,
                said_at=entry.said_at,
                rank=rank,
            )
        )
    return out


def _matched_terms(text: str, terms: list[str]) -> list[str]:
    low = text.lower()
    # FTS5 stems with Porter; a 5-letter prefix is a close, cheap stand-in for the reason.
    return [t for t in terms if t[:5] in low]


def bm25_scores(
    env: RouteEnv, query: str, scope: Scope, limit: int, allowed: set[str] | None
) -> list[tuple[str, float]]:
    terms = query_terms(query)
    rows = env.store.bm25(scope, terms, limit if allowed is None else limit * 20, as_of=env.as_of)
    if allowed is not None:
        rows = [r for r in rows if r[0] in allowed]
    return rows[:limit]


def dense_scores(
    env: RouteEnv, query: str, scope: Scope, allowed: set[str] | None
) -> tuple[list[str], np.ndarray]:
    """All ids in scope (valid at ``env.as_of``) and their cosine to the query (filtered
    ids get -inf)."""
    ids, matrix = env.store.vectors(scope, as_of=env.as_of)
    if not ids:
        return [], np.zeros(0, dtype=np.float32)
    sims = matrix @ query_vector(env, query)
    if allowed is not None:
        mask = np.array([i in allowed for i in ids])
        sims = np.where(mask, sims, -np.inf)
    return ids, sims


class BM25Method(Method):
    name = "bm25"

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        terms = query_terms(query)
        rows = bm25_scores(env, query, scope, k, allowed_ids(env, scope, filters))
        entries = env.store.get_memories([r[0] for r in rows])
        ranked = [
            (mid, s, "BM25 match on: " + ", ".join(_matched_terms(entries[mid].text, terms)))
            for mid, s in rows
            if mid in entries
        ]
        return _hits(env, ranked, "bm25", "semantic")


def dense_top(
    env: RouteEnv, query: str, scope: Scope, n: int, allowed: set[str] | None
) -> list[tuple[str, float]]:
    """The ``n`` memories closest to the query, best first, with their cosine. Unfiltered,
    the store answers (a backend with a vector index answers from it); filtered, the
    allowed ids are ranked exactly."""
    if allowed is None:
        return env.store.nearest(scope, query_vector(env, query)[None, :], n, as_of=env.as_of)[0]
    ids, sims = dense_scores(env, query, scope, allowed)
    return [(ids[j], float(sims[j])) for j in np.argsort(-sims)[:n] if np.isfinite(sims[j])]


class DenseMethod(Method):
    name = "dense"

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        top = dense_top(env, query, scope, k, allowed_ids(env, scope, filters))
        ranked = [(mid, cos, f"semantic similarity {cos:.2f}") for mid, cos in top]
        return _hits(env, ranked, "cosine", "semantic")


class HybridMethod(Method):
    name = "hybrid"

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        cfg = env.settings
        allowed = allowed_ids(env, scope, filters)
        pool = max(cfg.pool, k)
        dense = dense_top(env, query, scope, pool, allowed)
        if not dense:
            return []
        bm25 = {mid: s for mid, s in bm25_scores(env, query, scope, pool, allowed)}
        candidates = list(dict.fromkeys([mid for mid, _ in dense] + list(bm25)))
        if cfg.fusion == "rrf":
            dense_rank = {mid: r for r, (mid, _) in enumerate(dense, 1)}
            bm25_rank = {mid: r for r, mid in enumerate(bm25, 1)}
            scored = []
            for mid in candidates:
                score = sum(
                    1.0 / (cfg.rrf_k + ranks[mid])
                    for ranks in (dense_rank, bm25_rank)
                    if mid in ranks
                )
                scored.append(
                    (
                        mid,
                        score,
                        f"rank fusion: dense #{dense_rank.get(mid, '-')}, "
                        f"bm25 #{bm25_rank.get(mid, '-')}",
                    )
                )
            kind = "rrf"
        else:
            top_bm25 = max(bm25.values(), default=0.0)
            terms = query_terms(query)
            texts = (
                {m: e.text for m, e in env.store.get_memories(list(bm25)).items()}
                if cfg.bm25_coverage and terms
                else {}
            )
            cosine = dict(dense)
            missing = [mid for mid in bm25 if mid not in cosine]
            if missing:
                q = query_vector(env, query)
                cosine.update(env.store.cosines(scope, q, missing, as_of=env.as_of))
            scored = []
            for mid in candidates:
                if mid not in cosine:
                    continue  # no longer valid (or outside the scope)
                cos = cosine[mid]
                lexical = bm25.get(mid, 0.0) / top_bm25 if top_bm25 > 0 else 0.0
                if lexical and texts:
                    lexical *= len(_matched_terms(texts.get(mid, ""), terms)) / len(terms)
                reason = f"semantic similarity {cos:.2f}"
                if lexical > 0:
                    reason += f" + keyword match {lexical:.2f}"
                scored.append((mid, cos + cfg.bm25_weight * lexical, reason))
            kind = "hybrid(cosine+w*bm25/max)"
        scored.sort(key=lambda r: -r[1])
        return _hits(env, scored[:k], kind, "semantic")


class SemanticRoute(Route):
    """The semantic route for ``context()``: the hybrid ranking, no reserved share."""

    name = "semantic"
    priority = 100

    def propose(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> Proposal:
        # Ask for slack: duplicates and the token budget may drop some hits.
        return Proposal(hits=HybridMethod().search(env, query, scope, 2 * k, filters))
