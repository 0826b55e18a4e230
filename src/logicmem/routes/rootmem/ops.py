"""Construction operations Φ_C may return, validated, and applied to one batch.

The reply must be ``{"operations": [...]}`` (else the batch is retried, then failed).
Each operation is checked on its own: one that names an unknown unit or memory, or has
no text, is skipped and counted, so a weak model's partly valid reply still helps and
never leaves anything half-applied (the caller writes the result in one transaction).

Order within a batch: merges, then refines and enrichments, then creations. A creation
beyond the budget K enriches the most similar unit instead. Units whose evidence then
overlaps by ``merge_overlap`` (Jaccard) are merged without asking.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import BaseModel, ValidationError, field_validator

from logicmem.config import RootMemSettings
from logicmem.routes.rootmem.repo import RootUnit, UnitEvidence
from logicmem.routes.rootmem.units import (
    MAX_FACT_CHARS,
    MAX_RULE_CHARS,
    clip,
    label_number,
    rules_text,
)
from logicmem.types import MemoryEntry, Scope

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["create", "enrich", "refine", "merge"]},
                    "unit": {"type": "string"},
                    "units": {"type": "array", "items": {"type": "string"}},
                    "when": {"type": "string"},
                    "then": {"type": "string"},
                    "evidence": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["op"],
            },
        }
    },
    "required": ["operations"],
}

Similarity = Callable[[str, list[str]], list[float]]
"""(text, candidate texts) -> a similarity per candidate (cosine of embeddings)."""


class Op(BaseModel):
    op: Literal["create", "enrich", "refine", "merge"]
    unit: str | int | None = None
    units: list[str | int] = []
    when: str = ""
    then: str = ""
    evidence: list[str | int] = []

    @field_validator("op", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class Reply(BaseModel):
    operations: list[dict[str, Any]]


def parse_ops(raw: Any) -> tuple[list[Op], list[str]]:
    """Valid operations and a problem line for each skipped one. Raises ValidationError
    when the reply is not ``{"operations": [...]}`` at all."""
    reply = Reply.model_validate(raw)
    ops, problems = [], []
    for item in reply.operations:
        try:
            ops.append(Op.model_validate(item))
        except ValidationError as exc:
            problems.append(f"invalid operation {str(item)[:120]}: {exc.errors()[0]['msg']}")
    return ops, problems


@dataclass
class _Draft:
    unit: RootUnit
    base_version: int  # 0 for a unit created in this batch
    events: list[str] = field(default_factory=list)
    merged_into: str | None = None


@dataclass
class Outcome:
    """What one batch changes: new unit versions, counts and skipped operations."""

    versions: list[RootUnit]
    counts: dict[str, int]
    problems: list[str]


class BatchEditor:
    """Applies one batch's operations to a working copy of the scope's units."""

    def __init__(
        self,
        units: list[RootUnit],
        memories: list[MemoryEntry],
        settings: RootMemSettings,
        scope: Scope,
        similarity: Similarity,
    ) -> None:
        self.drafts = [_Draft(replace(u, evidence=list(u.evidence)), u.version) for u in units]
        self.memories = memories
        self.cfg = settings
        self.scope = scope
        self.similarity = similarity
        self.counts = {k: 0 for k in ("created", "enriched", "refined", "merged", "redirected")}
        self.problems: list[str] = []

    # -- lookups --------------------------------------------------------------------------
    def _active(self) -> list[_Draft]:
        return [d for d in self.drafts if d.merged_into is None]

    def _unit(self, label: Any) -> _Draft | None:
        """U<n> as numbered in the prompt (the units at the start of the batch)."""
        n = label_number(label, "U")
        if n is None or not 1 <= n <= len(self.drafts):
            return None
        draft = self.drafts[n - 1]
        while draft.merged_into is not None:  # follow merges made earlier in this batch
            draft = next(d for d in self.drafts if d.unit.unit_id == draft.merged_into)
        return draft

    def _evidence(self, labels: list[str | int]) -> list[UnitEvidence]:
        out = []
        for label in labels:
            n = label_number(label, "M")
            if n is not None and 1 <= n <= len(self.memories):
                m = self.memories[n - 1]
                out.append(UnitEvidence(m.id, clip(m.text, MAX_FACT_CHARS)))
        return out

    def _skip(self, op: Op, why: str) -> None:
        self.problems.append(f"{op.op}: {why}")

    # -- operations -----------------------------------------------------------------------
    def apply(self, ops: list[Op]) -> Outcome:
        order = {"merge": 0, "refine": 1, "enrich": 1, "create": 2}
        for op in sorted(ops, key=lambda o: order[o.op]):
            getattr(self, f"_{op.op}")(op)
        self._auto_merge()
        return Outcome(self._versions(), self.counts, self.problems)

    def _merge(self, op: Op) -> None:
        found = [self._unit(label) for label in op.units]
        drafts = list({id(d): d for d in found if d is not None}.values())
        if len(drafts) < 2:
            return self._skip(op, f"needs two known units, got {op.units!r}")
        self._fold(drafts[0], drafts[1:], op.when, op.then)

    def _fold(self, keep: _Draft, others: list[_Draft], when: str, then: str) -> None:
        for other in others:
            keep.unit.evidence += other.unit.evidence
            other.merged_into = keep.unit.unit_id
            other.events.append("merged")
            self.counts["merged"] += 1
        if when.strip():
            keep.unit.activation = clip(when, MAX_RULE_CHARS)
        if then.strip():
            keep.unit.guidance = clip(then, MAX_RULE_CHARS)
        keep.events.append("merge")

    def _refine(self, op: Op) -> None:
        draft = self._unit(op.unit)
        if draft is None or not (op.when.strip() or op.then.strip()):
            return self._skip(op, f"unknown unit {op.unit!r} or no new rule text")
        if op.when.strip():
            draft.unit.activation = clip(op.when, MAX_RULE_CHARS)
        if op.then.strip():
            draft.unit.guidance = clip(op.then, MAX_RULE_CHARS)
        draft.events.append("refine")
        self.counts["refined"] += 1
        if op.evidence:
            self._enrich(op)

    def _enrich(self, op: Op) -> None:
        draft, evidence = self._unit(op.unit), self._evidence(op.evidence)
        if draft is None or not evidence:
            return self._skip(op, f"unknown unit {op.unit!r} or no known memory label")
        draft.unit.evidence += evidence
        draft.events.append("enrich")
        self.counts["enriched"] += 1

    def _create(self, op: Op) -> None:
        evidence = self._evidence(op.evidence)
        if not (op.when.strip() and op.then.strip() and evidence):
            return self._skip(op, "a new unit needs when, then and known evidence labels")
        active = self._active()
        if len(active) >= self.cfg.max_units:
            # At the budget: the evidence joins the closest unit rather than being lost.
            sims = self.similarity(f"{op.when} {op.then}", [rules_text(d.unit) for d in active])
            closest = active[max(range(len(active)), key=sims.__getitem__)]
            closest.unit.evidence += evidence
            closest.events.append("enrich")
            self.counts["redirected"] += 1
            return None
        unit = RootUnit(
            unit_id=f"ru-{uuid.uuid4().hex[:12]}",
            user_id=self.scope.user_id,
            agent_id=self.scope.agent_id,
            run_id=self.scope.run_id,
            activation=clip(op.when, MAX_RULE_CHARS),
            guidance=clip(op.then, MAX_RULE_CHARS),
            evidence=evidence,
        )
        self.drafts.append(_Draft(unit, 0, ["create"]))
        self.counts["created"] += 1
        return None

    def _auto_merge(self) -> None:
        merged = True
        while merged:
            merged = False
            active = self._active()
            for i, a in enumerate(active):
                for b in active[i + 1 :]:
                    ea = {e.memory_id for e in a.unit.evidence}
                    eb = {e.memory_id for e in b.unit.evidence}
                    if ea and eb and len(ea & eb) / len(ea | eb) >= self.cfg.merge_overlap:
                        self._fold(a, [b], "", "")
                        merged = True
                        break
                if merged:
                    break

    # -- result ---------------------------------------------------------------------------
    def _versions(self) -> list[RootUnit]:
        out = []
        for d in self.drafts:
            if not d.events:
                continue
            unit = d.unit
            unique = list({e.memory_id: e for e in unit.evidence}.values())
            unit.evidence = unique[-self.cfg.max_evidence :]  # the newest evidence
            unit.version = d.base_version + 1
            unit.event = "+".join(dict.fromkeys(d.events))
            unit.detail = {}
            if d.merged_into is not None:
                unit.status, unit.detail = "merged", {"into": d.merged_into}
            out.append(unit)
        return out
