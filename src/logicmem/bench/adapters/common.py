"""What the InMind-, IMLogic- and LoCoMo-style adapters share: banks, dialogues, injection.

Memory level: the bank is every ``session_N_observation`` entry, each stored verbatim
(``infer=False``) as one memory whose turn id traces to its ``dia_id``s. Conversation
level: the raw sessions go through the system's own write path, speaker_a as the user
and speaker_b as another person, each session dated.

Distractors (``--distractors N``) are the facts of N other tasks, stated as the same
user's. ``--distractor-age older`` makes every one older than the task's own facts;
``random`` (the default) places each one older or newer by a coin fixed by the seed, the
task and the distractor, so recall is not measured only where the task's fact is the
newest. Newer distractors could supersede the task's fact, so with ``random`` a
candidate that fills a single-valued slot the run's facts fill (residence, employer...,
see ``logicmem.write.supersede``) is never picked.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from logicmem.bench.data import Conversation
from logicmem.bench.engine import Session
from logicmem.errors import InputError
from logicmem.write.supersede import slots_of

AGES = ("older", "random")
NEWER_ORDER = 1 << 20
"""``Injection.order`` of a newer distractor: after every task turn of a shared session."""


@dataclass
class InjectionOptions:
    """Run options shared by the injection adapters (InMind- and IMLogic-style)."""

    level: str = "memory"
    seed: int = 0
    distractors: int = 0
    inject_per_run: int = 1
    limit: int | None = None
    distractor_age: str = "random"
    half: str | None = None


@dataclass
class Injection:
    """Turns appended to the end of dialogue session ``session`` (0-based)."""

    session: int
    turns: list[dict[str, Any]]
    order: int = 0
    """Within one session, lower goes first (the older statement)."""


def observation_bank(conv: Conversation) -> tuple[list[Session], dict[str, list[str]]]:
    """One session per LoCoMo session holding its observations; turn id -> dia_ids."""
    sessions, aliases = [], {}
    for sid, date, facts in conv.observations:
        turns, used = [], set()
        for speaker, text, ids in facts:
            base = "+".join(ids) or f"{sid}:obs"
            turn_id, n = base, 1
            while turn_id in used:  # several observations may cite the same turn
                n += 1
                turn_id = f"{base}#{n}"
            used.add(turn_id)
            aliases[turn_id] = ids or [turn_id]
            turns.append(
                {"speaker": speaker, "role": conv.role(speaker), "text": text, "turn_id": turn_id}
            )
        sessions.append(Session(sid, date, turns))
    return sessions, aliases


def dialogue(conv: Conversation) -> list[Session]:
    return [
        Session(sid, date, [{**t, "role": conv.role(t["speaker"])} for t in turns])
        for sid, date, turns in conv.sessions
    ]


def middle(n: int) -> int:
    """0-based index of session ceil(n/2), where the InMind protocol injects."""
    return max(0, math.ceil(n / 2) - 1)


def first_third(n: int) -> int:
    """0-based index of session ceil(n/3): the logical fact is the older one."""
    return max(0, math.ceil(n / 3) - 1)


def near(center: int, j: int, n: int) -> int:
    """The j-th session around ``center`` (0, +1, -1, +2, ...), clipped to the dialogue."""
    step = (j + 1) // 2 * (1 if j % 2 else -1)
    return min(n - 1, max(0, center + step))


def spread(limit: int, count: int, rng: random.Random) -> list[int]:
    """``count`` session indices before ``limit`` (the run's first injection), sorted.

    Older distractors: with no earlier session they share the first injected one, placed
    before the task's turns.
    """
    return _sample(list(range(limit)) or [limit], count, rng)


def spread_after(last: int, n: int, count: int, rng: random.Random) -> list[int]:
    """``count`` session indices after ``last`` (the run's last injection), sorted.

    Newer distractors: with no later session they share the last injected one, placed
    after the task's turns.
    """
    return _sample(list(range(last + 1, n)) or [last], count, rng)


def _sample(pool: list[int], count: int, rng: random.Random) -> list[int]:
    if count <= len(pool):
        return sorted(rng.sample(pool, count))
    return sorted(rng.choice(pool) for _ in range(count))


def place(
    sessions: list[Session], injections: list[Injection]
) -> tuple[list[Session], list[Session]]:
    """(untouched prefix, the rest with injections appended): the prefix is shareable."""
    if not injections:
        return list(sessions), []
    first = min(i.session for i in injections)
    rest = []
    for index in range(first, len(sessions)):
        s = sessions[index]
        extra = [i for i in injections if i.session == index]
        extra.sort(key=lambda i: i.order)
        rest.append(Session(s.id, s.date, list(s.turns) + [t for i in extra for t in i.turns]))
    return list(sessions[:first]), rest


def assign(n_items: int, n_convs: int) -> list[int]:
    """Round-robin, in file order: item i goes to conversation i mod n."""
    return [i % n_convs for i in range(n_items)]


def chunks(indices: list[int], size: int) -> list[list[int]]:
    size = max(1, size)
    return [indices[i : i + size] for i in range(0, len(indices), size)]


def pick_others(ids: list[str], own: str, n: int, seed: int, skip: Iterable[str] = ()) -> list[str]:
    """``n`` ids other than ``own`` and ``skip``, fixed by the seed and ``own``."""
    left_out = {own, *skip}
    pool = [i for i in ids if i not in left_out]
    if n <= 0 or not pool:
        return []
    return random.Random(f"{seed}:distractors:{own}").sample(pool, min(n, len(pool)))


class Distractors:
    """Picks each task's distractors and says where they go (older or newer, and when).

    ``ids`` are the candidates; ``texts`` maps every task id (candidate or not) to the
    texts its injection states (memories and utterances): the slot rule reads those.
    """

    def __init__(self, ids: list[str], texts: dict[str, list[str]], opt: InjectionOptions):
        if opt.distractor_age not in AGES:
            raise InputError(f"distractor age {opt.distractor_age!r}: choose {' or '.join(AGES)}")
        self.ids, self.opt = ids, opt
        self.slots = {i: frozenset(s for t in ts for s in slots_of(t)) for i, ts in texts.items()}

    def pick(self, own: str, run: list[str]) -> list[str]:
        """The distractors of task ``own``; ``run``: every task whose facts share the store."""
        skip: list[str] = []
        if self.opt.distractor_age == "random":
            taken = frozenset(s for i in run for s in self.slots[i])
            skip = [i for i in self.ids if self.slots[i] & taken]
        return pick_others(self.ids, own, self.opt.distractors, self.opt.seed, skip)

    def split(self, own: str, others: list[str]) -> tuple[list[str], list[str]]:
        """(older, newer) distractors: all older with age ``older``, else a coin for each."""
        if self.opt.distractor_age == "older":
            return list(others), []
        newer = {
            o for o in others if random.Random(f"{self.opt.seed}:age:{own}:{o}").random() < 0.5
        }
        return [o for o in others if o not in newer], [o for o in others if o in newer]

    def spots(
        self, own: str, others: list[str], first: int, last: int, n: int
    ) -> list[tuple[str, int, int]]:
        """(distractor, session, order) around the run's injections in ``n`` sessions."""
        older, newer = self.split(own, others)
        rng = random.Random(f"{self.opt.seed}:spread:{own}")
        out = [(o, s, -1) for o, s in zip(older, spread(first, len(older), rng), strict=True)]
        after = spread_after(last, n, len(newer), rng)
        return out + [(o, s, NEWER_ORDER) for o, s in zip(newer, after, strict=True)]


def fill_user(text: str, user: str) -> str:
    return str(text).replace("{user}", user)
