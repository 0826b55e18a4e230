"""Query time: which standing constraints earn a place in view for this request.

Each critical memory is scored against the request by (1) its anticipation keys named
in the request's words, or implied by them (a city abroad implies international travel),
(2) the closest key in embedding space, discounted when many knowledge entries share it
(``key_score``), (3) the memory's own similarity, and (4) with a
capable LLM, the bridge hypotheses it answers (one call per request; see ``bridge``).
Matched constraints fill the slice first (at most ``share`` of k), one memory per
constraint before a second one; from ``fill_min_k`` on, unmatched constraints fill
what is left, closest to the request first, unless the request is a question about a
named person rather than the speaker's own (``asks_about_someone``), for which only a
key or hypothesis match earns a slot. Superseded memories
are never candidates. Every hit says why it is there."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from logicmem.context import assembled_hits
from logicmem.routes.base import Method, Proposal, Route, RouteEnv, query_vector
from logicmem.routes.semantic import SemanticRoute, allowed_ids
from logicmem.routes.visible.bridge import bridges, hypotheses
from logicmem.routes.visible.expand import expansions
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.text import contains, tokens
from logicmem.types import Hit, Scope

IMPLIED_WEIGHT = 0.8  # a key the request implies (a place abroad) vs one it names
LEXICAL_BONUS = 0.5  # relevance added by a named key of specificity 1
CRITICALITY_WEIGHT = 0.2  # relevance added by a certain standing constraint (criticality 1)
SHARED_KEY_DISCOUNT = 0.3  # similarity lost by a key every knowledge entry names (specificity 0)


@dataclass
class _Candidate:
    memory_id: str
    ctype: str
    criticality: float
    why: str
    lexical: str = ""  # the key found in the request's words
    lexical_weight: float = 0.0  # how specific that key is (1: names one constraint only)
    implied_by: str = ""  # set when the request implies the key rather than naming it
    key_ref: str = ""  # the knowledge entry of the named key, else of the closest key
    key_sim: float = 0.0  # the closest key's similarity
    key_score: float = 0.0  # the best key's similarity, discounted when many entries share it
    scored_key: str = ""  # ... that key, and its knowledge entry
    scored_ref: str = ""
    memory_sim: float = 0.0
    hypothesis: str = ""  # the LLM's bridge hypothesis this memory answers
    hypothesis_sim: float = 0.0
    order: int = -1  # position in the store (later = said more recently)

    def matched(self, key_min: float, memory_min: float) -> bool:
        return (
            bool(self.lexical)
            or bool(self.hypothesis)
            or self.key_score >= key_min
            or self.memory_sim >= memory_min
        )

    def relevance(self) -> float:
        # A named key is strong evidence only when it is specific to few constraints
        # ("lilies"); a shared everyday word ("car") adds little to the similarity. A
        # fact stated in the knowledge resource's words, or classified with confidence,
        # is more surely a standing constraint than an opinion that mentions a pet. The
        # closest key counts as far as it is specific (``key_score``).
        best = max(self.key_score, self.memory_sim, self.hypothesis_sim)
        return LEXICAL_BONUS * self.lexical_weight + best + CRITICALITY_WEIGHT * self.criticality

    @property
    def constraint(self) -> str:
        """What the memory is evidence of: its knowledge entry, else its type."""
        return self.key_ref or self.ctype

    def reason(self, key_min: float, memory_min: float) -> str:
        head = f"standing constraint ({self.ctype.replace('_', ' ')}; {self.why})"
        ref = f" ({self.key_ref})" if self.key_ref else ""
        if self.lexical and self.implied_by:
            return f"{head}; the request implies '{self.lexical}' ({self.implied_by}){ref}"
        if self.lexical:
            return f"{head}; the request mentions '{self.lexical}'{ref}"
        if self.key_score >= key_min:
            scored = f" ({self.scored_ref})" if self.scored_ref else ""
            return (
                f"{head}; the request is close to '{self.scored_key}'{scored}"
                f" ({self.key_score:.2f})"
            )
        if self.hypothesis:
            return f"{head}; answers the hypothesis '{self.hypothesis}' ({self.hypothesis_sim:.2f})"
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


def key_score(similarity: float, specificity: float) -> float:
    """A key's similarity to the request, discounted as far as the key is shared: "wedding"
    is a situation of dozens of knowledge entries and fits any of them no better than the
    request fits a wedding; "destination wedding" is evidence for few. (An IDF for keys.)"""
    return similarity * (1.0 - SHARED_KEY_DISCOUNT * (1.0 - specificity))


@lru_cache(maxsize=65536)
def key_tokens(key: str) -> tuple[str, ...]:
    """A key's tokens, computed once: every request compares the user's keys."""
    return tokens(key)


def diverse(tier: list[_Candidate], seen: set[str]) -> list[_Candidate]:
    """One memory per constraint first; further evidence of a constraint already shown
    ("John's kids" said seven ways) after the others of the tier. ``seen`` carries the
    constraints shown by earlier tiers: a matched repeat still precedes unmatched fills."""
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
    """A question about a named person ("What did Caroline research?"), not a request of
    the speaker's own: no first-person word, not an instruction, and a name inside it.
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
        recall = asks_about_someone(query)
        # A recall question about a named person is the semantic route's job: a constraint
        # merely similar to it would take a slot from the evidence, so only a key the
        # question names or implies (or a bridge hypothesis) earns one.
        memory_min = math.inf if recall else cfg.memory_min
        matched = [c for c in candidates if c.matched(cfg.key_min, memory_min)]
        # Ties (constraints matched through the same key) go to the more critical, then to
        # the more recently stated.
        matched.sort(key=lambda c: (-c.relevance(), -c.criticality, -c.order))
        seen: set[str] = set()
        chosen = diverse(matched, seen)
        if k >= cfg.fill_min_k and not recall:
            # Unmatched constraints: the closest to the request first, even when no key
            # passed its threshold; criticality breaks ties.
            rest = [c for c in candidates if c not in matched]
            rest.sort(key=lambda c: (-c.relevance(), -c.criticality, -c.order))
            chosen += diverse(rest, seen)
        n = quota(k, cfg.share)
        return Proposal(self._hits(env, chosen[:n], cfg.key_min, memory_min), quota=n)

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
        if ids:
            sims = matrix @ qv
            for j, memory_id in enumerate(ids):
                if memory_id in by_id:
                    by_id[memory_id].memory_sim = float(sims[j])
                    by_id[memory_id].order = j
        position = {memory_id: j for j, memory_id in enumerate(ids)}
        for memory_id, bridge in bridges(env, query, scope, ids, matrix).items():
            if allowed is not None and memory_id not in allowed:
                continue
            bridged = by_id.setdefault(
                memory_id, _Candidate(memory_id, "bridge", 0.5, "named by a bridge hypothesis")
            )
            bridged.hypothesis, bridged.hypothesis_sim = bridge.hypothesis, bridge.similarity
            bridged.order = position.get(memory_id, -1)
        keys, kmat = env.store.memory_keys(scope)
        if keys:
            ksims = (window_vectors(env, query) @ kmat.T).max(axis=0)
            words = tokens(query)
            implied = {tokens(phrase): why for phrase, why in expansions(query)}
            kb = load_kb()
            for key, sim in zip(keys, ksims, strict=True):
                cand = by_id.get(key.memory_id)
                if cand is None:
                    continue
                needle = key_tokens(key.key)
                specific = kb.specificity(key.key) if key.kind == "kb" else 1.0
                score = key_score(float(sim), specific)
                if score > cand.key_score:
                    cand.key_score, cand.scored_key, cand.scored_ref = score, key.key, key.ref
                weight = specific
                # A named key counts as far as it also fits the request in context: "we
                # leave Friday" names 'leave' (military leave) in another sense.
                weight *= max(0.0, float(sim))
                named = contains(words, needle)
                why = "" if named else implied.get(needle, "")
                if not named and why:
                    weight *= IMPLIED_WEIGHT
                if (named or why) and (weight > cand.lexical_weight or not cand.lexical):
                    cand.lexical, cand.key_ref, cand.implied_by = key.key, key.ref, why
                    cand.lexical_weight = weight
                if sim > cand.key_sim:
                    cand.key_sim = float(sim)
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
                        "key": c.lexical or c.scored_key,
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
        return assembled_hits([SemanticRoute(), VisibleRoute()], env, query, scope, k, filters)
