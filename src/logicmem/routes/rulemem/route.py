"""Query time: activate rules, recall evidence with their bodies, give rules as premises.

The ``top_n`` admitted rules whose heads are closest to the query (cosine) are
activated. Each becomes a context item "Rule: B1 ∧ … ⇒ H" whose source turns are the
union of its supporting memories' turns, followed by the memories each body atom
recalls (guided recall, ``cue_k`` per atom). Rules and evidence take at most ``share``
of k; semantic hits fill the rest. Ablations: ``rulemem_norpc`` activates every induced
rule (admitted, rejected or unvalidated); ``rulemem_norules`` has no rules: the facts
(quadruples) closest to the query are the cues. Facts, evidence and rules come from the
memories valid at the moment asked about (``RouteEnv.as_of``; now by default): a rule
holds while one of the memories it was read from does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from logicmem.context import assembled_hits
from logicmem.routes.base import Method, Proposal, Route, RouteEnv, query_vector, valid_at
from logicmem.routes.rulemem.repo import HornRule, RuleMemRepository
from logicmem.routes.semantic import SemanticRoute, allowed_ids
from logicmem.types import Hit, Scope


def _vectors(env: RouteEnv, texts: list[str]) -> dict[str, np.ndarray]:
    cache: dict[str, np.ndarray] = env.cache.setdefault("rulemem_cues", {})
    todo = [t for t in dict.fromkeys(texts) if t not in cache]
    if todo:
        if len(cache) > 2048:
            cache.clear()
        cache.update(zip(todo, env.embedder.embed(todo), strict=True))
    return {t: cache[t] for t in texts}


def guided_recall(
    env: RouteEnv, scope: Scope, cues: list[str], per_cue: int, allowed: set[str] | None
) -> dict[str, list[tuple[str, float]]]:
    """Per cue: the ``per_cue`` memories closest to it, with their cosine."""
    ids, matrix = env.store.vectors(scope, as_of=env.as_of)
    if not ids or not cues:
        return {c: [] for c in cues}
    vectors = _vectors(env, cues)
    out = {}
    for cue in cues:
        sims = matrix @ vectors[cue]
        order = [int(j) for j in np.argsort(-sims) if allowed is None or ids[j] in allowed]
        out[cue] = [(ids[j], float(sims[j])) for j in order[:per_cue]]
    return out


def _memory_hits(
    env: RouteEnv, ranked: list[tuple[str, float, str, dict[str, Any]]], kind: str
) -> list[Hit]:
    entries = env.store.get_memories([r[0] for r in ranked])
    return [
        Hit(
            id=e.id,
            text=e.text,
            score=round(score, 6),
            score_kind=kind,
            route="rulemem",
            reason=reason,
            source_turns=e.source_turns,
            session_id=e.session_id,
            category=e.category,
            said_at=e.said_at,
            extras=extras,
        )
        for mid, score, reason, extras in ranked
        if (e := entries.get(mid)) is not None
    ]


def _rule_hit(env: RouteEnv, rule: HornRule, sim: float) -> Hit:
    sources = env.store.get_memories(rule.source_memories)
    turns = list(dict.fromkeys(t for m in rule.source_memories if m in sources
                               for t in sources[m].source_turns))  # fmt: skip
    score = "unscored" if rule.score is None else f"RPC {rule.score:.2f}"
    return Hit(
        id=f"rule:{rule.id}",
        text=rule.render(),
        score=round(sim, 6),
        score_kind="cosine(query, rule head)",
        route="rulemem",
        reason=f"rule {rule.id} ({rule.status}, {score}, support {rule.support}, "
        f"{rule.inducer}) activated by its head ({sim:.2f})",
        source_turns=turns,
        category="rule",
        extras={"rule_id": rule.id, "status": rule.status, "memories": rule.source_memories},
    )


def rule_hits(
    env: RouteEnv,
    query: str,
    scope: Scope,
    filters: dict[str, Any] | None,
    statuses: tuple[str, ...] | None,
) -> list[Hit]:
    """Activated rules, each followed by the evidence its body atoms recall."""
    cfg = env.rulemem
    rules, matrix = RuleMemRepository.of(env.store).rules(scope, statuses)
    allowed = allowed_ids(env, scope, filters)
    if allowed is not None:
        keep = [i for i, r in enumerate(rules) if set(r.source_memories) <= allowed]
        rules, matrix = [rules[i] for i in keep], matrix[keep] if keep else matrix[:0]
    # A rule holds while one of the memories it was read from does (now, or at as_of).
    sources = env.store.get_memories([m for r in rules for m in r.source_memories])
    valid = {mid for mid, m in sources.items() if valid_at(m, env.as_of)}
    keep = [
        i for i, r in enumerate(rules) if not r.source_memories or valid & set(r.source_memories)
    ]
    if len(keep) < len(rules):
        rules, matrix = [rules[i] for i in keep], matrix[keep] if keep else matrix[:0]
    if not rules:
        return []
    sims = matrix @ query_vector(env, query)
    active = [(rules[j], float(sims[j])) for j in np.argsort(-sims)[: cfg.top_n]]
    recalled = guided_recall(env, scope, [a for r, _ in active for a in r.body], cfg.cue_k, allowed)
    hits: list[Hit] = []
    for rule, sim in active:
        hits.append(_rule_hit(env, rule, sim))
        ranked = [
            (mid, cos, f"evidence for rule {rule.id}: recalled by its condition '{atom}' "
             f"({cos:.2f})", {"rule_id": rule.id, "cue": atom})
            for atom in rule.body
            for mid, cos in recalled[atom]
        ]  # fmt: skip
        hits.extend(_memory_hits(env, ranked, "cosine(rule condition, memory)"))
    return _dedupe(hits)


def fact_hits(env: RouteEnv, query: str, scope: Scope, filters: dict[str, Any] | None) -> list[Hit]:
    """No rules: the quadruples closest to the query are the recall cues."""
    cfg = env.rulemem
    quads, matrix = RuleMemRepository.of(env.store).quads(scope, as_of=env.as_of)
    allowed = allowed_ids(env, scope, filters)
    if not quads:
        return []
    sims = matrix @ query_vector(env, query)
    order = [int(j) for j in np.argsort(-sims) if allowed is None or quads[j].memory_id in allowed]
    chosen = order[: cfg.top_n]
    cues = [quads[j].text() for j in chosen]
    recalled = guided_recall(env, scope, cues, cfg.cue_k, allowed)
    ranked = []
    for j, cue in zip(chosen, cues, strict=True):
        q = quads[j]
        fact = f"({q.subject}; {q.relation}; {q.object}; {q.time or 'undated'})"
        ranked.append((q.memory_id, float(sims[j]), f"fact {fact} matches the query "
                       f"({sims[j]:.2f})", {"fact": q.id}))  # fmt: skip
        ranked.extend(
            (mid, cos, f"recalled by fact {fact} ({cos:.2f})", {"fact": q.id})
            for mid, cos in recalled[cue]
        )
    return _dedupe(_memory_hits(env, ranked, "cosine(fact, memory)"))


def _dedupe(hits: list[Hit]) -> list[Hit]:
    seen: set[str] = set()
    out: list[Hit] = []
    for hit in hits:
        if hit.id not in seen:
            seen.add(hit.id)
            hit.rank = len(out) + 1
            out.append(hit)
    return out


class RuleMemRoute(Route):
    """Rules (admitted only) and their guided-recall evidence, within ``share`` of k."""

    name = "rulemem"
    priority = 20
    statuses: tuple[str, ...] | None = ("admitted",)
    use_rules = True

    def propose(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> Proposal:
        n = math.floor(k * env.rulemem.share)
        if n < 1:
            return Proposal([], quota=0)
        if self.use_rules:
            hits = rule_hits(env, query, scope, filters, self.statuses)
        else:
            hits = fact_hits(env, query, scope, filters)
        return Proposal(hits[:n], quota=n)


class AllRulesRoute(RuleMemRoute):
    statuses = None


class FactsRoute(RuleMemRoute):
    use_rules = False


class RuleMemMethod(Method):
    """Rule items + guided-recall evidence + semantic (hybrid) hits, at most k in all."""

    name = "rulemem"
    consolidators = ("rulemem",)
    route: type[RuleMemRoute] = RuleMemRoute

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        return assembled_hits([SemanticRoute(), self.route()], env, query, scope, k, filters)


class RuleMemNoRPC(RuleMemMethod):
    """Ablation: every induced rule can be activated, whatever RPC said."""

    name = "rulemem_norpc"
    route = AllRulesRoute


class RuleMemNoRules(RuleMemMethod):
    """Ablation: facts only (quadruple-guided recall), no rules."""

    name = "rulemem_norules"
    route = FactsRoute
