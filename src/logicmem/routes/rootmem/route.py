"""The ``rootmem`` route and methods: activated blocks [R, E] first, semantic top-k after.

Each activated unit becomes one context item whose text is its block, whose id is
``rootmem:<unit id>@v<version>``, whose reason says how it was activated, and whose
``source_turns`` are the union of its (still valid) evidence memories' turns, so the
bench traces it to gold turns like any memory. The rest of k is filled by
``rootmem.semantic`` (dense, as IMLogic pairs RootMem with MiniLM), so the total stays k.

The LLM calls and tokens a query cost are in ``extras["llm_usage"]`` of the method's
first hit and are summed per method in ``env.cache["llm_usage"]`` (read by the bench).

Ablations (IMLogic App. D): ``rootmem_norouter`` activates every unit,
``rootmem_norules`` shows evidence only, ``rootmem_noevidence`` rules only. The rule-only
block keeps its units' provenance: its recall says whether the unit built from the gold
memory was activated, not whether the memory's text is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from logicmem.routes.base import METHODS, Method, Proposal, Route, RouteEnv, valid_at
from logicmem.routes.rootmem.router import Activation, route
from logicmem.routes.rootmem.units import block_text, record_usage
from logicmem.routes.semantic import allowed_ids
from logicmem.types import Hit, Scope


@dataclass(frozen=True)
class Variant:
    router: bool = True
    rules: bool = True
    evidence: bool = True


def unit_hits(
    env: RouteEnv,
    query: str,
    scope: Scope,
    filters: dict[str, Any] | None,
    variant: Variant,
) -> tuple[list[Hit], dict[str, int]]:
    """One hit per activated unit, and the LLM usage of the routing. A unit applies only
    with evidence valid at ``env.as_of`` (now by default), and shows only that evidence."""
    routing = route(env, query, scope, use_router=variant.router)
    allowed = allowed_ids(env, scope, filters)
    ids = [e.memory_id for a in routing.activations for e in a.unit.evidence]
    found = env.store.get_memories(ids)
    entries = {k: m for k, m in found.items() if valid_at(m, env.as_of)}
    hits: list[Hit] = []
    for act in routing.activations:
        evidence = [
            e
            for e in act.unit.evidence
            if e.memory_id in entries and (allowed is None or e.memory_id in allowed)
        ]
        if not evidence:
            continue  # every supporting memory is gone or filtered out
        hits.append(_hit(act, evidence, entries, variant, len(hits) + 1))
    return hits, routing.usage


def _hit(
    act: Activation, evidence: list[Any], entries: dict[str, Any], variant: Variant, rank: int
) -> Hit:
    unit = act.unit
    turns = list(dict.fromkeys(t for e in evidence for t in entries[e.memory_id].source_turns))
    sessions = {entries[e.memory_id].session_id for e in evidence}
    dates = sorted(d for d in (entries[e.memory_id].said_at for e in evidence) if d)
    how = act.why or {"router": "activated by router", "all": "no router"}.get(act.how, act.how)
    return Hit(
        id=f"rootmem:{unit.unit_id}@v{unit.version}",
        text=block_text(
            unit, [e.fact for e in evidence], rules=variant.rules, evidence=variant.evidence
        ),
        score=round(act.cosine, 6),
        score_kind="cosine(query, unit rules)",
        route="rootmem",
        reason=f"root memory unit {unit.unit_id} v{unit.version}: {how} "
        f"(rules similarity {act.cosine:.2f}, {len(evidence)} evidence memories)",
        source_turns=turns,
        session_id=sessions.pop() if len(sessions) == 1 else None,
        category="root memory",
        said_at=dates[-1] if dates else None,
        rank=rank,
        extras={
            "unit_id": unit.unit_id,
            "version": unit.version,
            "activation": act.how,
            "evidence": [e.memory_id for e in evidence],
        },
    )


class RootMemRoute(Route):
    """For ``context()``: activated unit blocks, placed before the semantic route's hits."""

    name = "rootmem"
    priority = 20

    def propose(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> Proposal:
        hits, usage = unit_hits(env, query, scope, filters, Variant())
        record_usage(env, f"route:{self.name}", usage)
        return Proposal(hits[:k], quota=min(len(hits), k))


class RootMemMethod(Method):
    """Activated unit blocks, then ``rootmem.semantic`` hits, k in all."""

    name = "rootmem"
    consolidators = ("rootmem",)
    variant = Variant()

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        units, usage = unit_hits(env, query, scope, filters, self.variant)
        units = units[:k]
        rest: list[Hit] = []
        if len(units) < k:
            semantic = METHODS.create(env.rootmem.semantic)
            rest = semantic.search(env, query, scope, k - len(units), filters)
        hits = units + rest
        for rank, hit in enumerate(hits, 1):
            hit.rank = rank
        if hits:
            hits[0].extras = {**hits[0].extras, "llm_usage": usage}
        record_usage(env, self.name, usage)
        return hits


class RootMemNoRouter(RootMemMethod):
    name = "rootmem_norouter"
    variant = Variant(router=False)


class RootMemNoRules(RootMemMethod):
    name = "rootmem_norules"
    variant = Variant(rules=False)


class RootMemNoEvidence(RootMemMethod):
    name = "rootmem_noevidence"
    variant = Variant(evidence=False)
