"""``add``: store raw turns first (one transaction), then extract, merge and supersede.

Order matters for safety: turns are committed before any model is called, so a crash
or an unreachable LLM never loses what the user said. Extraction failures are recorded
as events (``logicmem stats``) and fall back to the rule extractor.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable
from itertools import groupby
from typing import Protocol

import numpy as np

from logicmem.config import ExtractSettings
from logicmem.errors import ConfigError
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM
from logicmem.store.base import Store
from logicmem.types import AddResult, MemoryEntry, Scope, Turn
from logicmem.write.base import Candidate, ExtractionError, Extractor
from logicmem.write.categorize import PrototypeCategorizer
from logicmem.write.llm_extract import LLMExtractor
from logicmem.write.rules import RuleExtractor
from logicmem.write.supersede import conflicts, slots_of

NEIGHBOURS = 50  # existing memories checked for duplicates and supersession per candidate


class WriteHook(Protocol):
    """Called after new memories are committed (routes index them: criticality, keys)."""

    def on_added(self, scope: Scope, entries: list[MemoryEntry], vectors: np.ndarray) -> None: ...


class WritePipeline:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm_factory: Callable[[], LLM | None],
        settings: ExtractSettings,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._llm_factory = llm_factory
        self.rules = RuleExtractor(min_words=settings.min_words)
        self.categorizer = PrototypeCategorizer(embedder)
        self.hooks: list[WriteHook] = []

    def extractor(self) -> Extractor:
        """The configured extractor: the LLM one only when asked for, or when capable."""
        mode = self.settings.mode
        if mode == "rules":
            return self.rules
        llm = self._llm_factory()
        if llm is None:
            if mode == "llm":
                raise ConfigError(
                    "extract.mode is 'llm' but no LLM is configured: set LOGICMEM_LLM=openai "
                    "with LOGICMEM_LLM_BASE_URL and LOGICMEM_LLM_MODEL, or use mode 'rules'"
                )
            return self.rules
        if mode == "auto" and not llm.capable:
            return self.rules
        return LLMExtractor(llm, attempts=self.settings.llm_attempts)

    def add(self, turns: list[Turn], *, infer: bool = True) -> AddResult:
        self.store.bind_embedder(self.embedder.name, self.embedder.dims)
        new_turns = self.store.add_turns(turns)  # committed before any model call
        result = AddResult(turns=[t.turn_id for t in new_turns])
        if not new_turns:
            return result
        if not infer:
            result.extractor = "verbatim"
            candidates = [
                Candidate(t.text, t.speaker, [t.turn_id], t.session_id, t.said_at)
                for t in new_turns
                if t.role != "assistant"
            ]
        else:
            candidates = self._extract(new_turns, result)
        self._integrate(new_turns[0], candidates, result)
        return result

    def _extract(self, turns: list[Turn], result: AddResult) -> list[Candidate]:
        extractor = self.extractor()
        result.extractor = extractor.name
        out: list[Candidate] = []
        for session_id, group in groupby(turns, key=lambda t: t.session_id):
            batch = list(group)
            try:
                found = extractor.extract(batch)
            except ExtractionError as exc:
                result.failures += 1
                self.store.record_event(
                    "extraction_failure",
                    batch[0].user_id,
                    {"session": session_id, "turns": len(batch), "error": str(exc)},
                )
                found = self.rules.extract(batch)
                result.extractor = f"{extractor.name}+rules-fallback"
            else:
                if not found and extractor is not self.rules:
                    fallback = self.rules.extract(batch)
                    if fallback:
                        # An empty LLM answer for turns with content is a failure, not silence.
                        result.failures += 1
                        self.store.record_event(
                            "extraction_empty",
                            batch[0].user_id,
                            {"session": session_id, "turns": len(batch)},
                        )
                        found = fallback
            out.extend(found)
        return out

    def _integrate(self, first: Turn, candidates: list[Candidate], result: AddResult) -> None:
        if not candidates:
            return
        scope = Scope(first.user_id, first.agent_id, first.run_id)
        texts = [c.text for c in candidates]
        vectors = self.embedder.embed(texts)
        categories = self.categorizer.categorize(texts, vectors)
        ids, matrix = self.store.vectors(scope)
        existing = self.store.get_memories(self._neighbour_ids(ids, matrix, vectors))
        sims_to_existing = vectors @ matrix.T if len(ids) else np.zeros((len(texts), 0))
        added: list[tuple[MemoryEntry, np.ndarray]] = []
        merged_sources: dict[str, list[str]] = defaultdict(list)
        threshold = self.settings.dedup_threshold
        with self.store.transaction():
            for i, cand in enumerate(candidates):
                target = self._duplicate_of(i, vectors, sims_to_existing, ids, added, threshold)
                if target is not None:
                    merged_sources[target].extend(cand.source_turns)
                    continue
                entry = MemoryEntry(
                    id=uuid.uuid4().hex,
                    user_id=scope.user_id,
                    agent_id=scope.agent_id,
                    run_id=scope.run_id,
                    text=cand.text,
                    category=cand.category or categories[i],
                    said_at=cand.said_at,
                    session_id=cand.session_id,
                    source_turns=list(cand.source_turns),
                    metadata={"subject": cand.subject, **cand.extras},
                )
                slots = slots_of(entry.text)
                if slots:
                    entry.metadata["slots"] = slots
                self.store.add_memory(entry, vectors[i], {"extractor": result.extractor})
                result.added.append(entry)
                added.append((entry, vectors[i]))
                if slots:
                    result.superseded.extend(self._supersede(entry, existing, added))
            self._merge(merged_sources, result)
        new = [(m, v) for m, v in added if m.status == "active"]
        if new:
            for hook in self.hooks:
                hook.on_added(scope, [m for m, _ in new], np.vstack([v for _, v in new]))

    @staticmethod
    def _neighbour_ids(ids: list[str], matrix: np.ndarray, vectors: np.ndarray) -> list[str]:
        if not ids:
            return []
        sims = vectors @ matrix.T
        top = np.argsort(-sims, axis=1)[:, :NEIGHBOURS]
        return sorted({ids[j] for j in top.ravel()})

    @staticmethod
    def _duplicate_of(
        i: int,
        vectors: np.ndarray,
        sims_to_existing: np.ndarray,
        ids: list[str],
        added: list[tuple[MemoryEntry, np.ndarray]],
        threshold: float,
    ) -> str | None:
        if sims_to_existing.shape[1]:
            j = int(np.argmax(sims_to_existing[i]))
            if sims_to_existing[i, j] >= threshold:
                return ids[j]
        for entry, vector in added:
            if float(vector @ vectors[i]) >= threshold:
                return entry.id
        return None

    def _supersede(
        self,
        entry: MemoryEntry,
        existing: dict[str, MemoryEntry],
        added: list[tuple[MemoryEntry, np.ndarray]],
    ) -> list[str]:
        """Mark older memories of the same subject with a conflicting slot as superseded."""
        subject = entry.metadata.get("subject")
        older = [m for m in existing.values() if m.status == "active"]
        older += [m for m, _ in added if m.id != entry.id and m.status == "active"]
        done = []
        for old in older:
            if old.metadata.get("subject") != subject:
                continue
            if (old.said_at or "") > (entry.said_at or "~"):
                continue  # an older statement arriving late does not replace a newer one
            slots = conflicts(entry.text, old.text)
            if slots:
                self.store.supersede(old.id, entry.id, {"slots": slots})
                old.status = "superseded"
                done.append(old.id)
        return done

    def _merge(self, merged_sources: dict[str, list[str]], result: AddResult) -> None:
        for memory_id, sources in merged_sources.items():
            current = self.store.get_memory(memory_id)
            if current is None:
                continue
            union = list(dict.fromkeys([*current.source_turns, *sources]))
            if union != current.source_turns:
                self.store.update_memory(
                    memory_id,
                    event="MERGE",
                    source_turns=union,
                    detail={"added_turns": [s for s in sources if s not in current.source_turns]},
                )
            result.merged.append(memory_id)
