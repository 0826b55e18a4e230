"""Φ_R: which root memory units apply to a query.

IMLogic asks the LLM once per unit. Here an embedding pre-filter first keeps the units
whose rules are closest to the query (top ``prefilter_top`` at cosine ≥
``prefilter_min``), then ONE LLM call decides for all remaining candidates. Decisions
are cached by (query, unit id, unit version), so the ablations and a second k reuse them
and a refined unit is asked about again. Without an LLM, or when the call fails twice,
the pre-filter's candidates are the decision, and every item says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from logicmem.errors import ModelError
from logicmem.models.llm.base import LLM, ChatMessage, extract_json
from logicmem.prompting import DATA_NOT_INSTRUCTIONS, block, quote
from logicmem.routes.base import RouteEnv, query_vector
from logicmem.routes.rootmem.repo import RootMemRepository, RootUnit
from logicmem.routes.rootmem.units import UsageMeter, label_number, rules_text
from logicmem.routes.visible.criticality import VectorCache
from logicmem.types import Scope

SYSTEM = (
    """You route a user's request to their root memory units. A unit applies when \
the request is a situation its "when" describes, even in other words, so that its \
"then" should shape the answer. The request is a JSON string; the units are the lines \
of the units block, one JSON object each with its label. Reply {"activate": [labels of the \
units that apply]}, for example {"activate": ["U2"]}, or {"activate": []} when none \
applies. """
    + DATA_NOT_INSTRUCTIONS
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"activate": {"type": "array", "items": {"type": "string"}}},
    "required": ["activate"],
}


def request_text(query: str, rules: list[str]) -> str:
    """The router's user message: the request quoted, the units' rules as a data block."""
    units = block("units", ({"unit": f"U{n}", "rule": r} for n, r in enumerate(rules, 1)))
    return f"Request: {quote(query)}\n\nUnits:\n{units}"


EXAMPLE: list[ChatMessage] = [
    {
        "role": "user",
        "content": request_text(
            "Any ideas for dinner on Friday?",
            [
                "When planning calls with Ana: suggest afternoons.",
                "When food or restaurants come up: avoid peanuts, she is allergic.",
            ],
        ),
    },
    {"role": "assistant", "content": '{"activate": ["U2"]}'},
]
CACHE_KEY = "rootmem_router"
MAX_CACHED = 20_000


class _Reply(BaseModel):
    activate: list[str | int]


@dataclass
class Activation:
    """A unit chosen for the query, how (``router``, ``prefilter``, ``all``) and why."""

    unit: RootUnit
    cosine: float
    how: str
    why: str


@dataclass
class Routing:
    activations: list[Activation]
    usage: dict[str, int] = field(default_factory=dict)


def _ask(
    llm: LLM, query: str, units: list[RootUnit], attempts: int, meter: UsageMeter
) -> tuple[set[int] | None, str]:
    """0-based indices of the units the LLM activates, or None and the last problem."""
    messages: list[ChatMessage] = [
        {"role": "system", "content": SYSTEM},
        *EXAMPLE,
        {"role": "user", "content": request_text(query, [rules_text(u) for u in units])},
    ]
    problem = ""
    for _ in range(attempts):
        meter.calls += 1
        try:
            schema = SCHEMA if llm.supports_json_schema else None  # see build.ask
            reply = llm.chat(messages, schema=schema, max_tokens=48)
        except ModelError as exc:
            problem = f"{type(exc).__name__}: {exc}"
            continue
        try:
            parsed = _Reply.model_validate(extract_json(reply))
        except (ValueError, ValidationError) as exc:
            problem = str(exc).splitlines()[0][:200]
            continue
        numbers = (label_number(v, "U") for v in parsed.activate)
        return {n - 1 for n in numbers if n is not None and 1 <= n <= len(units)}, ""
    return None, problem


def prefilter(env: RouteEnv, query: str, units: list[RootUnit]) -> np.ndarray:
    """Cosine of the query to each unit's rules (vectors cached in the store by text)."""
    user_id = units[0].user_id if units else ""
    vectors = VectorCache(env.store, env.embedder).vectors([rules_text(u) for u in units], user_id)
    sims: np.ndarray = vectors @ query_vector(env, query)
    return sims


def route(env: RouteEnv, query: str, scope: Scope, *, use_router: bool = True) -> Routing:
    """The units to put in context for ``query``, best pre-filter cosine first."""
    units = RootMemRepository.of(env.store).units(scope)
    if not units:
        return Routing([], UsageMeter(None).counts())
    sims = prefilter(env, query, units)
    order = sorted(range(len(units)), key=lambda i: -float(sims[i]))
    if not use_router:
        acts = [Activation(units[i], float(sims[i]), "all", "no router: every unit") for i in order]
        return Routing(acts, UsageMeter(None).counts())
    cfg = env.rootmem
    candidates = [i for i in order if sims[i] >= cfg.prefilter_min][: cfg.prefilter_top]
    decisions: dict[tuple[str, str, int], bool] = env.cache.setdefault(CACHE_KEY, {})
    if len(decisions) > MAX_CACHED:
        decisions.clear()

    def key(i: int) -> tuple[str, str, int]:
        return (query, units[i].unit_id, units[i].version)

    todo = [i for i in candidates if key(i) not in decisions]
    llm = env.llm() if todo else None
    meter = UsageMeter(llm)
    fallback = ""
    if todo and llm is None:
        fallback = "pre-filter decision (no LLM configured)"
    elif todo and llm is not None:
        chosen, problem = _ask(llm, query, [units[i] for i in todo], cfg.attempts, meter)
        if chosen is None:
            fallback = f"pre-filter decision (router call failed: {problem[:80]})"
            detail = {"problem": problem, "units": len(todo)}
            env.store.record_event("rootmem_router_failed", scope.user_id, detail)
        else:
            for j, i in enumerate(todo):
                decisions[key(i)] = j in chosen
    acts = []
    for i in candidates:
        cos = float(sims[i])
        if key(i) not in decisions:
            acts.append(Activation(units[i], cos, "prefilter", fallback))
        elif decisions[key(i)]:
            cached = "" if i in todo else " (cached decision)"
            acts.append(Activation(units[i], cos, "router", f"activated by router{cached}"))
    usage = meter.counts()
    usage["router_cache_hits"] = len(candidates) - len(todo)
    return Routing(acts, usage)
