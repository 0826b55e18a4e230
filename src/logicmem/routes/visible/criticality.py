"""Is a memory a standing constraint that can change future advice, and of what type?

Without an LLM: the fact patterns of the knowledge resource (exact, after normalising
person and plurals), then a logistic-regression classifier over sentence embeddings,
trained when first needed (well under a second; the examples' vectors are cached per
machine) on ``data/criticality.json`` and ``data/criticality_examples.json``: sentences
authored from general knowledge, with any close to a development item removed
(``scripts/decontaminate_examples.py``); or a prototype (a per-type sentence or a fact
pattern) close enough on its own and closer than to any ordinary example, as before the
classifier existed. The nearest prototype names the type and the knowledge entries. A
memory of advice or praise given to others (``text.gives_advice``) is never a constraint.
With a capable LLM: one batched call per write that also proposes the situations where
each constraint will matter.
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
from logicmem.routes.visible.text import gives_advice
from logicmem.store.base import Store

NEAR_MIN = 0.55  # cosine to the nearest prototype that alone makes a memory critical
NEAR_MARGIN = 0.05  # ... when that much closer than to any ordinary example
P_MIN = 0.3  # default of visibility.critical_min: best F1 in 5-fold CV on the examples
L2 = 0.03  # ridge penalty of the classifier (on the weighted mean loss), chosen by 5-fold CV
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


@dataclass
class Classifier:
    """p(critical | embedding) = sigmoid(v . w + b)."""

    w: np.ndarray
    b: float

    def proba(self, vectors: np.ndarray) -> np.ndarray:
        z = np.clip(vectors @ self.w + self.b, -30.0, 30.0)
        result: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return result


def train_classifier(x: np.ndarray, y: np.ndarray, l2: float = L2) -> Classifier:
    """Class-balanced, L2-regularised logistic regression by Newton's method: exact,
    deterministic, a few iterations on a few thousand examples of 384 dimensions."""
    n, d = x.shape
    xb = np.hstack([x.astype(np.float64), np.ones((n, 1))])
    pos = float(y.sum())
    weight = np.where(y > 0, n / (2 * max(pos, 1.0)), n / (2 * max(n - pos, 1.0))) / n
    reg = np.full(d + 1, l2 / n)
    reg[-1] = 0.0  # the bias is not penalised
    theta = np.zeros(d + 1)
    for _ in range(25):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ theta, -30, 30)))
        grad = xb.T @ (weight * (p - y)) + reg * theta
        hess = (xb * (weight * p * (1 - p))[:, None]).T @ xb + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-7:
            break
    return Classifier(theta[:-1].astype(np.float32), float(theta[-1]))


def _authored(name: str) -> dict[str, Any]:
    path = resources.files("logicmem.data").joinpath(name)
    result: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    return result


def prototypes(kb: KnowledgeBase) -> tuple[list[str], list[tuple[str, str]]]:
    """The sentences that name a memory's type and knowledge entries, each with its
    (type, entry id or ""): one short list per type (``criticality.json``) and every fact
    pattern of the knowledge resource."""
    texts: list[str] = []
    labels: list[tuple[str, str]] = []
    for ctype, sentences in _authored("criticality.json")["critical"].items():
        texts.extend(sentences)
        labels.extend((ctype, "") for _ in sentences)
    for entry_id, pattern in kb.patterns():
        texts.append(pattern)
        labels.append((kb.entries[entry_id].type, entry_id))
    return texts, labels


def training_examples(kb: KnowledgeBase) -> tuple[list[str], list[str]]:
    """(critical, ordinary) sentences the classifier learns from: the prototypes and the
    larger authored set ``criticality_examples.json``."""
    critical, _ = prototypes(kb)
    extra = _authored("criticality_examples.json")
    critical.extend(s for sentences in extra.get("critical", {}).values() for s in sentences)
    ordinary = [*_authored("criticality.json")["ordinary"], *extra.get("ordinary", [])]
    return list(dict.fromkeys(critical)), list(dict.fromkeys(ordinary))


@dataclass
class _Prototypes:
    critical: np.ndarray  # prototype vectors ...
    labels: list[tuple[str, str]]  # ... with their (type, entry id or "")
    ordinary: np.ndarray  # the ordinary-life examples (criticality.json and the authored set)
    classifier: Classifier


class CriticalityAssessor:
    def __init__(self, kb: KnowledgeBase, cache: VectorCache, threshold: float = P_MIN) -> None:
        self.kb = kb
        self.cache = cache
        self.threshold = threshold
        self._protos: _Prototypes | None = None

    def _prototypes(self) -> _Prototypes:
        if self._protos is None:
            texts, labels = prototypes(self.kb)
            critical, ordinary = training_examples(self.kb)
            # One embedding pass: the prototypes and the ordinary prototypes are part of
            # the training examples.
            x = self.cache.shared_vectors(critical + ordinary)
            row = {t: i for i, t in enumerate(critical + ordinary)}
            y = np.r_[np.ones(len(critical)), np.zeros(len(ordinary))]
            self._protos = _Prototypes(
                x[[row[t] for t in texts]],
                labels,
                x[[row[t] for t in ordinary]],
                train_classifier(x, y),
            )
        return self._protos

    def assess(self, texts: list[str], vectors: np.ndarray) -> list[Assessment]:
        if not texts:
            return []
        protos = self._prototypes()
        labels = protos.labels
        crit_sims = vectors @ protos.critical.T
        ord_best = (vectors @ protos.ordinary.T).max(axis=1)
        probs = protos.classifier.proba(vectors)
        out = []
        for i, text in enumerate(texts):
            if gives_advice(text):
                out.append(Assessment(False, 0.0))
                continue
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
            # Either rule: the classifier, or a prototype close enough on its own.
            j = int(np.argmax(crit_sims[i]))
            near, p = float(crit_sims[i, j]), float(probs[i])
            ctype = labels[j][0]
            kind = ctype.replace("_", " ")
            if p >= self.threshold:
                assessment = Assessment(
                    True, p, ctype, f"classified as a {kind} constraint (p={p:.2f})", "classifier"
                )
            elif near >= NEAR_MIN and near - float(ord_best[i]) >= NEAR_MARGIN:
                assessment = Assessment(
                    True, near, ctype, f"resembles a {kind} constraint ({near:.2f})", "prototype"
                )
            else:
                out.append(Assessment(False, p))
                continue
            assessment.entries = linked or self._typed_entries(crit_sims[i], labels, ctype)
            out.append(assessment)
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
