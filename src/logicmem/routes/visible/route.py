"""Query time: which standing constraints earn a place in view for this request.

Every critical memory is scored against the request by ``KeyIndex.match`` (its
anticipation keys named in the request's words or implied by them — a city abroad
implies international travel —, the closest key in embedding space, discounted when many
knowledge entries share it) and by its own similarity to the request; the learned
relevance model (``relevance``) turns these into the probability that the constraint
matters here, times the probability that the memory is a standing constraint at all; a
key the request names outright counts at least as much as it is specific
(``visibility.named_min_specificity``).
A constraint enters the slice only when that probability reaches
``visibility.min_probability``, or a capable LLM's bridge hypothesis names it (see
``bridge``); nothing fills a share for its own sake, so the slice may be empty. For a
question about a named person rather than the speaker's own (``asks_about_someone``),
only a key the question names or implies, or a hypothesis, earns a slot. The slice takes
at most ``share`` of k, one memory per constraint before a second one, most probable
first. Superseded memories are never candidates. Every hit says why it is there."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from logicmem.context import assembled_hits
from logicmem.routes.base import Method, Proposal, Route, RouteEnv, query_vector
from logicmem.routes.semantic import SemanticRoute, allowed_ids
from logicmem.routes.visible.bridge import bridges, hypotheses
from logicmem.routes.visible.expand import expansions
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.keyindex import KeyIndex
from logicmem.routes.visible.relevance import load_model, request_windows
from logicmem.routes.visible.text import tokens
from logicmem.types import Hit, Scope


@dataclass
class _Candidate:
    memory_id: str
    ctype: str
    criticality: float
    why: str
    lexical: str = ""  # the key found in the request's words (or implied by them)
    lexical_weight: float = 0.0  # how specific that key is (less when only implied)
    lexical_specificity: float = 0.0  # ... and its own specificity
    implied_by: str = ""  # set when the request implies the key rather than naming it
    key_ref: str = ""  # the knowledge entry of the named key, else of the closest key
    key_sim: float = 0.0  # the closest key's similarity
    key_score: float = 0.0  # the best key's similarity, discounted when many entries share it
    scored_key: str = ""  # ... that key
    memory_sim: float = 0.0
    hypothesis: str = ""  # the LLM's bridge hypothesis this memory answers
    hypothesis_sim: float = 0.0
    relevance: float = 0.0  # p(the constraint matters for this request), from the model
    order: int = -1  # position in the store (later = said more recently)

    @property
    def probability(self) -> float:
        """p(matters) = p(engaged by the request) x p(a standing constraint at all)."""
        return self.relevance * min(1.0, self.criticality)

    def engaged(self, min_probability: float, similarity_counts: bool) -> bool:
        if self.hypothesis:
            return True
        if not similarity_counts:
            return bool(self.lexical) and self.probability >= min_probability
        return self.probability >= min_probability

    @property
    def constraint(self) -> str:
        """What the memory is evidence of: its knowledge entry, else its type."""
        return self.key_ref or self.ctype

    def reason(self) -> str:
        head = f"standing constraint ({self.ctype.replace('_', ' ')}; {self.why})"
        ref = f" ({self.key_ref})" if self.key_ref else ""
        p = f"; p={self.probability:.2f}"
        if self.hypothesis:
            return f"{head}; answers the hypothesis '{self.hypothesis}' ({self.hypothesis_sim:.2f})"
        if self.lexical and self.implied_by:
            return f"{head}; the request implies '{self.lexical}' ({self.implied_by}){ref}{p}"
        if self.lexical:
            return f"{head}; the request mentions '{self.lexical}'{ref}{p}"
        if self.key_score >= self.memory_sim:
            return (
                f"{head}; the request is close to '{self.scored_key}'{ref} ({self.key_sim:.2f}){p}"
            )
        return f"{head}; similar to the request ({self.memory_sim:.2f}){p}"


def window_vectors(env: RouteEnv, query: str) -> np.ndarray:
    """The request's vector, then its clauses' when it has several (``request_windows``)."""
    cache = env.cache.setdefault("window_vectors", {})
    if query not in cache:
        if len(cache) > 64:
            cache.clear()
        windows = request_windows(query, env.visibility.max_windows)
        vectors = [query_vector(env, query)[None, :]]
        if windows:
            vectors.append(env.embedder.embed(windows))
        cache[query] = np.vstack(vectors)
    result: np.ndarray = cache[query]
    return result


def key_index(env: RouteEnv, scope: Scope) -> KeyIndex:
    """The user's keys as a ``KeyIndex``, rebuilt only when the store's keys changed (the
    store hands back the same matrix object while they have not)."""
    keys, matrix = env.store.memory_keys(scope)
    cache: dict[Scope, tuple[np.ndarray, KeyIndex]] = env.cache.setdefault("key_index", {})
    held = cache.get(scope)
    if held is None or held[0] is not matrix:
        if len(cache) > 32:
            cache.clear()
        held = (matrix, KeyIndex(keys, matrix, load_kb()))
        cache[scope] = held
    return held[1]


def diverse(tier: list[_Candidate], seen: set[str]) -> list[_Candidate]:
    """One memory per constraint first; further evidence of a constraint already shown
    ("the kids" said seven ways) after the others."""
    first: list[_Candidate] = []
    again: list[_Candidate] = []
    for c in tier:
        (again if c.constraint in seen else first).append(c)
        seen.add(c.constraint)
    return first + again


_FIRST_PERSON = re.compile(
    r"\b(?:I|me|my|mine|myself|we|us|our|ours|ourselves|Me|My|Mine|Myself|We|Us|Our|Ours)\b"
)
_NAME_INSIDE = re.compile(r"(?<![.?!]\s)\b[A-Z][a-z]+")
_IMPERATIVE = re.compile(
    r"^(?:please\s+)?(?:recommend|suggest|give|find|plan|help|show|tell|list|pick|choose|"
    r"write|make|book|compare|draft|create|prepare)\b",
    re.IGNORECASE,
)


def asks_about_someone(query: str) -> bool:
    """A question about a named person ("What did Priya study in college?"), not a request
    of the speaker's own: no first-person word, not an instruction, and a name inside it.
    Standing constraints decide advice; they are not kept in view for such recall
    questions unless the question names or implies one of their keys (similarity alone
    is the semantic route's job)."""
    text = query.strip()
    if _FIRST_PERSON.search(text) or _IMPERATIVE.match(text):
        return False
    return _NAME_INSIDE.search(text, 1) is not None


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
        # A recall question about a named person is the semantic route's job: a constraint
        # merely similar to it would take a slot from the evidence.
        similarity_counts = not (cfg.recall_named_only and asks_about_someone(query))
        engaged = [c for c in candidates if c.engaged(cfg.min_probability, similarity_counts)]
        # Ties (constraints engaged through the same key) go to the more recently stated.
        engaged.sort(key=lambda c: (-c.probability, -c.hypothesis_sim, -c.order))
        chosen = diverse(engaged, set())
        n = min(quota(k, cfg.share), len(chosen))
        return Proposal(self._hits(env, chosen[:n]), quota=n)

    def _candidates(
        self, env: RouteEnv, query: str, scope: Scope, filters: dict[str, Any] | None
    ) -> list[_Candidate]:
        rows = env.store.critical_memories(scope)
        allowed = allowed_ids(env, scope, filters)
        if allowed is not None:
            rows = [r for r in rows if r.memory_id in allowed]
        if not rows and not hypotheses(env, query, scope):
            return []
        qv = query_vector(env, query)
        by_id = {r.memory_id: _Candidate(r.memory_id, r.ctype, r.score, r.reason) for r in rows}
        ids, matrix = env.store.vectors(scope)
        position = {memory_id: j for j, memory_id in enumerate(ids)}
        if ids:
            sims = matrix @ qv
            for c in by_id.values():
                j = position.get(c.memory_id)
                if j is not None:
                    c.memory_sim, c.order = float(sims[j]), j
        for memory_id, bridge in bridges(env, query, scope, ids, matrix).items():
            if allowed is not None and memory_id not in allowed:
                continue
            bridged = by_id.setdefault(
                memory_id, _Candidate(memory_id, "bridge", 0.5, "named by a bridge hypothesis")
            )
            bridged.hypothesis, bridged.hypothesis_sim = bridge.hypothesis, bridge.similarity
            bridged.order = position.get(memory_id, -1)
        model = load_model()
        index = key_index(env, scope)
        if len(index):
            implied = {tokens(phrase): why for phrase, why in expansions(query)}
            match = index.match(
                window_vectors(env, query),
                tokens(query),
                implied,
                discount=model.discount,
                implied_weight=model.implied_weight,
            )
            for m, memory_id in enumerate(index.memory_ids):
                cand = by_id.get(memory_id)
                if cand is None:
                    continue
                cand.key_score = float(match.key_score[m])
                cand.key_sim = float(match.key_sim[m])
                cand.scored_key = index.rows[match.scored_row[m]].key
                cand.key_ref = index.rows[match.sim_row[m]].ref
                if match.lexical_row[m] >= 0:
                    row = index.rows[match.lexical_row[m]]
                    cand.lexical, cand.key_ref = row.key, row.ref
                    cand.lexical_weight = float(match.lexical_weight[m])
                    cand.lexical_specificity = float(match.lexical_specificity[m])
                    cand.implied_by = match.implied_by.get(m, "")
        cands = list(by_id.values())
        if cands:
            x = np.array(
                [[c.key_score, c.key_sim, c.lexical_weight, c.memory_sim] for c in cands],
                dtype=np.float32,
            )
            named_min = env.visibility.named_min_specificity
            for c, p in zip(cands, model.probability(x), strict=True):
                # A key the request names outright, and that few entries share, is
                # evidence on its own however the rest of the request reads.
                named = c.lexical_specificity if c.lexical_specificity >= named_min else 0.0
                c.relevance = max(float(p), named)
        return cands

    @staticmethod
    def _hits(env: RouteEnv, chosen: list[_Candidate]) -> list[Hit]:
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
                    score=round(c.probability, 6),
                    score_kind="visibility(p(matters))",
                    route="visible",
                    reason=c.reason(),
                    source_turns=entry.source_turns,
                    session_id=entry.session_id,
                    category=entry.category,
                    said_at=entry.said_at,
                    rank=rank,
                    extras={
                        "constraint_type": c.ctype,
                        "key": c.lexical or c.scored_key,
                        "knowledge_entry": c.key_ref,
                        "probability": round(c.probability, 4),
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
        return assembled_hits([SemanticRoute(), VisibleRoute()], env, query, scope, k, filters)
