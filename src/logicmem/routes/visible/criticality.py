"""Is a memory a standing constraint that can change future advice, and of what type?

Without an LLM: the fact patterns of the knowledge resource (exact, after normalising
person and plurals), then embedding prototypes (``data/criticality.json`` plus every
fact pattern) against ordinary-life prototypes. With a capable LLM: one batched call per
write that also proposes the situations where each constraint will matter.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from logicmem.errors import ModelError
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM, extract_json
from logicmem.routes.visible.kb import KnowledgeBase
from logicmem.store.base import Store

DENSE_MIN = 0.55  # cosine to the nearest critical prototype
DENSE_MARGIN = 0.05  # ... and that much closer than to any ordinary prototype
LINK_MIN = 0.5  # cosine to a fact pattern that links a memory to a knowledge entry
TYPED_LINK_MIN = 0.35  # ... when the entry is of the type the prototypes chose


@dataclass
class Assessment:
    critical: bool
    score: float = 0.0
    ctype: str = ""
    reason: str = ""
    source: str = ""
    entries: list[str] = field(default_factory=list)
    situations: list[str] = field(default_factory=list)


class VectorCache:
    """Embeds texts once per store (the store is bound to one embedder); package data
    (prototypes, fact patterns) once per machine, in the user cache directory."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store, self.embedder = store, embedder

    def shared_vectors(self, texts: list[str]) -> np.ndarray:
        digest = hashlib.sha256("\n".join([self.embedder.name, *texts]).encode()).hexdigest()
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "logicmem" / f"vectors-{digest[:20]}.npy"
        if path.exists():
            try:
                cached = np.load(path)
                if cached.shape == (len(texts), self.embedder.dims):
                    return cached.astype(np.float32)
            except (OSError, ValueError):
                pass  # a damaged cache file is recomputed below
        vectors = self.embedder.embed(texts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, vectors)
            tmp.replace(path)
        except OSError:
            pass  # a read-only cache only costs time
        return vectors

    def vectors(self, texts: list[str]) -> np.ndarray:
        known = self.store.cached_vectors(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = self.embedder.embed(missing)
            self.store.cache_vectors(missing, fresh)
            known.update(zip(missing, fresh, strict=True))
        if not texts:
            return np.zeros((0, self.embedder.dims), dtype=np.float32)
        return np.vstack([known[t] for t in texts]).astype(np.float32)


class CriticalityAssessor:
    def __init__(self, kb: KnowledgeBase, cache: VectorCache) -> None:
        self.kb = kb
        self.cache = cache
        self._protos: tuple[np.ndarray, list[tuple[str, str]], np.ndarray] | None = None

    def _prototypes(self) -> tuple[np.ndarray, list[tuple[str, str]], np.ndarray]:
        """Critical vectors with (type, entry id or ""), and ordinary vectors."""
        if self._protos is None:
            raw = json.loads(
                resources.files("logicmem.data").joinpath("criticality.json").read_text()
            )
            labels: list[tuple[str, str]] = []
            texts: list[str] = []
            for ctype, sentences in raw["critical"].items():
                for sentence in sentences:
                    labels.append((ctype, ""))
                    texts.append(sentence)
            for entry_id, pattern in self.kb.patterns():
                labels.append((self.kb.entries[entry_id].type, entry_id))
                texts.append(pattern)
            both = self.cache.shared_vectors(texts + list(raw["ordinary"]))
            self._protos = (both[: len(texts)], labels, both[len(texts) :])
        return self._protos

    def assess(self, texts: list[str], vectors: np.ndarray) -> list[Assessment]:
        if not texts:
            return []
        critical, labels, ordinary = self._prototypes()
        crit_sims = vectors @ critical.T
        ord_best = (vectors @ ordinary.T).max(axis=1)
        out = []
        for i, text in enumerate(texts):
            linked = self._linked_entries(crit_sims[i], labels)
            matches = self.kb.match_facts(text)
            if matches:
                # Embedding neighbours join a stated match only when of the same type:
                # "on probation" is not "in my probationary period" at a new job.
                types = {e.type for e, _ in matches}
                same = [j for j in linked if self.kb.entries[j].type in types]
                entries = list(dict.fromkeys([e.id for e, _ in matches] + same))
                entry, pattern = matches[0]
                out.append(Assessment(True, 1.0, entry.type, f"states '{pattern}'", "kb", entries))
                continue
            j = int(np.argmax(crit_sims[i]))
            best = float(crit_sims[i, j])
            if best >= DENSE_MIN and best - float(ord_best[i]) >= DENSE_MARGIN:
                ctype = labels[j][0]
                reason = f"resembles a {ctype.replace('_', ' ')} constraint ({best:.2f})"
                linked = linked or self._typed_entries(crit_sims[i], labels, ctype)
                out.append(Assessment(True, best, ctype, reason, "prototype", linked))
            else:
                out.append(Assessment(False, best))
        return out

    def _typed_entries(
        self, sims: np.ndarray, labels: list[tuple[str, str]], ctype: str
    ) -> list[str]:
        """Entries of the constraint's type closest to the memory: a short pattern
        ("two-seater") is far from a full sentence in embedding space even when it is the
        same fact, and the type the prototypes agreed on keeps the looser link precise."""
        order = np.argsort(-sims)[:60]
        linked = [
            labels[j][1]
            for j in order
            if sims[j] >= TYPED_LINK_MIN and labels[j][1] and labels[j][0] == ctype
        ]
        return list(dict.fromkeys(linked))[:2]

    def _linked_entries(self, sims: np.ndarray, labels: list[tuple[str, str]]) -> list[str]:
        order = np.argsort(-sims)[:10]
        linked = [labels[j][1] for j in order if sims[j] >= LINK_MIN and labels[j][1]]
        return list(dict.fromkeys(linked))[:3]


LLM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "index": {"type": "integer"},
                    "critical": {"type": "boolean"},
                    "type": {"type": "string"},
                    "situations": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["index", "critical"],
            },
        }
    },
    "required": ["items"],
}

