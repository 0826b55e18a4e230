"""The context assembler: candidates from every route, deduplicated, fit to a budget.

Routes with a quota (a reserved share of k) fill first, in priority order, unless they
give each hit a probability of mattering (the visibility route): then a hit takes a
slot ahead of the open routes' hit of rank r only when it is more likely to matter than
that hit (``Proposal.prior``), so it displaces only weaker hits. The remaining room goes
to the other routes' hits, best rank first, round-robin across routes so no single route
crowds the rest out. Every item keeps the
route and reason that put it there and the turns it traces back to.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from logicmem.errors import InputError
from logicmem.routes.base import Route, RouteEnv, request_date
from logicmem.routes.visible.term import stated_end
from logicmem.routes.visible.text import stated_ages
from logicmem.types import Budget, Context, ContextItem, Hit, Scope


def estimate_tokens(text: str) -> int:
    """About four characters a token (the usual rule of thumb for English and BPE models)."""
    return max(1, math.ceil(len(text) / 4))


@lru_cache(maxsize=8192)
def time_note(text: str, said_at: str | None, today: date) -> str:
    """What time has changed since a memory was said, as of ``today``: a stated term that
    has ended ("Sam can't drive until March", asked in May: "said to hold until
    2024-03-31; that day has passed"; ``term.stated_end``), and the people's ages it gives
    (``age_note``). Empty when neither applies."""
    try:
        said = datetime.fromisoformat(said_at).date() if said_at else None
    except ValueError:
        return ""
    if said is None:
        return ""
    notes = []
    end = stated_end(text, said)
    if end is not None and end < today:
        notes.append(f"said to hold until {end.isoformat()}; that day has passed")
    ages = age_note(text, said, today)
    if ages:
        notes.append(ages)
    return "; ".join(notes)


def age_note(text: str, said: date, today: date) -> str:
    """How old the people a memory gives an age are now, when a year or more has passed
    since it was said ("Sam's son is 6", said two years ago: "2 years since said: 6 then,
    8 or 9 now"; a birthday may fall either side). Empty when it states no person's age
    (``text.stated_ages``) or is less than a year old."""
    years = today.year - said.year - ((today.month, today.day) < (said.month, said.day))
    if years < 1:
        return ""
    ages = stated_ages(text)
    if not ages:
        return ""
    now = "; ".join(f"{age} then, {age + years} or {age + years + 1} now" for age in ages)
    return f"{years} year{'s' if years > 1 else ''} since said: {now}"


def _fingerprint(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


class ContextAssembler:
    def __init__(self, routes: list[Route]) -> None:
        self.routes = sorted(routes, key=lambda r: r.priority)

    def build(
        self,
        env: RouteEnv,
        query: str,
        scope: Scope,
        budget: Budget,
        filters: dict[str, Any] | None = None,
        *,
        as_of: str | None = None,
    ) -> Context:
        """The context for ``query``; with ``as_of``, from the memories valid then."""
        if as_of is not None:
            env = env.at(as_of)
        if budget.k < 1:
            raise InputError(f"k must be at least 1, got {budget.k}")
        if budget.max_tokens is not None and budget.max_tokens < 1:
            raise InputError(f"max_tokens must be at least 1, got {budget.max_tokens}")
        proposals = [(r, r.propose(env, query, scope, budget.k, filters)) for r in self.routes]
        state = _Fill(budget)
        competing: list[tuple[float, Callable[[int], float], Hit, str]] = []
        for route, proposal in proposals:
            if proposal.quota is None:
                continue
            reserved = proposal.hits[: max(0, proposal.quota)]
            if proposal.probabilities is None or proposal.prior is None:
                for hit in reserved:
                    state.offer(hit, route.name)
                continue
            for hit, p in zip(reserved, proposal.probabilities, strict=False):
                competing.append((p, proposal.prior, hit, route.name))
        competing.sort(key=lambda c: -c[0])
        open_lists = [p.hits for _, p in proposals if p.quota is None]
        for rank in range(max((len(h) for h in open_lists), default=0)):
            for hits in open_lists:
                if rank < len(hits):
                    # Competing hits more likely to matter than this open hit go first.
                    while competing and competing[0][0] > competing[0][1](rank + 1):
                        _, _, hit, name = competing.pop(0)
                        state.offer(hit, name)
                    # The same memory, also proposed with its reason: that one takes the slot.
                    same = [c for c in competing if c[2].id == hits[rank].id]
                    if same:
                        competing.remove(same[0])
                        state.offer(same[0][2], same[0][3])
                    state.offer(hits[rank], hits[rank].route)
        for _, _, hit, name in competing:  # room the open routes did not fill
            state.offer(hit, name)
        today = request_date(env)
        for item in state.items:
            item.note = time_note(item.text, item.said_at, today)
        return Context(
            query=query,
            user_id=scope.user_id,
            budget=budget,
            items=state.items,
            routes=state.per_route,
            dropped=state.dropped,
        )


class _Fill:
    """Mutable state of one assembly: what is in, what was dropped and why."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.items: list[ContextItem] = []
        self.seen_ids: set[str] = set()
        self.seen_text: set[str] = set()
        self.tokens = 0
        self.per_route: dict[str, int] = {}
        self.dropped: dict[str, int] = {"duplicate": 0, "k": 0, "tokens": 0}

    def offer(self, hit: Hit, route: str) -> None:
        fingerprint = _fingerprint(hit.text)
        if hit.id in self.seen_ids or fingerprint in self.seen_text:
            self.dropped["duplicate"] += 1
            return
        if len(self.items) >= self.budget.k:
            self.dropped["k"] += 1
            return
        tokens = estimate_tokens(hit.text)
        if self.budget.max_tokens is not None and self.tokens + tokens > self.budget.max_tokens:
            self.dropped["tokens"] += 1
            return
        self.seen_ids.add(hit.id)
        self.seen_text.add(fingerprint)
        self.tokens += tokens
        self.per_route[route] = self.per_route.get(route, 0) + 1
        self.items.append(
            ContextItem(
                memory_id=hit.id,
                text=hit.text,
                route=route,
                reason=hit.reason,
                score=hit.score,
                score_kind=hit.score_kind,
                source_turns=list(hit.source_turns),
                session_id=hit.session_id,
                said_at=hit.said_at,
                category=hit.category,
                tokens=tokens,
            )
        )


def assembled_hits(
    routes: list[Route],
    env: RouteEnv,
    query: str,
    scope: Scope,
    k: int,
    filters: dict[str, Any] | None,
) -> list[Hit]:
    """The context ``routes`` assemble for ``query`` at budget k, as ranked hits: how a
    route that joins semantic retrieval is offered as a retrieval method (and to the bench)."""
    ctx = ContextAssembler(routes).build(env, query, scope, Budget(k=k), filters)
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
