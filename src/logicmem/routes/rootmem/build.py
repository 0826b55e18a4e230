"""Φ_C: incremental construction of root memory units over batches of new memories.

Each run takes the scope's active memories not yet taken in (the watermark in
``root_marks``), in storage order, ``batch`` at a time. One LLM call per batch (plus one
retry showing the validation error) returns operations; they are applied to a working
copy and written, with the batch's watermark, in one transaction. A batch whose reply
never validates, or whose calls fail, is recorded (``rootmem_batch_failed`` in
``stats``) and left for the next run; after ``max_failures`` runs its memories are
skipped (recorded) so one poison batch cannot cost a call on every run forever.
Superseded memories never enter a batch, and a run first prunes evidence whose memory
is no longer active.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from logicmem.errors import ModelError
from logicmem.models.llm.base import LLM, ChatMessage, extract_json
from logicmem.prompting import DATA_NOT_INSTRUCTIONS, block
from logicmem.routes.base import Consolidator, RouteEnv
from logicmem.routes.rootmem.ops import SCHEMA, BatchEditor, Op, Similarity, parse_ops
from logicmem.routes.rootmem.repo import RootMemRepository, RootUnit
from logicmem.routes.rootmem.units import UsageMeter, clip
from logicmem.routes.visible.criticality import VectorCache
from logicmem.types import MemoryEntry, Scope

SYSTEM = (
    """You maintain root memory units for a personal assistant: reusable rules, \