LLM_PROMPT = """For each numbered memory about a user, decide whether it is a standing
constraint that can change future advice (health conditions, allergies, medications,
pregnancy, disabilities, dietary or religious rules, dependants and their ages, pets,
legal or immigration status, rules of their job, financial obligations, recovery,
housing rules, vehicles...). For each critical one give its type (one or two words) and
10-30 short everyday situations, objects, foods, products or activities in which it will
matter even though a request would not mention it (e.g. tree-nut allergy: macarons,
pesto, baklava, granola). Reply as JSON {"items": [{"index", "critical", "type",
"situations"}]}.

"""


def assess_with_llm(llm: LLM, texts: list[str]) -> list[Assessment | None]:
    """The LLM's judgement per text (None where it said nothing). Raises ModelError."""
    numbered = "\n".join(f"{i}. {t}" for i, t in enumerate(texts))
    reply = llm.chat([{"role": "user", "content": LLM_PROMPT + numbered}], schema=LLM_SCHEMA)
    try:
        items = extract_json(reply)["items"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"criticality reply was not valid JSON: {exc}") from None
    out: list[Assessment | None] = [None] * len(texts)
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("index"), int):
            continue
        i = item["index"]
        if 0 <= i < len(texts):
            situations = [str(s).strip().lower() for s in item.get("situations") or []]
            ctype = str(item.get("type") or "other").strip().lower().replace(" ", "_")
            out[i] = Assessment(
                bool(item.get("critical")),
                1.0 if item.get("critical") else 0.0,
                ctype,
                f"judged a {ctype.replace('_', ' ')} constraint by {llm.name}",
                "llm",
                [],
                [s for s in situations if s][:40],
            )
    return out
