"""Query time: which standing constraints earn a place in view for this request.

Each critical memory is scored against the request by (1) its anticipation keys found
in the request's words, (2) the closest key in embedding space, (3) the memory's own
similarity. Matched constraints fill the slice first (at most ``share`` of k); from
``fill_min_k`` on, unmatched constraints fill what is left, most critical and most
recent first. Superseded memories are never candidates. Every hit says why it is there.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicmem.context import ContextAssembler
from logicmem.routes.base import Method, Proposal, Route, RouteEnv, query_vector
from logicmem.routes.semantic import SemanticRoute, allowed_ids
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.text import contains, tokens
from logicmem.types import Budget, Hit, Scope


@dataclass
class _Candidate:
    memory_id: str
    ctype: str
    criticality: float
    why: str
    lexical: str = ""  # the key found in the request's words
    lexical_weight: float = 0.0  # how specific that key is (1: names one constraint only)
    key: str = ""  # the closest key in embedding space
    key_ref: str = ""
    key_sim: float = 0.0
    memory_sim: float = 0.0

    def matched(self, key_min: float, memory_min: float) -> bool:
        return bool(self.lexical) or self.key_sim >= key_min or self.memory_sim >= memory_min

    def relevance(self) -> float:
        return self.lexical_weight + max(self.key_sim, self.memory_sim)

    def reason(self, key_min: float, memory_min: float) -> str:
        head = f"standing constraint ({self.ctype.replace('_', ' ')}; {self.why})"
        ref = f" ({self.key_ref})" if self.key_ref else ""
        if self.lexical:
            return f"{head}; the request mentions '{self.lexical}'{ref}"
        if self.key_sim >= key_min:
            return f"{head}; the request is close to '{self.key}'{ref} ({self.key_sim:.2f})"
        if self.memory_sim >= memory_min:
            return f"{head}; similar to the request ({self.memory_sim:.2f})"
        return f"{head}; kept in view at this budget"


def query_windows(query: str, width: int = 5, stride: int = 3) -> list[str]:
    """Clauses of the request and short word windows over long ones: an anticipation key
    ("pain reliever") is compared with parts of a request, not only with all of it."""
    clauses = [c.strip() for c in re.split(r"[.?!,;:()\u2014\u2013]|\s-\s|\band\b|\bbut\b", query)]
    out: list[str] = []
    for clause in clauses:
        words = clause.split()
        if not words:
            continue
        out.append(clause)
        if len(words) > width:
            out.extend(
                " ".join(words[i : i + width]) for i in range(0, len(words) - width + 1, stride)
            )
    return list(dict.fromkeys(out))[:24]


def window_vectors(env: RouteEnv, query: str) -> np.ndarray:
    cache = env.cache.setdefault("window_vectors", {})
    if query not in cache:
        if len(cache) > 64:
            cache.clear()
        windows = query_windows(query)
        vectors = [query_vector(env, query)[None, :]]
        if windows:
            vectors.append(env.embedder.embed(windows))
        cache[query] = np.vstack(vectors)
    result: np.ndarray = cache[query]
    return result


def quota(k: int, share: float) -> int:
    return max(1, math.floor(k * share)) if share > 0 else 0


class VisibleRoute(Route):
    name = "visible"
    priority = 10

    def propose(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> Proposal:
        cfg = env.visibility
        if not cfg.enabled:
            return Proposal([], quota=0)
        candidates = self._candidates(env, query, scope, filters)
        if not candidates:
            return Proposal([], quota=0)
        matched = [c for c in candidates if c.matched(cfg.key_min, cfg.memory_min)]
        matched.sort(key=lambda c: (-c.relevance(), -c.criticality))
        chosen = matched
        if k >= cfg.fill_min_k:
            rest = [c for c in candidates if c not in matched]
            rest.sort(key=lambda c: (-c.criticality, -c.memory_sim))
            chosen = matched + rest
        n = quota(k, cfg.share)
        return Proposal(self._hits(env, chosen[:n], cfg.key_min, cfg.memory_min), quota=n)

    def _candidates(
        self, env: RouteEnv, query: str, scope: Scope, filters: dict[str, Any] | None
    ) -> list[_Candidate]:
        rows = env.store.critical_memories(scope)
        allowed = allowed_ids(env, scope, filters)
        if allowed is not None:
            rows = [r for r in rows if r.memory_id in allowed]
        if not rows:
            return []
        qv = query_vector(env, query)
        by_id = {r.memory_id: _Candidate(r.memory_id, r.ctype, r.score, r.reason) for r in rows}
        ids, matrix = env.store.vectors(scope)
        if ids:
            sims = matrix @ qv
            for j, memory_id in enumerate(ids):
                if memory_id in by_id:
                    by_id[memory_id].memory_sim = float(sims[j])
        keys, kmat = env.store.memory_keys(scope)
        if keys:
            ksims = (window_vectors(env, query) @ kmat.T).max(axis=0)
            words = tokens(query)
            kb = load_kb()
            for key, sim in zip(keys, ksims, strict=True):
                cand = by_id.get(key.memory_id)
                if cand is None:
                    continue
                if contains(words, tokens(key.key)):
                    weight = kb.specificity(key.key) if key.kind == "kb" else 1.0
                    if weight > cand.lexical_weight or not cand.lexical:
                        cand.lexical, cand.key_ref = key.key, key.ref
                        cand.lexical_weight = weight
                if sim > cand.key_sim:
                    cand.key_sim, cand.key = float(sim), key.key
                    if not cand.lexical:
                        cand.key_ref = key.ref
        return list(by_id.values())

    @staticmethod
    def _hits(
        env: RouteEnv, chosen: list[_Candidate], key_min: float, memory_min: float
    ) -> list[Hit]:
        entries = env.store.get_memories([c.memory_id for c in chosen])
        hits = []
        for rank, c in enumerate(chosen, 1):
            entry = entries.get(c.memory_id)
            if entry is None:
                continue
            hits.append(
                Hit(
                    id=entry.id,
                    text=entry.text,
                    score=round(c.relevance() + 0.01 * c.criticality, 6),
                    score_kind="visibility(match+similarity)",
                    route="visible",
                    reason=c.reason(key_min, memory_min),
                    source_turns=entry.source_turns,
                    session_id=entry.session_id,
                    category=entry.category,
                    said_at=entry.said_at,
                    rank=rank,
                    extras={
                        "constraint_type": c.ctype,
                        "key": c.lexical or c.key,
                        "knowledge_entry": c.key_ref,
                    },
                )
            )
        return hits


class VisibleMethod(Method):
    """Semantic retrieval plus the visible slice, as ``context()`` assembles them."""

    name = "visible"

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        ctx = ContextAssembler([SemanticRoute(), VisibleRoute()]).build(
            env, query, scope, Budget(k=k), filters
        )
        return [
            Hit(
                id=i.memory_id,
                text=i.text,
                score=i.score,
                score_kind=i.score_kind,
                route=i.route,
                reason=i.reason,
                source_turns=i.source_turns,
                session_id=i.session_id,
                category=i.category,
                said_at=i.said_at,
                rank=n,
            )
            for n, i in enumerate(ctx.items, 1)
        ]