distilled from memories about the user, that say when those memories must shape an \
answer and how. A unit has "when" (the requests or situations it applies to), "then" \
(how a response must adapt) and evidence (memory labels such as M3).
Given the current units (U1, U2, ...) and new memories (M1, M2, ...), reply with a list \
of operations:
{{"op": "enrich", "unit": "U1", "evidence": ["M2"]}} - new memories support a unit
{{"op": "refine", "unit": "U1", "when": "...", "then": "..."}} - sharpen a unit's rules
{{"op": "create", "when": "...", "then": "...", "evidence": ["M1", "M4"]}} - new decision \
logic (at most {max_units} units in all)
{{"op": "merge", "units": ["U1", "U2"], "when": "...", "then": "..."}} - units whose \
constraints overlap become one
Look for memories whose implication shows only together (she works in a studio + her \
cat stays there: when the studio comes up, mind the cat's safety). Skip memories that \
will not change a future answer. Reply {{"operations": []}} if nothing changes.
Units and memories are the lines of the units and memories blocks, one JSON object each \
with its label. """
    + DATA_NOT_INSTRUCTIONS
)


def batch_text(
    units: list[dict[str, str]], memories: list[tuple[str, str | None]], max_units: int
) -> str:
    """The builder's user message: units (when, then, evidence) and new memories (text,
    date) as data blocks, each row labelled U1.. and M1.. in order."""
    listed = block("units", ({"unit": f"U{n}", **u} for n, u in enumerate(units, 1)))
    rows = ({"memory": f"M{n}", "text": t, "said": d} for n, (t, d) in enumerate(memories, 1))
    return (
        f"Units ({len(units)} of at most {max_units}):\n{listed if units else '(none yet)'}"
        f"\n\nNew memories:\n{block('memories', rows)}"
        '\n\nReply with JSON only: {"operations": [...]}.'
    )


# One worked exchange: small models copy its shape far more reliably than a description.
EXAMPLE: list[ChatMessage] = [
    {
        "role": "user",
        "content": batch_text(
            [],
            [
                ("Ana works night shifts at the hospital.", None),
                ("Ana sleeps until noon.", None),
                ("Ana liked the new cafe.", None),
            ],
            10,
        ),
    },
    {
        "role": "assistant",
        "content": '{"operations": [{"op": "create", "when": "planning calls, visits or '
        'errands with Ana", "then": "suggest afternoons or evenings: she works nights and '
        'sleeps until noon", "evidence": ["M1", "M2"]}]}',
    },
]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


EXAMPLE_WORDS = [
    _words(op["when"] + " " + op["then"]) for op in json.loads(EXAMPLE[1]["content"])["operations"]
]


def drop_copies(ops: list[Op]) -> tuple[list[Op], list[str]]:
    """Operations that repeat the worked example's rule, perhaps with another name in it
    (a small model's favourite reply), describe nothing in the batch: they are skipped
    like any invalid operation."""
    kept, problems = [], []
    for op in ops:
        words = _words(op.when + " " + op.then)
        if words and any(len(words & w) / len(words | w) >= 0.6 for w in EXAMPLE_WORDS):
            problems.append(f"{op.op}: copies the prompt's example")
        else:
            kept.append(op)
    return kept, problems


def _prompt(units: list[RootUnit], memories: list[MemoryEntry], max_units: int) -> str:
    rows = [
        {
            "when": u.activation,
            "then": u.guidance,
            "evidence": "; ".join(e.fact for e in u.evidence[-3:]),
        }
        for u in units
    ]
    return batch_text(rows, [(clip(m.text, 300), m.said_at) for m in memories], max_units)


def ask(
    llm: LLM, messages: list[ChatMessage], attempts: int, max_tokens: int, meter: UsageMeter
) -> tuple[list[Op] | None, list[str], str]:
    """(operations, skipped-operation problems, last problem); operations is None when
    no attempt gave a valid reply."""
    problem, base = "", list(messages)
    for _ in range(attempts):
        meter.calls += 1
        try:
            # Without constrained decoding the prompt's own examples say the format better
            # than a raw schema, which a 135M model echoes back instead of answering.
            schema = SCHEMA if llm.supports_json_schema else None
            reply = llm.chat(messages, schema=schema, max_tokens=max_tokens)
        except ModelError as exc:  # a failed attempt; reported if all attempts fail
            problem = f"{type(exc).__name__}: {exc}"
            continue
        try:
            ops, skipped = parse_ops(extract_json(reply))
            return ops, skipped, ""
        except (ValueError, ValidationError) as exc:
            problem = str(exc).splitlines()[0][:300]
            messages = [
                *base,
                {"role": "assistant", "content": reply[:2000]},
                {
                    "role": "user",
                    "content": f"That reply was invalid ({problem}). Reply again with one "
                    'JSON object {"operations": [...]} and nothing else.',
                },
            ]
    return None, [], problem


class RootMemConsolidator(Consolidator):
    name = "rootmem"

    def consolidate(self, env: RouteEnv, scope: Scope) -> dict[str, Any]:
        cfg = env.rootmem
        stats: dict[str, Any] = {"memories": 0, "batches": 0, "failed_batches": 0}
        active = env.store.list_memories(scope)
        stats["pruned"] = self._prune(env, scope, {m.id for m in active})
        marks = RootMemRepository.of(env.store).marks(scope)
        todo = [m for m in active if marks.get(m.id, ("", 0))[0] not in ("done", "skipped")]
        stats["memories"] = len(todo)
        llm = env.llm() if todo else None
        if todo and llm is None:
            stats["note"] = "no LLM configured: root units need one (LOGICMEM_LLM)"
            env.store.record_event("rootmem_no_llm", scope.user_id, {"memories": len(todo)})
        if llm is not None:
            meter = UsageMeter(llm)
            for i in range(0, len(todo), cfg.batch):
                self._batch(env, scope, llm, todo[i : i + cfg.batch], marks, stats, meter)
            stats.update(meter.counts())
        stats["units"] = len(RootMemRepository.of(env.store).units(scope))
        return stats

    def _batch(
        self,
        env: RouteEnv,
        scope: Scope,
        llm: LLM,
        batch: list[MemoryEntry],
        marks: dict[str, tuple[str, int]],
        stats: dict[str, Any],
        meter: UsageMeter,
    ) -> None:
        cfg = env.rootmem
        units = RootMemRepository.of(env.store).units(scope)
        messages: list[ChatMessage] = [
            {"role": "system", "content": SYSTEM.format(max_units=cfg.max_units)},
            *EXAMPLE,
            {"role": "user", "content": _prompt(units, batch, cfg.max_units)},
        ]
        stats["batches"] += 1
        ops, skipped, problem = ask(llm, messages, cfg.attempts, cfg.max_tokens, meter)
        if ops is None:
            self._failed(env, scope, batch, marks, problem, stats)
            return
        ops, copied = drop_copies(ops)
        editor = BatchEditor(units, batch, cfg, scope, self._similarity(env, scope.user_id))
        outcome = editor.apply(ops)
        problems = skipped + copied + outcome.problems
        with env.store.transaction():
            RootMemRepository.of(env.store).add_units(outcome.versions)
            RootMemRepository.of(env.store).mark(scope, {m.id: ("done", 0) for m in batch})
        for key, value in outcome.counts.items():
            stats[key] = stats.get(key, 0) + value
        if problems:
            stats["ops_skipped"] = stats.get("ops_skipped", 0) + len(problems)
            detail = {"memories": [m.id for m in batch], "problems": problems[:10]}
            env.store.record_event("rootmem_ops_skipped", scope.user_id, detail)

    @staticmethod
    def _failed(
        env: RouteEnv,
        scope: Scope,
        batch: list[MemoryEntry],
        marks: dict[str, tuple[str, int]],
        problem: str,
        stats: dict[str, Any],
    ) -> None:
        stats["failed_batches"] += 1
        update: dict[str, tuple[str, int]] = {}
        for m in batch:
            failures = marks.get(m.id, ("", 0))[1] + 1
            state = "skipped" if failures >= env.rootmem.max_failures else "failed"
            update[m.id] = (state, failures)
        given_up = sum(1 for state, _ in update.values() if state == "skipped")
        stats["skipped_memories"] = stats.get("skipped_memories", 0) + given_up
        detail = {"memories": list(update), "problem": problem, "given_up": given_up}
        with env.store.transaction():
            env.store.record_event("rootmem_batch_failed", scope.user_id, detail)
            RootMemRepository.of(env.store).mark(scope, update)

    @staticmethod
    def _similarity(env: RouteEnv, user_id: str) -> Similarity:
        cache = VectorCache(env.store, env.embedder)

        def similarity(text: str, candidates: list[str]) -> list[float]:
            vectors = cache.vectors([text, *candidates], user_id)
            return [float(v) for v in vectors[1:] @ vectors[0]]

        return similarity

    @staticmethod
    def _prune(env: RouteEnv, scope: Scope, active: set[str]) -> int:
        """New versions without evidence whose memory was superseded or deleted; a unit
        left with no evidence is retired. Returns the number of units changed."""
        changed = []
        for unit in RootMemRepository.of(env.store).units(scope):
            kept = [e for e in unit.evidence if e.memory_id in active]
            if len(kept) == len(unit.evidence):
                continue
            gone = [e.memory_id for e in unit.evidence if e.memory_id not in active]
            unit.evidence, unit.version, unit.event = kept, unit.version + 1, "prune"
            unit.detail = {"removed": gone}
            unit.status = "active" if kept else "retired"
            changed.append(unit)
        if changed:
            RootMemRepository.of(env.store).add_units(changed)
        return len(changed)
