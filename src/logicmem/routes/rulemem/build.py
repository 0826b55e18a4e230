"""The ``rulemem`` consolidator: new memories -> quadruples -> paths -> rules -> RPC.

Incremental: a watermark (the position of the last memory taken in, per user and scope)
says where the next run starts. Each batch of ``batch`` memories is computed first
(model calls, no writes) and then written in one transaction together with the new
watermark, so a batch is applied whole or not at all. A batch that fails (the LLM or
the store raised) is recorded as a ``rulemem_batch_failed`` event and tried again up to
``attempts`` times; if it still fails, the run stops there and the next run resumes at
the same batch.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from logicmem.errors import LogicmemError
from logicmem.models.llm.base import LLM
from logicmem.routes.base import Consolidator, RouteEnv
from logicmem.routes.rulemem import facts, induce, rpc
from logicmem.routes.rulemem.repo import HornRule, Quad, RuleMemRepository
from logicmem.routes.rulemem.walks import Graph, mine_paths
from logicmem.types import MemoryEntry, Scope

Record = Callable[[str, dict[str, Any]], None]
"""Records an event for the user (``store.record_event``)."""


@dataclass
class _Batch:
    """Everything one batch will write, computed before the transaction opens."""

    quads: list[Quad]
    quad_vectors: np.ndarray
    rules: list[HornRule] = field(default_factory=list)
    head_vectors: np.ndarray | None = None
    counts: Counter[str] = field(default_factory=Counter)


def rule_id(scope: Scope, body: list[str], head: str) -> str:
    """Stable id: the same rule induced again (any path) merges into one row."""
    norm = [" ".join(t.lower().split()) for t in (*body, head)]
    blob = json.dumps([scope.user_id, scope.agent_id, scope.run_id, norm])
    return "r" + hashlib.sha256(blob.encode()).hexdigest()[:16]


class RuleMemConsolidator(Consolidator):
    name = "rulemem"

    def consolidate(self, env: RouteEnv, scope: Scope) -> dict[str, Any]:
        cfg = env.rulemem
        llm = env.llm()
        writer = llm if cfg.use_llm == "auto" and llm is not None and llm.capable else None

        def record(kind: str, detail: dict[str, Any]) -> None:
            env.store.record_event(kind, scope.user_id, detail)

        logliks = rpc.Logliks(llm, cfg.rpc_provider, record)
        stats: Counter[str] = Counter()
        while True:
            mark = RuleMemRepository.of(env.store).watermark(scope)
            batch = env.store.memories_after(scope, mark, cfg.batch)
            if not batch:
                break
            if not self._run_batch(env, scope, batch, writer, logliks, stats, record):
                break
        stats["loglik_calls"] = logliks.calls
        return {"inducer": writer.name if writer else "template", **stats}

    def _run_batch(
        self,
        env: RouteEnv,
        scope: Scope,
        batch: list[tuple[int, MemoryEntry]],
        writer: LLM | None,
        logliks: rpc.Logliks,
        stats: Counter[str],
        record: Record,
    ) -> bool:
        memories = [m for _, m in batch]
        for attempt in range(1, env.rulemem.attempts + 1):
            try:
                work = self._compute(env, scope, memories, writer, logliks, record)
                self._apply(env, scope, work, batch[-1][0])
            except LogicmemError as exc:
                stats["failures"] += 1
                record(
                    "rulemem_batch_failed",
                    {"attempt": attempt, "after": batch[0][0] - 1, "error": str(exc)[:300]},
                )
                continue
            stats.update(work.counts)
            stats["batches"] += 1
            stats["memories"] += len(memories)
            return True
        return False

    def _compute(
        self,
        env: RouteEnv,
        scope: Scope,
        memories: list[MemoryEntry],
        writer: LLM | None,
        logliks: rpc.Logliks,
        record: Record,
    ) -> _Batch:
        cfg = env.rulemem
        got = facts.extract(writer, memories)
        work = _Batch(got.quads, env.embedder.embed([q.text() for q in got.quads]))
        work.counts.update(
            facts=len(got.quads),
            facts_llm=got.by_llm,
            facts_rules=got.by_rules,
            malformed=got.malformed,
            llm_calls=got.llm_calls,
        )
        old, _ = RuleMemRepository.of(env.store).quads(scope)
        graph = Graph.build([*old, *got.quads])
        paths = mine_paths(graph, [q.id for q in got.quads], cfg.walks, cfg.walk_length, cfg.seed)
        paths = paths[: cfg.paths_per_batch]
        work.counts["paths"] += len(paths)
        if writer is not None:
            ids = {m for p in paths for m in p.memory_ids()}
            texts = {m.id: m.text for m in env.store.get_memories(list(ids)).values()}
            induced = induce.llm_rules(writer, paths, texts)
        else:
            induced = induce.template_rules(paths)
        work.counts.update(
            malformed=induced.malformed, filtered=induced.filtered, llm_calls=induced.llm_calls
        )
        if got.malformed or induced.malformed:
            # Skipped, not fatal; recorded so that `logicmem stats` shows the LLM misbehaving.
            record("rulemem_malformed", {"facts": got.malformed, "rules": induced.malformed})
        work.rules = self._validate(env, scope, induced.rules, logliks, work.counts, record)
        work.head_vectors = env.embedder.embed([r.head for r in work.rules])
        return work

    def _validate(
        self,
        env: RouteEnv,
        scope: Scope,
        candidates: list[induce.Induced],
        logliks: rpc.Logliks,
        counts: Counter[str],
        record: Record,
    ) -> list[HornRule]:
        cfg = env.rulemem
        rules: dict[str, HornRule] = {}
        evidence = _held_out(env, scope, candidates, cfg.evidence_k)
        empty: dict[str, float] = {}
        unscored = 0
        for cand, held in zip(candidates, evidence, strict=True):
            rid = rule_id(scope, cand.body, cand.head)
            sources = cand.path.memory_ids()
            if rid in rules:  # the same rule from another path of this batch
                rules[rid].support += 1
                rules[rid].source_memories = list(
                    dict.fromkeys(rules[rid].source_memories + sources)
                )
                continue
            rule = HornRule(
                rid, scope.user_id, cand.body, cand.head, source_memories=sources,
                inducer=cand.inducer, agent_id=scope.agent_id, run_id=scope.run_id,
                detail={"path": [q.id for q in cand.path.facts], "evidence": held},
            )  # fmt: skip
            try:
                score = rpc.validate(logliks, cand.body, cand.head, held, cfg.alpha, empty)
            except rpc.Unavailable:
                unscored += 1
            else:
                rule.delta_self, rule.delta_fact = score.delta_self, score.delta_fact
                rule.score = score.score
                rule.status = "admitted" if score.score >= cfg.tau else "rejected"
                rule.detail["rpc"] = score.detail()
            counts[rule.status] += 1
            rules[rid] = rule
        if unscored:
            record("rulemem_rules_unvalidated", {"rules": unscored})
        counts["rules_induced"] += len(candidates)
        return list(rules.values())

    @staticmethod
    def _apply(env: RouteEnv, scope: Scope, work: _Batch, position: int) -> None:
        with env.store.transaction():
            if work.quads:
                RuleMemRepository.of(env.store).add_quads(
                    scope.user_id, work.quads, work.quad_vectors
                )
            vectors = work.head_vectors if work.head_vectors is not None else np.zeros((0, 0))
            for rule, vector in zip(work.rules, vectors, strict=True):
                if not RuleMemRepository.of(env.store).upsert_rule(rule, vector):
                    work.counts["rules_merged"] += 1
            RuleMemRepository.of(env.store).set_watermark(scope, position)


def _held_out(
    env: RouteEnv, scope: Scope, candidates: list[induce.Induced], k: int
) -> list[list[str]]:
    """Per rule: texts of the ``k`` memories closest to its body, minus its own sources."""
    if k == 0 or not candidates:
        return [[] for _ in candidates]
    ids, matrix = env.store.vectors(scope)
    if not ids:
        return [[] for _ in candidates]
    sims = env.embedder.embed(["; ".join(c.body) for c in candidates]) @ matrix.T
    picks = []
    for cand, row in zip(candidates, sims, strict=True):
        own = set(cand.path.memory_ids())
        picks.append([ids[j] for j in np.argsort(-row) if ids[j] not in own][:k])
    entries = env.store.get_memories([i for p in picks for i in p])
    return [[entries[i].text for i in p if i in entries] for p in picks]
